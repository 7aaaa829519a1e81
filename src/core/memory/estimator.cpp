#include "gpusel/memory/estimator.hpp"

#include <cmath>

#include "estimator_parts.hpp"
#include "gpusel/base/error.hpp"

namespace gpusel {
namespace {

double sum_gpu(const std::vector<Component>& parts, std::string_view skip_a,
               std::string_view skip_b) {
  double total = 0;
  for (const auto& c : parts)
    if (c.where == "gpu" && c.name != skip_a && c.name != skip_b) total += c.bytes;
  return total;
}

// `caching`: the run allocates through PyTorch's caching allocator, whose freed blocks it
// keeps; llama.cpp's ggml sizes its buffers once (the compute buffer measured from the graph
// at load), so it has no such share.
void add_overheads(std::vector<Component>& parts, bool caching) {
  const double allocated = sum_gpu(parts, "", "");
  const double frac = data_constant("allocator_overhead_fraction");
  if (caching)
    parts.push_back({"allocator_overhead", allocated * frac,
                     detail::gb(allocated) + " allocated x " + detail::num(frac) +
                         " (caching-allocator fragmentation)"});
  const double ctx = data_constant("cuda_context_bytes");
  parts.push_back({"cuda_context", ctx, detail::gb(ctx) + " per GPU (lazy module loading)"});
}

// Half-width of the band, as a fraction: how well the model is known for this case.
// Calibration (tests/calibration) covers dense presets, 1-4 GPUs, DDP/ZeRO-3/FSDP LoRA;
// a bare count, MoE, MLA, TP, offload, fp8 and vision models are outside it.
double band(const Workload& w) {
  double f = w.model_from_preset ? 0.10 : 0.25;
  if (w.model.moe || w.model.active_params || w.model.mla) f += 0.10;
  if (w.shard == Shard::tp || w.offload != Offload::none) f += 0.10;
  if (w.precision == Precision::fp8 || w.model.kind == "vision-encoder" || w.model.cnn) f += 0.10;
  if (w.mode == Mode::freeze || w.optimizer == Optimizer::adafactor) f += 0.05;
  return f;
}

// No component may be negative, NaN or infinite: that would be a formula out of its domain.
void check_finite(const std::vector<Component>& parts) {
  for (const auto& c : parts)
    if (!std::isfinite(c.bytes) || c.bytes < 0)
      throw usage_error("the estimate of '" + c.name + "' is out of range (" +
                        detail::num(c.bytes) + " bytes): the workload is outside the model");
}

}  // namespace

bool tensor_parallel_splits(const Workload& w, int count) {
  // Inference without --shard takes its engine's layout: a layer split takes any count.
  const bool tensor_parallel =
      (!w.shard_given && engine_tensor_parallel(w)) || w.shard == Shard::tp;
  // A bare count's heads are the shape's guess; the models it stands for split on 2-8 GPUs.
  if (model_parallel(w)) return places_replicas(w, count);  // whole dp replicas
  // --gpu-layers: llama.cpp's partial offload is modelled on one card.
  if (w.gpu_layers >= 0 && count > 1) return false;
  // --shard hsdp: whole shard groups once there is more than one.
  if (w.shard_group > 0 && count > w.shard_group && count % w.shard_group != 0) return false;
  return !tensor_parallel || w.model.heads <= 0 || w.model.remainder_linear ||
         w.model.heads % count == 0;
}

Estimate estimate(const Workload& w, EstimateDetail level) {
  validate(w);
  if (model_parallel(w)) return detail::model_parallel_estimate(w, level);
  // Hybrid sharding: each group is an FSDP run of its own GPUs; the replicas add none.
  if (hybrid_sharded(w)) {
    Workload group = w;
    group.gpus = w.shard_group, group.shard_group = 0;
    Estimate e = estimate(group, level);
    if (level == EstimateDetail::full)
      e.assumptions.push_back("hsdp: FSDP over groups of " + std::to_string(w.shard_group) +
                              " GPUs, " + std::to_string(w.gpus / w.shard_group) +
                              " replicas (each GPU holds what FSDP over its group gives it)");
    return e;
  }
  // Formulas and assumptions are text for a reader; the ranker needs only the numbers.
  struct Words {
    explicit Words(bool on) : saved(detail::formulas_on) { detail::formulas_on = on; }
    ~Words() { detail::formulas_on = saved; }
    bool saved;
  } words(level == EstimateDetail::full);
  Estimate e;
  const detail::Setup s = detail::make_setup(w, e.assumptions);
  if (level == EstimateDetail::full) detail::describe(s, e.assumptions);
  detail::add_state_components(s, e.components);
  detail::add_dequant_component(s, e.components);
  detail::add_dequant_saved_component(s, e.components);
  if (w.model.cnn) {
    detail::add_vision_components(s, e.components);
  } else if (is_training(w.mode)) {
    detail::add_sharding_components(s, e.components);
    detail::add_activation_components(s, e.components);
    detail::add_step_component(s, e.components);
  } else {
    detail::add_inference_components(s, e.components);
  }
  detail::phase_gradients(s, e.components);
  add_overheads(e.components, !detail::runs_on_ggml(w));
  check_finite(e.components);
  for (const auto& c : e.components) {
    if (c.where == "gpu") e.total_bytes += c.bytes;
    if (c.where == "host") e.host_bytes += c.bytes;
    if (c.where == "managed") e.managed_bytes += c.bytes;
  }
  const double f = band(w);
  e.low_bytes = e.total_bytes * (1 - f);
  e.high_bytes = e.total_bytes * (1 + f);
  return e;
}

double Estimate::allocated_bytes() const {
  return sum_gpu(components, "allocator_overhead", "cuda_context");
}

double Estimate::reserved_bytes() const { return sum_gpu(components, "cuda_context", ""); }

double Estimate::need_bytes() const { return sum_gpu(components, "allocator_overhead", ""); }

namespace {
double elastic_gpu(const std::vector<Component>& cs) {
  double e = 0;
  for (const auto& c : cs)
    if (c.where == "gpu") e += c.elastic;
  return e;
}
// What the elastic components take on a card: half of what the rest leaves free, at most.
double elastic_share(double elastic, double fixed, double usable) {
  return std::min(elastic, std::max(0.0, (usable - fixed) / 2));
}
}  // namespace

double Estimate::need_on(double usable) const {
  const double elastic = elastic_gpu(components), need = need_bytes();
  if (elastic <= 0) return need;
  return need - elastic + elastic_share(elastic, need - elastic, usable);
}

void Estimate::fit_to(double usable) {
  const double elastic = elastic_gpu(components), need = need_bytes();
  if (elastic <= 0) return;
  const double keep = elastic_share(elastic, need - elastic, usable) / elastic;
  if (keep >= 1) return;
  double cut = 0;
  for (auto& c : components) {
    if (c.where != "gpu" || c.elastic <= 0) continue;
    cut += c.elastic * (1 - keep);
    c.bytes -= c.elastic * (1 - keep), c.elastic *= keep;
    c.formula += "; on this card at most half the memory left free (" + detail::gb(c.elastic) + ")";
  }
  const double scale = total_bytes > 0 ? (total_bytes - cut) / total_bytes : 1;
  total_bytes -= cut, low_bytes *= scale, high_bytes *= scale;
}

double Estimate::bytes_of(std::string_view component) const {
  for (const auto& c : components)
    if (c.name == component) return c.bytes;
  return 0;
}

double Estimate::bytes_where(std::string_view where) const {
  double total = 0;
  for (const auto& c : components)
    if (c.where == where) total += c.bytes;
  return total;
}

}  // namespace gpusel
