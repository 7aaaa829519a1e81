// The throughput model. Training and prefill are compute-bound: FLOPs per token against the
// dense tensor peak at the precision used, times a utilisation that falls as a card's
// compute outgrows its memory bandwidth (K10). Decode is bandwidth-bound: bytes read per
// generated token against memory bandwidth, plus a fixed per-layer cost per step, until
// the batch makes it compute-bound. Constants: data/throughput.json.
#include "gpusel/speed/throughput.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "gpusel/base/error.hpp"
#include "gpusel/data/models.hpp"
#include "gpusel/memory/kv_cache.hpp"
#include "throughput_model.hpp"

namespace gpusel {
namespace tput {
namespace {

double head_dim(const ModelArch& m) {
  return m.head_dim > 0 ? m.head_dim : double(m.hidden) / std::max(1, m.heads);
}

// Adapter parameters: r x (d_in + d_out) per adapted matrix (Hu et al. 2021).
double lora_params(const Workload& w) {
  const ModelArch& m = w.model;
  const double h = m.hidden, q = m.heads * head_dim(m), kv = m.kv_heads * head_dim(m);
  double per_layer = (h + q) + (h + kv);                                   // q, v
  if (w.lora_targets != LoraTargets::qv) per_layer += (h + kv) + (q + h);  // k, o
  if (w.lora_targets == LoraTargets::all_linear) {
    const double mats = m.mlp == "gelu" ? 2 : 3;
    const double width =
        m.moe ? double(m.moe->expert_intermediate) * (m.moe->experts + m.moe->shared_experts)
              : m.intermediate;
    per_layer += mats * (h * (m.moe ? m.moe->experts + m.moe->shared_experts : 1) + width);
  }
  return w.lora_rank * per_layer * m.layers;
}

double trainable_params(const Workload& w, const ArchParams& a) {
  switch (w.mode) {
    case Mode::full:
      return a.total;
    case Mode::freeze:
      return a.linear * std::min(1.0, double(w.freeze_trainable_layers) / w.model.layers);
    case Mode::lora:
    case Mode::qlora:
      return lora_params(w) + (w.train_embeddings ? a.embedding + a.lm_head : 0);
    case Mode::inference:
      return 0;
  }
  return 0;
}

}  // namespace

Shape shape_of(const Workload& w) {
  const ModelArch& m = w.model;
  const ArchParams a = arch_params(m);
  Shape s;
  s.layers = m.layers;
  s.hidden = m.hidden;
  s.attn_dim = m.heads * head_dim(m);
  // A decoder's LM head multiplies by vocab x hidden whether or not it is tied.
  s.head = m.kind == "decoder" ? double(m.vocab) * m.hidden : a.lm_head;
  s.matmul = std::max(0.0, a.active - a.embedding - a.lm_head) + s.head;
  s.total = a.total;
  s.trainable = trainable_params(w, a);
  return s;
}

}  // namespace tput

namespace {

using tput::num;
using tput::Shape;
using K = ThroughputConstants;

struct Peaks {
  double linear = 0, attention = 0;  // TFLOPS per card
};

double tensor16(const Gpu& g, Precision p) {
  const auto& first = p == Precision::fp16 ? g.fp16_tflops_dense : g.bf16_tflops_dense;
  const auto& second = p == Precision::fp16 ? g.bf16_tflops_dense : g.fp16_tflops_dense;
  return first ? *first : second ? *second : g.fp32_tflops;
}

// The dense rate each kind of GEMM runs at. Training keeps FP32 accumulation (GeForce: half
// the FP16-accumulate rate, which the catalog stores separately); FP8 applies to the linear
// layers only (Transformer Engine), attention stays 16-bit.
Peaks peaks(const Workload& w, const Gpu& g, bool inference, const K& k, Throughput& t) {
  Peaks p;
  if (w.precision == Precision::fp32 && !w.amp) {
    p.linear = p.attention = g.fp32_tflops;
    t.assumptions.push_back("FP32 compute at " + num(g.fp32_tflops) +
                            " TFLOPS (PyTorch leaves TF32 off for matmuls by default) [catalog]");
    return p;
  }
  p.linear = p.attention = tensor16(g, w.precision);
  std::string what = "dense 16-bit tensor rate, FP32 accumulate";
  if (!g.bf16_tflops_dense && !g.fp16_tflops_dense) what = "no tensor path: FP32 rate";
  const bool fp8 = w.precision == Precision::fp8 && g.fp8_tflops_dense;
  if (inference && !fp8 && k.prefill_fp16_accumulate && g.fp16_acc16_tflops_dense) {
    p.linear = p.attention = *g.fp16_acc16_tflops_dense;
    what = "FP16 with FP16 accumulate, as inference engines run it [prefill_fp16_accumulate]";
  }
  t.assumptions.push_back(what + ": " + num(p.attention) + " TFLOPS per card [catalog]");
  if (fp8) {
    p.linear = *g.fp8_tflops_dense;
    t.assumptions.push_back("FP8 linear layers at " + num(p.linear) + " TFLOPS [catalog]");
  }
  return p;
}

// Utilisation of the tensor units: the measured value at the reference balance, scaled by
// (reference / this card's FLOP-per-byte)^exponent, never above the highest measured.
double utilisation(double at_reference, const Gpu& g, const K& k, Throughput& t, const char* id) {
  double u = at_reference;
  const double balance =
      g.bandwidth_gbs > 0 ? tensor16(g, Precision::bf16) * 1e3 / g.bandwidth_gbs : 0;
  if (balance > 0) {
    u *= std::pow(k.balance_reference / balance, k.balance_exponent);
    t.assumptions.push_back("utilisation " + num(std::min(u, k.utilisation_cap)) + " = " +
                            num(at_reference) + " [" + id + "] x (" + num(k.balance_reference) +
                            " / " + num(balance) + " FLOP/B)^" + num(k.balance_exponent) +
                            " [balance_exponent], cap " + num(k.utilisation_cap) +
                            " [utilisation_cap]");
  }
  return std::min(u, k.utilisation_cap);
}

// FLOPs per token: forward 2 x matmul params + attention 4·L·d·s (PaLM, Chowdhery et al.
// 2022, App. B); backward 2x forward for what needs weight and input gradients.
struct Flops {
  double linear = 0, attention = 0;
};

Flops train_flops(const Workload& w, const Shape& s, Throughput& t) {
  const double fwd = 2 * s.matmul, att = 4.0 * s.layers * s.attn_dim * w.seq_len;
  const double f = std::min(1.0, double(w.freeze_trainable_layers) / std::max(1, s.layers));
  double lin_x = 3, att_x = 3, recompute = 1;
  if (w.mode == Mode::lora || w.mode == Mode::qlora) lin_x = 2;  // no weight gradients
  if (w.mode == Mode::freeze) {  // backward only through the last N blocks
    lin_x = att_x = 1 + 2 * f;
    recompute = f;
  }
  if (w.grad_ckpt) lin_x += recompute, att_x += recompute;
  t.assumptions.push_back(
      "FLOPs/token " + num(lin_x) + " x 2 x " + num(s.matmul / 1e9) + "B params + " + num(att_x) +
      " x attention 4·L·d·s = " + num((lin_x * fwd + att_x * att) / 1e9) + " GFLOP (" +
      to_string(w.mode) + (w.grad_ckpt ? ", recompute" : "") + ")");
  return {lin_x * fwd, att_x * att};
}

void no_compute_figure(const Gpu& g, Throughput& t) {
  t.assumptions.push_back(g.id +
                          " has no published compute figure: compute-bound "
                          "throughput unknown (reported as 0)");
  t.bound = "compute";
}

void estimate_training(const Workload& w, const Gpu& g, int count, bool linked, const K& k,
                       const Shape& s, Throughput& t) {
  const Peaks p = peaks(w, g, false, k, t);
  if (p.linear <= 0 || p.attention <= 0) return no_compute_figure(g, t);
  const double u = utilisation(k.train_utilisation, g, k, t, "train_utilisation");
  const Flops f = train_flops(w, s, t);
  double token_s = f.linear / (p.linear * 1e12 * u) + f.attention / (p.attention * 1e12 * u);
  if (w.mode == Mode::qlora) {
    token_s *= k.qlora_step_time_factor;
    t.assumptions.push_back("QLoRA dequantization: step time x" + num(k.qlora_step_time_factor) +
                            " [qlora_step_time_factor]");
  }
  const double step_s = token_s * w.batch * w.seq_len;
  t.scaling = tput::training_scaling(w, s, g, count, linked, step_s, k, t.assumptions);
  t.train_tokens_per_s = count * t.scaling / token_s;
  t.tflops_used = p.linear;
  t.mfu = u;
  t.bound = "compute";
}

// --- inference -------------------------------------------------------------------------

double weight_bytes(const Workload& w, const Shape& s, const K& k) {
  // A GGUF file's bits per weight already cover every tensor, the output included.
  if (w.weight_bits > 0) return s.matmul * w.weight_bits / 8;
  double bpv = bytes_per_value(w.precision);
  if (w.precision == Precision::int4) bpv = k.int4_bits_per_weight / 8;
  if (w.precision == Precision::int8) bpv = k.int8_bits_per_weight / 8;
  return (s.matmul - s.head) * bpv + s.head * std::max(2.0, bpv);  // LM head stays 16-bit
}

// The mean context a decode step attends to; each layer kind caps it its own way
// (kv_cache_size: windows for sliding/chunked layers, none for full ones).
double decode_context(const Workload& w) {
  return w.prompt_len > 0 ? w.prompt_len + (w.seq_len - w.prompt_len) / 2.0 : w.seq_len;
}

// KV cache bytes one decode step reads over all `split` cards: the per-card cache times the
// cards (an MLA latent replicated by tensor parallelism is read on every card).
double kv_step_bytes(const Workload& w, const K& k, int split) {
  const double value = kv_value_bytes(w, k.kv_cache_bytes_per_value);  // --kv-dtype, else 16-bit
  const KvCacheSize kv = kv_cache_size(w.model, decode_context(w), value,
                                       k.kv_cache_bytes_per_value, {split, split > 1});
  return w.batch * kv.bytes * split;
}

// Attention FLOPs per token read the context each layer keeps: full layers all of it,
// windowed layers their window, linear layers none (their state update is in the matmuls).
double attended_context(const Workload& w, double ctx) {
  const LayerMix mix = layer_mix(w.model);
  const double window = std::min(ctx, double(w.model.sliding_window.value_or(0)));
  return (mix.full * ctx + (mix.sliding + mix.chunked) * window) / std::max(1, w.model.layers);
}

struct Ctx {
  const Workload& w;
  const Gpu& g;
  const Shape& s;
  const K& k;
  Peaks p;
  double u = 0;
  bool linked = false;
};

struct Rate {
  double per_s = 0;
  bool memory_bound = true;
};

// One decode step of `batch` sequences over `split` tensor-parallel cards.
Rate decode_rate(const Ctx& c, int split) {
  const double ctx = attended_context(c.w, decode_context(c.w));
  const double bw = c.g.bandwidth_gbs * 1e9 * c.k.decode_bandwidth_efficiency;
  const double bytes = weight_bytes(c.w, c.s, c.k) + kv_step_bytes(c.w, c.k, split);
  double t_mem = bytes / (split * bw) + c.s.layers * c.k.decode_layer_overhead_s;
  if (split > 1)  // two all-reduces per layer (attention out, MLP out), latency-bound
    t_mem +=
        2 * c.s.layers * (c.linked ? c.k.allreduce_latency_linked_s : c.k.allreduce_latency_pcie_s);
  const double flops = c.w.batch * (2 * c.s.matmul + 4 * c.s.layers * c.s.attn_dim * ctx);
  const double t_cmp = c.p.linear > 0 ? flops / (split * c.p.linear * 1e12 * c.u) : 0;
  return {c.w.batch / std::max(t_mem, t_cmp), t_mem >= t_cmp};
}

// Prompt tokens/s: compute-bound, but never faster than reading the weights once per pass.
double prefill_rate(const Ctx& c, int split) {
  if (c.p.linear <= 0 || c.p.attention <= 0) return 0;
  const double prompt = c.w.prompt_len > 0 ? c.w.prompt_len : c.w.seq_len;
  const double lin = 2 * c.s.matmul, att = 4 * c.s.layers * c.s.attn_dim * prompt;
  double t_tok = (lin / c.p.linear + att / c.p.attention) / (split * 1e12 * c.u);
  if (split > 1) {  // the same two all-reduces per layer, now carrying hidden x 2 B per token
    const double ring = 2.0 * (split - 1) / split;
    t_tok += 2 * c.s.layers * c.s.hidden * 2 * ring / tput::busbw_bytes_per_s(c.g, c.linked, c.k);
  }
  const double floor = weight_bytes(c.w, c.s, c.k) /
                       (split * c.g.bandwidth_gbs * 1e9 * c.k.decode_bandwidth_efficiency) /
                       (prompt * c.w.batch);
  return 1 / std::max(t_tok, floor);
}

void estimate_inference(const Workload& w, const Gpu& g, int count, bool linked, const K& k,
                        const Shape& s, Throughput& t) {
  Ctx c{w, g, s, k, peaks(w, g, true, k, t), 0, linked};
  c.u = utilisation(k.prefill_utilisation, g, k, t, "prefill_utilisation");
  if (is_quantized(w.precision)) {
    c.u *= k.prefill_quantized_factor;
    t.assumptions.push_back("quantized weights dequantized in the GEMMs: utilisation x" +
                            num(k.prefill_quantized_factor) + " [prefill_quantized_factor]");
  }
  const int split = w.shard == Shard::tp ? count : 1;
  const Rate d = decode_rate(c, split);
  t.decode_tokens_per_s = d.per_s;
  t.prefill_tokens_per_s = prefill_rate(c, split);
  t.scaling = count > 1 ? d.per_s / (count * decode_rate(c, 1).per_s) : 1;
  t.tflops_used = c.p.linear;
  t.mfu = c.u;
  t.bound = d.memory_bound ? "memory-bandwidth" : "compute";
  if (c.p.linear <= 0) no_compute_figure(g, t), t.bound = "memory-bandwidth";
  t.assumptions.push_back(
      "decode: " + num(weight_bytes(w, s, k) / 1e9) + " GB of weights + KV cache at " +
      num(decode_context(w)) + " tokens (" + num(kv_step_bytes(w, k, split) / 1e9) +
      " GB, by attention kind) per step over " + num(g.bandwidth_gbs) + " GB/s x " +
      num(k.decode_bandwidth_efficiency) + " [decode_bandwidth_efficiency] + " +
      num(k.decode_layer_overhead_s * 1e6) + " us per layer [decode_layer_overhead_us]" +
      (!w.weight_format.empty() ? ", GGUF " + w.weight_format + " at " + num(w.weight_bits) +
                                      " bits/weight [data/quantizations.json]"
       : w.precision == Precision::int4
           ? ", int4 at " + num(k.int4_bits_per_weight) + " bits/weight [int4_bits_per_weight]"
           : ""));
  if (count > 1)
    t.assumptions.push_back(split > 1 ? "tensor parallel over " + std::to_string(count) +
                                            " cards: bandwidth adds, 2 all-reduces per layer"
                                            " [allreduce_latency_*_us]"
                                      : "layers split over " + std::to_string(count) +
                                            " cards: one card works at a time, no speed-up");
}

}  // namespace

Throughput estimate_throughput(const Workload& w, const Gpu& gpu, int count, bool linked,
                               const ThroughputConstants& k) {
  if (count < 1)
    throw usage_error("GPU count must be at least 1 (got " + std::to_string(count) + ")");
  const Shape s = tput::shape_of(w);
  Throughput t;
  if (is_training(w.mode))
    estimate_training(w, gpu, count, linked, k, s, t);
  else
    estimate_inference(w, gpu, count, linked, k, s, t);
  return t;
}

Throughput estimate_throughput(const Workload& w, const Gpu& gpu, int count, bool linked) {
  return estimate_throughput(w, gpu, count, linked, default_throughput_constants());
}

double primary_tokens_per_s(const Workload& w, const Throughput& t) {
  return is_training(w.mode) ? t.train_tokens_per_s : t.decode_tokens_per_s;
}

double hours_for_tokens(double tokens, double tokens_per_s) {
  if (!std::isfinite(tokens) || tokens < 0)
    throw usage_error("token count must be a finite number >= 0");
  if (tokens == 0) return 0;
  if (!(tokens_per_s > 0)) return std::numeric_limits<double>::infinity();
  return tokens / tokens_per_s / 3600;
}

}  // namespace gpusel
