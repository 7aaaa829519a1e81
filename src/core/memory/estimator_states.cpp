// Model states: weights, quantization constants, LoRA adapters, gradients, optimizer states
// and master weights, with what each strategy divides and where each lives (ZeRO s3.1;
// DeepSpeed stage3.py, stage_1_and_2.py; FSDP). Gathered units and buffers: sharding.cpp.
#include <algorithm>
#include <cmath>

#include "estimator_parts.hpp"

namespace gpusel::detail {
namespace {

// A layer split (naive model parallelism) keeps each trained parameter's state on the GPU
// that holds its layer: the busiest GPU's share.
void on_busiest_gpu(const Setup& s, double& bytes, std::string& f) {
  if (!s.layer_split() || !is_training(s.w.mode)) return;
  bytes *= s.trained_share();
  f += " x " + num(s.trained_share()) + " (the busiest GPU's layers)";
}

void add_quant_state(const Setup& s, std::vector<Component>& out) {
  if (!s.quantized || s.w.weight_bits > 0 || s.w.linear_bits > 0) return;  // bits include scales
  const Workload& w = s.w;
  double per_param = 0;
  std::string f;
  if (s.eight_bit) {
    per_param = data_constant("int8_row_scale_bytes") / w.model.hidden;
    f = num(s.p.linear) + " linear x " + num(data_constant("int8_row_scale_bytes")) +
        " B per row / hidden " + std::to_string(w.model.hidden);
  } else {
    const double bits = data_constant(w.double_quant ? "nf4_double_quant_bits_per_param"
                                                     : "nf4_absmax_bits_per_param");
    per_param = bits / 8;
    f = num(s.p.linear) + " linear x " + num(bits) + " bit / 8" +
        (w.double_quant ? " (NF4 absmax, double-quantized)" : " (NF4 fp32 absmax per 64)");
  }
  double bytes = s.p.linear * per_param;
  if (s.layer_split())
    bytes *= s.layer_share(), f += " x " + num(s.layer_share()) + " (layers on the busiest GPU)";
  else if ((!is_training(w.mode) && s.n > 1) || s.shards_params() || s.shard == Shard::tp)
    bytes /= s.n, f += per_gpus(s.n);
  out.push_back({"quantization_state", bytes, f});
}

void add_lora(const Setup& s, std::vector<Component>& out) {
  if (!s.adapters) return;
  double bytes = s.lora_params * s.ab;
  std::string f = num(s.lora_params) + " adapter params (rank " + std::to_string(s.w.lora_rank) +
                  ", " + to_string(s.w.lora_targets) + (s.w.model.moe ? ", every expert" : "") +
                  ") x " + num(s.ab) + " B";
  if (s.w.train_embeddings) {
    const double copy = s.p.embedding + s.p.lm_head;
    bytes += copy * s.emb_b;
    f += " + " + num(copy) + " trained embedding/head copy x " + num(s.emb_b) + " B";
  }
  if (s.shards_params() || s.shard == Shard::tp) bytes /= s.n, f += per_gpus(s.n);
  on_busiest_gpu(s, bytes, f);
  out.push_back({"lora_adapters", bytes, f});
}

// The largest trainable tensor: what an optimizer step in backward holds at most.
double largest_trainable(const Setup& s) {
  const ModelArch& m = s.w.model;
  if (s.adapters) return double(s.w.lora_rank) * std::max<double>(m.hidden, mlp_width(m));
  const double linear = double(m.hidden) * std::max<double>(m.intermediate, m.hidden);
  return std::max({linear, s.p.embedding, s.p.lm_head});
}

// FSDP1 units mixing frozen and trainable parameters hold gradients for all of them (FSDP
// docs: "equivalent to not freezing those parameters"); accumulating under no_sync keeps
// them unsharded ("the full model gradients instead of gradient shards") until the step.
void fsdp_gradients(const Setup& s, double b, double& bytes, std::string& f) {
  const bool frozen_too = s.f.fsdp_frozen_grads.value && s.adapters;
  const double params = frozen_too ? s.p.total : s.trainable;
  const double per = frozen_too ? std::max(b, s.lin_b >= 2 ? s.lin_b : 2.0) : b;
  const bool unsharded = s.f.fsdp_no_sync_accumulation.value && s.w.grad_accum > 1;
  bytes = params * per / (unsharded ? 1 : s.n);
  f = num(params) +
      (frozen_too ? " params (FSDP1 units mixing frozen and trainable ones)" : " trainable") +
      " x " + num(per) + " B" +
      (unsharded
           ? ", unsharded: " + std::to_string(s.w.grad_accum) + " accumulation steps under no_sync"
           : per_gpus(s.n));
}

void add_gradients(const Setup& s, std::vector<Component>& out) {
  if (s.trainable <= 0) return;
  const double b = grad_bytes(s);
  // A trained embedding/head copy (PEFT modules_to_save) keeps the base's dtype.
  const double copy = s.adapters ? s.trainable - s.lora_params : 0;
  double bytes = (s.trainable - copy) * b + copy * s.emb_b;
  std::string f = num(s.trainable - copy) + " trainable x " + num(b) + " B";
  if (copy > 0) f += " + " + num(copy) + " embedding/head x " + num(s.emb_b) + " B";
  std::string where = "gpu";
  const bool fsdp = s.shard == Shard::fsdp && s.n > 1;
  if (s.opt_in_bwd) {
    bytes = largest_trainable(s) * b;
    f = num(largest_trainable(s)) + " (largest trainable tensor) x " + num(b) +
        " B: the optimizer steps in backward and frees each gradient";
  } else if (fsdp && (s.f.fsdp_frozen_grads.value || s.w.grad_accum > 1)) {
    fsdp_gradients(s, b, bytes, f);
  } else if (s.shards_grads() || s.shard == Shard::tp) {
    bytes /= s.n, f += per_gpus(s.n);
  } else if (s.layer_split()) {
    on_busiest_gpu(s, bytes, f);
  } else if (s.shard == Shard::ddp) {
    bytes *= 1 + data_constant("ddp_bucket_copy");
    f += " x 2 (DDP bucket copy)";
  }
  // DeepSpeed keeps the partitioned gradients where the optimizer runs (stage3.py:261,
  // 547-551: self.device is the CPU iff offload_optimizer); FSDP's CPUOffload moves them
  // with the parameters. An optimizer-only offload under FSDP (torchao CPUOffloadOptimizer,
  // offload_gradients=False) leaves them on the GPU.
  const bool on_host = (s.zero() && s.shards_grads() && s.offloads_optimizer()) ||
                       (s.shard == Shard::fsdp && s.offloads_params());
  if (on_host) where = "host", f += ", on the CPU with the optimizer";
  out.push_back({on_host ? "gradients_offloaded" : "gradients", bytes, f, where});
}

double optimizer_bytes_per_param(const Setup& s, double b, std::string& how) {
  switch (s.w.optimizer) {
    case Optimizer::adamw:
      how = "AdamW 2 states x " + num(b) + " B";
      return data_constant("adam_states") * b;
    case Optimizer::paged_adamw:
      // bitsandbytes' 32-bit optimizers keep fp32 states whatever the parameter's dtype.
      how = "paged AdamW 32-bit: 2 fp32 states";
      return data_constant("adam_states") * 4;
    case Optimizer::adamw_8bit:
    case Optimizer::paged_adamw_8bit:
      how = "8-bit AdamW";
      return data_constant("adam_8bit_bytes_per_param");
    case Optimizer::sgd:
      how = "SGD momentum x " + num(b) + " B";
      return data_constant("sgd_states") * b;
    case Optimizer::adafactor:
      // Factored second moment: a row and a column vector per matrix, no momentum.
      how = "Adafactor factored 4 B x 2/hidden";
      return 4.0 * 2.0 / s.w.model.hidden;
  }
  return 0;
}

bool paged(const Setup& s) {
  return s.w.optimizer == Optimizer::paged_adamw || s.w.optimizer == Optimizer::paged_adamw_8bit;
}

// bitsandbytes pages only state tensors of at least 1e5 elements (optim/optimizer.py:383).
double paged_params(const Setup& s) {
  const double min_numel = data_constant("bnb_paged_min_numel");
  if (s.adapters)
    return lora_blocks(s.w) *
           lora_params_in_large_tensors(s.w.model, s.w.lora_rank, s.w.lora_targets, min_numel);
  return std::max(0.0, s.trainable - (s.w.model.hidden < min_numel ? s.rest_params : 0));
}

void add_optimizer(const Setup& s, std::vector<Component>& out) {
  if (s.trainable <= 0) return;
  std::string how, how_copy;
  const double per = optimizer_bytes_per_param(s, state_bytes(s), how);
  const double copy = s.adapters ? s.trainable - s.lora_params : 0;
  double bytes = (s.trainable - copy) * per;
  std::string f = num(s.trainable - copy) + " trainable x " + num(per) + " B (" + how + ")";
  if (copy > 0) {
    const double per_copy = optimizer_bytes_per_param(s, s.emb_b, how_copy);
    bytes += copy * per_copy;
    f += " + " + num(copy) + " embedding/head x " + num(per_copy) + " B";
  }
  const double divide = s.shards_states() || s.shard == Shard::tp ? s.n : 1;
  if (divide > 1) bytes /= divide, f += per_gpus(s.n);
  on_busiest_gpu(s, bytes, f);
  if (s.offloads_optimizer()) {
    out.push_back({"optimizer_states_offloaded", bytes, f + ", on the CPU", "host"});
    return;
  }
  if (paged(s)) {
    const double busiest = s.layer_split() ? s.trained_share() : 1;
    const double in_pages = std::min(s.trainable, paged_params(s)) * per / divide * busiest;
    if (bytes - in_pages > 0)
      out.push_back({"optimizer_states", bytes - in_pages,
                     "states of tensors under 1e5 elements stay ordinary CUDA tensors"});
    out.push_back({"paged_optimizer_states", in_pages,
                   f + ", tensors of 1e5+ elements in CUDA managed memory (bitsandbytes paged "
                       "optimizer): on the GPU while there is room, evicted to host under "
                       "pressure; not counted against VRAM",
                   "managed"});
    return;
  }
  out.push_back({"optimizer_states", bytes, f});
}

void add_master(const Setup& s, std::vector<Component>& out) {
  const Workload& w = s.w;
  if (s.trainable <= 0) return;
  // DeepSpeed keeps an fp32 master partition of every trainable parameter (adapters too,
  // once the engine cast them to bf16); torch AMP and FSDP keep fp32 parameters themselves.
  const bool deepspeed = s.zero();
  // torchao float8 under autocast reads the fp32 parameters themselves: no separate master.
  // Megatron-style tensor parallelism keeps a 16-bit working copy and an fp32 main copy.
  const bool torch_amp =
      w.amp && s.trains_base && s.shard == Shard::tp && w.precision != Precision::fp8;
  if (!deepspeed && !torch_amp) return;
  const double b = data_constant("master_weight_bytes");
  double bytes = s.trainable * b;
  std::string f = num(s.trainable) + " trainable x " + num(b) + " B (fp32 master)";
  if (s.shards_states() || s.shard == Shard::tp) bytes /= s.n, f += per_gpus(s.n);
  if (s.offloads_optimizer()) {
    out.push_back({"master_weights_offloaded", bytes, f + ", on the CPU", "host"});
    return;
  }
  out.push_back({"master_weights", bytes, f});
}

// The largest 4-bit weight a matmul dequantizes: a projection of a block (litgpt's fused
// q/k/v as one), an MLP matrix (one expert's under MoE), or the LM head when it is quantized.
double largest_quantized(const Setup& s) {
  const ModelArch& m = s.w.model;
  const double h = m.hidden, q = double(m.heads) * m.head_dim, kv = double(m.kv_heads) * m.head_dim;
  const double qkv = s.f.fused_qkv.value ? h * (q + 2 * kv) : h * std::max(q, kv);
  double width = m.moe ? m.moe->expert_intermediate : m.intermediate;
  if (m.moe && m.moe->dense_layers > 0) width = std::max<double>(width, m.intermediate);
  return std::max({qkv, q * h, h * width, s.quantized_head});
}

}  // namespace

// bitsandbytes' MatMul4Bit and torchao's LinearNF4 multiply by a full-size dequantized
// 16-bit copy of the weight, one layer at a time, in forward and again in backward; the
// largest such copy is alive on top of everything kept (the profile's dequant_copies says
// how many copies coexist). A single decoded token takes bitsandbytes' gemv path instead.
// LLM.int8's backward makes one 16-bit copy of the int8 weight for the input's gradient
// (bitsandbytes 0.42.0 autograd/_functions.py:479, state.CB.to(dtype_A, copy=True); 483 the
// Turing layout's undo_layout); its forward multiplies in int8.
void add_dequant_component(const Setup& s, std::vector<Component>& out) {
  const Workload& w = s.w;
  int copies = s.f.dequant_copies.value;
  if (s.eight_bit) copies = is_training(w.mode) && copies > 0 ? 1 : 0;
  if (!s.quantized || w.weight_bits > 0 || copies <= 0 || w.model.cnn) return;
  const int prompt = w.prompt_len > 0 ? w.prompt_len : w.seq_len;
  if (!is_training(w.mode) && prompt * w.batch <= 1) return;
  const double elems = largest_quantized(s);
  out.push_back({"dequant_buffer", copies * elems * 2,
                 std::to_string(copies) + " x largest " + (s.eight_bit ? "int8" : "4-bit") +
                     " weight " + num(elems) + " x 2 B (dequantized for its matmul)"});
}

// AutoGPTQ's torch path (qlinear_cuda_old, taken from 128 tokens on and whenever the layer
// trains) multiplies by the dequantized 16-bit weight with torch.matmul, which saves that
// weight for the input's gradient: a block being run with gradients holds every quantized
// layer's 16-bit weight until its backward reaches it. With checkpointing that is the one
// block recomputed at a time; without it, every block (profile key dequant_saved).
void add_dequant_saved_component(const Setup& s, std::vector<Component>& out) {
  const Workload& w = s.w;
  if (!s.f.dequant_saved.value || !s.quantized || !is_training(w.mode) || w.model.cnn) return;
  const int layers = std::max(1, w.model.layers);
  const double per_block = std::max(0.0, s.p.linear - s.quantized_head) / layers;
  const int blocks = s.ckpt ? 1 : layers;
  out.push_back({"dequant_saved", blocks * per_block * s.cb,
                 std::to_string(blocks) + " block" + (blocks > 1 ? "s" : "") + " x " +
                     num(per_block) + " quantized weights x " + num(s.cb) +
                     " B (dequantized, saved by the matmul for backward)"});
}

namespace {
// torch.autocast caches the 16-bit cast of every weight that is a leaf requiring grad for the
// whole forward and drops the cache when the outermost autocast region exits, before
// backward (pytorch/pytorch aten/src/ATen/autocast_mode.cpp cached_cast: can_try_cache needs
// arg.requires_grad() && arg.is_leaf(); clear_cache on exit). Frozen weights are cast per
// call instead; the embedding lookup is not on autocast's cast list, but a tied LM head is.
void add_autocast_cache(const Setup& s, std::vector<Component>& out) {
  if (!s.amp_fp32_params || s.trainable <= 0) return;
  const ModelArch& m = s.w.model;
  const double head = s.p.lm_head > 0 ? s.p.lm_head : (m.tied_embeddings ? s.p.embedding : 0);
  const double cast = s.w.mode == Mode::full ? s.p.linear + head : s.trainable;
  out.push_back({"autocast_cache", cast * 2,
                 num(cast) + " trained matmul weights x 2 B (autocast's 16-bit casts, kept for "
                             "the forward, freed before backward)"});
}

}  // namespace

void phase_gradients(const Setup& s, std::vector<Component>& out) {
  if (!s.grads_phased) return;
  const double transients = freed_by_step(out);
  for (auto& c : out) {
    if (c.name != "gradients" || c.where != "gpu") continue;
    const double full = c.bytes;
    c.bytes = std::max(0.0, full - transients);
    if (formulas_on)  // the ranker's estimates carry no text
      c.formula += " = " + gb(full) + ", made in backward as activations free (set_to_none): " +
                   "only the excess over the forward's " + gb(transients) + " adds";
  }
}

void add_state_components(const Setup& s, std::vector<Component>& out) {
  add_weight_component(s, out);
  add_quant_state(s, out);
  add_lora(s, out);
  add_gradients(s, out);
  add_optimizer(s, out);
  add_master(s, out);
  add_autocast_cache(s, out);
}

}  // namespace gpusel::detail
