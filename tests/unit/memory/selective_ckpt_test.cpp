// --selective-ckpt: torchtitan's op-level policy saves every second matmul's output of a block
// (the 1st, 3rd, ...) and SDPA's, and recomputes the rest: between full recompute and none in
// both memory and speed.
#include <catch2/catch.hpp>

#include "ranker_fixtures.hpp"

#include "gpusel/base/error.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/memory/checkpointing.hpp"
#include "gpusel/memory/estimator.hpp"
#include "gpusel/speed/throughput.hpp"

using namespace gpusel;

namespace {

Workload titan(bool full, bool selective) {
  Workload w = ranker_fixtures::preset("llama-3.1-8b", Mode::full);
  w.seq_len = 8192, w.shard = Shard::fsdp, w.shard_given = true;
  w.grad_ckpt = full, w.selective_ckpt = selective;
  return on_gpus(w, 8);
}

}  // namespace

TEST_CASE("the op-level policy keeps q, v, gate, down and SDPA of a Llama block") {
  // Llama 3.1 8B: h 4096, 8 KV heads of 128 (1024), MLP 14336. Saved: q 4096 + v 1024 +
  // gate 14336 + down 4096 + SDPA 4096 elements per token.
  const SelectiveCkpt c = selective_ckpt(ranker_fixtures::model("llama-3.1-8b"), false);
  CHECK(c.saved_elements == 4096 + 1024 + 14336 + 4096 + 4096);
  // Recomputed: k, o, up = 4096 x (1024 + 4096 + 14336) of 4096 x (4096 + 2 x 1024 + 4096 +
  // 3 x 14336) multiply-adds.
  CHECK(c.recompute_share == Approx((1024.0 + 4096 + 14336) / (4096 + 2048 + 4096 + 3 * 14336)));
}

TEST_CASE("selective checkpointing sits between full recompute and none") {
  const double full = estimate(titan(true, false)).total_bytes;
  const double sac = estimate(titan(false, true)).total_bytes;
  const double none = estimate(titan(false, false)).total_bytes;
  CHECK(full < sac);
  CHECK(sac < none);
  const Gpu& h100 = require_gpu(ranker_fixtures::catalog(), "h100-sxm");
  auto rate = [&](const Workload& w) {
    return estimate_throughput(w, h100, 8, true).train_tokens_per_s;
  };
  CHECK(rate(titan(true, false)) < rate(titan(false, true)));
  CHECK(rate(titan(false, true)) < rate(titan(false, false)));
}

TEST_CASE("selective checkpointing is refused where it is not modelled") {
  CHECK_THROWS_AS(estimate(titan(true, true)), Error);  // one of the two
  Workload lora = ranker_fixtures::preset("llama-3.1-8b", Mode::lora);
  lora.grad_ckpt = false, lora.selective_ckpt = true;
  CHECK_THROWS_AS(validate(lora), Error);
  Workload moe = ranker_fixtures::preset("mixtral-8x7b", Mode::full);
  moe.grad_ckpt = false, moe.selective_ckpt = true;
  CHECK_THROWS_AS(validate(moe), Error);
}
