#pragma once
// Selective activation checkpointing as torchtitan runs it (--selective-ckpt): the op-level
// policy of torchtitan/distributed/activation_checkpoint.py (selective_ac_option "op") saves
// the outputs of every second matmul of a block (the 1st, 3rd, 5th, ...), of SDPA and of the
// reduce-scatters, and recomputes everything else in backward.
#include "gpusel/data/models.hpp"

namespace gpusel {

struct SelectiveCkpt {
  double saved_elements = 0;   // per token and block: the saved matmul and attention outputs
  double recompute_share = 0;  // of a block's forward matmul FLOPs, what backward redoes
};

// For a dense decoder block in torchtitan's matmul order: q, k, v (or one fused qkv), o, then
// gate, up, down (SwiGLU) or fc1, fc2.
SelectiveCkpt selective_ckpt(const ModelArch& m, bool fused_qkv);

}  // namespace gpusel
