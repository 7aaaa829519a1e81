#pragma once
// The inference KV cache by attention kind, as vLLM v1 sizes it per layer
// (vllm/v1/kv_cache_interface.py): full attention (MHA/GQA/MQA) keeps every token of the
// context, MLA its compressed latent plus the rope part, sliding-window layers their window,
// chunked layers their chunk, and linear-attention layers (Gated DeltaNet) a constant state.
// Used by the memory estimate and by decode throughput (bytes read per step).
#include <string>

#include "gpusel/memory/workload.hpp"

namespace gpusel {

// How the cache is split over `gpus` cards: tensor parallelism divides per-head caches by
// the heads each card holds (KV heads are replicated past their count, the MLA latent is
// replicated on every card); a layer split divides every layer kind by the card count.
struct KvSplit {
  int gpus = 1;
  bool tensor_parallel = false;
};

struct KvCacheSize {
  double bytes = 0;        // one sequence, all layers, on one card
  double token_bytes = 0;  // the part that grows with the context (full/sliding/chunked)
  double state_bytes = 0;  // the constant part (linear-attention states)
  std::string formula;     // with the numbers put in
};

// One sequence at `context` tokens. `value_bytes`: per cached key/value element (the KV
// dtype); `state_bytes`: per linear-attention state element (the model dtype: vLLM's
// mamba_cache_dtype "auto", which --kv-cache-dtype does not change).
KvCacheSize kv_cache_size(const ModelArch& m, double context, double value_bytes,
                          double state_bytes, KvSplit split = {});

// Bytes per cached value of the workload: --kv-dtype's (data/quantizations.json), or the
// compute dtype's `compute_bytes` when none was given.
double kv_value_bytes(const Workload& w, double compute_bytes);

}  // namespace gpusel
