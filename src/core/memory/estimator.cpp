#include "gpusel/memory/estimator.hpp"

#include "estimator_parts.hpp"
#include "gpusel/base/error.hpp"

namespace gpusel {
namespace {

double sum_except(const std::vector<Component>& parts, std::string_view a, std::string_view b) {
  double total = 0;
  for (const auto& c : parts)
    if (c.name != a && c.name != b) total += c.bytes;
  return total;
}

void add_overheads(std::vector<Component>& parts) {
  const double allocated = sum_except(parts, "", "");
  const double frac = data_constant("allocator_overhead_fraction");
  parts.push_back({"allocator_overhead", allocated * frac,
                   detail::gb(allocated) + " allocated x " + detail::num(frac) +
                       " (caching-allocator fragmentation)"});
  const double ctx = data_constant("cuda_context_bytes");
  parts.push_back({"cuda_context", ctx, detail::gb(ctx) + " per GPU (lazy module loading)"});
}

// Half-width of the band, as a fraction: how well the model is known for this case.
// Calibration (tests/calibration) covers dense presets, 1-4 GPUs, DDP/ZeRO-3/FSDP LoRA;
// a bare count, MoE, MLA, TP, offload and fp8 are outside it.
double band(const Workload& w) {
  double f = w.model_from_preset ? 0.10 : 0.25;
  if (w.model.moe || w.model.active_params || w.model.mla) f += 0.10;
  if (w.shard == Shard::tp || w.offload != Offload::none) f += 0.10;
  if (w.precision == Precision::fp8 || w.model.kind == "vision-encoder") f += 0.10;
  if (w.mode == Mode::freeze || w.optimizer == Optimizer::adafactor) f += 0.05;
  return f;
}

void describe(const Workload& w, const detail::Setup& s, std::vector<std::string>& a) {
  const ModelArch& m = w.model;
  if (!w.model_from_preset) a.push_back("architecture: " + m.notes);
  a.push_back("mode " + to_string(w.mode) + ", weights " +
              (w.mode == Mode::qlora && !is_quantized(w.precision) ? std::string("nf4")
                                                                   : precision_label(w)) +
              (!w.weight_format.empty()
                   ? " (llama.cpp GGUF, " + detail::num(w.weight_bits) + " bits per weight)"
               : w.mode == Mode::qlora || w.precision == Precision::int4
                   ? (w.double_quant ? " with double quantization" : " without double quant")
                   : "") +
              (w.amp ? ", AMP (fp32 master weights, 16-bit compute)"
               : (w.mode == Mode::full || w.mode == Mode::freeze) && w.precision != Precision::fp32
                   ? ", pure " + to_string(w.precision) +
                         " training: gradients (and AdamW states) in that dtype, no fp32 master "
                         "copy (--amp for mixed precision)"
                   : ""));
  a.push_back("micro-batch " + std::to_string(w.batch) + " per GPU, sequence " +
              std::to_string(w.seq_len) + " tokens" +
              (w.prompt_len > 0 ? ", prompt " + std::to_string(w.prompt_len) : ""));
  if (is_training(w.mode)) {
    a.push_back("optimizer " + to_string(w.optimizer) + ", gradient checkpointing " +
                (w.grad_ckpt ? "on" : "off") + ", loss " + to_string(w.loss));
    if (s.adapters)
      a.push_back("LoRA rank " + std::to_string(w.lora_rank) + " on " + to_string(w.lora_targets) +
                  ", adapters fp32, lora_dropout > 0" +
                  (w.train_embeddings ? ", embeddings and LM head trained" : ""));
    if (w.mode == Mode::freeze)
      a.push_back("freeze: the last " + std::to_string(w.freeze_trainable_layers) +
                  " blocks train");
  } else {
    a.push_back(detail::kv_assumption(w, s.cb));
  }
  a.push_back(std::string("attention: ") + (w.flash_attn ? "flash/SDPA" : "eager (scores kept)"));
  a.push_back(std::to_string(s.n) + " GPU(s), sharding " + to_string(s.shard) + ", offload " +
              to_string(w.offload));
}

}  // namespace

bool tensor_parallel_splits(const Workload& w, int count) {
  const bool tensor_parallel = !is_training(w.mode) || w.shard == Shard::tp;
  return !tensor_parallel || w.model.heads <= 0 || w.model.heads % count == 0;
}

Estimate estimate(const Workload& w, EstimateDetail level) {
  validate(w);
  // Formulas and assumptions are text for a reader; the ranker needs only the numbers.
  struct Words {
    explicit Words(bool on) : saved(detail::formulas_on) { detail::formulas_on = on; }
    ~Words() { detail::formulas_on = saved; }
    bool saved;
  } words(level == EstimateDetail::full);
  Estimate e;
  const detail::Setup s = detail::make_setup(w, e.assumptions);
  if (level == EstimateDetail::full) describe(w, s, e.assumptions);
  detail::add_state_components(s, e.components);
  if (is_training(w.mode))
    detail::add_activation_components(s, e.components);
  else
    detail::add_inference_components(s, e.components);
  add_overheads(e.components);
  for (const auto& c : e.components) e.total_bytes += c.bytes;
  const double f = band(w);
  e.low_bytes = e.total_bytes * (1 - f);
  e.high_bytes = e.total_bytes * (1 + f);
  return e;
}

double Estimate::allocated_bytes() const {
  return sum_except(components, "allocator_overhead", "cuda_context");
}

double Estimate::reserved_bytes() const { return sum_except(components, "cuda_context", ""); }

double Estimate::bytes_of(std::string_view component) const {
  for (const auto& c : components)
    if (c.name == component) return c.bytes;
  return 0;
}

}  // namespace gpusel
