#include "gpusel/memory/fit.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/i18n/i18n.hpp"
#include "gpusel/memory/reserve.hpp"

namespace gpusel {

namespace {

bool fits_in(const Workload& w, double usable) {
  try {
    return estimate(w).fits_within(usable);
  } catch (const Error&) {
    return false;  // a variant no framework runs does not fit
  }
}

// Largest value in [1, hi] for which `ok` holds, given `ok` is monotone; 0 if none.
int largest(int hi, const std::function<bool(int)>& ok) {
  if (hi < 1 || !ok(1)) return 0;
  int lo = 1;
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (ok(mid))
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// A unified-memory part whose GPU share can be raised (gpus.json unified_memory_share):
// the same workload fits when the raised limit holds it.
std::optional<FitChange> raise_share(const Workload& w, const Gpu& gpu, const FitResult& r) {
  const auto lim = raised_limit(gpu, r.reserve.os);
  if (!lim || lim->usable_bytes <= r.usable_bytes || !r.requested.fits_within(lim->usable_bytes))
    return std::nullopt;
  const double vram = vram_bytes(gpu);
  const int keep = int(std::ceil(100 * (1 - lim->usable_bytes / vram) - 1e-9));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", lim->usable_bytes / 1073741824.0);
  const std::string then = trf("; in gpusel: --reserve {}%", keep);
  const std::string change =
      lim->recorded ? trf("raise the GPU's share of unified memory to the {} maximum, {} GiB: {}",
                          lim->os, buf, lim->how) +
                          then
                    : trf("raise the GPU memory limit to {} GiB, keeping {} % for {}: {}", buf,
                          keep, lim->os, lim->how) +
                          then;
  return FitChange{change, w, r.requested, true};
}

// A shorter sequence changes the task, so it comes last: the longest that fits, when one
// does and it keeps at least an eighth of what was asked.
void add_shorter_sequence(const Workload& w, FitResult& r) {
  if (r.max_seq_len < 1 || r.max_seq_len >= w.seq_len || r.max_seq_len * 8 < w.seq_len) return;
  Workload v = w;
  v.seq_len = r.max_seq_len;
  if (v.prompt_len > v.seq_len) v.prompt_len = v.seq_len;
  r.changes.push_back({"--seq-len " + std::to_string(r.max_seq_len), v, estimate(v), true});
}

// A CNN trains with batch norm, whose statistics need a real batch: the largest that fits,
// with gradient accumulation keeping the batch the user asked for (not --batch 1).
void add_cnn_batch(const Workload& w, FitResult& r) {
  if (!w.model.cnn || !is_training(w.mode) || r.max_batch < 1 || r.max_batch >= w.batch) return;
  Workload v = w;
  v.batch = r.max_batch;
  v.grad_accum = w.grad_accum * ((w.batch + r.max_batch - 1) / r.max_batch);
  r.changes.insert(r.changes.begin(),
                   {trf("--batch {} --grad-accum {} (batch norm over {} images a step)", v.batch,
                        v.grad_accum, v.batch),
                    v, estimate(v), true});
}

}  // namespace

namespace detail {
// `need`: the workload's own need (fit's requested estimate), which a change must lower.
std::vector<FitChange> remedies(const Workload& w, const Gpu& gpu, double usable, double need);
}  // namespace detail

FitResult fit(const Workload& given, const Gpu& gpu, int count, const Reserve& reserve) {
  if (count < 1) throw usage_error("--count must be at least 1");
  const Workload w = on_gpus(given, count);
  FitResult r;
  const Reserve kept = engine_reserve(w, gpu, reserve);
  r.reserve = kept.fraction < 0 ? default_reserve(gpu, kept.os) : kept;
  r.usable_bytes = usable_bytes(gpu, kept);
  r.requested_workload = w;
  r.requested = estimate(w);
  r.requested.fit_to(r.usable_bytes);
  r.fits = r.requested.fits_within(r.usable_bytes);
  // A batch is served by the batched engine (vLLM), which keeps its own reserve where one
  // sequence ran on llama.cpp: each candidate is held against its own engine's usable memory.
  r.max_batch = largest(1 << 16, [&](int b) {
    Workload v = w;
    v.batch = b;
    return fits_in(v, usable_for(v, gpu, reserve));
  });
  r.image_side = image_side(w);
  if (r.image_side > 0) {
    const int least = min_image_side(w.model);  // the search starts at the smallest input
    const int n = largest(kMaxImageSize - least + 1, [&](int i) {
      Workload v = w;
      v.image_size = least + i - 1;
      return fits_in(v, r.usable_bytes);
    });
    r.max_image_side = n > 0 ? least + n - 1 : 0;
  } else {
    r.seq_len_cap = w.model.max_context > 0 ? std::max(w.model.max_context, 1) : 1 << 20;
    // Context parallelism cuts a sequence into 2 x cp chunks: only their multiples run.
    const int step = w.cp > 1 ? 2 * w.cp : 1;
    r.max_seq_len = step * largest(r.seq_len_cap / step, [&](int n) {
                      Workload v = w;
                      v.seq_len = n * step;
                      if (v.prompt_len > v.seq_len) v.prompt_len = v.seq_len;
                      return fits_in(v, r.usable_bytes);
                    });
  }
  if (!r.fits) {
    r.changes = detail::remedies(w, gpu, r.usable_bytes, r.requested.need_bytes());
    add_shorter_sequence(w, r);
    add_cnn_batch(w, r);
  }
  if (!r.fits && reserve.fraction < 0)  // a limit the user set with --reserve stays theirs
    if (auto raised = raise_share(w, gpu, r)) r.changes.insert(r.changes.begin(), *raised);
  return r;
}

}  // namespace gpusel
