#include "gpusel/data/card_memory.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/data/constants.hpp"
#include "gpusel/i18n/i18n.hpp"

namespace gpusel {
namespace {

[[noreturn]] void bad_reserve(std::string_view text) {
  throw usage_error("invalid --reserve '" + quote_input(text) +
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
    // No card has a petabyte to keep free: anything larger is a typo (and 1e300GB overflows).
    if (!(r.bytes <= 1e15)) bad_reserve(text);
  } else {
    bad_reserve(text);
  }
  return r;
}

std::string describe(const Reserve& r) {
  if (!r.basis.empty()) return r.basis;
  char buf[64];
  if (r.fraction < 0)
    return describe(Reserve{data_constant("default_reserve_fraction"), 0, "", ""});
  if (r.fraction > 0 || r.bytes <= 0) std::snprintf(buf, sizeof buf, "%g%%", r.fraction * 100);
  if (r.fraction > 0 || r.bytes <= 0)
    return buf + tr(" of VRAM");
  else
    std::snprintf(buf, sizeof buf, "%.2f GB", r.bytes / 1e9);
  return buf;
}

std::string parse_os(std::string_view text) {
  const std::string os = to_lower(text);
  if (os == "macos" || os == "linux" || os == "windows") return os;
  throw usage_error("invalid --os '" + std::string(text) + "' (expected macos|linux|windows)");
}

std::string natural_os(const Gpu& gpu) { return gpu.vendor == "apple" ? "macos" : "linux"; }

namespace {

const MemoryShare* find_share(const Gpu& gpu, const std::string& os, const char* setting) {
  for (const auto& s : gpu.unified_memory_share)
    if (s.os == os && s.setting == setting) return &s;
  return nullptr;
}

// Bytes the GPU may use under a share, never more than the pool less the engines' reserve:
// the OS and every other process allocate from the same pool.
double share_bytes(const Gpu& gpu, const MemoryShare& s) {
  const double vram = vram_bytes(gpu);
  const double share = s.fraction ? *s.fraction * vram : *s.gb * data_constant("vram_gb_unit");
  return std::min(share, vram * (1 - data_constant("default_reserve_fraction")));
}

std::string gib_text(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / 1073741824.0);
  return buf;
}

}  // namespace

Reserve default_reserve(const Gpu& gpu, const std::string& os) {
  // Discrete cards lose the engines' customary 10 % (K2).
  if (!gpu.unified_memory) return Reserve{data_constant("default_reserve_fraction"), 0, "", ""};
  const std::string o = os.empty() ? natural_os(gpu) : os;
  const MemoryShare* s = find_share(gpu, o, "default");
  if (!s) return Reserve{data_constant("unified_memory_reserve_fraction"), 0, o, ""};
  const double vram = vram_bytes(gpu), usable = share_bytes(gpu, *s);
  return Reserve{0, vram - usable, o,
                 trf("{} of unified memory: the GPU may use {} of {} under {} by default",
                     gib_text(vram - usable), gib_text(usable), gib_text(vram), o)};
}

std::optional<RaisedLimit> raised_limit(const Gpu& gpu, const std::string& os) {
  if (!gpu.unified_memory) return std::nullopt;
  const std::string o = os.empty() ? natural_os(gpu) : os;
  if (const MemoryShare* m = find_share(gpu, o, "maximum"))
    return RaisedLimit{share_bytes(gpu, *m), m->how, o, true};
  const MemoryShare* d = find_share(gpu, o, "default");
  if (!d || d->how.empty()) return std::nullopt;
  const double vram = vram_bytes(gpu);
  return RaisedLimit{vram * (1 - data_constant("default_reserve_fraction")), d->how, o, false};
}

bool gddr_ecc_on(const Gpu& gpu) {
  // Datacenter GDDR cards ship with ECC on, and GDDR keeps its check bits in the same chips
  // (HBM has side-band ECC and loses nothing).
  return gpu.ecc && gpu.segment == "datacenter" && gpu.memory_type.rfind("GDDR", 0) == 0;
}

double vram_bytes(const Gpu& gpu) {
  // Marketed GPU memory is binary: a "24 GB" card has 24576 MiB, an "80 GB" one reports
  // 79.15 GiB to the framework (constants.json vram_gb_unit).
  const double ecc = gddr_ecc_on(gpu) ? data_constant("gddr_ecc_fraction") : 0.0;
  return gpu.vram_gb * data_constant("vram_gb_unit") * (1 - ecc);
}

double usable_bytes(const Gpu& gpu, const Reserve& given) {
  const Reserve reserve = given.fraction < 0 ? default_reserve(gpu, given.os) : given;
  const double vram = vram_bytes(gpu);
  const double kept =
      reserve.fraction > 0 || reserve.bytes <= 0 ? vram * reserve.fraction : reserve.bytes;
  return std::max(0.0, vram - kept);
}

}  // namespace gpusel
