#pragma once
// Per-GPU memory of a workload as a sum of named components, each from a published formula
// (../shared/ESTIMATOR.md; constants with their sources in data/constants.json).
#include <string>
#include <string_view>
#include <vector>

#include "gpusel/memory/workload.hpp"

namespace gpusel {

struct Component {
  std::string name;     // weights, quantization_state, gradients, optimizer_states,
                        // master_weights, lora_adapters, activations, logits,
                        // prefill_workspace, kv_cache, cuda_context, allocator_overhead
  double bytes = 0;     // per GPU
  std::string formula;  // the formula with the numbers put in
};

struct Estimate {
  double total_bytes = 0;  // per GPU: allocated + allocator overhead + CUDA context
  double low_bytes = 0, high_bytes = 0;
  std::vector<Component> components;
  std::vector<std::string> assumptions;

  // Sum of the tensors the framework allocates (what torch.cuda.max_memory_allocated sees).
  double allocated_bytes() const;
  // allocated + allocator overhead (torch.cuda.max_memory_reserved).
  double reserved_bytes() const;
  double bytes_of(std::string_view component) const;  // 0 when absent
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

}  // namespace gpusel
