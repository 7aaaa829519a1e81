// data/throughput.json -> ThroughputConstants. Every constant is a record with a value, a
// source and a date, so that a wrong or unsourced number fails loudly here, not silently
// in a ranking.
#include <cmath>
#include <string>

#include "gpusel/data/catalog.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/speed/throughput.hpp"

namespace gpusel {
namespace {

using nlohmann::json;

const json& record(const json& constants, const char* key, const std::string& origin) {
  const std::string at = origin + ": constants." + key;
  if (!constants.contains(key)) throw data_error(at + ": missing");
  const json& r = constants.at(key);
  if (!r.is_object() || !r.contains("value")) throw data_error(at + ": needs a 'value'");
  for (const char* field : {"source", "as_of"})
    if (!r.contains(field) || !r[field].is_string() || r[field].get<std::string>().empty())
      throw data_error(at + ": needs a non-empty '" + field + "'");
  return r.at("value");
}

double number(const json& constants, const char* key, const std::string& origin, double lo,
              double hi) {
  const json& v = record(constants, key, origin);
  if (!v.is_number()) throw data_error(origin + ": constants." + key + ": value must be a number");
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < lo || x > hi)
    throw data_error(origin + ": constants." + key + ": value " + std::to_string(x) + " outside [" +
                     std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return x;
}

bool flag(const json& constants, const char* key, const std::string& origin) {
  const json& v = record(constants, key, origin);
  if (!v.is_boolean())
    throw data_error(origin + ": constants." + key + ": value must be true/false");
  return v.get<bool>();
}

// {"2": 0.99, "4": 0.98, ...}: GPU count -> efficiency in (0, 1.2] (measured runs can be
// slightly superlinear).
std::map<int, double> by_count(const json& constants, const char* key, const std::string& origin) {
  const json& v = record(constants, key, origin);
  const std::string at = origin + ": constants." + key;
  if (!v.is_object() || v.empty()) throw data_error(at + ": value must be {\"<count>\": number}");
  std::map<int, double> out;
  for (const auto& [count, eff] : v.items()) {
    int n = 0;
    try {
      n = std::stoi(count);
    } catch (const std::exception&) {
      throw data_error(at + ": key '" + count + "' is not a GPU count");
    }
    if (n < 2 || !eff.is_number() || eff.get<double>() <= 0 || eff.get<double>() > 1.2)
      throw data_error(at + ": '" + count + "' needs a count >= 2 and an efficiency in (0, 1.2]");
    out[n] = eff.get<double>();
  }
  return out;
}

}  // namespace

ThroughputConstants parse_throughput_constants(const json& doc, const std::string& origin) {
  if (!doc.is_object() || !doc.contains("constants") || !doc["constants"].is_object())
    throw data_error(origin + ": expected an object with 'constants'");
  const json& c = doc["constants"];
  ThroughputConstants k;
  k.train_utilisation = number(c, "train_utilisation", origin, 0.01, 1);
  k.prefill_utilisation = number(c, "prefill_utilisation", origin, 0.01, 1);
  k.balance_reference = number(c, "balance_reference_flop_per_byte", origin, 1, 10000);
  k.balance_exponent = number(c, "balance_exponent", origin, 0, 2);
  k.utilisation_cap = number(c, "utilisation_cap", origin, 0.01, 1);
  k.prefill_quantized_factor = number(c, "prefill_quantized_factor", origin, 0.05, 1);
  k.prefill_fp16_accumulate = flag(c, "prefill_fp16_accumulate", origin);
  k.decode_bandwidth_efficiency = number(c, "decode_bandwidth_efficiency", origin, 0.05, 1);
  k.decode_layer_overhead_s = number(c, "decode_layer_overhead_us", origin, 0, 10000) * 1e-6;
  k.int4_bits_per_weight = number(c, "int4_bits_per_weight", origin, 4, 8);
  k.int8_bits_per_weight = number(c, "int8_bits_per_weight", origin, 8, 16);
  k.kv_cache_bytes_per_value = number(c, "kv_cache_bytes_per_value", origin, 0.5, 4);
  k.qlora_step_time_factor = number(c, "qlora_step_time_factor", origin, 1, 10);
  k.scaling_linked = by_count(c, "scaling_linked", origin);
  k.scaling_pcie = by_count(c, "scaling_pcie", origin);
  k.scaling_per_doubling_beyond = number(c, "scaling_per_doubling_beyond", origin, 0.5, 1);
  k.busbw_fraction_linked = number(c, "busbw_fraction_linked", origin, 0.01, 1);
  k.busbw_fraction_pcie = number(c, "busbw_fraction_pcie", origin, 0.01, 1);
  k.allreduce_latency_linked_s = number(c, "allreduce_latency_linked_us", origin, 0, 1e5) * 1e-6;
  k.allreduce_latency_pcie_s = number(c, "allreduce_latency_pcie_us", origin, 0, 1e5) * 1e-6;
  return k;
}

const ThroughputConstants& default_throughput_constants() {
  static const ThroughputConstants k = [] {
    const std::string origin = "data/throughput.json";
    return parse_throughput_constants(parse_json_text(std::string(embedded_text(origin)), origin),
                                      origin);
  }();
  return k;
}

}  // namespace gpusel
