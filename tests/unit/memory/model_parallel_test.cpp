// --tp/--pp/--vpp: Megatron-style tensor x pipeline x data parallel training. The degrees are
// placed by on_gpus (the one function every command uses), refused where Megatron-LM refuses
// them, and divide the per-GPU memory without ever raising it.
#include <catch2/catch.hpp>

#include "model_parallel_fixtures.hpp"

#include "gpusel/base/error.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_source.hpp"
#include "gpusel/memory/estimator.hpp"

using namespace gpusel;

namespace gpusel::detail {  // estimator_parallel.cpp, internal: tested at degree 1
Estimate model_parallel_estimate(const Workload& w, EstimateDetail level);
}

namespace {

using model_parallel_fixtures::training;

double per_gpu(Mode mode, Shard shard, int tp, int pp, int gpus) {
  return estimate(on_gpus(training(mode, shard, tp, pp), gpus)).total_bytes;
}

}  // namespace

TEST_CASE("tp 1 x pp 1 is exactly today's estimate for every shard") {
  for (const Mode mode : {Mode::full, Mode::lora, Mode::qlora})
    for (const Shard shard : {Shard::ddp, Shard::zero1, Shard::zero2, Shard::zero3, Shard::fsdp}) {
      const Workload w = on_gpus(training(mode, shard, 1, 1), 8);
      CHECK(!model_parallel(w));
      CHECK(parallel_label(w) == to_string(shard));
      // The model-parallel path at degree 1 keeps every component of today's estimate whole.
      const Estimate today = estimate(w);
      const Estimate mp = detail::model_parallel_estimate(w, EstimateDetail::full);
      CHECK(mp.total_bytes == Approx(today.total_bytes).epsilon(1e-12));
      REQUIRE(mp.components.size() == today.components.size());
      for (std::size_t i = 0; i < mp.components.size(); ++i)
        CHECK(mp.components[i].bytes == Approx(today.components[i].bytes).epsilon(1e-12));
    }
}

TEST_CASE("per-GPU memory never grows with the tensor or pipeline degree") {
  // At a fixed data-parallel degree: more GPUs per replica, less on each. (At a fixed GPU
  // count it can grow under ZeRO-3/FSDP: a deeper pipeline leaves fewer replicas to shard
  // the first stage's embedding over.)
  for (const Mode mode : {Mode::full, Mode::lora})
    for (const Shard shard : {Shard::ddp, Shard::zero1, Shard::zero3})
      for (const int dp : {1, 4})
        for (const int tp : {1, 2, 4, 8})
          for (const int pp : {1, 2, 4, 8}) {
            if (tp * pp == 1) continue;
            const double b = per_gpu(mode, shard, tp, pp, tp * pp * dp);
            if (pp > 1 && tp * (pp / 2) > 1)
              CHECK(b <= per_gpu(mode, shard, tp, pp / 2, tp * pp / 2 * dp));
            if (tp > 1 && (tp / 2) * pp > 1)
              CHECK(b <= per_gpu(mode, shard, tp / 2, pp, tp / 2 * pp * dp));
          }
}

TEST_CASE("tp 4 x pp 4 divides the model states by 16 and shards the optimizer over dp") {
  const Estimate one = estimate(on_gpus(training(Mode::full, Shard::zero1, 1, 1), 4));
  const Estimate mp = estimate(on_gpus(training(Mode::full, Shard::zero1, 4, 4), 64));
  // The first stage keeps 20 of 80 blocks and the embedding: between 1/16 and 1/8 of the
  // replica's weights, one tensor slice of four.
  const double w1 = one.bytes_of("weights"), w16 = mp.bytes_of("weights");
  CHECK(w16 > w1 / 16);
  CHECK(w16 < w1 / 12);
  CHECK(mp.bytes_of("optimizer_states") < one.bytes_of("optimizer_states") / 12);
  CHECK(mp.total_bytes < 80e9);  // a 70B full fine-tune fits 64 H100s this way
  CHECK(parallel_label(on_gpus(training(Mode::full, Shard::zero1, 4, 4), 64)) ==
        "tp 4 x pp 4 x dp 4 zero1");
}

TEST_CASE("the degrees must divide the GPUs and the heads and fit the layers") {
  CHECK_THROWS_AS(on_gpus(training(Mode::full, Shard::zero1, 4, 4), 24), Error);
  CHECK_THROWS_AS(on_gpus(training(Mode::full, Shard::zero1, 3, 1), 6), Error);      // 64 heads
  CHECK_THROWS_AS(on_gpus(training(Mode::full, Shard::zero1, 1, 128), 128), Error);  // 80 layers
  CHECK_THROWS_AS(on_gpus(training(Mode::full, Shard::tp, 2, 2), 8), Error);
  CHECK_THROWS_AS(on_gpus(training(Mode::inference, Shard::none, 2, 1), 2), Error);
  Workload vpp = training(Mode::full, Shard::zero1, 2, 1);
  vpp.vpp = 2;
  CHECK_THROWS_AS(validate(vpp), Error);  // interleaving needs stages
  Workload dflt = training(Mode::full, Shard::none, 2, 2);
  dflt.shard_given = false;
  CHECK(on_gpus(dflt, 8).shard == Shard::zero1);  // Megatron's distributed optimizer
  CHECK(tensor_parallel_splits(dflt, 8));
  CHECK(!tensor_parallel_splits(dflt, 2));
}

TEST_CASE("the embedding and the loss may take a virtual stage each, as Llama 3 405B's did") {
  Workload w = ranker_fixtures::preset("llama-3.1-405b", Mode::full);  // 126 layers
  w.seq_len = 8192, w.tp = 8, w.pp = 16, w.vpp = 8;
  w.shard = Shard::zero1, w.shard_given = true;
  CHECK_NOTHROW(validate(on_gpus(w, 16384)));  // 128 = 126 + embedding + loss
  w.vpp = 9;
  CHECK_THROWS_AS(validate(on_gpus(w, 16384)), Error);
}
