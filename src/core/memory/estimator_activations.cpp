// What a training step keeps for backward, counted from tensor shapes: each op's saved
// inputs (Korthikanti et al. arXiv:2205.05198 s4, redone for SwiGLU/RMSNorm and for a
// frozen or quantized base), the loss's logits, and inference's KV cache and prefill.
#include <algorithm>

#include "estimator_parts.hpp"

namespace gpusel::detail {
namespace {

struct Widths {
  double h, q, kv, i;
};

Widths widths(const ModelArch& m) {
  const double hd = m.head_dim;
  if (m.mla)  // training materialises full K and V per head from the latent
    return {double(m.hidden), m.heads * (hd + m.mla->qk_rope_head_dim),
            m.heads * (hd + m.mla->qk_rope_head_dim), mlp_width(m)};
  return {double(m.hidden), m.heads * hd, m.kv_heads * hd, mlp_width(m)};
}

int tokens_per_sample(const Workload& w) {
  if (w.model.kind == "vision-encoder" && w.model.image_tokens) return *w.model.image_tokens;
  return w.seq_len;
}

// Which linear inputs are kept: a trained weight needs its input for the weight
// gradient; 4/8-bit layers (bitsandbytes, GPTQ) keep it for the dequantized matmul; a
// frozen 16-bit weight keeps nothing (autograd saves only what the needed grads use).
struct Keeps {
  bool attn_in, o_in, mlp_in, mlp_out, norm_out;
  LoraPlacement lora;
};

Keeps keeps(const Setup& s) {
  Keeps k{};
  const bool trained = !s.adapters;  // full, or the trained blocks of freeze
  if (s.adapters) k.lora = lora_placement(s.w.lora_targets);
  const bool all = trained || s.quantized;
  k.attn_in = all || k.lora.q || k.lora.k || k.lora.v;
  k.o_in = all || k.lora.o;
  k.mlp_in = all || k.lora.mlp_in;
  k.mlp_out = all || k.lora.mlp_out;
  k.norm_out = trained;  // the norm's own weight gradient
  return k;
}

// Bytes kept per token by one block; `seq` enters only through eager attention scores.
double layer_bytes(const Setup& s, double seq) {
  const ModelArch& m = s.w.model;
  const Widths d = widths(m);
  const Keeps k = keeps(s);
  const double cb = s.cb, tp = s.shard == Shard::tp ? s.n : 1;
  const bool gpt_style = m.norm == "layernorm";  // BERT/GPT-2 blocks train with dropout
  double b = 2 * data_constant("norm_saved_bytes") * d.h;
  if (k.norm_out) b += 2 * cb * d.h;
  if (k.attn_in) b += cb * d.h;
  if (s.w.flash_attn) {
    b += cb * (2 * d.q + 2 * d.kv) / tp;  // q, k, v and the output (+ logsumexp)
  } else {
    const double sm = data_constant("softmax_saved_bytes");
    double probs = sm + (cb < sm ? cb : 0);
    if (gpt_style) probs += 1 + sm;  // dropout mask and output
    b += (cb * (d.q + 2 * d.kv) + m.heads * seq * probs) / tp;
  }
  if (k.o_in) b += cb * d.q / tp;
  if (k.mlp_in) b += cb * d.h;
  const bool gated = m.mlp != "gelu";
  b += cb * (gated ? 3 : 1) * d.i / tp;  // activation input (+ gate/up kept by the product)
  if (k.mlp_out) b += cb * d.i / tp;
  if (gpt_style) b += 2 * d.h;  // hidden dropout masks
  if (s.adapters) {             // LoRA dropout: a dropped copy of each adapted input + mask
    const double per = cb + data_constant("lora_dropout_mask_bytes");
    const LoraPlacement& l = k.lora;
    b += per *
         ((l.q + l.k + l.v) * d.h + l.o * d.q + l.mlp_in * (gated ? 2 : 1) * d.h + l.mlp_out * d.i);
  }
  return b;
}

int layers_with_grad(const Setup& s) {
  if (s.w.mode == Mode::freeze) return std::min(s.w.freeze_trainable_layers, s.w.model.layers);
  return s.w.model.layers;
}

void add_activations(const Setup& s, std::vector<Component>& out) {
  const Workload& w = s.w;
  const double tokens = double(w.batch) * tokens_per_sample(w);
  const double per_layer = layer_bytes(s, tokens_per_sample(w));
  const int layers = layers_with_grad(s);
  const double head = (data_constant("norm_saved_bytes") + s.cb) * w.model.hidden;
  double per_token = 0;
  std::string f;
  if (w.grad_ckpt) {
    per_token = layers * s.cb * w.model.hidden + per_layer + head;
    f = num(tokens) + " tokens x (" + std::to_string(layers) + " checkpointed inputs x " +
        num(s.cb * w.model.hidden) + " B + 1 recomputed block x " + num(per_layer) + " B + " +
        num(head) + " B head)";
  } else {
    per_token = layers * per_layer + head;
    f = num(tokens) + " tokens x (" + std::to_string(layers) + " blocks x " + num(per_layer) +
        " B + " + num(head) + " B head)";
  }
  out.push_back({"activations", tokens * per_token, f});
}

void add_logits(const Setup& s, std::vector<Component>& out) {
  const Workload& w = s.w;
  if (w.model.kind != "decoder" || w.model.vocab <= 0) return;
  const double tokens = double(w.batch) * w.seq_len;
  const double tp = s.shard == Shard::tp ? s.n : 1;
  const double per = w.loss == Loss::full ? s.cb + data_constant("loss_fp32_bytes") : s.cb;
  const std::string what = w.loss == Loss::full ? " B (16-bit logits + fp32 loss and gradient)"
                                                : " B (16-bit logits; fp32 work chunk by chunk)";
  out.push_back({"logits", tokens * double(w.model.vocab) * per / tp,
                 num(tokens) + " tokens x " + std::to_string(w.model.vocab) + " vocab x " +
                     num(per) + what + (tp > 1 ? " / " + num(tp) : "")});
}

}  // namespace

void add_activation_components(const Setup& s, std::vector<Component>& out) {
  add_activations(s, out);
  add_logits(s, out);
}

namespace {

// One block's live tensors over the whole prompt, the largest of attention and MLP.
void add_prefill(const Setup& s, std::vector<Component>& out) {
  const Workload& w = s.w;
  const Widths d = widths(w.model);
  const double p = w.prompt_len > 0 ? w.prompt_len : tokens_per_sample(w);
  const double tokens = double(w.batch) * p, tp = s.n > 1 ? s.n : 1;
  const double attn = 2 * d.h + (2 * d.q + 2 * d.kv) / tp;
  const double mlp = 2 * d.h + 3 * d.i / tp;
  double bytes = tokens * s.cb * std::max(attn, mlp);
  std::string f = num(tokens) + " prompt tokens x " + num(s.cb) + " B x max(attention " +
                  num(attn) + ", MLP " + num(mlp) + ")";
  if (!w.flash_attn) {
    const double scores = double(w.batch) * w.model.heads / tp * p * p *
                          (data_constant("softmax_saved_bytes") + s.cb);
    bytes += scores;
    f += " + eager scores " + num(w.batch) + " x " + std::to_string(w.model.heads) + " heads x " +
         num(p) + "^2 x " + num(data_constant("softmax_saved_bytes") + s.cb) + " B";
  }
  if (w.model.kind == "decoder" && w.model.vocab > 0) {  // logits of the last position only
    bytes += double(w.batch) * double(w.model.vocab) * (s.cb + 4);
    f += " + last-token logits";
  }
  out.push_back({"prefill_workspace", bytes, f});
}

}  // namespace

void add_inference_components(const Setup& s, std::vector<Component>& out) {
  add_kv_cache(s, out);
  add_prefill(s, out);
}

}  // namespace gpusel::detail
