// --cp in the speed model: the ring's K/V traffic runs beside the attention kernels and
// costs only what outlasts them; the cp ranks add themselves to the gradient reduction.
#include <catch2/catch.hpp>

#include "model_parallel_fixtures.hpp"

#include "gpusel/data/data_source.hpp"
#include "gpusel/speed/throughput.hpp"

using namespace gpusel;

namespace {

using model_parallel_fixtures::training;

Throughput cp_run(const Gpu& g, int tp, int pp, int cp, int gpus, int seq, bool linked = true) {
  Workload w = training(Mode::full, Shard::zero1, tp, pp);
  w.cp = cp, w.seq_len = seq;
  w.allow_long_context = true;
  return estimate_throughput(on_gpus(w, gpus), g, gpus, linked);
}

}  // namespace

TEST_CASE("the context-parallel ring hides behind attention over NVLink") {
  const Gpu& h100 = require_gpu(ranker_fixtures::catalog(), "h100-sxm");
  // Llama 3 70B at 8192 tokens, tp 4 x cp 2 in one node: 8.4 MB of K/V per layer and pass
  // over NVLink against milliseconds of attention: nothing exposed, and the same compute per
  // GPU as tp 4 x dp 2 (whose gradient all-reduce over two ranks is what differs).
  const Throughput cp = cp_run(h100, 4, 1, 2, 8, 8192);
  const Throughput dp = cp_run(h100, 4, 1, 1, 8, 8192);
  CHECK(
      model_parallel_fixtures::assumes(cp, "context parallel 2 (inside the node): ring attention"));
  CHECK(model_parallel_fixtures::assumes(cp, "0 ms per micro-batch exposed"));
  CHECK(cp.train_tokens_per_s == Approx(dp.train_tokens_per_s).epsilon(0.05));
}

TEST_CASE("a ring beyond what attention hides slows the step") {
  const Gpu& h100 = require_gpu(ranker_fixtures::catalog(), "h100-sxm");
  // Short sequences leave little attention to hide the ring behind; 16 ranks span two nodes,
  // so the ring crosses the cluster network and is exposed where 2 ranks in a node hide.
  const Throughput near = cp_run(h100, 1, 1, 2, 16, 2048);
  const Throughput far = cp_run(h100, 1, 1, 16, 16, 2048);
  CHECK(model_parallel_fixtures::assumes(far, "context parallel 16 (over the cluster network)"));
  CHECK(far.train_tokens_per_s < near.train_tokens_per_s);
  // Per GPU it never beats the same GPUs without the ring (data parallel over 16).
  Workload d = training(Mode::full, Shard::zero1, 1, 1);
  d.seq_len = 2048;
  const double plain = estimate_throughput(on_gpus(d, 16), h100, 16, true).train_tokens_per_s;
  CHECK(far.train_tokens_per_s <= plain);
}
