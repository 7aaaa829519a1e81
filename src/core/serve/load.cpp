// A replica under a Poisson load: the batching fixed point, then the queues in front of it.
#include "gpusel/serve/load.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace gpusel {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kSamples = 32;  // prompt-length strata for the TTFT distribution

double mean_prompt(const Replica& r) { return r.traffic.prompt.mean; }
double mean_output(const Replica& r) { return r.traffic.output.mean; }

// The iteration time at `rate`: the smallest tau with step(rate O tau, rate P tau) <= tau.
// step is convex in tau (sums of maxima and norms of affine terms), so h = step - tau is
// convex: find its minimum (ternary search), then the first crossing left of it. Infinity
// when h stays positive (the rate exceeds what the replica can reach with its batch cap).
double iteration_time(const Replica& r, double rate) {
  const double o = mean_output(r), p = mean_prompt(r);
  const auto h = [&](double tau) { return step_seconds(r, rate * o * tau, rate * p * tau) - tau; };
  const double lo = step_seconds(r, 0, 0);
  if (rate <= 0) return lo;
  const double b = r.max_seqs / (rate * o);
  if (b < lo) return kInf;
  // The first crossing, where a replica filling from empty settles. Past the CUDA-graph batch
  // a step jumps (serving.json eager_layer_overhead_us), so h is not unimodal and may cross
  // zero again further out: a scan up from the idle step finds the first, a bisection refines
  // it. None below the running-batch cap: the replica cannot keep up.
  constexpr int kScan = 128;
  double left = lo, right = kInf;
  for (int i = 1; i <= kScan && !std::isfinite(right); ++i) {
    const double t = lo * std::pow(b / lo, double(i) / kScan);
    (h(t) <= 0 ? right : left) = t;
  }
  if (!std::isfinite(right)) return kInf;
  for (int i = 0; i < 100 && right - left > 1e-9 * right; ++i) {
    const double mid = (left + right) / 2;
    (h(mid) > 0 ? left : right) = mid;
  }
  return right;
}

// Duration of one prompt's prefill at a running batch b: its chunks share iterations with
// the decoding sequences, at most (budget - b) prompt tokens an iteration.
double own_prefill(const Replica& r, double b, double prompt) {
  const double room = std::max(1.0, r.batched_tokens - b);
  const double chunks = std::max(1.0, prompt / room);
  return chunks * step_seconds(r, b, prompt / chunks);
}

double erlang_c(double servers, double load) {  // probability of waiting in M/M/c
  if (load >= servers) return 1;
  double b = 1;
  for (int k = 1; k <= int(servers); ++k) b = load * b / (k + load * b);
  return servers * b / (servers - load * (1 - b));
}

double normal_quantile(double q) {  // inverse of the standard normal CDF, by bisection
  double lo = -8, hi = 8;
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < q ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

// CDF of X + Y, X = 0 with probability 1 - p1 else exponential of mean m1, likewise Y.
double wait_cdf(double x, double p1, double m1, double p2, double m2) {
  if (x < 0) return 0;
  const auto e = [x](double m) { return m > 0 ? 1 - std::exp(-x / m) : 1.0; };
  double both;
  if (m1 <= 0 || m2 <= 0)
    both = e(std::max(m1, m2));
  else if (std::abs(m1 - m2) < 1e-12 * m1)
    both = 1 - std::exp(-x / m1) * (1 + x / m1);
  else
    both = 1 - (m1 * std::exp(-x / m1) - m2 * std::exp(-x / m2)) / (m1 - m2);
  return (1 - p1) * (1 - p2) + (1 - p1) * p2 * e(m2) + p1 * (1 - p2) * e(m1) + p1 * p2 * both;
}

struct Waits {
  double p1 = 0, m1 = 0, p2 = 0, m2 = 0;  // prefill queue, slot queue
  double mean() const { return p1 * m1 + p2 * m2; }
};

// The standard normal quantiles of the prompt-length strata: the same for every load point,
// so computed once.
const std::array<double, kSamples>& strata() {
  static const std::array<double, kSamples> z = [] {
    std::array<double, kSamples> out{};
    for (int i = 0; i < kSamples; ++i) out[i] = normal_quantile((i + 0.5) / kSamples);
    return out;
  }();
  return z;
}

// TTFT = half an iteration (a request joins at the next one) + its own prefill + the waits.
struct Ttft {
  std::array<double, kSamples> base{};  // per prompt stratum, before the waits
  double mean = 0;
  Waits w;
  double quantile(double q) const {
    double lo = 0, hi = *std::max_element(base.begin(), base.end()) + 50 * (w.m1 + w.m2) + 1;
    for (int i = 0; i < 60; ++i) {
      const double t = (lo + hi) / 2;
      double f = 0;
      for (double b : base) f += wait_cdf(t - b, w.p1, w.m1, w.p2, w.m2) / kSamples;
      (f < q ? lo : hi) = t;
    }
    return hi;
  }
};

Ttft ttft_of(const Replica& r, const LoadPoint& lp, const Waits& w) {
  Ttft t;
  t.w = w;
  const Lengths& pl = r.traffic.prompt;
  for (int i = 0; i < kSamples; ++i) {
    const double prompt = std::max(1.0, pl.mean + pl.sd * strata()[i]);
    t.base[i] = lp.iteration_s / 2 + own_prefill(r, lp.running, prompt);
    t.mean += t.base[i] / kSamples;
  }
  return t;
}

Percentiles ttft_percentiles(const Ttft& t) {
  return {t.mean + t.w.mean(), t.quantile(0.5), t.quantile(0.9), t.quantile(0.99)};
}

// TPOT: tau, spread by the running batch (Poisson, as in M/G/infinity) and by the prompt
// tokens mixed into each iteration (Poisson arrivals), averaged over the request's outputs.
Percentiles tpot_percentiles(const Replica& r, const LoadPoint& lp) {
  const double b = lp.running, tp = lp.prefill_tokens, tau = lp.iteration_s;
  const double db = std::max(1.0, 0.05 * b), dp = std::max(1.0, mean_prompt(r));
  const double per_seq = (step_seconds(r, b + db, tp) - step_seconds(r, b, tp)) / db;
  const double per_tok = (step_seconds(r, b, tp + dp) - step_seconds(r, b, tp)) / dp;
  const Lengths& pl = r.traffic.prompt;
  const double sd_batch = per_seq * std::sqrt(b);
  const double arrivals = lp.rate * tau * (pl.mean * pl.mean + pl.sd * pl.sd);
  const double sd_prefill = per_tok * std::sqrt(arrivals / std::max(1.0, mean_output(r)));
  const double sd = std::sqrt(sd_batch * sd_batch + sd_prefill * sd_prefill);
  return {tau, tau, tau + 1.2816 * sd, tau + 2.3263 * sd};
}

LoadPoint unstable(double rate) {
  LoadPoint p;
  p.rate = rate;
  p.iteration_s = p.ttft.mean = p.ttft.p50 = p.ttft.p90 = p.ttft.p99 = kInf;
  p.tpot = p.ttft;
  return p;
}

}  // namespace

double Percentiles::at(double percentile) const {
  if (percentile < 0.7) return p50;
  return percentile < 0.95 ? p90 : p99;
}

namespace {

// A load point's rates, utilisations and queue waits, and whether the replica keeps up at all:
// everything but the latency distributions, which cost most and which the searches for the
// saturation rate and for a target need only in part.
// `tau`: the iteration time when known (a closed loop at a given batch), else the rate's.
LoadPoint base_point(const Replica& r, double rate, Waits& w, double tau = 0) {
  if (!r.fits()) return unstable(rate);
  rate = std::max(rate, 1e-9);
  if (!(tau > 0)) tau = iteration_time(r, rate);
  if (!std::isfinite(tau)) return unstable(rate);
  LoadPoint p;
  p.rate = rate;
  p.iteration_s = tau;
  p.running = rate * mean_output(r) * tau;
  p.prefill_tokens = rate * mean_prompt(r) * tau;
  p.tokens_per_s = rate * mean_output(r);
  // Prompts queue for the room decode leaves in each iteration: M/G/1 on that token rate.
  const double room = std::max(1.0, r.batched_tokens - p.running);
  const double tok_rate = room / step_seconds(r, p.running, room);
  const Lengths& pl = r.traffic.prompt;
  p.prefill_utilisation = rate * pl.mean / tok_rate;
  // A slot is held from admission to the last token; c = the running-batch cap.
  const double hold = own_prefill(r, p.running, pl.mean) + mean_output(r) * tau;
  p.slot_utilisation = rate * hold / r.max_seqs;
  if (p.prefill_utilisation >= 1 || p.slot_utilisation >= 1) return unstable(rate);
  const double second = (pl.mean * pl.mean + pl.sd * pl.sd) / (tok_rate * tok_rate);
  w.p1 = p.prefill_utilisation;
  w.m1 = rate * second / (2 * (1 - p.prefill_utilisation)) / std::max(w.p1, 1e-12);
  w.p2 = erlang_c(r.max_seqs, rate * hold);
  w.m2 = hold / (r.max_seqs - rate * hold);
  p.stable = true;
  return p;
}

// Little's law over a client's cycle: waiting for the first token, reading the rest, thinking.
double users_of(const Replica& r, const LoadPoint& p, double ttft_mean) {
  return p.rate * (ttft_mean + mean_output(r) * p.iteration_s + r.traffic.think_s);
}

// meets(at_rate(r, rate), t), computing only the percentiles the targets name.
bool meets_at(const Replica& r, double rate, const Targets& t) {
  Waits w;
  const LoadPoint p = base_point(r, rate, w);
  if (!p.stable) return false;
  if (t.tpot_s && tpot_percentiles(r, p).at(t.percentile) > *t.tpot_s) return false;
  if (!t.ttft_s) return true;
  const double q = t.percentile < 0.7 ? 0.5 : t.percentile < 0.95 ? 0.9 : 0.99;  // as at()
  return !(ttft_of(r, p, w).quantile(q) > *t.ttft_s);
}

}  // namespace

namespace {

LoadPoint with_latencies(const Replica& r, LoadPoint p, const Waits& w) {
  if (!p.stable) return p;
  p.ttft = ttft_percentiles(ttft_of(r, p, w));
  p.tpot = tpot_percentiles(r, p);
  p.users = users_of(r, p, p.ttft.mean);
  return p;
}

// A closed loop settled at a running batch of `b`: each step decodes b sequences and takes
// the prompts arriving meanwhile (b x prompt / output tokens), and the rate is what the batch
// completes, b / (output x step). Unlike an open rate, this has one solution at every batch:
// past the compute ceiling more users make every step longer (vLLM admits them all, up to its
// sequence cap), where an open Poisson rate could not be sustained at all.
// Its rates, queues and stability only, for the searches that need no percentile (each TTFT
// quantile is a bisection of its own).
LoadPoint batch_base(const Replica& r, double b, Waits& w) {
  const double o = mean_output(r);
  const double tau = step_seconds(r, b, b * mean_prompt(r) / o);
  return base_point(r, b / (o * tau), w, tau);
}

LoadPoint at_batch(const Replica& r, double b) {
  Waits w;
  return with_latencies(r, batch_base(r, b, w), w);
}

// The users a closed loop at batch b holds (users_of with the mean TTFT: no percentiles).
double batch_users(const Replica& r, double b) {
  Waits w;
  const LoadPoint p = batch_base(r, b, w);
  return p.stable ? users_of(r, p, ttft_of(r, p, w).mean + w.mean()) : -1;
}

// The largest running batch the loop sustains (slot and prefill queues below 1).
double max_batch(const Replica& r) {
  Waits w;
  double lo = 0, hi = r.max_seqs;
  if (batch_base(r, hi, w).stable) return hi;
  for (int i = 0; i < 60 && hi - lo > 1e-6 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (batch_base(r, mid, w).stable ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace

LoadPoint at_rate(const Replica& r, double rate) {
  Waits w;
  return with_latencies(r, base_point(r, rate, w), w);
}

LoadPoint idle_point(const Replica& r) { return at_rate(r, 1e-9); }

double saturation_rate(const Replica& r) {
  if (!r.fits()) return 0;
  double lo = 0, hi = r.max_seqs / (mean_output(r) * step_seconds(r, 0, 0));
  for (int i = 0; i < 60 && hi - lo > 1e-7 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    Waits w;
    (base_point(r, mid, w).stable ? lo : hi) = mid;
  }
  return lo;
}

bool meets(const LoadPoint& p, const Targets& t) {
  if (!p.stable) return false;
  if (t.ttft_s && p.ttft.at(t.percentile) > *t.ttft_s) return false;
  return !(t.tpot_s && p.tpot.at(t.percentile) > *t.tpot_s);
}

std::optional<LoadPoint> within_targets(const Replica& r, const Targets& t) {
  const double sat = saturation_rate(r);
  if (!(sat > 0)) return std::nullopt;
  if (!t.ttft_s && !t.tpot_s) return at_rate(r, sat);
  if (!meets_at(r, 1e-9, t)) return std::nullopt;  // the idle point
  double lo = 1e-9, hi = sat;
  if (meets_at(r, hi, t)) return at_rate(r, hi);
  for (int i = 0; i < 50 && hi - lo > 1e-5 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (meets_at(r, mid, t) ? lo : hi) = mid;
  }
  return at_rate(r, lo);
}

LoadPoint at_users(const Replica& r, double users) {
  if (!r.fits() || !(users > 0)) return unstable(0);
  const double top = max_batch(r);
  if (!(top > 0)) return unstable(0);
  double lo = 0, hi = top;
  for (int i = 0; i < 60 && hi - lo > 1e-7 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    const double held = batch_users(r, mid);
    (held >= 0 && held < users ? lo : hi) = mid;
  }
  LoadPoint p = at_batch(r, std::max(hi, 1e-9));
  // More users than the replica holds at its largest batch: the rest wait for admission. A
  // closed loop keeps all of them in the system (users = rate x response time), so each waits
  // (users - held) / rate longer before its first token.
  if (p.stable && p.users < users * (1 - 1e-3)) {
    const double wait = (users - p.users) / p.rate;
    for (double* t : {&p.ttft.mean, &p.ttft.p50, &p.ttft.p90, &p.ttft.p99}) *t += wait;
    p.users = users;
  }
  return p;
}

LoadPoint users_capacity(const Replica& r, const Targets& t, const LoadPoint& cap) {
  if (!cap.stable) return cap;
  // The largest running batch whose latencies meet the targets: every step longer with each
  // user, the TPOT target binds; the TTFT one through the queues.
  const double top = max_batch(r);
  double lo = 0, hi = top;
  if (!meets(at_batch(r, hi), t)) {
    for (int i = 0; i < 60 && hi - lo > 1e-6 * hi; ++i) {
      const double mid = (lo + hi) / 2;
      (meets(at_batch(r, mid), t) ? lo : hi) = mid;
    }
    const LoadPoint p = at_batch(r, lo);
    return p.stable && p.users >= cap.users ? p : cap;
  }
  // At the largest batch and still within: those who can wait for admission within the TTFT
  // target count too. Without a TTFT target, waiting is not bounded: the batch's own users.
  LoadPoint full = at_batch(r, hi);
  if (!t.ttft_s) return full;
  const double wait = std::max(0.0, *t.ttft_s - full.ttft.at(t.percentile));
  full.users += wait * full.rate;
  for (double* x : {&full.ttft.mean, &full.ttft.p50, &full.ttft.p90, &full.ttft.p99}) *x += wait;
  return full;
}

double users_within_targets(const Replica& r, const Targets& t, const LoadPoint& cap) {
  return users_capacity(r, t, cap).users;
}

}  // namespace gpusel
