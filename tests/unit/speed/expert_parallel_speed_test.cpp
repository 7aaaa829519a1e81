// --ep in the speed model: an all-to-all each way per MoE layer, forward and backward, over
// the link the ep ranks span; the experts leave the data-parallel collectives.
#include <catch2/catch.hpp>

#include "model_parallel_fixtures.hpp"

#include "gpusel/data/data_source.hpp"
#include "gpusel/speed/throughput.hpp"

using namespace gpusel;

namespace {

Throughput ep_run(Shard shard, int ep, int gpus, const std::string& model = "mixtral-8x7b") {
  Workload w = ranker_fixtures::preset(model, Mode::full);
  w.seq_len = 4096, w.grad_accum = 8;
  w.shard = shard, w.shard_given = true;
  w.ep = ep;
  const Gpu& h100 = require_gpu(ranker_fixtures::catalog(), "h100-sxm");
  return estimate_throughput(on_gpus(w, gpus), h100, gpus, true);
}

}  // namespace

TEST_CASE("the expert all-to-all costs more once it crosses nodes") {
  // Qwen3 30B-A3B's 128 experts over 8 ranks of one node or 16 of two.
  const Throughput in = ep_run(Shard::zero1, 8, 16, "qwen3-30b-a3b");
  const Throughput out = ep_run(Shard::zero1, 16, 16, "qwen3-30b-a3b");
  CHECK(model_parallel_fixtures::assumes(
      in, "expert parallel 8 (inside the node): 48 MoE layers x 6 all-to-alls"));
  CHECK(model_parallel_fixtures::assumes(out, "expert parallel 16 (over the cluster network)"));
  CHECK(out.train_tokens_per_s < in.train_tokens_per_s);
}

TEST_CASE("under FSDP the experts leave the per-micro-batch gathers") {
  // 64 GPUs over 8 nodes: FSDP gathers every expert twice a micro-batch over InfiniBand;
  // with ep 8 inside each node the experts stay put and only tokens move.
  const Throughput plain = ep_run(Shard::fsdp, 1, 64), ep = ep_run(Shard::fsdp, 8, 64);
  CHECK(ep.train_tokens_per_s > plain.train_tokens_per_s);
  CHECK(!model_parallel_fixtures::assumes(plain, "expert parallel"));
}
