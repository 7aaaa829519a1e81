// data/throughput.json -> ThroughputConstants: the scalar constants. Every number is a
// record with a value, a source and a date, so that a wrong or unsourced number fails
// loudly here, not silently in a ranking. The tables are read in throughput_tables.cpp.
#include <cmath>
#include <string>
#include <tuple>
#include <utility>

#include "gpusel/base/error.hpp"
#include "gpusel/data/catalog.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/speed/throughput.hpp"
#include "throughput_model.hpp"

namespace gpusel {
namespace tput {

using nlohmann::json;

const json& sourced(const json& parent, const std::string& key, const std::string& at) {
  const std::string where = at + "." + key;
  if (!parent.is_object() || !parent.contains(key)) throw data_error(where + ": missing");
  const json& r = parent.at(key);
  if (!r.is_object() || !r.contains("value")) throw data_error(where + ": needs a 'value'");
  for (const char* field : {"source", "as_of"})
    if (!r.contains(field) || !r[field].is_string() || r[field].get<std::string>().empty())
      throw data_error(where + ": needs a non-empty '" + field + "'");
  return r.at("value");
}

double in_range(const json& v, const std::string& where, double lo, double hi) {
  if (!v.is_number()) throw data_error(where + ": value must be a number");
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < lo || x > hi)
    throw data_error(where + ": value " + num(x) + " outside [" + num(lo) + ", " + num(hi) + "]");
  return x;
}

double number(const json& parent, const std::string& key, const std::string& at, double lo,
              double hi) {
  return in_range(sourced(parent, key, at), at + "." + key, lo, hi);
}

bool flag(const json& parent, const std::string& key, const std::string& at) {
  const json& v = sourced(parent, key, at);
  if (!v.is_boolean()) throw data_error(at + "." + key + ": value must be true/false");
  return v.get<bool>();
}

// {"2": 6, "8": 40}: an integer key -> number in [lo, hi].
std::map<int, double> by_int(const json& parent, const std::string& key, const std::string& at,
                             double lo, double hi) {
  const json& v = sourced(parent, key, at);
  const std::string where = at + "." + key;
  if (!v.is_object() || v.empty()) throw data_error(where + ": value must be {\"<n>\": number}");
  std::map<int, double> out;
  for (const auto& [n, x] : v.items()) {
    int i = 0;
    try {
      i = std::stoi(n);
    } catch (const std::exception&) {
      throw data_error(where + ": key '" + n + "' is not a whole number");
    }
    out[i] = in_range(x, where + "." + n, lo, hi);
  }
  return out;
}

}  // namespace tput

namespace {

using nlohmann::json;
using tput::by_int;
using tput::number;

// A sourced constant whose value is {"forward": x, "backward": y}, each within [0, max].
std::pair<double, double> forward_backward(const json& c, const std::string& name,
                                           const std::string& at, double max) {
  const json& v = tput::sourced(c, name, at);
  const std::string w = at + "." + name + ".";
  if (!v.is_object() || !v.contains("forward") || !v.contains("backward"))
    throw data_error(w + "value: needs 'forward' and 'backward'");
  return {tput::in_range(v.at("forward"), w + "forward", 0, max),
          tput::in_range(v.at("backward"), w + "backward", 0, max)};
}

// obj[key], a number within [lo, hi]; "where: needs 'key'" when obj has none.
double member(const json& obj, const char* key, const std::string& where, double lo, double hi) {
  if (!obj.is_object() || !obj.contains(key)) throw data_error(where + ": needs '" + key + "'");
  return tput::in_range(obj.at(key), where + "." + key, lo, hi);
}

// {"training": {"fp16", "bf16", "fp32"}, "inference": {...}}: a CNN's passes per path.
void cnn_passes(const json& c, const std::string& at, ThroughputConstants& k) {
  const std::string name = "cnn_activation_traffic_passes";
  const json& v = tput::sourced(c, name, at);
  const auto read = [&](const char* phase) {
    const std::string w = at + "." + name + "." + phase;
    if (!v.is_object() || !v.contains(phase) || !v.at(phase).is_object())
      throw data_error(w + ": needs 'fp16', 'bf16' and 'fp32'");
    const json& p = v.at(phase);
    return ThroughputConstants::CnnPasses{
        member(p, "fp16", w, 0, 100), member(p, "bf16", w, 0, 100), member(p, "fp32", w, 0, 100)};
  };
  k.cnn_train_passes = read("training");
  k.cnn_infer_passes = read("inference");
}

// {"us_per_kernel", "kernels_per_layer", "kernels_per_cnn_block"}: eager training's host floor.
void eager_host(const json& c, const std::string& at, ThroughputConstants& k) {
  const std::string name = "eager_training_host";
  const json& v = tput::sourced(c, name, at);
  const std::string w = at + "." + name;
  k.host_kernel_s = member(v, "us_per_kernel", w, 0, 1e4) * 1e-6;
  k.kernels_per_layer = member(v, "kernels_per_layer", w, 0, 1e4);
  k.kernels_per_cnn_block = member(v, "kernels_per_cnn_block", w, 0, 1e4);
}

void parse_scalars(const json& c, const std::string& at, ThroughputConstants& k) {
  k.int4_bits_per_weight = number(c, "int4_bits_per_weight", at, 4, 8);
  k.int8_bits_per_weight = number(c, "int8_bits_per_weight", at, 8, 16);
  k.kv_cache_bytes_per_value = number(c, "kv_cache_bytes_per_value", at, 0.5, 4);
  k.qlora_dequant_bytes = number(c, "qlora_dequant_bytes_per_weight", at, 0, 16);
  k.fp8_training_factor = number(c, "fp8_training_factor", at, 0.1, 1.5);
  std::tie(k.activation_forward_passes, k.activation_backward_passes) =
      forward_backward(c, "activation_traffic_passes", at, 10);
  cnn_passes(c, at, k);
  k.tf32_fraction = number(c, "tf32_fraction_of_16bit", at, 0, 1);
  eager_host(c, at, k);
  std::tie(k.eager_forward_bytes, k.eager_backward_bytes) =
      forward_backward(c, "eager_attention_bytes_per_score", at, 1000);
  k.prefill_quantized_factor = number(c, "prefill_quantized_factor", at, 0.05, 1);
  k.ddp_bucket_bytes = number(c, "ddp_bucket_mb", at, 1, 1e4) * 1e6;
  k.comm_overlap_fraction = number(c, "comm_overlap_fraction", at, 0, 1);
  k.allreduce_latency_pcie_s = number(c, "allreduce_latency_pcie_us", at, 0, 1e5) * 1e-6;
  k.pcie_gpus_per_socket = int(number(c, "pcie_gpus_per_socket", at, 1, 64));
  k.allreduce_latency_pcie_cross_s.clear();
  for (const auto& [bytes, us] : by_int(c, "allreduce_latency_pcie_cross_socket_us", at, 0, 1e5))
    k.allreduce_latency_pcie_cross_s[bytes] = us * 1e-6;
  k.allreduce_latency_linked_s.clear();
  for (const auto& [n, us] : by_int(c, "allreduce_latency_linked_us", at, 0, 1e5))
    k.allreduce_latency_linked_s[n] = us * 1e-6;
  k.llama_cpp_ubatch = int(number(c, "llama_cpp_ubatch", at, 1, 1e6));
  k.row_split_calls_per_card = number(c, "llama_cpp_row_split_calls", at, 1, 100);
  k.host_launch_s = number(c, "host_launch_us", at, 0, 1e3) * 1e-6;
  k.host_copy_fraction = by_int(c, "host_copy_fraction", at, 0.01, 1);
  k.host_memory_bytes_per_s = number(c, "host_memory_gbs", at, 1, 1e5) * 1e9;
  k.host_decode_fraction = number(c, "host_decode_fraction", at, 0.05, 1);
  k.cpu_adam_bytes_per_param = number(c, "cpu_adam_bytes_per_param", at, 1, 1e3);
  k.op_offload_min_batch = int(number(c, "llama_cpp_op_offload_batch", at, 1, 1e6));
  k.matmul_default_fraction = number(c, "matmul_default_fraction", at, 0.05, 1.5);
  k.fp8_default_fraction = number(c, "fp8_default_fraction", at, 0.05, 1.5);
  k.training_efficiency_default = number(c, "training_efficiency_default", at, 0.01, 1);
}

}  // namespace

ThroughputConstants parse_throughput_constants(const json& doc, const std::string& origin) {
  if (!doc.is_object() || !doc.contains("constants") || !doc["constants"].is_object())
    throw data_error(origin + ": expected an object with 'constants'");
  ThroughputConstants k;
  parse_scalars(doc["constants"], origin + ": constants", k);
  tput::parse_tables(doc, origin, k);
  // constants.default_engine is read (and checked) where both stages take it: data/engines.
  return k;
}

const ThroughputConstants& default_throughput_constants() {
  static const ThroughputConstants k = [] {
    const std::string origin = "data/throughput.json";
    // Shipped text: built once without the position scan (its syntax is checked by the tests).
    return parse_throughput_constants(embedded_json(origin), origin);
  }();
  return k;
}

}  // namespace gpusel
