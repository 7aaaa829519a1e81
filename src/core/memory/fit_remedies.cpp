// KNOWLEDGE K37's remedies for a workload that does not fit: QLoRA instead of LoRA,
// checkpointing, a smaller batch, an 8-bit optimizer, mixed precision, chunked loss,
// quantized inference, sharding across cards, CPU offload. Each one re-estimated.
#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>

#include "gpusel/base/error.hpp"
#include "gpusel/data/engines.hpp"
#include "gpusel/data/frameworks.hpp"
#include "gpusel/data/platforms.hpp"
#include "gpusel/data/quantization.hpp"
#include "gpusel/i18n/i18n.hpp"
#include "gpusel/memory/fit.hpp"
#include "workload_internal.hpp"

namespace gpusel::detail {
namespace {

using Edit = std::function<void(Workload&)>;
using Candidate = WorkloadChange;

// An 8-bit optimizer, and mixed precision for an fp32 run: every trainable model's options.
void optimizer_and_precision(const Workload& w, std::vector<Candidate>& out) {
  if (w.optimizer == Optimizer::adamw || w.optimizer == Optimizer::sgd)
    out.push_back({"--optimizer adamw-8bit",
                   [](Workload& v) { v.optimizer = Optimizer::adamw_8bit; }, "optimizer"});
  if (w.precision == Precision::fp32 && !w.amp)
    out.push_back({tr("--amp (16-bit compute, fp32 master weights)"),
                   [](Workload& v) { v.amp = true; }, "precision"});
}

// Splits that change no math: a mixture of experts on several GPUs splits its routed experts
// over as many ranks as both the experts and the dp x cp ranks allow (the MoE recipes do), and
// under Megatron-style model parallelism twice the context-parallel ranks halve the
// activations at the cost of a ring that mostly hides behind attention, where recompute costs
// a third more compute (NeMo's long-sequence recipes take CP first). Each is tried only where
// the GPUs still form whole replicas (estimate refuses the rest).
void parallel_candidates(const Workload& w, std::vector<Candidate>& out) {
  // Hybrid sharding keeps a group's share on each GPU: FSDP over them all keeps less.
  if (hybrid_sharded(w))
    out.push_back({"--shard fsdp", [](Workload& v) { v.shard_group = 0; }, "shard"});
  const int ranks = data_parallel(w) * std::max(1, w.cp);
  if (w.ep == 1 && w.gpus > 1 && w.model.moe && w.model.moe->experts > 1 && ranks > 1) {
    const int ep = std::gcd(w.model.moe->experts, ranks);
    if (ep > 1)
      out.push_back({"--ep " + std::to_string(ep), [ep](Workload& v) { v.ep = ep; }, "ep"});
  }
  if (model_parallel(w) && w.cp < kMaxGpuCount)
    out.push_back({"--cp " + std::to_string(2 * w.cp), [](Workload& v) { v.cp *= 2; }, "cp"});
}

// Ordered from the least to the most disruptive change: the first that fits is the advice.
void training_candidates(const Workload& w, std::vector<Candidate>& out) {
  // A CNN trains whole and unsharded, without checkpointing: fit.cpp adds its batch.
  if (w.model.cnn) return optimizer_and_precision(w, out);
  parallel_candidates(w, out);
  // torchtitan's selective policy recomputes about a third of the forward's matmuls where full
  // checkpointing redoes all of it: tried first where it applies (estimate refuses the rest).
  if (!w.grad_ckpt && !w.selective_ckpt)
    out.push_back({"--selective-ckpt", [](Workload& v) { v.selective_ckpt = true; }, "ckpt"});
  if (!w.grad_ckpt)
    out.push_back({"--grad-ckpt",
                   [](Workload& v) {
                     v.grad_ckpt = true;
                     v.selective_ckpt = false;
                   },
                   "ckpt"});
  if (w.loss == Loss::full && w.model.kind == "decoder")
    out.push_back({"--loss chunked", [](Workload& v) { v.loss = Loss::chunked; }, "loss"});
  if (w.batch > 1)
    out.push_back({tr("--batch 1 (gradient accumulation for the rest)"),
                   [](Workload& v) { v.batch = 1; }, "batch"});
  optimizer_and_precision(w, out);
  if (w.mode == Mode::lora)
    out.push_back({tr("--mode qlora (NF4 base)"),
                   [](Workload& v) {
                     v.mode = Mode::qlora;
                     v.precision = Precision::bf16;
                   },
                   "mode"});
  if (w.mode == Mode::full) {
    out.push_back({w.amp ? "--mode lora (without --amp)" : "--mode lora",
                   [](Workload& v) { v.mode = Mode::lora, v.amp = false; }, "mode"});
    out.push_back(
        {"--mode qlora",
         [](Workload& v) { v.mode = Mode::qlora, v.amp = false, v.precision = Precision::bf16; },
         "mode"});
  }
  // torchtune's single-device full recipe steps the optimizer inside backward (no full set
  // of gradients) and chunks its loss: 8B full fine-tuning on one 24 GB card.
  if (w.mode == Mode::full && w.framework.id != "torchtune" && !w.model.cnn)
    out.push_back(
        {tr("--framework torchtune (its recipe's defaults)"),
         [](Workload& v) { apply_framework(v, framework_profile("torchtune"), false, false); },
         "framework"});
  if (w.offload == Offload::none)
    out.push_back(
        {"--offload optimizer", [](Workload& v) { v.offload = Offload::optimizer; }, "offload"});
}

void inference_candidates(const Workload& w, std::vector<Candidate>& out) {
  if (!w.flash_attn)
    out.push_back({"--flash-attn", [](Workload& v) { v.flash_attn = true; }, "flash"});
  if (w.batch > 1) out.push_back({"--batch 1", [](Workload& v) { v.batch = 1; }, "batch"});
  if (w.kv_dtype == KvDtype::compute && w.model.kind == "decoder") {
    // llama.cpp quantizes its cache in blocks (q8_0); vLLM/SGLang/TensorRT-LLM use fp8.
    const KvDtype kv = w.weight_format.empty() ? KvDtype::fp8 : KvDtype::q8_0;
    out.push_back({"--kv-dtype " + to_string(kv), [kv](Workload& v) { v.kv_dtype = kv; }, "kv"});
  }
  if (!w.weight_format.empty()) {  // a GGUF model: the smaller GGUF types, not bitsandbytes
    for (const char* smaller : {"q4_k_m", "q3_k_m"})
      if (w.weight_bits > find_gguf(smaller)->bits_per_weight)
        out.push_back({std::string("--precision ") + smaller,
                       [smaller](Workload& v) { set_precision(v, smaller); }, "precision"});
    return;
  }
  if (w.linear_bits > 0) {  // --weight-bits: fewer bits, as ExLlamaV2's EXL2 files come (4.0, 2.5)
    // At least a bit fewer: re-quantizing gpt-oss's 4.25-bit MXFP4 to 4.0 saves 6 % of it.
    for (const double fewer : {4.0, 2.5})
      if (w.linear_bits >= fewer + 1)
        out.push_back({"--weight-bits " + detail::bits_label(fewer),
                       [fewer](Workload& v) { set_weight_bits(v, fewer); }, "precision"});
    return;
  }
  if (bytes_per_value(w.precision) > 1 && !is_quantized(w.precision))
    out.push_back(
        {"--precision fp8", [](Workload& v) { v.precision = Precision::fp8; }, "precision"});
  if (bytes_per_value(w.precision) > 1)
    out.push_back(
        {"--precision int8", [](Workload& v) { v.precision = Precision::int8; }, "precision"});
  if (bytes_per_value(w.precision) > 0.5)
    out.push_back(
        {"--precision int4", [](Workload& v) { v.precision = Precision::int4; }, "precision"});
}

std::optional<FitChange> evaluate_change(const Workload& w, const std::string& change,
                                         const Edit& edit, double usable) {
  FitChange f{change, w, {}, false};
  edit(f.workload);
  try {
    f.estimate = estimate(f.workload);
  } catch (const Error&) {
    return std::nullopt;  // not a valid combination for this workload
  }
  f.estimate.fit_to(usable);
  f.fits = f.estimate.fits_within(usable);
  return f;
}

// The parameters offloaded too (ZeRO-3 or FSDP with CPU offload: Answer.AI's FSDP + QLoRA
// recipe for 70B on two 24 GB cards): the heaviest change, tried after the others together.
std::optional<FitChange> offload_params(const Workload& w, double usable) {
  if (!is_training(w.mode) || w.model.cnn || w.offload == Offload::params) return std::nullopt;
  return evaluate_change(
      w, "--offload params",
      [](Workload& v) {
        v.offload = Offload::params;
        if (v.shard != Shard::fsdp) v.shard = Shard::zero3;
      },
      usable);
}

// Nominal bits per linear weight a workload stores: a GGUF type's by its name (q3_k_m: 3, the
// block types' nominal width; its whole-file 4.0 counts the 6-bit output in), --weight-bits,
// else the precision's.
double stored_bits(const Workload& w) {
  if (!w.weight_format.empty()) {
    const auto d = w.weight_format.find_first_of("123456789");
    if (d != std::string::npos) return std::stod(w.weight_format.substr(d, 2));
  }
  return w.weight_bits > 0 ? w.weight_bits
                           : 8 * linear_weight_bytes(w, bytes_per_value(w.precision));
}

// Where the experts-in-RAM change goes among the others: before the first that stores the
// weights in fewer bits than it does (a mixture of experts loses speed, not quality, with its
// experts in RAM; llama.cpp users take that before a smaller quant), else last.
std::vector<FitChange>::iterator before_fewer_bits(std::vector<FitChange>& out, double bits) {
  return std::find_if(out.begin(), out.end(),
                      [bits](const FitChange& f) { return stored_bits(f.workload) < bits - 1e-9; });
}

// A mixture of experts on llama.cpp: the fewest layers whose routed experts stay in host RAM
// (--n-cpu-moe N, the first N layers) for the rest to fit, else all of them (the nearest).
// Memory falls as N grows, so a bisection finds the least N.
// Weights above 5 bits are quantized to 4 first, as llama.cpp users run a MoE (a Q4 GGUF with
// the experts in RAM), rather than keeping 8 or 16-bit experts in host memory.
std::optional<FitChange> cpu_moe_candidate(const Workload& w, const std::vector<Candidate>& cands,
                                           double usable) {
  if (is_training(w.mode) || w.cpu_moe >= w.model.layers || moe_layer_count(w.model) <= 0)
    return std::nullopt;
  // The precision change that stores 4 bits (int4, q4_k_m, --weight-bits 4), if any.
  const Candidate* four = nullptr;
  for (const Candidate& c : cands) {
    if (c.key != "precision" || stored_bits(w) <= 5) continue;
    Workload v = w;
    c.edit(v);
    if (stored_bits(v) >= 4 && stored_bits(v) < 5) four = &c;
  }
  if (four) {  // a 4-bit model that fits whole needs no experts in RAM
    const auto alone = evaluate_change(w, four->change, four->edit, usable);
    if (alone && alone->fits) return std::nullopt;
  }
  const auto with = [&](int n) {
    const std::string label =
        n >= w.model.layers ? "--cpu-moe" : "--n-cpu-moe " + std::to_string(n);
    return evaluate_change(
        w, (four ? four->change + " + " : "") + label,
        [n, four](Workload& v) {
          if (four) four->edit(v);
          v.cpu_moe = n;
        },
        usable);
  };
  // More layers than any already given (--n-cpu-moe 10 that does not fit: a higher N).
  int lo = std::max(w.model.layers - moe_layer_count(w.model), w.cpu_moe) + 1, hi = w.model.layers;
  auto best = with(hi);
  if (!best || !best->fits) return best;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (auto f = with(mid); f && f->fits)
      hi = mid, best = std::move(f);
    else
      lo = mid + 1;
  }
  return best;
}

// `cands[picked...]` applied in order, labelled "a + b" (a later change of the same key wins).
std::optional<FitChange> apply_all(const Workload& w, const std::vector<Candidate>& cands,
                                   const std::vector<std::size_t>& picked, double usable) {
  std::vector<const Candidate*> chosen;
  for (std::size_t i : picked) {
    auto same = std::find_if(chosen.begin(), chosen.end(),
                             [&](const Candidate* c) { return c->key == cands[i].key; });
    if (same != chosen.end()) chosen.erase(same);
    chosen.push_back(&cands[i]);
  }
  std::string label;
  for (const Candidate* c : chosen)
    label += (label.empty() ? "" : " + ") + c->change.substr(0, c->change.find(" ("));
  const Edit edit = [&chosen](Workload& v) {
    for (const Candidate* c : chosen) c->edit(v);
  };
  return evaluate_change(w, label, edit, usable);
}

// When no single change is enough: the changes taken together in order until they fit, then
// any that the rest do not need dropped, so the advice is the fewest, least disruptive ones.
std::optional<FitChange> combined(const Workload& w, const std::vector<Candidate>& cands,
                                  double usable) {
  if (cands.size() < 2) return std::nullopt;
  std::vector<std::size_t> picked;
  std::optional<FitChange> best;
  for (std::size_t i = 0; i < cands.size() && !(best && best->fits); ++i) {
    picked.push_back(i);
    if (auto f = apply_all(w, cands, picked, usable))
      best = f;
    else
      picked.pop_back();  // not valid together with the others
  }
  if (!best || !best->fits) return best;
  for (std::size_t k = picked.size() - 1; k-- > 0;) {
    std::vector<std::size_t> fewer = picked;
    fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(k));
    auto f = apply_all(w, cands, fewer, usable);
    if (f && f->fits) picked = std::move(fewer), best = f;
  }
  return best;
}

// The smallest count of these cards that holds the workload sharded, within what one host
// takes (data/platforms.json: two consumer cards on a desktop board, K18; four on a
// workstation; eight in a server), naming the platform. A count tensor parallelism cannot
// use fails validation in evaluate_change and is passed over. Inference splits as its engine
// does (data/throughput.json engines.*.multi_gpu).
std::optional<FitChange> sharding_candidate(const Workload& w, const Gpu& gpu, double usable) {
  // Inference splits as its engine does (llama.cpp, ExLlamaV2: layers; vLLM: tensor parallel).
  const Shard shard = is_training(w.mode)         ? Shard::zero3
                      : engine_tensor_parallel(w) ? Shard::tp
                                                  : Shard::none;
  const int limit = host_limits(default_platforms(), gpu).per_host;
  for (int n = std::max(2, w.gpus * 2); n <= limit; n *= 2) {
    const PlatformQuote q = quote_platform(default_platforms(), gpu, n, false);
    if (!q.platform) break;
    auto f = evaluate_change(
        w,
        "--count " + std::to_string(n) + " --shard " + to_string(shard) + " (" + q.platform->name +
            ")",
        [n, shard](Workload& x) { x.gpus = n, x.shard = shard, x.shard_given = true; }, usable);
    if (f && f->fits) return f;
  }
  return std::nullopt;
}

// Where neither a change nor more cards suffice alone: more cards under a change (70B in
// bf16 on a 24 GB card: 4-bit weights on two of them). The fewest cards win, then the least
// disruptive change: the candidates come mildest first, the combination of several last.
std::optional<FitChange> sharded_change(const std::vector<FitChange>& tried, const Gpu& gpu,
                                        double usable) {
  std::optional<FitChange> best;
  for (const FitChange& c : tried) {
    auto f = sharding_candidate(c.workload, gpu, usable);
    if (!f || (best && f->workload.gpus >= best->workload.gpus)) continue;
    f->change = c.change + " + " + f->change;
    best = std::move(f);
  }
  return best;
}

}  // namespace

}  // namespace gpusel::detail

namespace gpusel {

std::vector<WorkloadChange> workload_changes(const Workload& w) {
  std::vector<WorkloadChange> out;
  if (is_training(w.mode))
    detail::training_candidates(w, out);
  else
    detail::inference_candidates(w, out);
  return out;
}

}  // namespace gpusel

namespace gpusel::detail {

// A dense model on llama.cpp and one GPU: the most layers that fit there (--gpu-layers N,
// llama.cpp -ngl), the rest run by the CPU from host RAM. Memory grows with N: a bisection.
std::optional<FitChange> gpu_layers_candidate(const Workload& w, const Gpu& gpu, double usable) {
  // A unified-memory part's "host RAM" is its own memory: nothing to gain.
  if (gpu.unified_memory || w.mode != Mode::inference || w.gpus != 1 || w.gpu_layers >= 0 ||
      w.cpu_moe != 0 || moe_layer_count(w.model) > 0 || !is_llama_cpp(engine_of(w)))
    return std::nullopt;
  const auto with = [&](int n) {
    return evaluate_change(
        w, "--gpu-layers " + std::to_string(n), [n](Workload& v) { v.gpu_layers = n; }, usable);
  };
  const auto first = with(0);
  if (!first || !first->fits) return first;
  int lo = 0, hi = w.model.layers;  // lo fits; above hi the whole model is on the GPU
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    const auto f = with(mid);
    if (f && f->fits)
      lo = mid;
    else
      hi = mid - 1;
  }
  return with(lo);
}

std::vector<FitChange> remedies(const Workload& w, const Gpu& gpu, double usable, double base) {
  // A change that saves nothing here (a chunked loss where the logits are small) is no
  // advice, alone or in a combination.
  std::vector<Candidate> singles;
  std::vector<FitChange> out;
  for (const auto& c : workload_changes(w))
    if (auto f = evaluate_change(w, c.change, c.edit, usable);
        f && f->estimate.need_bytes() < base * (1 - 1e-3)) {
      singles.push_back(c);
      out.push_back(std::move(*f));
    }
  const bool one_fits = std::any_of(out.begin(), out.end(), [](const auto& f) { return f.fits; });
  if (!one_fits)
    if (auto f = combined(w, singles, usable);
        f && std::none_of(out.begin(), out.end(),
                          [&](const FitChange& c) { return c.change == f->change; }))
      out.push_back(std::move(*f));  // a combination that came down to one single is listed once
  if (auto f = offload_params(w, usable); f && f->estimate.need_bytes() < base * (1 - 1e-3))
    out.push_back(std::move(*f));
  if (auto f = cpu_moe_candidate(w, workload_changes(w), usable);
      f && f->estimate.need_bytes() < base * (1 - 1e-3)) {
    const double bits = std::min(stored_bits(w), stored_bits(f->workload));
    out.insert(before_fewer_bits(out, bits), std::move(*f));
  }
  const auto shard = sharding_candidate(w, gpu, usable);
  if (shard) out.push_back(*shard);
  if (std::none_of(out.begin(), out.end(), [](const auto& f) { return f.fits; }))
    if (auto f = sharded_change(out, gpu, usable)) out.push_back(std::move(*f));
  // The CPU runs the rest: slower than any change above, so it comes after them.
  if (auto f = gpu_layers_candidate(w, gpu, usable);
      f && f->estimate.need_bytes() < base * (1 - 1e-3))
    out.push_back(std::move(*f));
  // Those that fit keep the order above; the rest, nearest to fitting first.
  std::stable_sort(out.begin(), out.end(), [](const FitChange& a, const FitChange& b) {
    if (a.fits != b.fits) return a.fits;
    return !a.fits && a.estimate.need_bytes() < b.estimate.need_bytes();
  });
  return out;
}

}  // namespace gpusel::detail
