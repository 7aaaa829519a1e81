// The memory-bound part of a training step. Matmuls run at the achievable matmul rate;
// everything between them (norms, softmax, activation functions, residual adds, dropout,
// eager attention scores, the loss, FP8 casts) and the optimizer step stream their tensors
// through memory at the card's achievable bandwidth. Their share grows as the hidden size
// shrinks (bytes go with h, FLOPs with h^2), so a BERT-large moves far more per FLOP than
// a 7B LLM.
#include <algorithm>
#include <vector>

#include "throughput_model.hpp"

namespace gpusel::tput {
namespace {

// Full-precision training without autocast keeps its activations in fp32.
double activation_bytes(const Workload& w) {
  return w.precision == Precision::fp32 && !w.amp ? 4 : 2;
}

// One adapted module's bytes per token beside its base GEMM (PEFT-style LoRA: the adapter
// reads the module's input x, its rank-r product is tiny, its d_out output is scaled and
// added to the base output). Forward: read x, write and read the low-rank output, read both
// outputs and write their sum (d_in + 4·d_out); backward: read the output gradient,
// write the input gradient and add it into the base one, read x again for lora_A's weight
// gradient (5·d_in + d_out). LoRA dropout writes and reads a dropped copy of x and a
// 1-byte mask. Each term counts once, like the activations above.
double adapter_bytes(const Workload& w, const Shape& s, double cb, bool recompute) {
  if (!adapters(w.mode)) return 0;
  const double dropout = w.framework.lora_dropout.value > 0 ? 2 * cb + 1 : 0;
  double bytes = 0;
  const auto add_module = [&](double in, double out) {  // summed in module order, no list built
    const double fwd = cb * (in + 4 * out) + dropout * in;
    bytes += fwd * (recompute ? 2 : 1) + cb * (5 * in + out);
  };
  add_module(s.hidden, s.attn_dim), add_module(s.hidden, s.kv_dim);  // q, v
  if (w.lora_targets != LoraTargets::qv)
    add_module(s.hidden, s.kv_dim), add_module(s.attn_dim, s.hidden);  // k, o
  if (w.lora_targets == LoraTargets::all_linear) {
    add_module(s.hidden, s.inter);
    if (s.gated) add_module(s.hidden, s.inter);
    add_module(s.inter, s.hidden);
  }
  return bytes;
}

}  // namespace

double achievable_bandwidth(const Gpu& g, const K& k) {
  const auto mt = k.memory_types.find(g.memory_type);
  return g.bandwidth_gbs * 1e9 * (mt != k.memory_types.end() ? mt->second : 1.0);
}

// Per layer and token, Korthikanti et al. (arXiv:2205.05198, s4.1) count the activation
// bytes a block produces: 34·h in 16-bit (16 values of 2 B and two 1-byte dropout masks);
// in fp32 the values take 4 B and the masks stay 1 B: 66·h. Each such tensor is written and
// read once in forward, read again in backward, and its gradient written and read
// ("activation_traffic_passes"); recompute runs the forward again. A decoder's loss reads
// and writes fp32 logits (4·vocab bytes, ibid.). Eager attention adds what its score ops
// were measured to move per score element (a·s per token and layer) beyond SDPA:
// constants.eager_attention_bytes_per_score, 16-bit; fp32 scales it by 2.
double activation_traffic_per_token(const Workload& w, const Shape& s, bool fp8_casts, const K& k) {
  const double cb = activation_bytes(w);
  const double layer = (16 * cb + 2) * s.hidden;
  const double f = std::min(1.0, double(w.freeze_trainable_layers) / std::max(1, s.layers));
  const double back_layers = w.mode == Mode::freeze ? f * s.layers : s.layers;
  const double fwd = k.activation_forward_passes, bwd = k.activation_backward_passes;
  double bytes = s.layers * fwd * layer + back_layers * bwd * layer;
  if (w.grad_ckpt) bytes += back_layers * fwd * layer;
  if (!w.flash_attn) {
    const double scores = double(s.heads) * w.seq_len * cb / 2;  // per token and layer
    bytes += scores * (s.layers * k.eager_forward_bytes + back_layers * k.eager_backward_bytes);
    if (w.grad_ckpt) bytes += scores * back_layers * k.eager_forward_bytes;
  }
  bytes += 4 * s.logits * (fwd + bwd);
  bytes += s.layers * adapter_bytes(w, s, cb, w.grad_ckpt);
  if (fp8_casts) {  // each GEMM input cast to FP8 (read 16-bit, write 8-bit), and in
                    // backward each output gradient
    const double inputs = 2 * s.hidden + s.attn_dim + s.inter;
    bytes += (s.layers + back_layers) * 3 * inputs;
  }
  return bytes;
}

// AdamW-style step per trainable parameter: read the master weight, its gradient and the
// states, write the weight and the states back, and under autocast write the 16-bit copy
// the next forward reads (torch.optim.AdamW; apex/DeepSpeed FusedAdam do the same in one
// kernel). States are fp32 where the weights or gradients are; bitsandbytes 8-bit Adam
// keeps two 1-byte states; SGD one momentum; Adafactor factored rows and columns (~0).
double optimizer_traffic(const Workload& w, const Shape& s, int shards) {
  const bool wide = w.amp || w.precision == Precision::fp32 || adapters(w.mode);
  const double pb = wide ? 4 : 2, gb = wide ? 4 : 2;
  double states = 0;
  switch (w.optimizer) {
    case Optimizer::adamw:
    case Optimizer::paged_adamw:
      states = 2 * pb;
      break;
    case Optimizer::adamw_8bit:
    case Optimizer::paged_adamw_8bit:
      states = 2;
      break;
    case Optimizer::sgd:
      states = pb;
      break;
    case Optimizer::adafactor:
      states = 0;
      break;
  }
  const double per = 2 * pb + gb + 2 * states + (w.amp && !adapters(w.mode) ? 2 : 0);
  return s.trainable / std::max(1, shards) * per;
}

}  // namespace gpusel::tput
