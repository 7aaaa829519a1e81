#include "gpusel/memory/fit.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"

namespace gpusel {

namespace {

bool fits_in(const Workload& w, double usable) {
  try {
    return estimate(w).total_bytes <= usable;
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

// A shorter sequence changes the task, so it comes last: the longest that fits, when one
// does and it keeps at least an eighth of what was asked.
void add_shorter_sequence(const Workload& w, FitResult& r) {
  if (r.max_seq_len < 1 || r.max_seq_len >= w.seq_len || r.max_seq_len * 8 < w.seq_len) return;
  Workload v = w;
  v.seq_len = r.max_seq_len;
  if (v.prompt_len > v.seq_len) v.prompt_len = v.seq_len;
  r.changes.push_back({"--seq-len " + std::to_string(r.max_seq_len), v, estimate(v), true});
}

}  // namespace

namespace detail {
std::vector<FitChange> remedies(const Workload& w, const Gpu& gpu, double usable);
}

FitResult fit(const Workload& given, const Gpu& gpu, int count, const Reserve& reserve) {
  if (count < 1) throw usage_error("--count must be at least 1");
  const Workload w = on_gpus(given, count);
  FitResult r;
  r.reserve = reserve.fraction < 0 ? default_reserve(gpu) : reserve;
  r.usable_bytes = usable_bytes(gpu, reserve);
  r.requested_workload = w;
  r.requested = estimate(w);
  r.fits = r.requested.total_bytes <= r.usable_bytes;
  r.max_batch = largest(1 << 16, [&](int b) {
    Workload v = w;
    v.batch = b;
    return fits_in(v, r.usable_bytes);
  });
  r.seq_len_cap = w.model.max_context > 0 ? std::max(w.model.max_context, 1) : 1 << 20;
  r.max_seq_len = largest(r.seq_len_cap, [&](int s) {
    Workload v = w;
    v.seq_len = s;
    if (v.prompt_len > s) v.prompt_len = s;
    return fits_in(v, r.usable_bytes);
  });
  if (!r.fits) {
    r.changes = detail::remedies(w, gpu, r.usable_bytes);
    add_shorter_sequence(w, r);
  }
  return r;
}

}  // namespace gpusel
