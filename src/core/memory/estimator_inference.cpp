// Inference: the KV cache and the prefill workspace, split as tensor parallelism splits
// heads or as a layer split (HF device_map) splits layers.
#include <algorithm>
#include <cctype>

#include "estimator_parts.hpp"
#include "gpusel/data/engines.hpp"

namespace gpusel {

// The engine's prompt budget per step: the speed stage's engine choice (throughput.json
// default_engine: llama.cpp at batch 1, vLLM batched or tensor parallel; --engine overrides,
// aliases resolved by data/engines.hpp), kept in step by
// tests/unit/speed/prefill_engine_test.cpp. Engines gpusel has no documented chunk for run
// the whole prompt (0).
bool is_llama_cpp(const std::string& engine) {
  std::string e;
  for (char c : engine) e += char(std::tolower(static_cast<unsigned char>(c)));
  return e.rfind("llama.cpp", 0) == 0 || e == "ollama";
}

PrefillChunk prefill_chunk(const Workload& w) {
  const std::string e = engine_of(w, w.shard == Shard::tp && w.gpus > 1);
  if (e == "vllm") return {"vllm", data_constant("prefill_chunk_tokens_vllm")};
  if (is_llama_cpp(e)) return {"llama.cpp", data_constant("prefill_chunk_tokens_llama_cpp")};
  return {e, 0};
}

}  // namespace gpusel

namespace gpusel::detail {

namespace {

// One block's live tensors over the tokens of one engine step, the largest of attention and
// MLP. Chunked prefill (vLLM, llama.cpp) runs at most the engine's budget per step, while the
// KV cache still holds the whole context; eager attention (HF) runs the whole prompt at once.
// Tensor parallelism splits the workspace by heads and MLP columns; a layer split does not:
// the stage that runs a layer holds its whole workspace.
void add_prefill(const Setup& s, std::vector<Component>& out) {
  const Workload& w = s.w;
  const Widths d = widths(w.model);
  const double p = w.prompt_len > 0 ? w.prompt_len : tokens_of(w);
  // llama.cpp runs the prompt by ubatches with or without -fa; the others' eager attention
  // takes the whole prompt at once.
  const bool ggml = runs_on_ggml(w);
  const PrefillChunk chunk = w.flash_attn || ggml ? prefill_chunk(w) : PrefillChunk{"", 0};
  const double prompt = double(w.batch) * p;
  const double tokens = chunk.tokens > 0 ? std::min(prompt, chunk.tokens) : prompt;
  const double tp = s.shard == Shard::tp && s.n > 1 ? s.n : 1;
  const double attn = 2 * d.h + (2 * d.q + 2 * d.kv) / tp;
  const double mlp = 2 * d.h + 3 * d.i / tp;
  double bytes = tokens * s.cb * std::max(attn, mlp);
  std::string f = tokens < prompt ? "min(" + num(prompt) + " prompt tokens, " + chunk.engine +
                                        " chunk " + num(chunk.tokens) + ")"
                                  : num(tokens) + " prompt tokens";
  f += " x " + num(s.cb) + " B x max(attention " + num(attn) + ", MLP " + num(mlp) + ")";
  if (s.layer_split()) f += " (layer split: the busy stage holds the whole prompt's workspace)";
  if (!w.flash_attn && ggml) {
    // Without -fa, ggml's attention multiplies K by the ubatch's queries into an F32 KQ of
    // n_kv x n_tokens x n_head and softmaxes it into another (llama-graph.cpp build_attn_mha:
    // ggml_mul_mat, ggml_soft_max_ext): 2 x 4 B per score, a ubatch's rows at a time. The
    // compute buffer is reserved for the worst graph, a full ubatch against the whole
    // context's keys (llama_context's graph_reserve at n_ctx), whatever the prompt.
    const double rows = std::min(double(tokens_of(w)) * w.batch, chunk.tokens);
    const double keys = tokens_of(w);
    bytes += rows * w.model.heads / tp * keys * 8;
    f += " + KQ and softmax " + num(rows) + " x " + std::to_string(w.model.heads) + " heads x " +
         num(keys) + " keys x 2 x 4 B (no -fa, reserved for the full context)";
  } else if (!w.flash_attn) {
    const double scores = double(w.batch) * w.model.heads / tp * p * p *
                          (data_constant("softmax_saved_bytes") + s.cb);
    bytes += scores;
    f += " + eager scores " + num(w.batch) + " x " + std::to_string(w.model.heads) + " heads x " +
         num(p) + "^2 x " + num(data_constant("softmax_saved_bytes") + s.cb) + " B";
  }
  if (w.model.kind == "decoder" && w.model.vocab > 0) {  // logits of the last position only
    bytes += double(w.batch) * double(w.model.vocab) * (s.cb + 4);
    f += " + last-token logits";
  } else if (scores_vocabulary(w.model)) {  // a masked-LM head scores every position
    bytes += prompt * double(w.model.vocab) * s.cb;
    f += " + " + num(prompt) + " x " + num(double(w.model.vocab)) + " masked-LM logits";
  }
  out.push_back({"prefill_workspace", bytes, f});
}

// llama.cpp --n-cpu-moe: a prompt micro-batch of 32+ tokens has the GPU multiply the host's
// experts (llama_cpp_op_offload_batch); the scheduler copies each offloaded layer's expert
// tensors in as inputs of its GPU split, held in the GPU's compute buffer for that split.
void add_expert_staging(const Setup& s, std::vector<Component>& out) {
  const Workload& w = s.w;
  if (cpu_moe_layers(w) <= 0) return;
  const double params = routed_expert_params(w.model) / moe_layer_count(w.model);
  const double per = routed_expert_bytes_per_param(s);
  out.push_back({"expert_staging", params * per,
                 num(params) + " routed-expert params of one MoE layer x " + num(per) +
                     " B: copied in from host RAM for each prompt micro-batch (llama.cpp op "
                     "offload)"});
}

}  // namespace

void add_inference_components(const Setup& s, std::vector<Component>& out) {
  add_kv_cache(s, out);
  // A layer split (HF device_map) puts ceil(layers / GPUs) layers on the busiest GPU.
  if (s.layer_split() && !out.empty() && out.back().name == "kv_cache") {
    out.back().bytes *= s.layer_share() * s.n;
    out.back().formula += " x " + num(s.layer_share() * s.n) + " (layers on the busiest GPU)";
  }
  add_prefill(s, out);
  add_expert_staging(s, out);
}

}  // namespace gpusel::detail
