// What a training step keeps for backward, counted from tensor shapes and from what each
// op saves (Korthikanti et al. arXiv:2205.05198 s4, redone for SwiGLU/RMSNorm and for
// frozen, quantized and adapted layers): which inputs are kept, in which dtype, shared by
// the modules that read them or copied per module, as the framework's profile says.
#include <algorithm>
#include <cmath>

#include "estimator_parts.hpp"
#include "gpusel/memory/checkpointing.hpp"

namespace gpusel::detail {
namespace {

// A group of linear modules reading the same input: q/k/v, o, gate/up, down.
struct Group {
  double width;     // elements per token of the input
  double xb;        // bytes per element of the input
  double modules;   // modules reading it
  double adapted;   // of those, how many carry LoRA adapters
  bool base_keeps;  // the base layers keep their input (trained, or 8-bit / old 4-bit)
};

// Bytes per token a group keeps. A module that keeps its input shares the tensor unless
// it makes its own: autocast's 16-bit copy of an input of another dtype, PEFT's cast to
// the adapter dtype (tuners/lora/layer.py:1061; skipped on the 4-bit path under autocast,
// bnb.py:543), or the dropped copy of LoRA dropout with its 1-byte mask.
double group_bytes(const Setup& s, const Group& g) {
  bool shared = false;
  double copies = 0;
  if (g.base_keeps) {
    if (g.xb != s.cb)
      copies += g.modules * s.cb;  // autocast / bnb compute-dtype cast
    else
      shared = true;
  }
  if (g.adapted > 0) {
    const bool cast = s.f.adapter_input_cast.value && s.ab != g.xb && !(s.four_bit && s.autocast);
    const bool copy = s.dropout > 0 || cast || (s.autocast && g.xb != s.cb);
    if (copy) {
      const double kept = s.autocast ? s.cb : (cast ? s.ab : g.xb);
      copies += g.adapted * (kept + (s.dropout > 0 ? 1 : 0));
    } else {
      shared = true;
    }
  }
  return g.width * (copies + (shared ? g.xb : 0));
}

// Bytes kept per token by one block; `seq` enters only through eager attention scores.
double layer_bytes(const Setup& s, double seq, bool trained_block) {
  const ModelArch& m = s.w.model;
  const Widths d = widths(m);
  const double cb = s.cb, tp = s.shard == Shard::tp ? s.n : 1;
  const bool encoder = m.kind == "encoder";  // BERT trains with dropout 0.1 (its config)
  const bool gated = m.mlp != "gelu";
  const LoraPlacement l = s.adapters ? lora_placement(s.w.lora_targets) : LoraPlacement{};
  const bool fused = s.adapters && s.f.fused_lora_kernels.value && s.dropout == 0;
  const bool quant_keeps = (s.four_bit && s.f.four_bit_keeps_input.value) ||
                           (s.eight_bit && s.f.eight_bit_keeps_input.value);
  const bool keeps = trained_block || quant_keeps;
  // Compiled, the fp32 upcast inside a norm is recomputed (min-cut partitioner): the norm
  // keeps its 16-bit input; so do Unsloth's fused norms.
  const bool compiled = s.f.compile.value;
  const double norm = fused || compiled ? cb : s.f.norm_saved_bytes.value;
  double b = 2 * norm * d.h;
  if (trained_block) b += 2 * s.rb * d.h;  // the norms' own weight gradients
  const bool fqkv = s.f.fused_qkv.value;
  const double qkv_adapted = fqkv ? (l.q || l.k || l.v) : double(l.q + l.k + l.v);
  const double mlp_mods = gated ? 2 : 1;
  b += group_bytes(
      s, {d.h, s.rb, fqkv ? 1.0 : 3.0, fused ? std::min(1.0, qkv_adapted) : qkv_adapted, keeps});
  if (s.w.flash_attn) {
    const double kv = s.f.kv_repeat.value ? d.q : d.kv;   // K, V copied to the query width
    b += (cb * (2 * d.q + 2 * kv) + 4.0 * m.heads) / tp;  // q, k, v, output, logsumexp
  } else {
    const double sm = data_constant("softmax_saved_bytes");
    // The product with V keeps its input: a 16-bit autocast copy when compute is 16-bit
    // (matmul autocasts to float16, softmax to float32: PyTorch docs amp.rst, autocast op
    // reference), else the probabilities themselves. Attention dropout (encoders) keeps its
    // 1-byte mask only (derivatives.yaml native_dropout: the gradient needs result1, the
    // mask); its output is what the product keeps, a separate tensor only when no cast made one.
    double probs = sm + (cb < sm ? cb : 0);
    if (encoder) probs += 1 + (cb < sm ? 0 : sm);
    b += (cb * (d.q + 2 * d.kv) + m.heads * seq * probs) / tp;
  }
  b += group_bytes(s, {d.q / tp, cb, 1, double(l.o), keeps});
  if (fused && l.mlp_in) {
    b += s.rb * d.h + 2 * s.mb * d.i / tp;  // LoRA_MLP keeps X, e, g (fast_lora.py:110)
  } else {
    b += group_bytes(s, {d.h, s.rb, mlp_mods, l.mlp_in ? mlp_mods : 0.0, keeps});
    // The activation's input (+ gate and up kept by the product); compiled, the activation's
    // output is recomputed from the gate in backward.
    b += s.mb * (gated ? (compiled ? 2 : 3) : 1) * d.i / tp;
    b += group_bytes(s, {d.i / tp, s.mb, 1, double(l.mlp_out), keeps});
  }
  if (encoder) b += 2 * d.h;  // hidden dropout masks
  if (s.adapters) {           // lora_A outputs, kept by lora_B
    const double per_mlp = active_mlps(m);
    const double mods = (fqkv ? (qkv_adapted > 0) : qkv_adapted) + l.o +
                        per_mlp * ((l.mlp_in ? mlp_mods : 0) + l.mlp_out);
    b += mods * s.w.lora_rank * (s.autocast ? cb : s.ab);
  }
  return b;
}

int layers_with_grad(const Setup& s) {
  if (s.w.mode == Mode::freeze) return std::min(s.w.freeze_trainable_layers, s.w.model.layers);
  // --lora-layers: the blocks below the adapted ones need no gradient, so autograd (and MLX's
  // value_and_grad) keeps nothing of them for backward.
  if (s.adapters) return lora_blocks(s.w);
  return s.w.model.layers;
}

// After the last block: the final norm's input, and the LM head's input when it trains.
double head_bytes(const Setup& s) {
  const bool head_trained = s.w.mode == Mode::full || s.w.train_embeddings;
  double b = s.f.norm_saved_bytes.value * s.w.model.hidden;
  if (head_trained) b += (s.autocast && s.rb != s.cb ? s.cb : s.rb) * s.w.model.hidden;
  // A masked-LM head's transform keeps its dense output (GELU's input), GELU's output
  // (LayerNorm's input) and LayerNorm's output (the vocabulary projection's input).
  if (s.w.model.mlm_head) b += 3 * s.cb * s.w.model.hidden;
  return b;
}

void add_activations(const Setup& s, std::vector<Component>& out) {
  const Workload& w = s.w;
  const double tokens = double(w.batch) * tokens_per_sample(w);
  const bool trained = s.trains_base;
  const double per_layer = layer_bytes(s, tokens_per_sample(w), trained);
  // A layer split keeps on its busiest GPU only the activations of the blocks it holds.
  const int held = s.layer_split() ? int(std::lround(s.layer_share() * w.model.layers)) : 1 << 30;
  const int layers = std::min(layers_with_grad(s), held);
  const double head = head_bytes(s), ckpt_in = s.rb * w.model.hidden;
  const bool offload = s.f.activation_offload.value;
  const int on_gpu = std::min(layers, s.f.offload_gpu_checkpoints.value);
  double gpu = 0, host = 0;
  std::string f;
  if (w.selective_ckpt) {
    // Each block keeps its input, the saved matmul and SDPA outputs (and SDPA's fp32
    // logsumexp); backward recomputes one block's other tensors at a time.
    const double tp = s.shard == Shard::tp ? s.n : 1;
    const SelectiveCkpt sac = selective_ckpt(w.model, s.f.fused_qkv.value);
    const double kept = ckpt_in + (s.cb * sac.saved_elements + 4.0 * w.model.heads) / tp;
    gpu = layers * kept + std::max(0.0, per_layer - kept) + head;
    f = num(tokens) + " tokens x (" + std::to_string(layers) + " blocks x " + num(kept) +
        " B saved by torchtitan's op-level policy (input, every second matmul's output, SDPA's) "
        "+ 1 block's recomputed rest x " +
        num(std::max(0.0, per_layer - kept)) + " B + " + num(head) + " B head)";
  } else if (s.ckpt) {
    // The first block is recomputed after the loss's backward has freed its buffers: the
    // step's peak holds the checkpoints and the larger of the loss and one block.
    const double loss = loss_bytes(s) / std::max(1.0, tokens);
    const double block = std::max(0.0, per_layer - loss);
    const int kept = offload ? on_gpu : layers;
    gpu = kept * ckpt_in + block + head;
    host = offload ? (layers - kept) * ckpt_in : 0;
    f = num(tokens) + " tokens x (" + std::to_string(kept) + " checkpointed inputs x " +
        num(ckpt_in) + " B + 1 recomputed block x " + num(per_layer) + " B less the " + num(loss) +
        " B the loss freed + " + num(head) + " B head)";
    if (offload) f += "; " + std::to_string(layers - kept) + " checkpoints offloaded to CPU";
  } else if (offload) {
    gpu = per_layer + head;  // offloaded as they are saved; about a block in flight
    host = (layers - 1) * per_layer;
    f = num(tokens) + " tokens x (1 block in flight x " + num(per_layer) + " B + " + num(head) +
        " B head); the other blocks' activations offloaded to CPU";
  } else {
    gpu = layers * per_layer + head;
    f = num(tokens) + " tokens x (" + std::to_string(layers) + " blocks x " + num(per_layer) +
        " B + " + num(head) + " B head)";
  }
  out.push_back({"activations", tokens * gpu, f});
  if (host > 0)
    out.push_back({"activations_offloaded", tokens * host,
                   num(tokens) + " tokens x " + num(host) + " B in pinned CPU memory", "host"});
}

}  // namespace

Widths widths(const ModelArch& m) {
  const double hd = m.head_dim;
  if (m.mla)
    return {double(m.hidden), m.heads * (hd + m.mla->qk_rope_head_dim),
            m.heads * (hd + m.mla->qk_rope_head_dim), mlp_width(m)};
  return {double(m.hidden), m.heads * hd, m.kv_heads * hd, mlp_width(m)};
}

void add_activation_components(const Setup& s, std::vector<Component>& out) {
  add_activations(s, out);
  add_loss_component(s, out);
}

// Exposed for the inference prefill and the vision model.
int tokens_of(const Workload& w) { return tokens_per_sample(w); }

}  // namespace gpusel::detail
