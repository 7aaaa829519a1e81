// --cp: context parallelism. Each of the cp ranks of a replica keeps 1/cp of every sequence
// (activations and logits / cp) but the same weights, so the optimizer shards over dp x cp;
// the degrees are placed by on_gpus and refused where Megatron-Core refuses them.
#include <catch2/catch.hpp>

#include "model_parallel_fixtures.hpp"

#include "gpusel/base/error.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/memory/estimator.hpp"
#include "gpusel/memory/fit.hpp"

using namespace gpusel;

namespace {

using model_parallel_fixtures::training;

Workload with_cp(Mode mode, Shard shard, int tp, int pp, int cp, int gpus) {
  Workload w = training(mode, shard, tp, pp);
  w.cp = cp;
  return on_gpus(w, gpus);
}

}  // namespace

TEST_CASE("context parallelism divides the activations and logits, not the weights") {
  // 64 GPUs as tp 4 x pp 4 x dp 4 against tp 4 x pp 4 x cp 2 x dp 2: the same weights per GPU,
  // the same optimizer shards (over 4 ranks either way), half the activations.
  const Estimate dp = estimate(with_cp(Mode::full, Shard::zero1, 4, 4, 1, 64));
  const Estimate cp = estimate(with_cp(Mode::full, Shard::zero1, 4, 4, 2, 64));
  CHECK(cp.bytes_of("weights") == Approx(dp.bytes_of("weights")).epsilon(1e-12));
  CHECK(cp.bytes_of("optimizer_states") == Approx(dp.bytes_of("optimizer_states")).epsilon(1e-12));
  REQUIRE(dp.bytes_of("activations") > 0);
  CHECK(cp.bytes_of("activations") == Approx(dp.bytes_of("activations") / 2).epsilon(1e-9));
  CHECK(cp.total_bytes < dp.total_bytes);
  CHECK(parallel_label(with_cp(Mode::full, Shard::zero1, 4, 4, 2, 64)) ==
        "tp 4 x pp 4 x cp 2 x dp 2 zero1");
  // cp alone: 8 GPUs as cp 8, the optimizer sharded over all eight like ZeRO-1 on 8.
  const Estimate z1 = estimate(on_gpus(training(Mode::full, Shard::zero1, 1, 1), 8));
  const Estimate cp8 = estimate(with_cp(Mode::full, Shard::zero1, 1, 1, 8, 8));
  CHECK(cp8.bytes_of("optimizer_states") == Approx(z1.bytes_of("optimizer_states")).epsilon(1e-9));
  CHECK(cp8.bytes_of("activations") == Approx(z1.bytes_of("activations") / 8).epsilon(1e-9));
  CHECK(data_parallel(with_cp(Mode::full, Shard::zero1, 1, 1, 8, 8)) == 1);
}

TEST_CASE("per-GPU memory never grows with the context-parallel degree at a fixed dp") {
  for (const Mode mode : {Mode::full, Mode::lora})
    for (const int cp : {2, 4, 8}) {
      const double more = estimate(with_cp(mode, Shard::zero1, 2, 1, cp, 2 * cp)).total_bytes;
      const double less = estimate(with_cp(mode, Shard::zero1, 2, 1, cp / 2, cp)).total_bytes;
      CHECK(more <= less);
    }
}

TEST_CASE("context parallelism is refused where Megatron-Core refuses it") {
  // 4096 tokens cut into 2 x cp chunks: cp 3 leaves a remainder.
  CHECK_THROWS_AS(with_cp(Mode::full, Shard::zero1, 1, 1, 3, 3), Error);
  // The ring runs over FlashAttention/fused-attention kernels only.
  Workload eager = training(Mode::full, Shard::zero1, 1, 1);
  eager.cp = 2, eager.flash_attn = false;
  CHECK_THROWS_AS(on_gpus(eager, 2), Error);
  // Whole replicas: tp 2 x cp 2 does not divide 6 GPUs.
  CHECK_THROWS_AS(with_cp(Mode::full, Shard::zero1, 2, 1, 2, 6), Error);
  // A training split: inference takes --shard tp or the layer split.
  CHECK_THROWS_AS(with_cp(Mode::inference, Shard::none, 1, 1, 2, 2), Error);
  Workload zero = training(Mode::full, Shard::zero1, 1, 1);
  zero.cp = 0;
  CHECK_THROWS_AS(validate(zero), Error);
  // The product of the degrees is the replica, without overflow at the degrees' limits.
  Workload big = training(Mode::full, Shard::zero1, kMaxGpuCount, kMaxGpuCount);
  big.cp = kMaxGpuCount;
  CHECK(model_parallel_size(big) > kMaxGpuCount);
}

TEST_CASE("doubling the context-parallel ranks is the first remedy under model parallelism") {
  const std::vector<WorkloadChange> mp =
      workload_changes(with_cp(Mode::full, Shard::zero1, 4, 4, 1, 64));
  REQUIRE(!mp.empty());
  CHECK(mp.front().change == "--cp 2");
  Workload edited = with_cp(Mode::full, Shard::zero1, 4, 4, 1, 64);
  mp.front().edit(edited);
  CHECK(edited.cp == 2);
  // FSDP fine-tuning without --tp/--pp/--cp is offered no CP.
  for (const WorkloadChange& c :
       workload_changes(on_gpus(training(Mode::full, Shard::fsdp, 1, 1), 8)))
    CHECK(c.change.rfind("--cp", 0) == std::string::npos);
}

TEST_CASE("fit's longest sequence under context parallelism is a multiple of 2 x cp") {
  const Gpu& h100 = require_gpu(ranker_fixtures::catalog(), "h100-sxm");
  Workload w = training(Mode::full, Shard::zero1, 4, 4);
  w.cp = 4, w.grad_accum = 16, w.allow_long_context = true;
  const FitResult r = fit(w, h100, 64);
  REQUIRE(r.max_seq_len > 0);
  CHECK(r.max_seq_len % 8 == 0);
}
