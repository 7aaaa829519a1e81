#pragma once
// A replica under load. Requests arrive as a Poisson stream (as MLPerf's server scenario and
// vLLM's benchmark_serving send them); continuous batching settles where the iteration time
// tau solves tau = step(B = rate x O x tau, T = rate x P x tau) (Little's law). TPOT is tau,
// spread by the batch's and the mixed-in prompts' randomness; TTFT is the request's own
// prefill plus two waits: for earlier prompts (M/G/1, Pollaczek-Khinchine: DistServe's M/D/1
// when prompts have one length) and, when the KV pool is full, for a free sequence slot
// (Erlang C, M/M/c with one server per slot). Waits are taken as exponential beyond their
// probability of waiting at all, which is exact for M/M/c and the usual approximation for
// M/G/1 tails.
#include <optional>
#include <string>

#include "gpusel/serve/replica.hpp"

namespace gpusel {

struct Percentiles {  // seconds
  double mean = 0, p50 = 0, p90 = 0, p99 = 0;
  double at(double percentile) const;  // 0.5, 0.9 or 0.99 (others: the nearest of them)
};

struct LoadPoint {
  double rate = 0;            // requests/s offered to this replica
  double users = 0;           // requests in the system (waiting or running), Little's law
  double running = 0;         // sequences decoding in an iteration (B)
  double prefill_tokens = 0;  // prompt tokens mixed into an iteration
  double iteration_s = 0;     // tau
  double tokens_per_s = 0;    // output tokens/s: rate x mean output
  Percentiles ttft, tpot;
  bool stable = false;                                   // the replica keeps up with the rate
  double prefill_utilisation = 0, slot_utilisation = 0;  // the two queues' loads
};

// Latency targets, met at `percentile` (MLPerf's server scenario: the 99th).
struct Targets {
  std::optional<double> ttft_s, tpot_s;
  double percentile = 0.99;
};

LoadPoint at_rate(const Replica& r, double rate);
// The highest Poisson rate the replica sustains at all (its throughput ceiling).
double saturation_rate(const Replica& r);
bool meets(const LoadPoint& p, const Targets& t);
// The highest rate whose latency percentiles meet the targets (at saturation when there are
// none). nullopt when even a nearly idle replica misses them (the latency floor is too high).
std::optional<LoadPoint> within_targets(const Replica& r, const Targets& t);
// A closed loop of `users` clients, each sending its next request when the last one ends
// (after the traffic's think time): the rate at which users = rate x (TTFT + O x TPOT + think).
LoadPoint at_users(const Replica& r, double users);
// The most such clients the replica serves within the targets, given `cap`, within_targets'
// point: its users, and where that point is the throughput ceiling, those who can wait for
// admission within the TTFT target too (at_users adds that wait; TPOT does not grow).
double users_within_targets(const Replica& r, const Targets& t, const LoadPoint& cap);
// That capacity as a closed-loop point: its rate, latencies and users (cap itself where the
// open rate's point holds more users).
LoadPoint users_capacity(const Replica& r, const Targets& t, const LoadPoint& cap);
// The latency floor: a nearly idle replica (one request at a time).
LoadPoint idle_point(const Replica& r);

}  // namespace gpusel
