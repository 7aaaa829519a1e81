// What sharded training gathers and buffers on each GPU beyond its shard: FSDP units and the
// root unit, DeepSpeed ZeRO-3's live parameters, reduce buckets, and the fp32 buffer of the
// optimizer step. Each from the framework's code (data/frameworks.json: zero, fsdp_root_unit).
#include <algorithm>
#include <cmath>

#include "estimator_parts.hpp"

namespace gpusel::detail {
namespace {

// HF's "auto" values (transformers integrations/deepspeed.py trainer_config_finalize).
double zero_value(double v, double auto_value) { return v == ZeroSettings::kAuto ? auto_value : v; }

double hidden_sq(const Setup& s) { return double(s.w.model.hidden) * s.w.model.hidden; }

// Bytes per element of the blocks' parameters as stored (NF4 packed, 16-bit...).
double block_bytes_per_param(const Setup& s) {
  const double params = s.p.linear + s.rest_params;
  if (params <= 0) return 2;
  double bytes = s.p.linear * s.lin_b + s.rest_params * s.norm_b;
  if (s.four_bit) bytes += s.p.linear * data_constant("nf4_double_quant_bits_per_param") / 8;
  return bytes / params;
}

// The largest single module: the LM head (or embedding) or the widest linear of a block.
double largest_module(const Setup& s) {
  const ModelArch& m = s.w.model;
  const double linear = double(m.hidden) * std::max<double>(m.intermediate, m.hidden);
  return std::max({linear, s.p.lm_head, s.p.embedding});
}

// FSDP: the root unit (embeddings, final norm, LM head under HF's transformer auto-wrap) is
// never resharded after forward; the current unit and the prefetched next one are gathered
// at param_dtype, and in backward the current unit's unsharded gradient exists before its
// reduce-scatter (FSDP BackwardPrefetch.BACKWARD_PRE docstring).
void add_fsdp_units(const Setup& s, std::vector<Component>& out) {
  const std::string& root = s.f.fsdp_root_unit.value;
  const bool root_whole = root == "always" || (root == "lora-only" && !s.trains_base);
  const double gather_b = s.w.amp ? 2 : block_bytes_per_param(s);
  const double emb = s.p.embedding + s.p.lm_head;
  const double emb_gather_b = s.w.amp ? 2 : s.emb_b;
  double bytes = 2 * s.layer_params * gather_b;
  std::string f =
      "2 units (current + prefetched) x " + num(s.layer_params) + " x " + num(gather_b) + " B";
  if (root_whole) {
    bytes += emb * emb_gather_b;
    f += " + root unit (embedding/head " + num(emb) + " x " + num(emb_gather_b) +
         " B, unsharded through the step)";
  } else {
    bytes += s.p.lm_head * emb_gather_b;
    f += " + the LM head unit gathered at the forward/backward turn";
  }
  const double unit_grads = s.trains_base ? s.layer_params * 2 : 0;
  if (unit_grads > 0) {
    bytes += unit_grads;
    f += " + one unit's unsharded gradient x 2 B";
  }
  out.push_back({"gathered_params", bytes, f});
}

// ZeRO-3 releases a module's parameters after use unless they are used again within
// stage3_max_reuse_distance gathered elements; forward then backward, that keeps the last
// ~reuse/2 elements of the model gathered at the turn, plus the prefetch bucket, never
// more than stage3_max_live_parameters (partitioned_param_coordinator.py:380-382, 524-549).
void add_zero3_live(const Setup& s, std::vector<Component>& out) {
  const ZeroSettings& z = s.f.zero.value;
  const double prefetch = zero_value(z.prefetch_bucket_size, 0.9 * hidden_sq(s));
  const double partitioned = s.p.total - s.rest_params;
  const double kept = std::max(z.max_reuse_distance / 2, largest_module(s)) + prefetch;
  const double live =
      std::min({partitioned, kept, std::max(z.max_live_parameters, largest_module(s))});
  const double b = block_bytes_per_param(s);
  out.push_back({"gathered_params", live * b,
                 num(live) + " live parameters x " + num(b) + " B: min(model, max(reuse distance " +
                     num(z.max_reuse_distance) + " / 2, largest module) + prefetch " +
                     num(prefetch) + ", max live " + num(z.max_live_parameters) + ")"});
}

void add_buckets(const Setup& s, std::vector<Component>& out) {
  if (!s.zero() || s.trainable <= 0) return;
  const ZeroSettings& z = s.f.zero.value;
  double bytes = 0;
  std::string f;
  if (s.shard != Shard::zero1) {
    // The contiguous-gradients IPG bucket, allocated whole (stage3.py:536-540). Stages 1-2
    // allocate a second one when overlap_comm is on ("double buffers to avoid data access
    // conflict", microsoft/DeepSpeed@38327e07 deepspeed/runtime/zero/stage_1_and_2.py:2048-2060);
    // DeepSpeed turns overlap_comm on by default for stage 3 only (zero/config.py:134,351-353).
    const double bucket = zero_value(z.reduce_bucket_size, hidden_sq(s));
    const bool overlap =
        z.overlap_comm == ZeroSettings::kAuto ? s.shard == Shard::zero3 : z.overlap_comm > 0;
    const double buffers = overlap && s.shard != Shard::zero3 ? 2 : 1;
    bytes += buffers * bucket * 2;
    f = (buffers > 1 ? "2 reduce buckets (overlap_comm) " : "reduce bucket ") + num(bucket) +
        " x 2 B";
  }
  if (s.offloads_optimizer() && s.shard != Shard::zero3) {
    // stage_1_and_2.py:485-487 temp_grad_buffer_for_gpu_offload: the largest parameter.
    const double largest =
        s.adapters ? double(s.w.lora_rank) * s.w.model.hidden : largest_module(s);
    bytes += largest * 2;
    f += std::string(f.empty() ? "" : " + ") + "offload staging buffer " + num(largest) + " x 2 B";
  }
  if (bytes > 0) out.push_back({"comm_buffers", bytes, f});
}

// torch.optim.AdamW with foreach (not fused) allocates exp_avg_sq_sqrt, a state-sized
// temporary over the whole parameter group, at the step (torch/optim/adamw.py
// _multi_tensor_adamw); the activations are gone by then, so only what exceeds them counts.
void add_torch_step(const Setup& s, std::vector<Component>& out) {
  const int temps = s.f.optimizer_step_temporaries.value;
  if (temps <= 0 || s.trainable <= 0 || s.opt_in_bwd || s.w.optimizer != Optimizer::adamw ||
      s.offloads_optimizer())
    return;
  const double divide = s.shards_states() || s.shard == Shard::tp ? s.n : 1;
  const double temp = temps * s.trainable * state_bytes(s) / divide;
  // With phased gradients the step sees them (the gradients component keeps only their part
  // above the transients), so the temporary adds beyond what they leave of the transients.
  double freed = freed_by_step(out);
  if (s.grads_phased)
    for (const auto& c : out)
      if (c.name == "gradients" && c.where == "gpu") freed = std::max(0.0, freed - c.bytes);
  const double extra = temp - freed;
  if (extra <= 0) return;
  out.push_back({"optimizer_step", extra,
                 std::to_string(temps) + " x " + num(s.trainable) + " trainable x " +
                     num(state_bytes(s)) + " B (foreach AdamW temporary" +
                     (divide > 1 ? ", / " + std::to_string(s.n) + " GPUs" : "") +
                     ") beyond the freed activations"});
}

}  // namespace

double freed_by_step(const std::vector<Component>& out) {
  double transients = 0;
  for (const auto& c : out)
    if (c.where == "gpu" && (c.name == "activations" || c.name == "logits" ||
                             c.name == "gathered_params" || c.name == "autocast_cache"))
      transients += c.bytes;
  return transients;
}

void add_sharding_components(const Setup& s, std::vector<Component>& out) {
  if (!is_training(s.w.mode)) return;
  if (s.shard == Shard::fsdp) add_fsdp_units(s, out);
  if (s.shard == Shard::zero3) add_zero3_live(s, out);
  add_buckets(s, out);
}

// At the optimizer step the activations are gone, and DeepSpeed builds fp32 gradients for its
// fp32 master partition: ZeRO-3 one sub-group at a time (stage3.py:1025-1066), ZeRO-1/2 each
// parameter group's whole partition, flatten(averaged_gradients).to(fp32), before it frees the
// 16-bit gradients (microsoft/DeepSpeed@cde57d29 deepspeed/runtime/zero/stage_1_and_2.py
// step(): single_partition_of_fp32_groups[i].grad = single_grad_partition). The part of that
// peak above the forward/backward turn's transients is the step's own.
void add_step_component(const Setup& s, std::vector<Component>& out) {
  if (!s.zero()) {
    add_torch_step(s, out);
    return;
  }
  if (s.trainable <= 0) return;
  const bool stage3 = s.shard == Shard::zero3;
  const double partition = s.trainable / s.n;
  const double elems = stage3 ? std::min(s.f.zero.value.sub_group_size, partition) : partition;
  const double sub = elems * 4;
  const double transients = freed_by_step(out);
  const bool host = s.offloads_optimizer();
  // ZeRO-Offload stage 1/2 writes the fp32 gradients straight into the CPU partition, which
  // gradients_offloaded already counts.
  if (host && !stage3) return;
  const double extra = host ? sub : std::max(0.0, sub - transients);
  if (extra <= 0) return;
  const std::string what =
      stage3 ? "fp32 gradient buffer of one sub-group min(" + num(s.f.zero.value.sub_group_size) +
                   ", trainable / GPUs) x 4 B"
             : "fp32 gradients of the optimizer's partition, trainable / GPUs " + num(partition) +
                   " x 4 B (ZeRO-1/2 step)";
  out.push_back({"optimizer_step", extra,
                 what + (host ? ", on the CPU" : " beyond the freed activations and gathers"),
                 host ? "host" : "gpu"});
}

}  // namespace gpusel::detail
