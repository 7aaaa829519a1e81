// KNOWLEDGE K37's remedies for a workload that does not fit: QLoRA instead of LoRA,
// checkpointing, a smaller batch, an 8-bit optimizer, mixed precision, chunked loss,
// quantized inference, sharding across cards, CPU offload. Each one re-estimated.
#include <algorithm>
#include <functional>

#include "gpusel/error.hpp"
#include "gpusel/fit.hpp"

namespace gpusel::detail {
namespace {

using Edit = std::function<void(Workload&)>;

struct Candidate {
  std::string change;
  Edit edit;
};

void training_candidates(const Workload& w, std::vector<Candidate>& out) {
  if (w.mode == Mode::lora)
    out.push_back({"--mode qlora (NF4 base)", [](Workload& v) {
                     v.mode = Mode::qlora;
                     v.precision = Precision::bf16;
                   }});
  if (w.mode == Mode::full) {
    out.push_back({"--mode lora", [](Workload& v) { v.mode = Mode::lora, v.amp = false; }});
    out.push_back({"--mode qlora", [](Workload& v) {
                     v.mode = Mode::qlora, v.amp = false, v.precision = Precision::bf16;
                   }});
  }
  if (!w.grad_ckpt) out.push_back({"--grad-ckpt", [](Workload& v) { v.grad_ckpt = true; }});
  if (w.batch > 1)
    out.push_back(
        {"--batch 1 (gradient accumulation for the rest)", [](Workload& v) { v.batch = 1; }});
  if (w.optimizer == Optimizer::adamw || w.optimizer == Optimizer::sgd)
    out.push_back(
        {"--optimizer adamw-8bit", [](Workload& v) { v.optimizer = Optimizer::adamw_8bit; }});
  if (w.precision == Precision::fp32 && !w.amp)
    out.push_back(
        {"--amp (16-bit compute, fp32 master weights)", [](Workload& v) { v.amp = true; }});
  if (w.loss == Loss::full && w.model.kind == "decoder")
    out.push_back({"--loss chunked", [](Workload& v) { v.loss = Loss::chunked; }});
  if (w.offload == Offload::none)
    out.push_back({"--offload optimizer", [](Workload& v) { v.offload = Offload::optimizer; }});
  out.push_back(
      {"all of: qlora, --grad-ckpt, --batch 1, adamw-8bit, chunked loss", [](Workload& v) {
         if (v.mode == Mode::lora || v.mode == Mode::full)
           v.mode = Mode::qlora, v.amp = false, v.precision = Precision::bf16;
         v.grad_ckpt = true, v.batch = 1, v.loss = Loss::chunked;
         v.optimizer = Optimizer::adamw_8bit;
       }});
}

void inference_candidates(const Workload& w, std::vector<Candidate>& out) {
  if (bytes_per_value(w.precision) > 1)
    out.push_back({"--precision int8", [](Workload& v) { v.precision = Precision::int8; }});
  if (bytes_per_value(w.precision) > 0.5)
    out.push_back({"--precision int4", [](Workload& v) { v.precision = Precision::int4; }});
  if (w.batch > 1) out.push_back({"--batch 1", [](Workload& v) { v.batch = 1; }});
  if (!w.flash_attn) out.push_back({"--flash-attn", [](Workload& v) { v.flash_attn = true; }});
}

// The smallest count of these cards, up to 8, that holds the workload sharded.
void sharding_candidate(const Workload& w, double usable, std::vector<Candidate>& out) {
  const Shard shard = is_training(w.mode) ? Shard::zero3 : Shard::tp;
  for (int n = std::max(2, w.gpus * 2); n <= 8; n *= 2) {
    Workload v = w;
    v.gpus = n, v.shard = shard;
    try {
      if (estimate(v).total_bytes > usable) continue;
    } catch (const Error&) {
      continue;
    }
    out.push_back({"--gpus " + std::to_string(n) + " --shard " + to_string(shard),
                   [n, shard](Workload& x) { x.gpus = n, x.shard = shard; }});
    return;
  }
}

}  // namespace

std::vector<FitChange> remedies(const Workload& w, double usable) {
  std::vector<Candidate> cands;
  if (is_training(w.mode))
    training_candidates(w, cands);
  else
    inference_candidates(w, cands);
  sharding_candidate(w, usable, cands);
  std::vector<FitChange> out;
  for (const auto& c : cands) {
    FitChange f{c.change, w, {}, false};
    c.edit(f.workload);
    try {
      f.estimate = estimate(f.workload);
    } catch (const Error&) {
      continue;  // not a valid combination for this workload
    }
    f.fits = f.estimate.total_bytes <= usable;
    out.push_back(std::move(f));
  }
  std::stable_sort(out.begin(), out.end(), [](const FitChange& a, const FitChange& b) {
    if (a.fits != b.fits) return a.fits;
    return a.estimate.total_bytes < b.estimate.total_bytes;
  });
  return out;
}

}  // namespace gpusel::detail
