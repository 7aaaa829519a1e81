#pragma once
// Shared between the estimator's translation units; not a public header.
#include <string>
#include <vector>

#include "gpusel/data/constants.hpp"
#include "gpusel/memory/estimator.hpp"

namespace gpusel::detail {

struct Setup {
  const Workload& w;
  ArchParams p;
  int n = 1;                  // GPUs
  Shard shard = Shard::none;  // effective: several GPUs with "none" train as DDP
  double cb = 2;              // bytes of a value in compute (activations, KV)
  bool quantized = false;     // the base is stored in int4/int8 (bnb/GPTQ linears)
  bool adapters = false;      // lora/qlora
  double trainable = 0;       // parameters with gradients and optimizer states
  double lora_params = 0;     // adapter parameters (part of trainable)
  double layer_params = 0;    // parameters of one block (for gathers and freeze)
  std::vector<std::string>* assumptions = nullptr;

  void assume(const std::string& a) const { assumptions->push_back(a); }
  bool shards_states() const { return shard >= Shard::zero1 && shard <= Shard::fsdp; }
  bool shards_grads() const { return shard >= Shard::zero2 && shard <= Shard::fsdp; }
  bool shards_params() const { return shard == Shard::zero3 || shard == Shard::fsdp; }
};

Setup make_setup(const Workload& w, std::vector<std::string>& assumptions);

void add_state_components(const Setup& s, std::vector<Component>& out);
void add_activation_components(const Setup& s, std::vector<Component>& out);
void add_inference_components(const Setup& s, std::vector<Component>& out);

// The inference KV cache by attention kind (kv_cache.cpp) and what it assumed.
void add_kv_cache(const Setup& s, std::vector<Component>& out);
std::string kv_assumption(const Workload& w, double compute_bytes);

// Number formatting for formulas: "6.74e9", "1.25 GB"; "" while formulas are off
// (estimate(w, EstimateDetail::numbers): the ranker's hundreds of configurations show none).
std::string num(double v);
extern thread_local bool formulas_on;
std::string gb(double bytes);

// LoRA adapter parameters of one block, and which matrices carry adapters.
struct LoraPlacement {
  bool q = false, k = false, v = false, o = false, mlp_in = false, mlp_out = false;
};
LoraPlacement lora_placement(LoraTargets t);
double lora_params_per_layer(const ModelArch& m, int rank, LoraTargets t);

// MLP width a token passes through (MoE: active + shared experts).
double mlp_width(const ModelArch& m);

}  // namespace gpusel::detail
