#pragma once
// Per-GPU memory of a workload as a sum of named components, each from a published formula
// (../shared/ESTIMATOR.md; constants with their sources in data/constants.json).
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "gpusel/memory/workload.hpp"

namespace gpusel {

struct Component {
  std::string name;     // weights, quantization_state, gradients, optimizer_states,
                        // master_weights, lora_adapters, gathered_params, comm_buffers,
                        // activations, logits, optimizer_step, prefill_workspace, kv_cache,
                        // paged_optimizer_states, cuda_context, allocator_overhead
  double bytes = 0;     // per GPU
  std::string formula;  // the formula with the numbers put in
  // Where it lives: "gpu" (counts against VRAM), "host" (offloaded to CPU RAM) or "managed"
  // (bitsandbytes paged optimizer states: CUDA managed memory, resident on the GPU while
  // there is room and evicted to host under pressure; outside torch's allocator statistics).
  std::string where = "gpu";
  // Of `bytes`, what the framework sizes to the memory it finds free (Unsloth's fused loss
  // takes logits chunks of at most half the free memory): less on a card with less room.
  double elastic = 0;
};

struct Estimate {
  double total_bytes = 0;    // per GPU: allocated + allocator overhead + CUDA context
  double host_bytes = 0;     // CPU memory per GPU for what is offloaded ("host" components)
  double managed_bytes = 0;  // paged optimizer states ("managed"): not counted in total_bytes
  double low_bytes = 0, high_bytes = 0;
  std::vector<Component> components;
  std::vector<std::string> assumptions;

  // Sum of the GPU tensors the framework allocates (torch.cuda.max_memory_allocated).
  double allocated_bytes() const;
  // allocated + allocator overhead (torch.cuda.max_memory_reserved).
  double reserved_bytes() const;
  // What the fit verdict compares with a card's usable memory: allocated + CUDA context,
  // without the allocator allowance. Before it reports an OOM the caching allocator frees
  // every cached block that is not split and retries, so the allowance is memory an OOM
  // mostly never sees, and the card's reserve (default 10 %) is the one margin kept.
  double need_bytes() const;
  // The one fit verdict every command gives (estimate, fit, check, compare, recommend, rent),
  // with the elastic components as they size themselves on that card (need_on).
  bool fits_within(double usable_bytes) const { return need_on(usable_bytes) <= usable_bytes; }
  // need_bytes() on a card of `usable_bytes`: an elastic component takes at most half of
  // what the rest leaves free (Unsloth's target_gb), never more than its own size.
  double need_on(double usable_bytes) const;
  // The components as they run on that card: elastic ones cut to need_on's share, the totals
  // and band with them, the cut said in the formula. What a command shows beside a card.
  void fit_to(double usable_bytes);
  // The estimate's band (low_bytes, high_bytes) carried over to the need.
  double need_low_bytes() const { return band_of_need(low_bytes); }
  double need_high_bytes() const { return band_of_need(high_bytes); }
  double bytes_of(std::string_view component) const;  // 0 when absent
  double bytes_where(std::string_view where) const;   // sum of the components there

 private:
  // Whole bytes: the band is an estimate's edge, and 15193470412.800001 reads as noise.
  double band_of_need(double edge) const {
    return total_bytes > 0 ? std::round(edge * need_bytes() / total_bytes) : 0;
  }
};

// full: every component with its formula and the assumptions listed; numbers: the same
// bytes without the text (what ranking hundreds of configurations needs).
enum class EstimateDetail { full, numbers };

// Throws Error(usage) for workloads `validate` rejects.
Estimate estimate(const Workload& w, EstimateDetail detail = EstimateDetail::full);

// Whether `count` cards can split the workload: always for FSDP/ZeRO training (they shard
// parameters); under tensor parallelism (inference, or --shard tp) only when the count
// divides the attention heads, as vLLM, TensorRT-LLM and Megatron require.
bool tensor_parallel_splits(const Workload& w, int count);

// The engine that runs an inference prompt and its token budget per step (chunked prefill):
// vLLM's max_num_batched_tokens, llama.cpp's n_ubatch (data/constants.json
// prefill_chunk_tokens_*); tokens 0 when the engine runs the whole prompt at once. The engine
// is --engine, else the speed stage's default (llama.cpp at batch 1, vLLM batched).
struct PrefillChunk {
  std::string engine;
  double tokens = 0;
};
PrefillChunk prefill_chunk(const Workload& w);
// llama.cpp or a build of it (--engine llama.cpp, llama.cpp-nograph, ollama; any case): its
// prompt chunks, its layer and row splits.
bool is_llama_cpp(const std::string& engine);

}  // namespace gpusel
