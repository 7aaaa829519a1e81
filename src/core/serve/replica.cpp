// A serving replica: its KV pool and the time of one continuous-batching iteration.
// Roofline per kernel family: the linear layers read the weights once per iteration and do
// 2 x parameters FLOPs per token (whichever is slower); attention reads each sequence's KV;
// tensor parallelism adds two all-reduces per layer; batches past the engine's CUDA-graph
// size pay a launch cost per layer. Numbers: data/serving.json and the catalog.
#include "gpusel/serve/replica.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpusel/base/error.hpp"
#include "gpusel/memory/estimator.hpp"
#include "gpusel/memory/kv_cache.hpp"

namespace gpusel {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string num(double v) { return fmt::format("{:.3g}", v); }

double head_dim(const ModelArch& m) {
  return m.head_dim > 0 ? m.head_dim : double(m.hidden) / std::max(1, m.heads);
}

// Attention FLOPs of one token over all layers at `ctx` tokens of context: 4 x d x context
// per layer (scores and weighted sum); windowed layers see their window, linear layers none.
double attn_flops(const ModelArch& m, double ctx) {
  const LayerMix mix = layer_mix(m);
  const double window = std::min(ctx, double(m.sliding_window.value_or(0)));
  const double d = m.heads * head_dim(m);
  return 4 * d * (mix.full * ctx + (mix.sliding + mix.chunked) * window);
}

// "HBM3e" -> the engine's HBM kernel efficiency; unified memory and LPDDR -> unified.
double kernel_efficiency(const ServingEngine& e, const Gpu& g) {
  if (g.unified_memory || g.memory_type.rfind("LPDDR", 0) == 0) return e.kernel_unified;
  if (g.memory_type.rfind("HBM", 0) == 0) return e.kernel_hbm;
  return e.kernel_gddr;
}

double dense16(const Gpu& g, const ServingEngine& e) {
  if (e.prefill_fp16_accumulate && g.fp16_acc16_tflops_dense) return *g.fp16_acc16_tflops_dense;
  if (g.bf16_tflops_dense) return *g.bf16_tflops_dense;
  if (g.fp16_tflops_dense) return *g.fp16_tflops_dense;
  return g.fp32_tflops;
}

// PCIe bytes/s per direction: 0.985 GB/s per lane at 3.0, doubling each generation.
double pcie_bytes_per_s(const Gpu& g) {
  const int gen = g.pcie_gen > 0 ? g.pcie_gen : 4;
  const int lanes = g.pcie_lanes > 0 ? g.pcie_lanes : 16;
  return 0.985e9 * std::pow(2.0, gen - 3) * lanes;
}

void set_rates(Replica& r, const Workload& w, const ServingData& d) {
  const Gpu& g = *r.gpu;
  const ServingEngine& e = *r.engine;
  const double bw = g.bandwidth_gbs * 1e9 * d.bandwidth_fraction(g) * kernel_efficiency(e, g);
  double quant = 1;
  if (w.precision == Precision::int8) quant = e.int8_factor;
  if (w.precision == Precision::int4) quant = e.int4_factor;
  r.kv_bandwidth = bw;
  r.weight_bandwidth = bw * quant;
  const bool fp8 = w.precision == Precision::fp8 && g.fp8_tflops_dense.has_value();
  const double peak16 = w.precision == Precision::fp32 ? g.fp32_tflops : dense16(g, e);
  const double f16 = d.matmul_fraction(g, false) * e.prefill_efficiency;
  r.attention_flops = peak16 * 1e12 * f16;
  r.linear_flops = fp8 ? *g.fp8_tflops_dense * 1e12 * d.matmul_fraction(g, true) *
                             e.prefill_efficiency
                       : r.attention_flops;
  const LinkFacts& link = d.link(g, r.linked);
  const double per_dir = r.linked ? g.interconnect.bandwidth_gbs * 1e9 / 2 : pcie_bytes_per_s(g);
  r.busbw = per_dir * link.busbw_fraction;
  r.allreduce_latency_s = link.latency_s;
  r.roofline_exponent = d.roofline_exponent;
  r.assumptions.push_back(fmt::format(
      "bandwidth {} GB/s x {} [memory_types.{}] x {} [{}.decode_kernel]{} = {} GB/s per card",
      num(g.bandwidth_gbs), num(d.bandwidth_fraction(g)), g.memory_type,
      num(kernel_efficiency(e, g)), e.name,
      quant != 1 ? fmt::format(" (weights x {} for {})", num(quant), to_string(w.precision)) : "",
      num(bw / 1e9)));
  r.assumptions.push_back(
      fmt::format("matmul {} TFLOPS per card ({}, measured fraction x {} [{}.prefill_efficiency])",
                  num(r.linear_flops / 1e12), fp8 ? "FP8" : "16-bit", num(e.prefill_efficiency),
                  e.name));
}

void set_shape(Replica& r, const Workload& w, double value_bytes) {
  const ModelArch& m = w.model;
  const ArchParams a = arch_params(m);
  r.layers = m.layers;
  r.hidden = m.hidden;
  r.head_params = m.kind == "decoder" ? double(m.vocab) * m.hidden : a.lm_head;
  r.body_params = std::max(0.0, a.active - a.embedding - a.lm_head);
  if (m.moe && m.moe->experts > m.moe->active && a.total > 0) {
    const double one = (a.total - a.active) / (m.moe->experts - m.moe->active);
    r.routed_share = std::min(1.0, one * m.moe->experts / a.total);
    r.route_k_over_e = double(m.moe->active) / m.moe->experts;
  }
  const double p = r.traffic.prompt.mean, o = r.traffic.output.mean;
  const KvSplit split{r.count, w.shard == Shard::tp};
  r.decode_kv_bytes = kv_cache_size(m, p + o / 2, value_bytes, 2, split).bytes;
  r.decode_attn_flops = attn_flops(m, p + o / 2);
  r.prefill_attn_flops = attn_flops(m, p / 2);
}

// Bytes per card the engine leaves for the KV pool, and what it set aside to get there.
double kv_pool(Replica& r, const Workload& w, const Reserve& reserve) {
  const Gpu& g = *r.gpu;
  const ServingEngine& e = *r.engine;
  const Estimate est = estimate(w);
  r.weight_bytes = est.bytes_of("weights") + est.bytes_of("quantization_state");
  r.card_bytes = g.unified_memory ? usable_bytes(g, reserve) : vram_bytes(g);
  r.workspace_bytes = e.workspace_bytes(g);
  switch (e.policy) {
    case MemoryPolicy::fraction_of_total:
      return e.memory_fraction * r.card_bytes - r.weight_bytes - r.workspace_bytes;
    case MemoryPolicy::fraction_of_free:
      return e.memory_fraction * (r.card_bytes - r.weight_bytes - r.workspace_bytes);
    case MemoryPolicy::reserved:
      r.workspace_bytes = e.reserved_bytes(g, r.count);
      return r.card_bytes - r.workspace_bytes - r.weight_bytes;
    case MemoryPolicy::usable: {
      Workload ub = w;  // one 512-token ubatch of prompt processing
      ub.batch = 1, ub.seq_len = 512, ub.prompt_len = 512;
      const Estimate x = estimate(ub);
      r.workspace_bytes += x.bytes_of("prefill_workspace") + x.bytes_of("cuda_context");
      return usable_bytes(g, reserve) - r.weight_bytes - r.workspace_bytes;
    }
  }
  return 0;
}

void set_memory(Replica& r, const Workload& w, double value_bytes, const Reserve& reserve) {
  const ServingEngine& e = *r.engine;
  const double p = r.traffic.prompt.mean, o = r.traffic.output.mean;
  r.kv_pool_bytes = std::max(0.0, kv_pool(r, w, reserve));
  const double held = e.reservation == KvReservation::whole_request ? p + o : p + o / 2;
  r.held_tokens = held + (e.kv_block_tokens - 1) / 2.0;  // half a block lost on average
  r.seq_kv_bytes =
      kv_cache_size(w.model, r.held_tokens, value_bytes, 2, {r.count, w.shard == Shard::tp}).bytes;
  r.memory_seqs = r.seq_kv_bytes > 0 ? int(r.kv_pool_bytes / r.seq_kv_bytes) : 0;
  const EngineTier& lim = e.limits_for(*r.gpu);
  r.batched_tokens = lim.batched_tokens;
  r.graph_max_batch = lim.graph_max_batch;
  // Chunked prefill: every iteration's decode tokens and prompt chunks share the budget, so
  // on average B x (1 + P/O) tokens must fit it.
  const int budget_seqs = lim.batched_tokens > 0 ? int(lim.batched_tokens * o / (o + p)) : 1 << 30;
  r.max_seqs = r.memory_seqs, r.seq_limit = "KV memory";
  if (lim.max_seqs > 0 && lim.max_seqs < r.max_seqs)
    r.max_seqs = lim.max_seqs, r.seq_limit = fmt::format("{} max sequences", e.label);
  if (budget_seqs < r.max_seqs)
    r.max_seqs = budget_seqs,
    r.seq_limit = fmt::format("{} tokens per iteration", lim.batched_tokens);
  r.assumptions.push_back(fmt::format(
      "KV pool {} GiB per card ({} GiB card, {} GiB weights, {} GiB workspace, {} policy); {} "
      "KV tokens per sequence ({} blocks of {}) = {} MiB per card: {} sequences; running batch "
      "at most {} ({})",
      num(r.kv_pool_bytes / kGiB), num(r.card_bytes / kGiB), num(r.weight_bytes / kGiB),
      num(r.workspace_bytes / kGiB), e.name, num(r.held_tokens),
      e.reservation == KvReservation::whole_request ? "prompt + output" : "prompt + output/2",
      e.kv_block_tokens, num(r.seq_kv_bytes / (1024.0 * 1024.0)), r.memory_seqs, r.max_seqs,
      r.seq_limit));
}

}  // namespace

Replica build_replica(const Workload& w, const Gpu& g, int count, bool linked,
                      const ServingEngine& e, const Traffic& t, const ServingData& d,
                      const Reserve& reserve) {
  if (!(t.prompt.mean >= 1) || !(t.output.mean >= 1))
    throw usage_error("prompt and output lengths must be at least 1 token");
  Replica r;
  r.gpu = &g, r.engine = &e, r.count = count, r.linked = linked, r.traffic = t;
  r.tp = w.shard == Shard::tp ? count : 1;
  r.pp = count / r.tp;
  const double value_bytes = kv_value_bytes(w, w.precision == Precision::fp32 ? 4 : 2);
  set_shape(r, w, value_bytes);
  set_rates(r, w, d);
  set_memory(r, w, value_bytes, reserve);
  return r;
}

double step_seconds(const Replica& r, double decode_seqs, double prefill_tokens) {
  const double pp = r.pp, b = decode_seqs / pp, tp_tokens = prefill_tokens / pp;
  const double tokens = b + tp_tokens;  // one micro-batch
  double weights = r.weight_bytes;
  if (r.routed_share > 0)  // experts the micro-batch's tokens touch (uniform routing)
    weights *= 1 - r.routed_share * std::pow(1 - r.route_k_over_e, std::max(tokens, 1.0));
  const double t_w = weights / r.weight_bandwidth;
  const double lin = 2 * (r.body_params * tokens + r.head_params * b) / r.count;
  const double t_lin = r.linear_flops > 0 ? lin / r.linear_flops : 0;
  const double t_kv = b * r.decode_kv_bytes / r.kv_bandwidth;
  const double att = (b * r.decode_attn_flops + tp_tokens * r.prefill_attn_flops) / r.count;
  const double t_att = r.attention_flops > 0 ? att / r.attention_flops : 0;
  const double stage_layers = double(r.layers) / r.pp;
  double t_comm = 0;
  if (r.tp > 1) {  // two ring all-reduces of the activations per layer (attention, MLP)
    const double bytes = tokens * r.hidden * 2 * 2.0 * (r.tp - 1) / r.tp;
    t_comm = 2 * stage_layers * (r.allreduce_latency_s + bytes / r.busbw);
  }
  const double launch = b > r.graph_max_batch ? stage_layers * r.engine->eager_layer_overhead_s : 0;
  const double n = r.roofline_exponent;
  const double t_linear =
      n > 0 ? std::pow(std::pow(t_w, n) + std::pow(t_lin, n), 1 / n) : std::max(t_w, t_lin);
  return pp * (t_linear + t_kv + t_att + t_comm + launch);
}

}  // namespace gpusel
