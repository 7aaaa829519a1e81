#include "gpusel/memory/fit.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"

namespace gpusel {
namespace {

[[noreturn]] void bad_reserve(std::string_view text) {
  throw usage_error("invalid --reserve '" + std::string(text) +
                    "' (expected a share like 10% or 0.1, or an amount like 2GB, 1.5GiB, 512MiB)");
}

double unit_scale(std::string_view unit) {
  const std::string u = to_lower(unit);
  if (u == "gb" || u == "g") return 1e9;
  if (u == "gib") return 1073741824.0;
  if (u == "mb" || u == "m") return 1e6;
  if (u == "mib") return 1048576.0;
  return 0;
}

}  // namespace

Reserve parse_reserve(std::string_view text) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || text.empty() || text.front() == '-' || !std::isfinite(v))
    bad_reserve(text);
  const std::string_view unit(end, std::size_t(text.data() + text.size() - end));
  Reserve r;
  if (unit == "%") {
    if (v >= 100) bad_reserve(text);
    r.fraction = v / 100;
  } else if (unit.empty()) {
    if (v >= 1) bad_reserve(text);  // a bare number is a share; amounts need a unit
    r.fraction = v;
  } else if (double s = unit_scale(unit); s > 0) {
    r.fraction = 0;
    r.bytes = v * s;
  } else {
    bad_reserve(text);
  }
  return r;
}

std::string describe(const Reserve& r) {
  char buf[64];
  if (r.fraction < 0) return describe(Reserve{estimator_constant("default_reserve_fraction")});
  if (r.fraction > 0 || r.bytes <= 0)
    std::snprintf(buf, sizeof buf, "%g%% of VRAM", r.fraction * 100);
  else
    std::snprintf(buf, sizeof buf, "%.2f GB", r.bytes / 1e9);
  return buf;
}

Reserve default_reserve(const Gpu& gpu) {
  // macOS lets the GPU wire only part of unified memory; discrete cards lose the engines'
  // customary 10 % (K2).
  return Reserve{estimator_constant(gpu.unified_memory ? "unified_memory_reserve_fraction"
                                                       : "default_reserve_fraction")};
}

bool gddr_ecc_on(const Gpu& gpu) {
  // Datacenter GDDR cards ship with ECC on, and GDDR keeps its check bits in the same chips
  // (HBM has side-band ECC and loses nothing).
  return gpu.ecc && gpu.segment == "datacenter" && gpu.memory_type.rfind("GDDR", 0) == 0;
}

double vram_bytes(const Gpu& gpu) {
  // Marketed GPU memory is binary: a "24 GB" card has 24576 MiB, an "80 GB" one reports
  // 79.15 GiB to the framework (constants.json vram_gb_unit).
  const double ecc = gddr_ecc_on(gpu) ? estimator_constant("gddr_ecc_fraction") : 0.0;
  return gpu.vram_gb * estimator_constant("vram_gb_unit") * (1 - ecc);
}

double usable_bytes(const Gpu& gpu, const Reserve& given) {
  const Reserve reserve = given.fraction < 0 ? default_reserve(gpu) : given;
  const double vram = vram_bytes(gpu);
  const double kept =
      reserve.fraction > 0 || reserve.bytes <= 0 ? vram * reserve.fraction : reserve.bytes;
  return std::max(0.0, vram - kept);
}

namespace {

bool fits_in(const Workload& w, double usable) {
  try {
    return estimate(w).total_bytes <= usable;
  } catch (const Error&) {
    return false;  // a variant no framework runs does not fit
  }
}

// Largest value in [1, hi] for which `ok` holds, given `ok` is monotone; 0 if none.
int largest(int hi, const std::function<bool(int)>& ok) {
  if (hi < 1 || !ok(1)) return 0;
  int lo = 1;
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (ok(mid))
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

}  // namespace

namespace detail {
std::vector<FitChange> remedies(const Workload& w, double usable);
}

FitResult fit(const Workload& given, const Gpu& gpu, int count, const Reserve& reserve) {
  if (count < 1) throw usage_error("--count must be at least 1");
  Workload w = given;
  w.gpus = count;
  FitResult r;
  r.usable_bytes = usable_bytes(gpu, reserve);
  r.requested = estimate(w);
  r.fits = r.requested.total_bytes <= r.usable_bytes;
  r.max_batch = largest(1 << 16, [&](int b) {
    Workload v = w;
    v.batch = b;
    return fits_in(v, r.usable_bytes);
  });
  r.seq_len_cap = w.model.max_context > 0 ? std::max(w.model.max_context, 1) : 1 << 20;
  r.max_seq_len = largest(r.seq_len_cap, [&](int s) {
    Workload v = w;
    v.seq_len = s;
    if (v.prompt_len > s) v.prompt_len = s;
    return fits_in(v, r.usable_bytes);
  });
  if (!r.fits) r.changes = detail::remedies(w, r.usable_bytes);
  return r;
}

}  // namespace gpusel
