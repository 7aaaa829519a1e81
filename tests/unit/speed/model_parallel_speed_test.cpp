// --tp/--pp/--vpp in the speed model: tensor parallelism stays inside a node, and the
// pipeline bubble (pp - 1) / (vpp x m) shrinks with micro-batches and interleaving.
#include <catch2/catch.hpp>

#include "model_parallel_fixtures.hpp"

#include "gpusel/base/error.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_source.hpp"
#include "gpusel/speed/throughput.hpp"

using namespace gpusel;

namespace {

using model_parallel_fixtures::training;

}  // namespace

TEST_CASE("tensor parallelism beyond one node is refused where the card is known") {
  const Catalog& cat = ranker_fixtures::catalog();
  Workload w = on_gpus(training(Mode::full, Shard::zero1, 16, 1), 32);
  CHECK_THROWS_AS(estimate_throughput(w, require_gpu(cat, "h100-sxm"), 32, true), Error);
}

TEST_CASE("the pipeline bubble shrinks with more micro-batches and with interleaving") {
  const Catalog& cat = ranker_fixtures::catalog();
  const Gpu& h100 = require_gpu(cat, "h100-sxm");
  auto per_gpu_rate = [&](int micro, int vpp) {
    Workload w = training(Mode::full, Shard::zero1, 4, 4);
    w.grad_accum = micro, w.vpp = vpp;
    return estimate_throughput(on_gpus(w, 64), h100, 64, true).train_tokens_per_s;
  };
  CHECK(per_gpu_rate(4, 1) < per_gpu_rate(16, 1));
  CHECK(per_gpu_rate(16, 1) < per_gpu_rate(64, 1));
  CHECK(per_gpu_rate(16, 1) < per_gpu_rate(16, 5));
  // Without a pipeline or data-parallel replicas nothing waits on the step: 8-way tensor
  // parallelism alone depends on the micro-batches only through the optimizer step they share
  // (the memory-bound term), a few per cent, where the 4-stage bubble above moves it by far more.
  Workload tp = training(Mode::full, Shard::zero1, 8, 1);
  tp.grad_accum = 4;
  const double a = estimate_throughput(on_gpus(tp, 8), h100, 8, true).train_tokens_per_s;
  tp.grad_accum = 64;
  const double b = estimate_throughput(on_gpus(tp, 8), h100, 8, true).train_tokens_per_s;
  CHECK(b >= a);
  CHECK(b < a * 1.05);
  CHECK(per_gpu_rate(64, 1) > per_gpu_rate(4, 1) * 1.2);
}

TEST_CASE("overlapped communication hides TP and pipeline traffic but never the bubble") {
  const Catalog& cat = ranker_fixtures::catalog();
  const Gpu& h100 = require_gpu(cat, "h100-sxm");
  auto run = [&](int tp, int pp, int gpus, bool overlap) {
    Workload w = training(Mode::full, Shard::zero1, tp, pp);
    w.comm_overlap = overlap;
    return estimate_throughput(on_gpus(w, gpus), h100, gpus, true);
  };
  // TP4 x PP4 over 8 nodes: the TP all-reduces (46 ms a micro-batch for Llama 3 70B at 4096
  // tokens) and the stage sends fit well inside the micro-batch's compute, so they vanish; the
  // bubble stays, so the overlapped run stays below a run with no model parallelism at all.
  const Throughput off = run(4, 4, 64, false), on = run(4, 4, 64, true);
  CHECK(on.train_tokens_per_s > off.train_tokens_per_s * 1.05);
  Workload bare = training(Mode::full, Shard::zero1, 4, 4);
  bare.comm_overlap = true;
  bare.grad_accum = 1 << 12;  // a bubble of (pp - 1) / m: next to nothing
  const double ideal = estimate_throughput(on_gpus(bare, 64), h100, 64, true).train_tokens_per_s;
  CHECK(on.train_tokens_per_s < ideal);
  bool said = false;
  for (const std::string& a : on.assumptions) said = said || a.find("--comm-overlap") == 0;
  CHECK(said);
  // Without tensor or pipeline parallelism nothing but ZeRO-1's weight gather can move: the
  // flag never makes a step slower.
  CHECK(run(1, 1, 8, true).train_tokens_per_s >= run(1, 1, 8, false).train_tokens_per_s);
  // --shard tp training (no --tp) reads it the same way: its all-reduces hide in the GEMMs.
  auto shard_tp = [&](bool overlap) {
    Workload w = training(Mode::full, Shard::tp, 1, 1);
    w.comm_overlap = overlap;
    return estimate_throughput(on_gpus(w, 8), h100, 8, true).train_tokens_per_s;
  };
  CHECK(shard_tp(true) > shard_tp(false));
  // Single-GPU and inference estimates do not read it.
  CHECK(run(1, 1, 1, true).train_tokens_per_s == run(1, 1, 1, false).train_tokens_per_s);
}
