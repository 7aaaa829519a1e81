// The weights each GPU holds: their storage (16-bit, quantized, GGUF), what the split or
// shard leaves on one card, and what is offloaded to host RAM (ZeRO-Infinity parameters,
// llama.cpp's experts). Split from estimator_states.cpp, which holds the other model states.
#include <algorithm>

#include "estimator_parts.hpp"

namespace gpusel::detail {
namespace {

// A llama.cpp GGUF file: its bits per weight cover every tensor (llama-quantize quantizes
// the embeddings and output too) and the block scales, so there is no separate state.
double gguf_weights(const Setup& s, std::string& f) {
  const Workload& w = s.w;
  f = num(s.p.total) + " params x " + num(w.weight_bits) + " bit / 8 (GGUF " + w.weight_format +
      ", block scales included)";
  return s.p.total * w.weight_bits / 8;
}

}  // namespace

double routed_expert_bytes_per_param(const Setup& s) {
  const Workload& w = s.w;
  return w.weight_bits > 0 ? w.weight_bits / 8 : w.bits_experts_only ? w.linear_bits / 8 : s.lin_b;
}

namespace {

// llama.cpp --n-cpu-moe: the routed experts of the offloaded layers, at their stored bits
// (GGUF's, the shipped MXFP4's, or the precision's), live in host RAM.
double experts_in_host(const Setup& s, std::string& f) {
  const Workload& w = s.w;
  const double share = cpu_moe_share(w);
  if (share <= 0) return 0;
  const double per = routed_expert_bytes_per_param(s);
  const double params = routed_expert_params(w.model) * share;
  f = num(params) + " routed-expert params of " + std::to_string(cpu_moe_layers(w)) +
      " MoE layers x " + num(per) +
      " B (llama.cpp --n-cpu-moe: in host RAM, the CPU multiplies them)";
  return params * per;
}

// llama.cpp --gpu-layers N: the other layers' weights, and the output layer's unless N exceeds
// the layers, stay in host RAM at the file's bits (`bytes`: the whole model's).
double layers_in_host(const Setup& s, double bytes, std::string& f) {
  const Workload& w = s.w;
  if (w.gpu_layers < 0 || s.p.total <= 0) return 0;
  const double per = bytes / s.p.total;
  const double head = s.p.lm_head > 0 ? s.p.lm_head : s.p.embedding;  // tied: a copy of it
  const double blocks = s.p.total - s.p.embedding - s.p.lm_head;
  const double params = blocks * host_layer_share(w) + (output_on_host(w) ? head : 0);
  f = num(params) + " params of " + std::to_string(host_layers(w)) + " layers" +
      (output_on_host(w) ? " and the output layer" : "") + " x " + num(per) +
      " B (llama.cpp --gpu-layers " + std::to_string(w.gpu_layers) + ": in host RAM)";
  return params * per;
}

// What one GPU holds of the weights under the workload's split or shard.
void split_weights(const Setup& s, double lin_b, double emb_b, double norm_b, double& bytes,
                   std::string& f) {
  const Workload& w = s.w;
  const double emb = s.p.embedding + s.p.lm_head;
  if (s.layer_split() && w.weight_bits > 0) {
    bytes *= s.layer_share(), f += " x " + num(s.layer_share()) + " (layers on the busiest GPU)";
  } else if (s.layer_split() && is_training(w.mode)) {
    // Naive model parallelism: the busiest GPU holds its share of the blocks and one of the
    // embedding / LM head, in whatever dtype training keeps them.
    const double blocks = s.p.linear * lin_b + s.rest_params * norm_b;
    const double edges = (s.p.embedding + s.p.lm_head) * emb_b;
    const double share = (blocks * s.layer_share() + std::max(s.p.embedding, s.p.lm_head) * emb_b) /
                         (blocks + edges);
    bytes *= share, f += " x " + num(share) + " (the busiest GPU's layers and embedding or head)";
  } else if (s.layer_split()) {
    // HF device_map: the busiest GPU holds its share of the layers and one of the
    // embedding / LM head.
    const double blocks = bytes - emb * emb_b;
    bytes = blocks * s.layer_share() + std::max(s.p.embedding, s.p.lm_head) * emb_b;
    f = num(blocks) + " B of blocks x " + num(s.layer_share()) +
        " (layers on the busiest GPU) + the larger of embedding/head x " + num(emb_b) + " B";
  } else if (s.shard == Shard::tp || (!is_training(w.mode) && s.n > 1)) {
    bytes /= s.n, f += per_gpus(s.n);
  } else if (s.shard == Shard::fsdp) {
    bytes /= s.n, f += per_gpus(s.n) + " (sharded)";
  } else if (s.shard == Shard::zero3) {
    // Tensors under stage3_param_persistence_threshold (norms, biases) stay whole.
    const double persistent = s.rest_params * norm_b;
    bytes = (bytes - persistent) / s.n + persistent;
    f += ", all but the norms/biases" + per_gpus(s.n) + " (stage3 persistence threshold)";
  }
}

}  // namespace

void add_weight_component(const Setup& s, std::vector<Component>& out) {
  const Workload& w = s.w;
  const double emb = s.p.embedding + s.p.lm_head;
  const bool fsdp_amp = w.amp && s.shard == Shard::fsdp && s.trains_base;
  const double lin_b = fsdp_amp ? 4 : s.lin_b, emb_b = fsdp_amp ? 4 : s.emb_b;
  const double norm_b = fsdp_amp ? 4 : s.norm_b;
  double bytes = s.p.linear * lin_b + emb * emb_b + s.rest_params * norm_b;
  std::string f = num(s.p.linear) + " linear x " + num(lin_b) + " B + " + num(emb) +
                  " embedding/head x " + num(emb_b) + " B + " + num(s.rest_params) +
                  " norms/biases x " + num(norm_b) + " B";
  const bool fp8 = w.precision == Precision::fp8;
  if (w.amp && s.trains_base && !fsdp_amp && !fp8 && !s.amp_fp32_params)
    f = num(s.p.total) + " params x 2 B (16-bit working copy; fp32 master below)";
  if (s.amp_fp32_params) f += " (fp32 parameters: autocast casts them to 16 bits per matmul)";
  if (w.amp && fp8 && !fsdp_amp) f += " (fp32 parameters: float8 casts them per matmul)";
  if (fsdp_amp) f += " (fp32 parameters, FSDP mixed precision gathers them in bf16)";
  if (w.weight_bits > 0) bytes = gguf_weights(s, f);
  std::string host_f;
  const double host = experts_in_host(s, host_f) + layers_in_host(s, bytes, host_f);
  if (host > 0) bytes -= host, f += " - the experts kept in host RAM";  // before any split
  std::string where = "gpu";
  split_weights(s, lin_b, emb_b, norm_b, bytes, f);
  if (s.offloads_params()) {
    const double kept = s.shard == Shard::zero3 ? s.rest_params * norm_b : 0;
    out.push_back({"weights", kept, "norms/biases kept on the GPU (persistent)"});
    out.push_back({"weights_offloaded", bytes - kept, f + ", offloaded to CPU", "host"});
    return;
  }
  out.push_back({"weights", bytes, f, where});
  if (host > 0)  // one copy in the host's RAM, counted per GPU like every host component
    out.push_back(
        {"weights_offloaded", host / s.n, host_f + (s.n > 1 ? per_gpus(s.n) : ""), "host"});
}

}  // namespace gpusel::detail
