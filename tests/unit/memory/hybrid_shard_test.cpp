// --shard hsdp: FSDP inside groups of --shard-group GPUs, the groups replicated. Each GPU holds
// what FSDP over its group gives it; the replicas add an all-reduce of the gradient shards.
#include <catch2/catch.hpp>

#include "model_parallel_fixtures.hpp"

#include "gpusel/base/error.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/memory/estimator.hpp"
#include "gpusel/memory/fit.hpp"
#include "gpusel/speed/throughput.hpp"

using namespace gpusel;

namespace {

Workload hsdp(int group, int gpus) {
  Workload w = ranker_fixtures::preset("llama-3.1-8b", Mode::full);
  w.seq_len = 4096, w.shard = Shard::fsdp, w.shard_given = true, w.shard_group = group;
  return on_gpus(w, gpus);
}

}  // namespace

TEST_CASE("hybrid sharding holds what FSDP over one group holds") {
  const Estimate h = estimate(hsdp(8, 64));
  const Estimate group = estimate(hsdp(0, 8)), all = estimate(hsdp(0, 64));
  CHECK(h.total_bytes == Approx(group.total_bytes).epsilon(1e-12));
  CHECK(h.total_bytes > all.total_bytes);
  CHECK(parallel_label(hsdp(8, 64)) == "hsdp 8 x 8 replicas");
  // No more GPUs than one group: plain FSDP.
  CHECK(!hybrid_sharded(hsdp(8, 8)));
  CHECK(estimate(hsdp(8, 8)).total_bytes == Approx(group.total_bytes).epsilon(1e-12));
}

TEST_CASE("hybrid sharding is refused where it does not apply") {
  CHECK_THROWS_AS(estimate(hsdp(8, 12)), Error);  // 8 does not divide 12
  Workload z = hsdp(8, 64);
  z.shard = Shard::zero1;
  CHECK_THROWS_AS(validate(z), Error);
  Workload tp = hsdp(8, 64);
  tp.tp = 2;
  CHECK_THROWS_AS(validate(tp), Error);
}

TEST_CASE("the replicas all-reduce their gradient shards over the cluster network") {
  const Gpu& h100 = require_gpu(ranker_fixtures::catalog(), "h100-sxm");
  const Throughput t = estimate_throughput(hsdp(8, 64), h100, 64, true);
  CHECK(model_parallel_fixtures::assumes(
      t, "hsdp: FSDP inside groups of 8, 8 replicas all-reduce each GPU's"));
  CHECK(model_parallel_fixtures::assumes(t, "over the cluster network"));
  // The gathers stay inside the node: the group's own link, no InfiniBand in its line.
  CHECK(
      !model_parallel_fixtures::assumes(t, "8 cards over nvlink 900 GB/s x 0.8 [links.nvlink], 8"));
  CHECK(t.train_tokens_per_s > 0);
}

TEST_CASE("hybrid sharding places whole groups, and FSDP over all is its remedy") {
  const Workload w = hsdp(8, 64);
  CHECK(tensor_parallel_splits(w, 16));
  CHECK(tensor_parallel_splits(w, 4));  // one group, smaller than asked: plain FSDP
  CHECK(!tensor_parallel_splits(w, 12));
  const std::vector<WorkloadChange> changes = workload_changes(w);
  REQUIRE(!changes.empty());
  CHECK(changes.front().change == "--shard fsdp");
}
