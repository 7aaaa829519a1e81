#include "gpusel/memory/reserve.hpp"

#include "gpusel/data/constants.hpp"
#include "gpusel/i18n/i18n.hpp"
#include "gpusel/memory/estimator.hpp"

namespace gpusel {

Reserve engine_reserve(const Workload& w, const Gpu& gpu, const Reserve& given) {
  if (given.fraction >= 0 || gpu.unified_memory || is_training(w.mode) ||
      !is_llama_cpp(engine_of(w)))
    return given;
  const double margin = data_constant("llama_cpp_fit_margin_bytes");
  return Reserve{0, margin, given.os,
                 trf("{:.0f} MiB per card: llama.cpp's --fit margin", margin / 1048576)};
}

}  // namespace gpusel
