#include "gpusel/memory/reserve.hpp"

#include <optional>

#include "gpusel/data/constants.hpp"
#include "gpusel/i18n/i18n.hpp"
#include "gpusel/memory/estimator.hpp"

namespace gpusel {
namespace {

// llama.cpp's margin in bytes where it replaces the default reserve; none otherwise.
std::optional<double> engine_margin(const Workload& w, const Gpu& gpu, const Reserve& given) {
  if (given.fraction >= 0 || gpu.unified_memory || is_training(w.mode) ||
      !is_llama_cpp(engine_of(w)))
    return std::nullopt;
  return data_constant("llama_cpp_fit_margin_bytes");
}

}  // namespace

Reserve engine_reserve(const Workload& w, const Gpu& gpu, const Reserve& given) {
  const auto margin = engine_margin(w, gpu, given);
  if (!margin) return given;
  return Reserve{0, *margin, given.os,
                 trf("{:.0f} MiB per card: llama.cpp's --fit margin", *margin / 1048576)};
}

double usable_for(const Workload& w, const Gpu& gpu, const Reserve& given) {
  const auto margin = engine_margin(w, gpu, given);
  return usable_bytes(gpu, margin ? Reserve{0, *margin, given.os, ""} : given);
}

}  // namespace gpusel
