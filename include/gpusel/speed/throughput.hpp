#pragma once
// What a configuration delivers for a workload: training tokens/s, or prefill and decode
// tokens/s for inference. A roofline-style model: dense tensor peak x utilisation for
// compute, memory bandwidth x efficiency for decode, and a link model for multi-GPU.
// Every constant lives in data/throughput.json with its source; see that file's "method".
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpusel/data/catalog.hpp"
#include "gpusel/memory/workload.hpp"

namespace gpusel {

struct Throughput {
  double train_tokens_per_s = 0;    // training/fine-tuning modes, whole configuration
  double prefill_tokens_per_s = 0;  // inference: prompt processing
  double decode_tokens_per_s = 0;   // inference: generation, per sequence x batch (aggregate)
  double tflops_used = 0;           // dense TFLOPS per card at the precision this workload runs in
  double mfu = 0, scaling = 1;      // utilisation and multi-GPU efficiency applied
  std::string bound;                // "compute" | "memory-bandwidth"
  std::vector<std::string> assumptions;  // each factor with its number and source id
};

// The numbers behind the model, as read from data/throughput.json (each has a source there;
// the key of each field is its id in that file).
struct ThroughputConstants {
  double train_utilisation = 0;          // hardware FLOPs utilisation at the reference balance
  double prefill_utilisation = 0;        // the same for inference prompt processing
  double balance_reference = 0;          // FLOP per byte of memory bandwidth where those hold
  double balance_exponent = 0;           // u ~ (reference / card balance) ^ exponent
  double utilisation_cap = 1;            // never above the highest utilisation measured
  double prefill_quantized_factor = 1;   // int8/int4 weights: dequantization in the GEMMs
  bool prefill_fp16_accumulate = false;  // engines run FP16 GEMMs with FP16 accumulation
  double decode_bandwidth_efficiency = 1;
  double decode_layer_overhead_s = 0;  // per layer per decode step: launches, syncs
  double int4_bits_per_weight = 4.5, int8_bits_per_weight = 8.5;
  double kv_cache_bytes_per_value = 2;
  double qlora_step_time_factor = 1;                   // NF4 dequantization of the frozen base
  std::map<int, double> scaling_linked, scaling_pcie;  // data-parallel efficiency by GPU count
  double scaling_per_doubling_beyond = 1;              // past the largest tabulated count
  double busbw_fraction_linked = 1, busbw_fraction_pcie = 1;  // all-reduce bus bw / link bw
  double allreduce_latency_linked_s = 0, allreduce_latency_pcie_s = 0;  // small messages
};

// Parses data/throughput.json's document; Error(data) naming origin and key on a bad field.
ThroughputConstants parse_throughput_constants(const nlohmann::json& doc,
                                               const std::string& origin);

// The embedded data/throughput.json, parsed once.
const ThroughputConstants& default_throughput_constants();

// `linked`: the cards share a fast GPU-to-GPU link (NVLink etc.), else PCIe.
// Error(usage) when count < 1.
Throughput estimate_throughput(const Workload& w, const Gpu& gpu, int count, bool linked);
Throughput estimate_throughput(const Workload& w, const Gpu& gpu, int count, bool linked,
                               const ThroughputConstants& k);

// train for training modes, decode for inference
double primary_tokens_per_s(const Workload& w, const Throughput& t);

// Wall-clock hours to process `tokens`; infinity when tokens_per_s <= 0 and tokens > 0.
// Error(usage) for negative or non-finite tokens.
double hours_for_tokens(double tokens, double tokens_per_s);

}  // namespace gpusel
