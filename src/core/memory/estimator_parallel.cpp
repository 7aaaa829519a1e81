// Tensor x pipeline x context x data parallel training (--tp, --pp, --vpp, --cp), as Megatron-LM
// lays it out: one data-parallel replica is estimated as today (its --shard over the dp x cp
// ranks that hold the same weights, dp = gpus / (tp x pp x cp): Megatron's distributed optimizer
// and torchtitan's FSDP shard over both), then each GPU keeps the share of it its stage, its
// tensor slice and its sequence chunk hold.
// - Model states of a stage: its ceil(L/pp) blocks plus the embedding (first stage) or the
//   LM head (last stage; a tied head keeps a copy there), split t ways by tensor
//   parallelism (Shoeybi et al. arXiv:1909.08053 s3; Narayanan et al. SC21 arXiv:2104.04473 s2).
// - Activations: with sequence parallelism every per-layer term is divided by t
//   (Korthikanti et al. arXiv:2205.05198 s4.2.2: sbh(34/t + 5as/(ht))). Under 1F1B the first
//   stage holds min(pp, micro-batches) micro-batches in flight (s4.2.3), so about L layers'
//   worth of one micro-batch, x (1 + (pp-1)/(pp x vpp)) with interleaving; the last stage holds
//   one micro-batch and the (vocab-parallel) logits.
// - Context parallelism keeps 1/cp of every sequence on each rank: activations and logits / cp
//   (Megatron-Core's ring attention passes the other ranks' K/V through, it does not keep them).
// - Expert parallelism keeps 1/ep of each MoE layer's routed experts on a rank. What the
//   --shard strategy already shards over the dp x cp ranks (ZeRO-1's optimizer states, ZeRO-2's
//   gradients too, ZeRO-3/FSDP's weights too) stays as it is: the experts' share is then sharded
//   over the dp x cp / ep ranks of their expert-data-parallel group, the same bytes per GPU. The
//   rest, kept whole on every replica, drops its routed experts to 1/ep.
// The busier of the first and last stage is reported.
#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "estimator_parts.hpp"
#include "gpusel/base/error.hpp"

namespace gpusel::detail {
namespace {

const std::set<std::string> kWeightLike = {"weights", "weights_offloaded", "quantization_state"};
const std::set<std::string> kTrainedLike = {"lora_adapters",
                                            "gradients",
                                            "gradients_offloaded",
                                            "optimizer_states",
                                            "optimizer_states_offloaded",
                                            "paged_optimizer_states",
                                            "master_weights",
                                            "master_weights_offloaded",
                                            "gathered_params",
                                            "optimizer_step"};

struct Stage {
  std::string name;
  double weights = 0, trained = 0, activations = 0, logits = 0;  // factors of the replica's
};

// Shares of the whole replica's components one GPU of a stage keeps.
Stage stage_share(const Setup& s, bool first) {
  const Workload& w = s.w;
  const int L = std::max(1, w.model.layers), tp = w.tp, pp = w.pp;
  const double blocks = std::ceil(double(L) / pp);
  const double total = std::max(1.0, s.p.total);
  const double emb = first ? s.p.embedding : std::max(s.p.lm_head, s.p.embedding);
  const double stage_params =
      pp == 1 ? total : blocks * s.layer_params + emb + (first ? 0 : s.rest_params);
  Stage st;
  st.name = pp == 1 ? "the one stage" : first ? "the first stage" : "the last stage";
  st.weights = std::min(1.0, stage_params / total) / tp;
  // Adapters and frozen-base training live in the blocks; full training trains everything.
  st.trained = w.mode == Mode::full ? st.weights : blocks / L / tp;
  const int micro = std::max(1, w.grad_accum);
  double in_flight = first ? std::min(pp, micro) : 1;
  if (first && w.vpp > 1 && micro >= pp) in_flight *= 1 + double(pp - 1) / (pp * w.vpp);
  const double cp = std::max(1, w.cp);
  st.activations = (pp == 1 ? 1.0 / tp : in_flight * blocks / L / tp) / cp;
  st.logits = pp == 1 || !first ? 1.0 / tp / cp : 0;
  return st;
}

double factor_of(const Stage& st, const std::string& name) {
  if (kWeightLike.count(name)) return st.weights;
  if (kTrainedLike.count(name)) return st.trained;
  if (name == "activations" || name == "activations_offloaded") return st.activations;
  if (name == "logits") return st.logits;
  return 1;  // reduce buckets, context: per GPU whatever the split
}

// Whether the shard strategy already spreads component `name` over the dp x cp ranks.
bool sharded(const Setup& s, const std::string& name) {
  if (name == "optimizer_states" || name == "master_weights" || name == "optimizer_step")
    return s.shards_states();
  if (name == "gradients") return s.shards_grads();
  if (name == "weights") return s.shards_params();
  return false;
}

// The expert-parallel share of a component: routed experts / ep where nothing shards it.
double ep_factor(const Setup& s, const std::string& name) {
  if (s.w.ep <= 1 || sharded(s, name)) return 1;
  const bool model_state = kWeightLike.count(name) || kTrainedLike.count(name);
  return model_state && name != "lora_adapters" ? expert_parallel_share(s.w) : 1;
}

double stage_bytes(const Setup& s, const Estimate& replica, const Stage& st) {
  double total = 0;
  for (const auto& c : replica.components)
    if (c.where == "gpu" && c.name != "allocator_overhead" && c.name != "cuda_context")
      total += c.bytes * factor_of(st, c.name) * ep_factor(s, c.name);
  return total;
}

std::string degrees(const Workload& w) {
  return "tp " + std::to_string(w.tp) + " x pp " + std::to_string(w.pp) +
         (w.vpp > 1 ? " (vpp " + std::to_string(w.vpp) + ")" : "") +
         (w.cp > 1 ? " x cp " + std::to_string(w.cp) : "") + " x dp " +
         std::to_string(data_parallel(w));
}

void rescale(const Setup& s, Estimate& e, const Stage& st, bool words) {
  const Workload& w = s.w;
  std::vector<Component> kept;
  for (auto c : e.components) {
    if (c.name == "allocator_overhead" || c.name == "cuda_context") continue;
    const double ep = ep_factor(s, c.name), f = factor_of(st, c.name) * ep;
    if (f == 0) continue;
    const bool per_sequence =
        w.cp > 1 && (c.name.rfind("activations", 0) == 0 || c.name == "logits");
    if (f != 1 && words)
      c.formula += "; x " + num(f) + " (" + st.name + "'s share, / tp" +
                   (per_sequence ? " / cp" : "") + (ep != 1 ? ", routed experts / ep" : "") + ")";
    c.bytes *= f;
    kept.push_back(std::move(c));
  }
  e.components = std::move(kept);
}

}  // namespace

Estimate model_parallel_estimate(const Workload& w, EstimateDetail level) {
  if (w.gpus % model_parallel_size(w) != 0)
    throw usage_error("--tp " + std::to_string(w.tp) + " x --pp " + std::to_string(w.pp) +
                      (w.cp > 1 ? " x --cp " + std::to_string(w.cp) : "") + " does not divide " +
                      std::to_string(w.gpus) + " GPUs");
  Workload replica = w;
  replica.tp = replica.pp = replica.vpp = replica.cp = replica.ep = 1;
  // The cp ranks of a replica hold the same weights: its states shard over dp x cp.
  replica.gpus = data_parallel(w) * w.cp;
  // A dp degree of 1 shards nothing, but Megatron's mixed-precision optimizer keeps its fp32
  // copies as ZeRO does: the strategy's bytes apply over one replica.
  Estimate e = estimate(replica, level);
  std::vector<std::string> unused;
  const Setup s = make_setup(w, unused);
  const Stage first = stage_share(s, true), last = stage_share(s, false);
  const bool first_busier = stage_bytes(s, e, first) >= stage_bytes(s, e, last);
  const Stage& st = first_busier ? first : last;
  const bool words = level == EstimateDetail::full;
  rescale(s, e, st, words);
  const double allocated = std::max(0.0, e.allocated_bytes());
  const double frac = data_constant("allocator_overhead_fraction");
  e.components.push_back(
      {"allocator_overhead", allocated * frac,
       gb(allocated) + " allocated x " + num(frac) + " (caching-allocator fragmentation)"});
  const double ctx = data_constant("cuda_context_bytes");
  e.components.push_back({"cuda_context", ctx, gb(ctx) + " per GPU (lazy module loading)"});
  const double band = e.total_bytes > 0 ? e.high_bytes / e.total_bytes - 1 : 0.1;
  e.total_bytes = e.host_bytes = e.managed_bytes = 0;
  for (const auto& c : e.components) {
    if (c.where == "gpu") e.total_bytes += c.bytes;
    if (c.where == "host") e.host_bytes += c.bytes;
    if (c.where == "managed") e.managed_bytes += c.bytes;
  }
  // Model parallelism is outside the calibration (tests/calibration): a wider band.
  e.low_bytes = e.total_bytes * std::max(0.0, 1 - band - 0.10);
  e.high_bytes = e.total_bytes * (1 + band + 0.10);
  if (words)
    e.assumptions.push_back(
        degrees(w) + " (Megatron-LM layout): per GPU, " + st.name +
        " (the busier: its blocks and " + (first_busier ? "embedding, " : "LM head, ") +
        (first_busier && w.pp > 1 ? std::to_string(std::min(w.pp, std::max(1, w.grad_accum))) +
                                        " micro-batches in flight under 1F1B"
                                  : std::string("one micro-batch and the logits")) +
        "), tensors split " + std::to_string(w.tp) + " ways with sequence parallelism" +
        (w.cp > 1 ? ", each sequence " + std::to_string(w.cp) + " ways (context parallel)" : "") +
        "; " + to_string(w.shard) + " over the " + std::to_string(data_parallel(w) * w.cp) +
        (w.cp > 1 ? " data- and context-parallel ranks" : " data-parallel replicas") +
        (w.ep > 1 ? "; routed experts split " + std::to_string(w.ep) + " ways (expert parallel)"
                  : ""));
  return e;
}

}  // namespace gpusel::detail
