// The estimator's setup: the byte widths and the strategy a workload runs with, decided once
// from its settings and its framework's profile (data/frameworks.json).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "estimator_parts.hpp"

namespace gpusel::detail {

thread_local bool formulas_on = true;

std::string num(double v) {
  if (!formulas_on) return {};
  char buf[32];
  const double a = std::abs(v);
  if (a >= 1e5) {
    const int e = int(std::floor(std::log10(a)));
    std::snprintf(buf, sizeof buf, "%.3ge%d", v / std::pow(10.0, e), e);
  } else if (v == std::floor(v)) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g", v);
  }
  return buf;
}

std::string gb(double bytes) {
  if (!formulas_on) return {};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GB", bytes / 1e9);
  return buf;
}

LoraPlacement lora_placement(LoraTargets t) {
  LoraPlacement p;
  p.q = p.v = true;
  if (t == LoraTargets::qv) return p;
  p.k = p.o = true;
  if (t == LoraTargets::attn) return p;
  p.mlp_in = p.mlp_out = true;
  return p;
}

double mlp_width(const ModelArch& m) {
  if (!m.moe) return m.intermediate;
  return double(m.moe->active + m.moe->shared_experts) * m.moe->expert_intermediate;
}

double active_mlps(const ModelArch& m) {
  return m.moe ? double(m.moe->active + m.moe->shared_experts) : 1.0;
}

namespace {

// The adapted matrices of one block as (d_in, d_out, count): every expert of a MoE layer
// carries its own adapters (PEFT target_modules match each expert's projections).
struct Matrix {
  double d_in, d_out, count;
};

std::vector<Matrix> adapted_matrices(const ModelArch& m, LoraTargets t) {
  const LoraPlacement at = lora_placement(t);
  const double h = m.hidden, q = double(m.heads) * m.head_dim, kv = double(m.kv_heads) * m.head_dim;
  std::vector<Matrix> out;
  if (at.q) out.push_back({h, q, 1});
  if (at.k) out.push_back({h, kv, 1});
  if (at.v) out.push_back({h, kv, 1});
  if (at.o) out.push_back({q, h, 1});
  if (at.mlp_in || at.mlp_out) {
    const bool gated = m.mlp != "gelu";
    double experts = 1, width = m.intermediate;
    if (m.moe) {
      experts = m.moe->experts + m.moe->shared_experts;
      width = m.moe->expert_intermediate;
    }
    out.push_back({h, width, experts * (gated ? 2 : 1)});
    out.push_back({width, h, experts});
  }
  return out;
}

}  // namespace

// r x (d_in + d_out) per adapted matrix (Hu et al. arXiv:2106.09685).
double lora_params_per_layer(const ModelArch& m, int rank, LoraTargets t) {
  double sum = 0;
  for (const Matrix& x : adapted_matrices(m, t)) sum += x.count * (x.d_in + x.d_out);
  return rank * sum;
}

double lora_params_in_large_tensors(const ModelArch& m, int rank, LoraTargets t, double min_numel) {
  double sum = 0;
  for (const Matrix& x : adapted_matrices(m, t)) {
    if (rank * x.d_in >= min_numel) sum += x.count * rank * x.d_in;    // lora_A
    if (rank * x.d_out >= min_numel) sum += x.count * rank * x.d_out;  // lora_B
  }
  return sum;
}

namespace {

// Parameters of one block. A bare count's remainder is spread over its linear layers, but a
// block (what FSDP gathers, what freeze trains) is the shape's own: it never shrinks when a
// larger count adds a layer.
double per_layer(const ModelArch& m, const ArchParams& p) {
  if (m.remainder_linear) {
    ModelArch shape = m;
    shape.params = 0, shape.active_params.reset();
    const ArchParams q = arch_params(shape);
    // The final norm is not a block's.
    return std::max(0.0, (q.total - q.embedding - q.lm_head - m.hidden) / std::max(1, m.layers));
  }
  return std::max(0.0, (p.total - p.embedding - p.lm_head) / std::max(1, m.layers));
}

double trainable_params(const Setup& s) {
  const Workload& w = s.w;
  switch (w.mode) {
    case Mode::inference:
      return 0;
    case Mode::full:
      return s.p.total;
    case Mode::freeze:
      return std::min(w.freeze_trainable_layers, w.model.layers) * s.layer_params;
    case Mode::lora:
    case Mode::qlora:
      return s.lora_params + (w.train_embeddings ? s.p.embedding + s.p.lm_head : 0);
  }
  return 0;
}

Shard effective_shard(const Workload& w) {
  if (!is_training(w.mode)) return w.shard;
  if (w.offload != Offload::none && (w.shard == Shard::none || w.shard == Shard::ddp))
    return w.offload == Offload::params ? Shard::zero3 : Shard::zero2;  // ZeRO-Offload/Infinity
  // A given --shard none on several GPUs splits the layers (naive model parallelism).
  if (w.gpus > 1 && w.shard == Shard::none) return w.shard_given ? Shard::none : Shard::ddp;
  return w.shard;
}

// Bytes per stored linear weight: NF4 4 bits (its constants are quantization_state), int8
// 1, fp8 training keeps the model's own weights (torchao float8 passes the high-precision
// weight to its matmul and casts it per call, float8_linear.py:255-270: bf16, or fp32 under
// --amp with no 16-bit working copy; Transformer Engine's fp8_autocast over a frozen LoRA
// base likewise), AMP keeps a 16-bit working copy beside its fp32 master (ZeRO s3.1, HF
// "model training anatomy").
double linear_bytes(const Workload& w) {
  if (w.mode == Mode::qlora && !is_quantized(w.precision))
    return data_constant("nf4_bits_per_param") / 8;
  if ((w.mode == Mode::full || w.mode == Mode::lora) && w.precision == Precision::fp8)
    return w.amp ? 4 : 2;
  if (w.amp && (w.mode == Mode::full || w.mode == Mode::freeze)) return 2;
  if (w.amp) return 4;                                          // lora over an fp32 base
  return linear_weight_bytes(w, bytes_per_value(w.precision));  // --weight-bits, else its own
}

void set_dtypes(Setup& s) {
  const Workload& w = s.w;
  const FrameworkProfile& f = s.f;
  const bool fp32 = w.precision == Precision::fp32 && !w.amp;
  const bool training = is_training(w.mode);
  // torch AMP runs an fp32 model under autocast; DeepSpeed and FSDP mixed precision run a
  // 16-bit copy of it instead (engine.py:1228-1231; FSDP MixedPrecision param_dtype).
  const bool torch_amp = w.amp && !s.shards_states();
  // torch.autocast runs the fp32 model itself: its parameters stay fp32 (HF Trainer, accelerate
  // and litgpt's bf16-mixed without DeepSpeed/FSDP), unlike DeepSpeed's and Megatron's 16-bit
  // working copies. fp8 keeps its own rule (linear_bytes).
  s.amp_fp32_params = w.amp && s.trains_base && w.precision != Precision::fp8 &&
                      (s.shard == Shard::none || s.shard == Shard::ddp);
  s.cb = fp32 ? 4 : 2;
  s.autocast = training && !s.zero() && !fp32 && (torch_amp || f.autocast.value);
  s.lin_b = s.amp_fp32_params ? 4 : linear_bytes(w);
  // TRL, axolotl and PEFT skip the fp32 preparation for sharded QLoRA (FSDP, ZeRO).
  const bool kbit = s.adapters && s.quantized && !s.shards_states();
  s.emb_b = w.amp && !s.adapters ? (s.amp_fp32_params ? 4 : 2) : bytes_per_value(w.precision);
  if (s.quantized || (w.precision == Precision::fp8 && !w.amp)) s.emb_b = 2;
  if (w.bits_experts_only) s.emb_b = shipped_other_bytes(w);  // the GGUF's Q8_0 on llama.cpp
  if (w.precision == Precision::fp8 && w.amp) s.emb_b = 4;    // the fp32 model's own
  s.norm_b = s.emb_b;
  if (kbit && f.kbit_upcast_embeddings.value) s.emb_b = 4;
  if (kbit && f.kbit_upcast_norms.value) s.norm_b = 4;
  // fp32 norms output fp32, and 4/8-bit layers return their input's dtype (bitsandbytes
  // nn/modules.py:637): the residual stream and the MLP then run in fp32.
  s.rb = (fp32 || torch_amp || (kbit && f.kbit_upcast_norms.value)) ? 4 : 2;
  s.mb = s.adapters && s.quantized ? s.rb : s.cb;
  if (s.adapters) {
    const double base = fp32 || w.amp ? 4 : 2;
    s.ab = s.zero() ? 2 : (f.adapter_dtype.value == "fp32" ? 4 : base);
  }
}

// litgpt holds a tied checkpoint's LM head as a matrix of its own (separate_lm_head) and
// quantizes it with the other linear layers (quantizes_lm_head): the head then takes NF4 or
// int8 bytes and constants like a linear layer instead of staying 16-bit.
void add_separate_head(Setup& s) {
  const ModelArch& m = s.w.model;
  if (!s.f.separate_lm_head.value || s.p.lm_head > 0 || m.kind != "decoder" || m.vocab <= 0) return;
  s.p.lm_head = double(m.vocab) * m.hidden;
  s.p.total += s.p.lm_head, s.p.active += s.p.lm_head;
}

void quantize_head(Setup& s) {
  if (!s.quantized || !s.f.quantizes_lm_head.value || s.w.weight_bits > 0 || s.w.linear_bits > 0)
    return;
  s.quantized_head = s.p.lm_head;
  s.p.linear += s.p.lm_head, s.p.lm_head = 0;
}

}  // namespace

double Setup::layer_share() const {
  if (!layer_split()) return 1;
  const int L = std::max(1, w.model.layers);
  return std::ceil(double(L) / n) / L;
}

// The busiest GPU holds its share of the blocks and, where they train, the larger of the
// embedding and the LM head (as its weights: add_weights); freeze's last blocks sit on the
// last GPUs.
double Setup::trained_share() const {
  if (!layer_split() || trainable <= 0) return 1;
  const double edges = p.embedding + p.lm_head, edge = std::max(p.embedding, p.lm_head);
  if (adapters) {
    const double copy = trainable - lora_params;
    return (lora_params * layer_share() + (copy > 0 ? edge : 0)) / trainable;
  }
  if (w.mode == Mode::freeze) {
    const double per_gpu = std::ceil(double(std::max(1, w.model.layers)) / n) * layer_params;
    return std::min(trainable, per_gpu) / trainable;
  }
  return std::min(1.0, ((trainable - edges) * layer_share() + edge) / trainable);
}

double grad_bytes(const Setup& s) {
  const Workload& w = s.w;
  if (s.adapters) return s.zero() ? 2 : s.ab;
  // DeepSpeed reduces 16-bit gradients (engine.py:1010-1025); torch AMP and FSDP mixed
  // precision accumulate into the fp32 parameters' gradients.
  if (w.amp) return s.zero() ? 2 : 4;
  if (w.precision == Precision::fp8) return 2;
  return s.zero() && bytes_per_value(w.precision) < 2 ? 2 : bytes_per_value(w.precision);
}

double state_bytes(const Setup& s) {
  // DeepSpeed's optimizer works on fp32 master partitions; torch's AdamW makes its states
  // with zeros_like(param), in the parameter's dtype.
  if (s.zero() || s.w.amp) return 4;
  if (s.adapters) return s.ab;
  return s.w.precision == Precision::fp8 ? 2 : bytes_per_value(s.w.precision);
}

Setup make_setup(const Workload& w, std::vector<std::string>& assumptions) {
  Setup s{w, w.framework, arch_params(w.model)};
  s.assumptions = &assumptions;
  s.n = w.gpus;
  s.shard = effective_shard(w);
  s.adapters = w.mode == Mode::lora || w.mode == Mode::qlora;
  s.trains_base = w.mode == Mode::full || w.mode == Mode::freeze;
  s.quantized = is_quantized(w.precision) || w.mode == Mode::qlora;
  s.eight_bit = s.quantized && w.precision == Precision::int8;
  s.four_bit = s.quantized && !s.eight_bit;
  set_dtypes(s);
  add_separate_head(s);
  s.layer_params = per_layer(w.model, s.p);
  quantize_head(s);
  s.rest_params = std::max(0.0, s.p.total - s.p.linear - s.p.embedding - s.p.lm_head);
  if (s.adapters)
    s.lora_params = lora_blocks(w) * lora_params_per_layer(w.model, w.lora_rank, w.lora_targets);
  s.trainable = trainable_params(s);
  s.dropout = s.adapters ? w.framework.lora_dropout.value : 0;
  const bool fsdp_ckpt = s.shard == Shard::fsdp && s.n > 1 && w.framework.fsdp_checkpointing.value;
  s.ckpt = is_training(w.mode) && (w.grad_ckpt || fsdp_ckpt);
  const std::string& bwd = w.framework.optimizer_in_backward.value;
  // A recipe that steps in backward cannot accumulate (torchtune raises "Gradient accumulation
  // is not supported with optimizer in bwd"): accumulating, its user turns it off.
  s.opt_in_bwd = is_training(w.mode) &&
                 (bwd == "always" || (bwd == "full-single-gpu" && w.mode == Mode::full &&
                                      s.shard == Shard::none && s.n == 1 && w.grad_accum <= 1));
  s.grads_phased = is_training(w.mode) && w.framework.grads_freed_each_step.value &&
                   s.shard == Shard::none && s.n == 1 && w.grad_accum <= 1 && !s.opt_in_bwd &&
                   w.offload == Offload::none;
  return s;
}

}  // namespace gpusel::detail
