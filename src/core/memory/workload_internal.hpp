#pragma once
// Shared between workload.cpp, workload_bits.cpp and workload_parallel.cpp; not public.
#include <string>

#include "gpusel/memory/workload.hpp"

namespace gpusel::detail {

// --lora-layers within 1..layers for lora/qlora; --weight-bits for quantized inference
// weights that are not a GGUF type (workload_bits.cpp).
void validate_layers_and_bits(const Workload& w);
void require_trainable_layers(const Workload& w);
// --image-size: vision models only, from their smallest input (min_image_side) to
// kMaxImageSize (workload_vision.cpp).
void validate_image_size(const Workload& w);
// --mlm: encoders only, and only those with a vocabulary (workload_vision.cpp).
void validate_mlm_head(const Workload& w);
// "2.5", "4": a --weight-bits value as the output writes it.
std::string bits_label(double bits);

// --gpu-layers: llama.cpp inference on one GPU, not with --n-cpu-moe (workload_gpu_layers.cpp).
void validate_gpu_layers(const Workload& w);

// --n-cpu-moe/--cpu-moe: llama.cpp inference of a mixture of experts (workload_moe.cpp).
void validate_cpu_moe(const Workload& w);

// --selective-ckpt: a dense decoder trained whole, not with --grad-ckpt (checkpointing.cpp).
void validate_selective_ckpt(const Workload& w);
// --opt-in-bwd with --grad-accum above 1 (workload_framework.cpp).
void validate_optimizer_in_backward(const Workload& w);

// --shard hsdp: training, FSDP, no model parallelism, whole groups (workload_parallel.cpp).
void validate_hybrid_shard(const Workload& w);

// Error(usage) for a --shard that cannot apply to the workload (workload.cpp).
void validate_sharding(const Workload& w);

// --tp/--pp/--vpp/--cp each at least 1 and at most kMaxGpuCount; --vpp only with --pp 2+.
void validate_degrees(const Workload& w);
// Megatron-LM's constraints on a placed workload: training, tp x pp x cp divides the GPUs, tp
// the heads, pp x vpp at most the layers, --shard a data-parallel strategy, no --offload;
// --cp: --seq-len a multiple of 2 x cp, FlashAttention on.
void validate_model_parallel(const Workload& w);
// on_gpus for tp x pp x cp > 1: the count, the data-parallel strategy (default zero1), checked.
Workload place_model_parallel(Workload w, int count);

}  // namespace gpusel::detail
