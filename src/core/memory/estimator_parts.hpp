#pragma once
// Shared between the estimator's translation units; not a public header.
#include <string>
#include <vector>

#include "gpusel/data/constants.hpp"
#include "gpusel/memory/estimator.hpp"

namespace gpusel::detail {

// Everything the component formulas need, decided once from the workload and its framework
// profile (data/frameworks.json): byte widths, strategy, who keeps what.
struct Setup {
  const Workload& w;
  const FrameworkProfile& f;
  ArchParams p;
  int n = 1;                  // GPUs
  Shard shard = Shard::none;  // effective: DDP for several GPUs, ZeRO when offloading
  double cb = 2;              // bytes of a value in compute (activations, KV)
  double rb = 2;              // bytes of the residual stream and the norms' outputs
  double mb = 2;              // bytes of the MLP's gate/up outputs
  double ab = 2;              // bytes of a LoRA adapter parameter
  double lin_b = 2;           // bytes per stored linear-layer weight (NF4: 0.5, constants apart)
  double emb_b = 2;           // bytes per stored embedding / LM-head parameter
  double norm_b = 2;          // bytes per stored norm/bias parameter
  bool autocast = false;      // 16-bit compute over values of another dtype (copies per module)
  bool quantized = false;     // the base is stored in int4/int8 (bnb, GPTQ)
  bool four_bit = false, eight_bit = false;
  bool adapters = false;     // lora/qlora
  bool trains_base = false;  // full/freeze
  bool ckpt = false;         // checkpointing, asked or forced by the framework
  bool opt_in_bwd = false;   // optimizer step inside backward
  // torch AMP over the fp32 model itself (one GPU or DDP): no 16-bit working copy; autocast
  // caches 16-bit casts of the trained weights for the length of the forward.
  bool amp_fp32_params = false;
  // Gradients exist only from backward to the step (zero_grad(set_to_none=True), one
  // micro-batch, one process): they do not coexist with the forward's activations.
  bool grads_phased = false;
  double dropout = 0;         // LoRA dropout
  double trainable = 0;       // parameters with gradients and optimizer states
  double lora_params = 0;     // adapter parameters (part of trainable)
  double layer_params = 0;    // parameters of one block (for gathers and freeze)
  double rest_params = 0;     // norms, biases, position tables: neither linear nor embedding
  double quantized_head = 0;  // LM-head parameters counted as a quantized linear layer (litgpt)
  std::vector<std::string>* assumptions = nullptr;

  void assume(const std::string& a) const { assumptions->push_back(a); }
  bool zero() const { return shard >= Shard::zero1 && shard <= Shard::zero3; }
  bool shards_states() const { return shard >= Shard::zero1 && shard <= Shard::fsdp; }
  bool shards_grads() const { return shard >= Shard::zero2 && shard <= Shard::fsdp; }
  bool shards_params() const { return shard == Shard::zero3 || shard == Shard::fsdp; }
  bool offloads_optimizer() const { return w.offload != Offload::none && shards_states(); }
  bool offloads_params() const { return w.offload == Offload::params && shards_params(); }
  // Layers split over the GPUs, one busy at a time: inference as llama.cpp or HF device_map
  // lays a model out, training as naive model parallelism (--shard none on several GPUs).
  bool layer_split() const { return n > 1 && shard == Shard::none && !w.model.cnn; }
  double layer_share() const;  // fraction of the layers on the busiest GPU of a layer split
  // Fraction of the trained parameters on the busiest GPU of a layer split (1 otherwise).
  double trained_share() const;
};

Setup make_setup(const Workload& w, std::vector<std::string>& assumptions);

// --tp/--pp: one data-parallel replica's estimate, kept per GPU by its stage and tensor slice
// (estimator_parallel.cpp).
Estimate model_parallel_estimate(const Workload& w, EstimateDetail level);

void add_state_components(const Setup& s, std::vector<Component>& out);
// The weights on one GPU, and any offloaded to host RAM (estimator_weights.cpp).
void add_weight_component(const Setup& s, std::vector<Component>& out);
// " / N GPUs": what a component's formula says when N cards divide it.
inline std::string per_gpus(int n) { return " / " + std::to_string(n) + " GPUs"; }
void add_sharding_components(const Setup& s, std::vector<Component>& out);
void add_activation_components(const Setup& s, std::vector<Component>& out);
void add_loss_component(const Setup& s, std::vector<Component>& out);
double loss_bytes(const Setup& s);  // what the loss holds at its peak (0: no LM loss)
void add_inference_components(const Setup& s, std::vector<Component>& out);
// Bytes per routed-expert parameter as stored: the GGUF type's, the shipped experts' bits
// (gpt-oss MXFP4), else the linear layers' (estimator_states.cpp).
double routed_expert_bytes_per_param(const Setup& s);
void add_vision_components(const Setup& s, std::vector<Component>& out);
void add_step_component(const Setup& s, std::vector<Component>& out);
// With grads_phased, only the part of the gradients above the forward's freed transients
// adds to the peak: the gradients component becomes max(0, gradients - transients).
void phase_gradients(const Setup& s, std::vector<Component>& out);
// What the forward/backward turn holds that the optimizer step no longer does.
double freed_by_step(const std::vector<Component>& out);
// The transient full-size 16-bit copies of the largest 4-bit weight while it is multiplied.
void add_dequant_component(const Setup& s, std::vector<Component>& out);
// Dequantized weights a matmul saves for backward (AutoGPTQ's torch path): one block's.
void add_dequant_saved_component(const Setup& s, std::vector<Component>& out);
void describe(const Setup& s, std::vector<std::string>& a);

// Bytes of one trained or adapter value: gradients, and the optimizer's state dtype.
double grad_bytes(const Setup& s);
double state_bytes(const Setup& s);

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
// The adapter parameters of one block held in tensors of at least `min_numel` elements
// (bitsandbytes pages only those: optim/optimizer.py:383).
double lora_params_in_large_tensors(const ModelArch& m, int rank, LoraTargets t, double min_numel);

// Tokens per sample: the sequence, or a ViT's patches (+ class token) at the image size.
int tokens_of(const Workload& w);

// MLP width a token passes through (MoE: active + shared experts).
double mlp_width(const ModelArch& m);
// Experts a token passes through (1 for dense MLPs).
double active_mlps(const ModelArch& m);

// Elements per token of a block's hidden state, queries, keys/values (MLA: the full per-head
// K and V training materialises from the latent) and MLP input.
struct Widths {
  double h, q, kv, i;
};
Widths widths(const ModelArch& m);

// Inference through llama.cpp (ggml): no PyTorch and no caching allocator underneath.
inline bool runs_on_ggml(const Workload& w) {
  return !is_training(w.mode) && !w.model.cnn && is_llama_cpp(prefill_chunk(w).engine);
}

}  // namespace gpusel::detail
