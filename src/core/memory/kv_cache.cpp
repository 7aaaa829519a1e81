// The inference KV cache by attention kind (vLLM v1 kv_cache_interface.py @001cabc1 specs:
// FullAttentionSpec, MLAAttentionSpec, SlidingWindowSpec, ChunkedLocalAttentionSpec,
// MambaSpec), and the estimator's kv_cache component built from it.
#include "gpusel/memory/kv_cache.hpp"

#include <algorithm>

#include "estimator_parts.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/data/quantization.hpp"

namespace gpusel {
namespace {

using detail::num;

// Values one attention layer caches per token: K and V per KV head, or MLA's latent plus
// its decoupled rope key (shared by every head: one copy).
double values_per_token(const ModelArch& m) {
  if (m.mla) return double(m.mla->kv_lora_rank + m.mla->qk_rope_head_dim);
  return 2.0 * m.kv_heads * m.head_dim;
}

std::string per_token_text(const ModelArch& m) {
  if (m.mla)
    return "(" + std::to_string(m.mla->kv_lora_rank) + " + " +
           std::to_string(m.mla->qk_rope_head_dim) + ") latent";
  return "2 x " + std::to_string(m.kv_heads) + " kv heads x " + std::to_string(m.head_dim);
}

// Gated DeltaNet state per layer (vLLM mamba_utils.gated_delta_net_state_shape): the
// causal conv's last (kernel - 1) inputs over q, k and v, and the nv x dv x dk recurrence.
double linear_state_values(const LinearAttentionSpec& s) {
  const double conv_dim =
      2.0 * s.num_key_heads * s.key_head_dim + double(s.num_value_heads) * s.value_head_dim;
  return (s.conv_kernel - 1) * conv_dim +
         double(s.num_value_heads) * s.value_head_dim * s.key_head_dim;
}

// Cards sharing each kind's cache: per-head caches split by the heads a card holds; the MLA
// latent has one "head" and is replicated under tensor parallelism (SGLang PR 1970).
double attention_divisor(const ModelArch& m, KvSplit s) {
  if (s.gpus <= 1) return 1;
  if (!s.tensor_parallel) return s.gpus;
  if (m.mla) return 1;
  return std::min(s.gpus, std::max(1, m.kv_heads));
}

double linear_divisor(const LinearAttentionSpec& l, KvSplit s) {
  if (s.gpus <= 1) return 1;
  if (!s.tensor_parallel) return s.gpus;
  return std::min(s.gpus, std::max(1, l.num_key_heads));
}

struct Term {
  int layers = 0;
  double tokens = 0;
  const char* kind = "";
  std::string cap;
};

void add_attention(const ModelArch& m, const Term& t, double value_bytes, double div,
                   KvCacheSize& out) {
  if (t.layers == 0) return;
  out.token_bytes += t.layers * values_per_token(m) * t.tokens * value_bytes / div;
  out.formula += std::string(out.formula.empty() ? "" : " + ") + std::to_string(t.layers) + " " +
                 t.kind + " layers x " + per_token_text(m) + " x " + num(t.tokens) + " tokens" +
                 t.cap + " x " + num(value_bytes) + " B";
}

}  // namespace

KvCacheSize kv_cache_size(const ModelArch& m, double context, double value_bytes,
                          double state_bytes, KvSplit split) {
  KvCacheSize out;
  if (m.kind != "decoder") return out;
  const LayerMix mix = layer_mix(m);
  const double window = m.sliding_window.value_or(0);
  const std::string w = num(window);
  const double div = attention_divisor(m, split);
  add_attention(m, {mix.full, context, "full", ""}, value_bytes, div, out);
  add_attention(m, {mix.sliding, std::min(context, window), "sliding", " (window " + w + ")"},
                value_bytes, div, out);
  add_attention(m, {mix.chunked, std::min(context, window), "chunked", " (chunk " + w + ")"},
                value_bytes, div, out);
  if (div > 1) out.formula = "(" + out.formula + ") / " + num(div);
  if (mix.linear > 0 && m.linear_attention) {
    const double values = linear_state_values(*m.linear_attention);
    const double ldiv = linear_divisor(*m.linear_attention, split);
    out.state_bytes = mix.linear * values * state_bytes / ldiv;
    out.formula += " + " + std::to_string(mix.linear) + " linear layers x " + num(values) +
                   " state values x " + num(state_bytes) + " B" +
                   (ldiv > 1 ? " / " + num(ldiv) : "") + " (constant)";
  }
  out.bytes = out.token_bytes + out.state_bytes;
  return out;
}

double kv_value_bytes(const Workload& w, double compute_bytes) {
  if (w.kv_dtype == KvDtype::compute) return compute_bytes;
  const KvCacheType* t = find_kv_cache_type(to_string(w.kv_dtype));
  if (!t)
    throw data_error("data/quantizations.json: no kv_cache entry '" + to_string(w.kv_dtype) + "'");
  return t->bytes_per_value;
}

namespace detail {

// What the kv_cache component says it assumed: the value type and what each kind keeps.
std::string kv_assumption(const Workload& w, double compute_bytes) {
  const LayerMix mix = layer_mix(w.model);
  std::string a = "KV cache in " +
                  (w.kv_dtype == KvDtype::compute ? "the compute dtype" : to_string(w.kv_dtype)) +
                  " (" + num(kv_value_bytes(w, compute_bytes)) + " B per value)";
  if (w.model.mla) a += "; MLA caches the compressed latent plus the rope key";
  if (mix.sliding + mix.chunked > 0)
    a += "; sliding/chunked layers keep only their " + num(w.model.sliding_window.value_or(0)) +
         "-token window (vLLM's hybrid KV cache manager, llama.cpp's default SWA cache)";
  if (mix.linear > 0) a += "; linear-attention layers keep a constant state in the model dtype";
  return a;
}

void add_kv_cache(const Setup& s, std::vector<Component>& out) {
  const Workload& w = s.w;
  if (w.model.kind != "decoder") return;
  const KvCacheSize kv =
      kv_cache_size(w.model, w.seq_len, kv_value_bytes(w, s.cb), s.cb, {s.n, s.shard == Shard::tp});
  // Eager attention grows the cache by concatenation: old and new blocks coexist. llama.cpp
  // allocates its cache whole at load (llama_kv_cache), -fa or not.
  const double copies = w.flash_attn || runs_on_ggml(w) ? 1 : data_constant("eager_kv_copies");
  std::string f = "batch " + std::to_string(w.batch) + " x [" + kv.formula + "]";
  if (copies > 1) f += " x " + num(copies) + " (eager: concatenated cache)";
  const double bytes = w.batch * kv.bytes * copies, host = host_layer_share(w);
  if (host > 0) {  // llama.cpp keeps each layer's cache with the layer (offload_kqv)
    out.push_back({"kv_cache", bytes * (1 - host), f + " x " + num(1 - host) + " (GPU layers)"});
    out.push_back({"kv_cache_host", bytes * host,
                   f + " x " + num(host) + " (layers in host RAM, --gpu-layers)", "host"});
    return;
  }
  out.push_back({"kv_cache", bytes, f});
}

}  // namespace detail
}  // namespace gpusel
