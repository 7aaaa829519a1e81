// Model states: weights, quantization constants, LoRA adapters, gradients, optimizer
// states and master weights, with what each sharding strategy divides (ZeRO s3.1).
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

// r x (d_in + d_out) per adapted matrix (Hu et al. arXiv:2106.09685).
double lora_params_per_layer(const ModelArch& m, int rank, LoraTargets t) {
  const LoraPlacement at = lora_placement(t);
  const double h = m.hidden, q = double(m.heads) * m.head_dim, kv = double(m.kv_heads) * m.head_dim;
  double sum = 0;
  if (at.q) sum += h + q;
  if (at.k) sum += h + kv;
  if (at.v) sum += h + kv;
  if (at.o) sum += q + h;
  if (at.mlp_in || at.mlp_out) {
    const bool gated = m.mlp != "gelu";
    double experts = 1, width = m.intermediate;
    if (m.moe) {
      experts = m.moe->experts + m.moe->shared_experts;
      width = m.moe->expert_intermediate;
    }
    sum += experts * ((gated ? 2 : 1) * (h + width) + (width + h));
  }
  return rank * sum;
}

namespace {

double per_layer(const ModelArch& m, const ArchParams& p) {
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

}  // namespace

Setup make_setup(const Workload& w, std::vector<std::string>& assumptions) {
  Setup s{w, arch_params(w.model)};
  s.assumptions = &assumptions;
  s.n = w.gpus;
  s.shard = w.shard;
  if (is_training(w.mode) && s.n > 1 && s.shard == Shard::none) s.shard = Shard::ddp;
  s.cb = (w.precision == Precision::fp32 && !w.amp) ? 4 : 2;
  s.adapters = w.mode == Mode::lora || w.mode == Mode::qlora;
  s.quantized = is_quantized(w.precision) || w.mode == Mode::qlora;
  s.layer_params = per_layer(w.model, s.p);
  if (s.adapters)
    s.lora_params = w.model.layers * lora_params_per_layer(w.model, w.lora_rank, w.lora_targets);
  s.trainable = trainable_params(s);
  return s;
}

namespace {

// Bytes per stored value of the quantizable linears, and what the base really stores.
double linear_bytes(const Setup& s) {
  const Workload& w = s.w;
  if (w.mode == Mode::qlora && !is_quantized(w.precision))
    return data_constant("nf4_bits_per_param") / 8;  // qlora: NF4 base by default
  return bytes_per_value(w.precision);
}

double other_bytes(const Setup& s) {
  // Embeddings, LM head and norms stay 16-bit in quantized and fp8 models; QLoRA recipes
  // (PEFT's prepare_model_for_kbit_training) upcast them to fp32 for training.
  const Precision p = s.w.precision;
  if (s.quantized && s.adapters) return data_constant("kbit_prep_other_bytes");
  if (s.quantized || p == Precision::fp8) return 2;
  return bytes_per_value(p);
}

// A llama.cpp GGUF file: its bits per weight cover every tensor (llama-quantize quantizes
// the embeddings and output too) and the block scales, so there is no separate state.
double gguf_weights(const Setup& s, std::string& f) {
  const Workload& w = s.w;
  f = num(s.p.total) + " params x " + num(w.weight_bits) + " bit / 8 (GGUF " + w.weight_format +
      ", block scales included)";
  return s.p.total * w.weight_bits / 8;
}

void add_weights(const Setup& s, std::vector<Component>& out) {
  const Workload& w = s.w;
  const bool amp = w.amp && (w.mode == Mode::full || w.mode == Mode::freeze);
  const double lin = amp ? 2 : linear_bytes(s), oth = amp ? 2 : other_bytes(s);
  const double rest = s.p.total - s.p.linear;
  double bytes = s.p.linear * lin + rest * oth;
  std::string f = num(s.p.linear) + " linear x " + num(lin) + " B + " + num(rest) + " other x " +
                  num(oth) + " B";
  if (amp) f = num(s.p.total) + " params x 2 B (16-bit working copy; fp32 master below)";
  if (w.weight_bits > 0) bytes = gguf_weights(s, f);
  const bool split = s.shards_params() || s.shard == Shard::tp || (!is_training(w.mode) && s.n > 1);
  if (split) {
    bytes /= s.n;
    f += " / " + std::to_string(s.n) + " GPUs";
  }
  if (s.shards_params()) {
    const double layers = data_constant("checkpoint_gathered_layers");
    bytes += layers * s.layer_params * 2;
    f += " + " + num(layers) + " gathered layers x " + num(s.layer_params) + " x 2 B";
    if (w.offload == Offload::params) {
      bytes = layers * s.layer_params * 2;
      f = num(layers) + " gathered layers x " + num(s.layer_params) +
          " x 2 B (parameters offloaded to CPU)";
    }
  }
  out.push_back({"weights", bytes, f});
}

void add_quant_state(const Setup& s, std::vector<Component>& out) {
  if (!s.quantized || s.w.weight_bits > 0) return;
  const Workload& w = s.w;
  const bool int8 = w.precision == Precision::int8;
  double per_param = 0;
  std::string f;
  if (int8) {
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
  if (!is_training(w.mode) && s.n > 1) bytes /= s.n, f += " / " + std::to_string(s.n);
  if (s.shards_params()) bytes /= s.n, f += " / " + std::to_string(s.n);
  out.push_back({"quantization_state", bytes, f});
}

void add_lora(const Setup& s, std::vector<Component>& out) {
  if (!s.adapters) return;
  const double b = data_constant("lora_param_bytes");
  double bytes = s.lora_params * b;
  std::string f = num(s.lora_params) + " adapter params (rank " + std::to_string(s.w.lora_rank) +
                  ", " + to_string(s.w.lora_targets) + ") x " + num(b) + " B";
  if (s.w.train_embeddings) {
    const double copy = s.p.embedding + s.p.lm_head;
    bytes += copy * 2;
    f += " + " + num(copy) + " trained embedding/head copy x 2 B";
  }
  const bool split = s.shards_params() || s.shard == Shard::tp;
  if (split) bytes /= s.n, f += " / " + std::to_string(s.n);
  out.push_back({"lora_adapters", bytes, f});
}

// Bytes of one gradient / optimizer state value of the trainable parameters.
double trained_value_bytes(const Setup& s, bool for_grads) {
  const Workload& w = s.w;
  if (s.adapters) return data_constant("lora_param_bytes");
  // DeepSpeed ZeRO/FSDP reduce 16-bit gradients; torch AMP accumulates them into fp32 params.
  if (w.amp) return (for_grads && s.shards_states()) ? 2 : 4;
  return bytes_per_value(w.precision);
}

void add_gradients(const Setup& s, std::vector<Component>& out) {
  if (s.trainable <= 0) return;
  const double b = trained_value_bytes(s, true);
  // A trained embedding/head copy (PEFT modules_to_save) keeps the base's 16-bit dtype.
  const double copy = s.adapters ? s.trainable - s.lora_params : 0;
  double bytes = (s.trainable - copy) * b + copy * 2;
  std::string f = num(s.trainable - copy) + " trainable x " + num(b) + " B";
  if (copy > 0) f += " + " + num(copy) + " embedding/head x 2 B";
  if (s.shards_grads() || s.shard == Shard::tp) {
    bytes /= s.n;
    f += " / " + std::to_string(s.n) + " GPUs";
  } else if (s.shard == Shard::ddp) {
    bytes *= 1 + data_constant("ddp_bucket_copy");
    f += " x 2 (DDP bucket copy)";
  }
  out.push_back({"gradients", bytes, f});
}

double optimizer_bytes_per_param(const Setup& s, double b, std::string& how) {
  switch (s.w.optimizer) {
    case Optimizer::adamw:
      how = "AdamW 2 states x " + num(b) + " B";
      return data_constant("adam_states") * b;
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

void add_optimizer(const Setup& s, std::vector<Component>& out) {
  if (s.trainable <= 0) return;
  std::string how, how_copy;
  const double per = optimizer_bytes_per_param(s, trained_value_bytes(s, false), how);
  const double copy = s.adapters ? s.trainable - s.lora_params : 0;
  double bytes = (s.trainable - copy) * per;
  std::string f = num(s.trainable - copy) + " trainable x " + num(per) + " B (" + how + ")";
  if (copy > 0) {
    const double per_copy = optimizer_bytes_per_param(s, 2, how_copy);
    bytes += copy * per_copy;
    f += " + " + num(copy) + " embedding/head x " + num(per_copy) + " B";
  }
  if (s.w.offload != Offload::none) {
    bytes = 0;
    f += ", offloaded to CPU";
  } else if (s.shards_states() || s.shard == Shard::tp) {
    bytes /= s.n;
    f += " / " + std::to_string(s.n) + " GPUs";
  }
  out.push_back({"optimizer_states", bytes, f});
}

void add_master(const Setup& s, std::vector<Component>& out) {
  const Workload& w = s.w;
  if (!w.amp || s.adapters || s.trainable <= 0) return;
  const double b = data_constant("master_weight_bytes");
  double bytes = s.trainable * b;
  std::string f = num(s.trainable) + " trainable x " + num(b) + " B (fp32 master)";
  if (w.offload != Offload::none) {
    bytes = 0;
    f += ", offloaded to CPU";
  } else if (s.shards_states() || s.shard == Shard::tp) {
    bytes /= s.n;
    f += " / " + std::to_string(s.n) + " GPUs";
  }
  out.push_back({"master_weights", bytes, f});
}

}  // namespace

void add_state_components(const Setup& s, std::vector<Component>& out) {
  add_weights(s, out);
  add_quant_state(s, out);
  add_lora(s, out);
  add_gradients(s, out);
  add_optimizer(s, out);
  add_master(s, out);
}

}  // namespace gpusel::detail
