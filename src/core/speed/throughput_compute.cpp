// What a card computes: the workload's per-token shape, the card's achievable matmul rate
// on its stack (data/throughput.json "matmul": measured maximum-achievable-matmul TFLOPS,
// else the measured fraction of the dense spec for its architecture) and the training
// stack's end-to-end efficiency against that rate ("training_efficiency").
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gpusel/data/models.hpp"
#include "throughput_model.hpp"

namespace gpusel::tput {
namespace {

double head_dim(const ModelArch& m) {
  return m.head_dim > 0 ? m.head_dim : double(m.hidden) / std::max(1, m.heads);
}

// Adapter parameters: r x (d_in + d_out) per adapted matrix (Hu et al. 2021).
double lora_params(const Workload& w) {
  const ModelArch& m = w.model;
  const double h = m.hidden, q = m.heads * head_dim(m), kv = m.kv_heads * head_dim(m);
  double per_layer = (h + q) + (h + kv);                                   // q, v
  if (w.lora_targets != LoraTargets::qv) per_layer += (h + kv) + (q + h);  // k, o
  if (w.lora_targets == LoraTargets::all_linear) {
    const double mats = m.mlp == "gelu" ? 2 : 3;
    const double width =
        m.moe ? double(m.moe->expert_intermediate) * (m.moe->experts + m.moe->shared_experts)
              : m.intermediate;
    per_layer += mats * (h * (m.moe ? m.moe->experts + m.moe->shared_experts : 1) + width);
  }
  return w.lora_rank * per_layer * lora_blocks(w);  // --lora-layers: the last N blocks
}

double trainable_params(const Workload& w, const ArchParams& a) {
  switch (w.mode) {
    case Mode::full:
      return a.total;
    case Mode::freeze:
      return a.linear * std::min(1.0, double(w.freeze_trainable_layers) / w.model.layers);
    case Mode::lora:
    case Mode::qlora:
      return lora_params(w) + (w.train_embeddings ? a.embedding + a.lm_head : 0);
    case Mode::inference:
      return 0;
  }
  return 0;
}

const MatmulEntry* matmul_entry(const Gpu& g, const K& k) {
  for (const auto& e : k.matmul)
    if ((e.tflops || e.fraction) && e.library.empty() && e.match.matches(g)) return &e;
  return nullptr;
}

// FP32 without tensor cores runs on the CUDA cores at its own measured fraction: the first
// matching entry that gives one (a card's own entry may have none; its family's applies).
const MatmulEntry* fp32_entry(const Gpu& g, const K& k) {
  for (const auto& e : k.matmul)
    if (e.fp32_fraction && e.match.matches(g)) return &e;
  return nullptr;
}

thread_local int texts_off = 0;  // ThroughputTextsOff guards alive on this thread

}  // namespace

// The card's rate through one BLAS library, where measured apart (an engine's prefill_library).
const MatmulEntry* library_entry(const Gpu& g, const K& k, const std::string& library) {
  if (library.empty()) return nullptr;
  for (const auto& e : k.matmul)
    if (e.library == library && e.match.matches(g)) return &e;
  return nullptr;
}

bool texts_on() { return texts_off == 0; }

std::string num(double v) {
  if (texts_off > 0) return {};
  char buf[32];
  std::snprintf(buf, sizeof buf, std::fabs(v) >= 1000 ? "%.0f" : "%.3g", v);
  return buf;
}

}  // namespace gpusel::tput

namespace gpusel {
ThroughputTextsOff::ThroughputTextsOff() { ++tput::texts_off; }
ThroughputTextsOff::~ThroughputTextsOff() { --tput::texts_off; }
}  // namespace gpusel

namespace gpusel::tput {

Shape shape_of(const Workload& w) {
  const ModelArch& m = w.model;
  const ArchParams a = arch_params(m);
  Shape s;
  s.layers = m.layers;
  s.hidden = m.hidden;
  s.attn_dim = m.heads * head_dim(m);
  s.heads = m.heads;
  s.inter = m.moe ? double(m.moe->expert_intermediate) *
                        (std::max(1, m.moe->active) + m.moe->shared_experts)
                  : double(m.intermediate);
  const bool vocab_head = scores_vocabulary(m);
  s.logits = vocab_head ? double(m.vocab) : 0;
  s.kv_dim = m.kv_heads * head_dim(m);
  s.gated = m.mlp != "gelu";
  // A vocabulary head multiplies by vocab x hidden whether or not it is tied; a masked-LM
  // head's transform adds its hidden x hidden dense.
  const double transform = m.mlm_head ? double(m.hidden) * m.hidden : 0;
  s.head = vocab_head ? double(m.vocab) * m.hidden + transform : a.lm_head;
  s.matmul = std::max(0.0, a.active - a.embedding - a.lm_head) + s.head;
  s.total = a.total;
  s.trainable = trainable_params(w, a);
  const bool adapters = w.mode == Mode::lora || w.mode == Mode::qlora;
  s.embedding = w.mode == Mode::full || (adapters && w.train_embeddings) ? a.embedding : 0;
  return s;
}

double spec16(const Gpu& g) {
  if (g.bf16_tflops_dense) return *g.bf16_tflops_dense;
  if (g.fp16_tflops_dense) return *g.fp16_tflops_dense;
  return g.fp32_tflops;
}

// The first matching entry's measured rate, or its fraction of the spec; cards no entry
// covers take the median measured fraction. FP8 only where the catalog has an FP8 rate:
// the entry's FP8 figure, else the card's own 16-bit fraction (same clocks and power cap),
// else the default FP8 fraction.
Achievable achievable(const Gpu& g, const K& k) {
  Achievable a;
  const double spec = spec16(g);
  const MatmulEntry* e = matmul_entry(g, k);
  if (e && e->tflops) {
    a.tflops16 = *e->tflops;
    a.fraction = spec > 0 ? a.tflops16 / spec : 1;
    if (texts_on())
      a.what = num(a.tflops16) + " TFLOPS measured on " + e->stack + " [matmul." + e->id + "]";
  } else {
    a.fraction = e ? *e->fraction : k.matmul_default_fraction;
    a.tflops16 = spec * a.fraction;
    if (texts_on())
      a.what = num(a.fraction) + " x " + num(spec) + " TFLOPS dense = " + num(a.tflops16) +
               (e ? " (" + e->stack + ") [matmul." + e->id + "]"
                  : " (no measurement for this architecture) [matmul_default_fraction]");
  }
  if (const MatmulEntry* f = fp32_entry(g, k))
    a.fp32_fraction = f->fp32_fraction, a.fp32_id = f->id;
  if (g.fp8_tflops_dense) {
    const double fp8_spec = *g.fp8_tflops_dense;
    a.fp8 = e && e->fp8_tflops     ? *e->fp8_tflops
            : e && e->fp8_fraction ? *e->fp8_fraction * fp8_spec
            : e                    ? std::min(a.fraction, 1.0) * fp8_spec
                                   : k.fp8_default_fraction * fp8_spec;
  }
  return a;
}

namespace {

// The first training_efficiency entry that matches the card (the table lists narrow first).
const EfficiencyEntry* training_entry(const Gpu& g, const K& k) {
  for (const auto& e : k.training_efficiency)
    if (e.match.matches(g)) return &e;
  return nullptr;
}

}  // namespace

double training_efficiency(const Gpu& g, const K& k, std::string& id) {
  if (const EfficiencyEntry* e = training_entry(g, k))
    return id = "training_efficiency." + e->id, e->value;
  id = "training_efficiency_default";
  return k.training_efficiency_default;
}

double fp8_training_factor(const Gpu& g, const K& k, std::string& id) {
  if (const EfficiencyEntry* e = training_entry(g, k); e && e->fp8_factor)
    return id = "training_efficiency." + e->id + ".fp8_factor", *e->fp8_factor;
  id = "fp8_training_factor";
  return k.fp8_training_factor;
}

}  // namespace gpusel::tput
