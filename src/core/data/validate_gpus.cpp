// Semantic checks of a GPU catalog: what a schema cannot say about physics and dates.
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <string_view>

#include "gpusel/base/text.hpp"
#include "validate_internal.hpp"

namespace gpusel::detail {
namespace {

using nlohmann::json;

struct Range {
  double lo, hi;
};

// Memory bandwidth (GB/s) and capacity (GB) a card of each memory type can physically have,
// spanning every shipping product of that type with a margin (T4's 320 GB/s GDDR6 to
// B200's 8 TB/s HBM3e, A100 40GB's 1555 GB/s HBM2, Gaudi 3's 3.7 TB/s HBM2e).
const std::map<std::string, std::pair<Range, Range>>& memory_limits() {
  static const std::map<std::string, std::pair<Range, Range>> m{
      {"gddr6", {{100, 1200}, {4, 64}}},    {"gddr6x", {{300, 1300}, {8, 48}}},
      {"gddr7", {{300, 2100}, {8, 128}}},   {"hbm2", {{250, 1700}, {4, 64}}},
      {"hbm2e", {{800, 3900}, {16, 128}}},  {"hbm3", {{1500, 5600}, {64, 192}}},
      {"hbm3e", {{2000, 9000}, {80, 300}}}, {"lpddr5", {{50, 1100}, {8, 512}}},
      {"lpddr5x", {{50, 1100}, {8, 512}}}};
  return m;
}

// Board power by segment, W: from a 70 W inference card to a 1.4 kW Blackwell Ultra module;
// a system-on-chip module from a Jetson Orin Nano's 7-25 W.
Range tdp_range(const std::string& segment, const std::string& form_factor) {
  if (segment == "datacenter") return {40, 1600};
  if (form_factor == "soc") return {5, 700};
  return {30, 700};
}

// Dense tensor throughput per watt that no shipping part exceeds; a value above it is
// almost always a "with sparsity" figure stored in a dense field (KNOWLEDGE K9).
const std::map<std::string, double>& max_per_watt() {
  static const std::map<std::string, double> m{
      {"bf16_tflops_dense", 2.5}, {"fp16_tflops_dense", 2.5}, {"fp16_acc16_tflops_dense", 2.5},
      {"fp8_tflops_dense", 5.0},  {"int8_tops_dense", 5.0},   {"fp4_tflops_dense", 16.0}};
  return m;
}

const std::map<std::string, std::vector<std::string>>& vendor_ecosystems() {
  static const std::map<std::string, std::vector<std::string>> m{{"nvidia", {"cuda"}},
                                                                 {"amd", {"rocm"}},
                                                                 {"intel", {"oneapi", "synapseai"}},
                                                                 {"huawei", {"cann"}},
                                                                 {"apple", {"metal"}}};
  return m;
}

// One lookup per field (contains() then operator[] searched the record's map twice or three
// times, for every check of every card).
template <typename J>
double num(const J& rec, std::string_view key) {
  const auto it = rec.find(key);
  return it != rec.end() && it->is_number() ? it->template get<double>() : NAN;
}

template <typename J>
std::string_view str(const J& rec, std::string_view key) {
  const auto it = rec.find(key);
  return it != rec.end() && it->is_string() ? std::string_view(json_detail::text_of(*it))
                                            : std::string_view();
}

// Plain decimals as the data writes them (936, 0.5); beyond 1e9 or below 1e-4 in exponent form,
// so a hostile 1e300 stays a short line.
std::string fmt_num(double v) {
  const double a = std::fabs(v);
  if (!std::isfinite(v) || (a != 0 && (a >= 1e9 || a < 1e-4))) return fmt::format("{:.4g}", v);
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s.pop_back();
  return s;
}

template <typename J>
void check_memory(const J& g, const std::string& p, Findings& f) {
  auto it = memory_limits().find(to_lower(std::string(str(g, "memory_type"))));
  if (it == memory_limits().end()) return;  // unknown types are the schema's concern
  const auto [bw, cap] = it->second;
  const double b = num(g, "bandwidth_gbs"), v = num(g, "vram_gb");
  // Non-positive values are the schema's finding; don't report them twice.
  if (b > 0 && (b < bw.lo || b > bw.hi))
    f.error(p + "/bandwidth_gbs", "bandwidth-range",
            "bandwidth " + fmt_num(b) + " GB/s is outside " + fmt_num(bw.lo) + ".." +
                fmt_num(bw.hi) + " for " + std::string(str(g, "memory_type")));
  if (v > 0 && (v < cap.lo || v > cap.hi))
    f.error(p + "/vram_gb", "vram-capacity",
            fmt_num(v) + " GB is not a capacity " + std::string(str(g, "memory_type")) +
                " comes in (" + fmt_num(cap.lo) + ".." + fmt_num(cap.hi) + " GB)");
}

template <typename J>
void check_power(const J& g, const std::string& p, Findings& f) {
  const double w = num(g, "tdp_w");
  const Range r = tdp_range(std::string(str(g, "segment")), std::string(str(g, "form_factor")));
  if (w > 0 && (w < r.lo || w > r.hi))
    f.error(p + "/tdp_w", "tdp-range",
            fmt_num(w) + " W is outside " + fmt_num(r.lo) + ".." + fmt_num(r.hi) + " W for a " +
                std::string(str(g, "segment")) + " card");
  for (const auto& [key, limit] : max_per_watt()) {
    const double t = num(g, key);
    if (!std::isnan(t) && w > 0 && t / w > limit)
      f.error(p + "/" + key, "dense-plausible",
              key + " " + fmt_num(t) + " is " + fmt_num(std::round(t / w * 100) / 100) +
                  " per W, above the " + fmt_num(limit) +
                  " any part reaches dense: is it a sparse figure?");
  }
}

template <typename J>
void check_tensor_order(const J& g, const std::string& p, Findings& f) {
  const double bf16 = num(g, "bf16_tflops_dense"), fp32 = num(g, "fp32_tflops");
  if (!std::isnan(bf16) && bf16 < fp32)
    f.error(p + "/bf16_tflops_dense", "bf16-vs-fp32",
            "dense BF16 " + fmt_num(bf16) + " is below FP32 " + fmt_num(fp32) +
                ": tensor units are never slower than the FP32 shaders");
  const double f16 = num(g, "fp16_tflops_dense"), acc16 = num(g, "fp16_acc16_tflops_dense");
  if (!std::isnan(acc16) && !std::isnan(f16) && acc16 < f16)
    f.error(p + "/fp16_acc16_tflops_dense", "fp16-accumulate",
            "FP16-accumulate rate is below the FP32-accumulate rate");
  // FP8 and FP16-accumulate never run slower than BF16 with FP32 accumulate; a BF16 figure
  // above them is the "with sparsity" headline in the dense field (KNOWLEDGE K9).
  for (const char* faster : {"fp8_tflops_dense", "fp16_acc16_tflops_dense"}) {
    const double v = num(g, faster);
    if (!std::isnan(bf16) && !std::isnan(v) && bf16 > v)
      f.error(p + "/bf16_tflops_dense", "dense-plausible",
              "dense BF16 " + fmt_num(bf16) + " is above " + faster + " " + fmt_num(v) +
                  ": is it a sparse figure?");
  }
  if (!std::isnan(acc16) && acc16 == f16)
    f.warning(p + "/fp16_acc16_tflops_dense", "fp16-accumulate",
              "same as fp16_tflops_dense: store it only where the rates differ");
}

template <typename J>
void check_ecosystem(const J& g, const std::string& p, Findings& f) {
  auto it = vendor_ecosystems().find(std::string(str(g, "vendor")));
  if (it == vendor_ecosystems().end()) return;
  const auto& allowed = it->second;
  if (std::find(allowed.begin(), allowed.end(), str(g, "ecosystem")) == allowed.end())
    f.error(p + "/ecosystem", "ecosystem-vendor",
            "ecosystem '" + std::string(str(g, "ecosystem")) + "' does not belong to vendor '" +
                std::string(str(g, "vendor")) + "'");
  // Unified memory is a property of a system-on-chip/APU (Apple, GB10, Ryzen AI Max, MI300A),
  // not of a vendor: a discrete card or module always has memory of its own.
  if (g.value("unified_memory", false) && str(g, "form_factor") != "soc")
    f.error(p + "/unified_memory", "unified-memory",
            "only system-on-chip parts (form_factor 'soc') share memory with the CPU");
}

template <typename J>
void check_interconnect(const J& g, const std::string& p, Findings& f) {
  const auto it = g.find("interconnect");
  if (it == g.end() || !it->is_object()) return;
  const J& ic = *it;
  const bool none = str(ic, "kind") == "none";
  const double bw = num(ic, "bandwidth_gbs"), n = num(ic, "max_gpus");
  if (none && (bw > 0 || n > 1))
    f.error(p + "/interconnect", "interconnect",
            "kind 'none' with a bandwidth or group size: name the link or clear them");
  // A named link whose bandwidth the vendor does not publish stays null (unknown), not 0.
  if (!none && (bw <= 0 || !(n >= 2)))
    f.error(p + "/interconnect", "interconnect",
            "a GPU-to-GPU link needs bandwidth_gbs > 0 (or null: unknown) and max_gpus >= 2");
}

template <typename J>
void check_prices(const J& g, const std::string& p, const std::string& as_of, Findings& f) {
  const auto prices = g.find("prices");
  if (prices == g.end() || !prices->is_array() || prices->empty()) {
    // Datacenter parts often have no public price: a fact about the market, not a defect.
    f.note(p + "/prices", "price-present", "no price: the card cannot pass a budget filter");
    return;
  }
  bool only_msrp = true;
  long newest_msrp = -1;  // the age of the newest MSRP
  for (std::size_t i = 0; i < prices->size(); ++i) {
    const J& pr = (*prices)[i];
    const std::string at = p + "/prices/" + std::to_string(i);
    const std::string date(str(pr, "as_of")), kind(str(pr, "kind"));
    if (!is_date(date)) continue;  // the schema reports it
    const long age = days_between(date, as_of);
    if (kind != "msrp")
      only_msrp = false;
    else
      newest_msrp = newest_msrp < 0 ? age : std::min(newest_msrp, age);
    if (age < 0)
      f.warning(at + "/as_of", "price-date", "dated " + date + ", after the as-of date " + as_of);
    else if (kind != "msrp" && age > 365)
      f.warning(at + "/as_of", "price-age",
                kind + " price from " + date + " is " + std::to_string(age / 30) +
                    " months old (as of " + as_of + "): check it or drop it");
  }
  // A launch price is charged only when it is all a card has: past two years it says
  // nothing of today's market (the data's convention keeps it in notes instead).
  if (only_msrp && newest_msrp > 730)
    f.warning(p + "/prices", "price-age",
              "the only price is a launch MSRP " + std::to_string(newest_msrp / 365) +
                  " years old (as of " + as_of +
                  "), which would be charged: find a current "
                  "price or move it to notes");
}

}  // namespace

template <typename J>
void check_gpu_record(const J& g, const std::string& p, const ValidateOptions& o, Findings& f) {
  if (!g.is_object()) return;  // the schema reports it
  check_memory(g, p, f);
  check_power(g, p, f);
  check_tensor_order(g, p, f);
  check_ecosystem(g, p, f);
  check_interconnect(g, p, f);
  if (!f.errors_only()) check_prices(g, p, o.as_of, f);  // warnings and notes only
}
template void check_gpu_record(const json&, const std::string&, const ValidateOptions&, Findings&);
template void check_gpu_record(const json_detail::FlatValue&, const std::string&,
                               const ValidateOptions&, Findings&);

}  // namespace gpusel::detail
