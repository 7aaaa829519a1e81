// The loss: what the framework's cross-entropy keeps per logit (data/frameworks.json
// losses), unchunked, chunked, or fused with the LM head (gradient computed in forward).
#include <algorithm>
#include <cmath>

#include "estimator_parts.hpp"

namespace gpusel::detail {
namespace {

double next_pow2(double x) { return std::pow(2.0, std::ceil(std::log2(std::max(1.0, x)))); }

// Liger's fused linear cross-entropy: chunks of next_pow2(tokens / ceil(V / h)) rows of V
// logits, the gradient written in place, plus grad_input (tokens x hidden) and an fp32 loss
// per token (Liger-Kernel ops/fused_linear_cross_entropy.py:62-86).
double liger_bytes(const Setup& s, double tokens, double vocab, std::string& f) {
  const double h = s.w.model.hidden;
  const double inc = std::ceil(vocab / h);
  const double rows = std::min(tokens, next_pow2(std::ceil(tokens / inc)));
  f = num(rows) + " rows x " + num(vocab) + " vocab x " + num(s.cb) + " B (one chunk) + " +
      num(tokens) + " tokens x " + num(h) + " x " + num(s.cb) + " B (grad_input) + 4 B per token";
  return rows * vocab * s.cb + tokens * h * s.cb + 4 * tokens;
}

// Unsloth's fused loss: fp32 logits chunks of at most min(0.5 x free, 4 GiB), plus
// grad_inputs (unsloth_zoo fused_losses/cross_entropy_loss.py:140-170, 253).
double unsloth_bytes(const Setup& s, double tokens, double vocab, std::string& f) {
  const double h = s.w.model.hidden;
  const double cap = data_constant("unsloth_loss_chunk_cap_bytes");
  const double chunk = std::min(tokens * vocab * 4, cap);
  f = "min(" + num(tokens) + " tokens x " + num(vocab) + " vocab x 4 B, " + gb(cap) +
      ") fp32 chunk + " + num(tokens) + " x " + num(h) + " x " + num(s.cb) + " B grad_inputs";
  return chunk + tokens * h * s.cb;
}

}  // namespace

namespace {

double loss_bytes(const Setup& s, std::string& f) {
  const Workload& w = s.w;
  if (!scores_vocabulary(w.model)) return 0;
  const double tokens = double(w.batch) * w.seq_len;
  const double tp = s.shard == Shard::tp ? s.n : 1;
  const double vocab = double(w.model.vocab) / tp;
  const LossImpl& l = w.loss == Loss::full ? s.f.loss_full : s.f.loss_chunked;
  double bytes = 0;
  if (l.fused == "liger") {
    bytes = liger_bytes(s, tokens, vocab, f);
    f = "fused linear cross-entropy: " + f;
  } else if (l.fused == "unsloth") {
    bytes = unsloth_bytes(s, tokens, vocab, f);
    f = "fused loss: " + f;
  } else {
    const double chunks =
        l.chunk_tokens > 0 ? std::ceil(tokens / l.chunk_tokens) : std::max(1, l.chunks);
    const bool compiled = s.f.compile.value && l.compiled_kept >= 0;
    const double kept = compiled ? l.compiled_kept : l.kept;
    const double per = kept + l.transient / chunks;
    bytes = tokens * vocab * per;
    f = num(tokens) + " tokens x " + num(vocab) + " vocab x (" + num(kept) + " B kept" +
        (compiled ? " compiled" : "") + " + " + num(l.transient) + " B / " + num(chunks) +
        " chunk" + (chunks > 1 ? "s" : "") + ") per logit";
  }
  f += " [" + s.f.id + " " + to_string(w.loss) + " loss]";
  return bytes;
}

}  // namespace

double loss_bytes(const Setup& s) {
  std::string f;
  return loss_bytes(s, f);
}

void add_loss_component(const Setup& s, std::vector<Component>& out) {
  std::string f;
  const double bytes = loss_bytes(s, f);
  if (bytes <= 0) return;
  out.push_back({"logits", bytes, f});
  const LossImpl& l = s.w.loss == Loss::full ? s.f.loss_full : s.f.loss_chunked;
  // UnslothFusedLoss sizes its chunks to target_gb = min(half the free memory, the cap): the
  // fp32 chunk shrinks where the card has less room, the grad_inputs do not.
  if (l.fused == "unsloth")
    out.back().elastic = std::min(double(s.w.batch) * s.w.seq_len * double(s.w.model.vocab) * 4 /
                                      (s.shard == Shard::tp ? s.n : 1),
                                  data_constant("unsloth_loss_chunk_cap_bytes"));
}

}  // namespace gpusel::detail
