// A serving replica: its KV pool (the engine's memory policy) and the time of one
// continuous-batching iteration (speed/'s step model, plus the launch cost an engine pays
// past its CUDA-graph batch). Numbers: data/serving.json, data/throughput.json, the catalog.
#include "gpusel/serve/replica.hpp"
#include "gpusel/memory/reserve.hpp"
#include "serve_internal.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpusel/base/error.hpp"
#include "gpusel/memory/estimator.hpp"
#include "gpusel/memory/kv_cache.hpp"

namespace gpusel {
namespace {

std::string sig3(double v) { return fmt::format("{:.3g}", v); }

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
      return usable_for(w, g, reserve) - r.weight_bytes - r.workspace_bytes;
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
      sig3(r.kv_pool_bytes / serve_detail::kGiB), sig3(r.card_bytes / serve_detail::kGiB),
      sig3(r.weight_bytes / serve_detail::kGiB), sig3(r.workspace_bytes / serve_detail::kGiB),
      e.name, sig3(r.held_tokens),
      e.reservation == KvReservation::whole_request ? "prompt + output" : "prompt + output/2",
      e.kv_block_tokens, sig3(r.seq_kv_bytes / (1024.0 * 1024.0)), r.memory_seqs, r.max_seqs,
      r.seq_limit));
}

}  // namespace

Replica build_replica(const Workload& w, const Gpu& g, int count, bool linked,
                      const ServingEngine& e, const Traffic& t, const Reserve& reserve) {
  if (!(t.prompt.mean >= 1) || !(t.output.mean >= 1))
    throw usage_error("prompt and output lengths must be at least 1 token");
  Replica r;
  r.gpu = &g, r.engine = &e, r.count = count, r.linked = linked, r.traffic = t;
  Workload run = w;
  run.engine = e.name;  // speed/ knows the engine by the same name
  r.step = step_model(run, g, count, linked);
  r.tp = r.step.tp, r.pp = r.step.stages, r.layers = r.step.layers;
  r.assumptions = r.step.assumptions;
  const double value_bytes = kv_value_bytes(w, w.precision == Precision::fp32 ? 4 : 2);
  set_memory(r, w, value_bytes, reserve);
  if (e.host_s_per_seq + e.api_host_s_per_seq > 0)
    r.assumptions.push_back(fmt::format(
        "{} + {} us of CPU per running sequence per step (engine + API server) the GPU waits "
        "for [serving engines.{}.host_us_per_seq, api_host_us_per_seq]",
        sig3(e.host_s_per_seq * 1e6), sig3(e.api_host_s_per_seq * 1e6), e.name));
  return r;
}

double step_seconds(const Replica& r, double decode_seqs, double prefill_tokens) {
  const double step = step_seconds(r.step, decode_seqs, prefill_tokens, true);
  // Past the CUDA-graph batch the engine launches every kernel itself: a cost per layer.
  const double eager =
      decode_seqs / r.pp > r.graph_max_batch ? r.layers * r.engine->eager_layer_overhead_s : 0;
  // An engine that schedules and processes outputs between steps leaves the GPU idle for
  // its CPU work on every running sequence (vLLM before v0.6).
  return step + eager + decode_seqs * (r.engine->host_s_per_seq + r.engine->api_host_s_per_seq);
}

}  // namespace gpusel
