// --ep: expert parallelism. Each of the ep ranks keeps 1/ep of every MoE layer's routed
// experts; what the --shard strategy already spreads over the dp x cp ranks stays as it is.
#include <catch2/catch.hpp>

#include "ranker_fixtures.hpp"

#include "gpusel/base/error.hpp"
#include "gpusel/memory/estimator.hpp"
#include "gpusel/memory/fit.hpp"

using namespace gpusel;

namespace {

Workload mixtral(Shard shard, int ep, int gpus, int tp = 1) {
  Workload w = ranker_fixtures::preset("mixtral-8x7b", Mode::full);
  w.seq_len = 4096;
  w.shard = shard, w.shard_given = true;
  w.ep = ep, w.tp = tp;
  return on_gpus(w, gpus);
}

}  // namespace

TEST_CASE("expert parallelism splits the routed experts of what stays whole on every rank") {
  const Workload w = mixtral(Shard::zero1, 8, 8);
  const double share = expert_parallel_share(w);
  // Mixtral 8x7B: 45.1B of its 46.7B parameters are routed experts.
  CHECK(share == Approx(1 - 45.1e9 / 46.7e9 * 7 / 8).epsilon(0.01));
  const Estimate ep = estimate(w), one = estimate(mixtral(Shard::zero1, 1, 8));
  // ZeRO-1 keeps weights and gradients whole: / ep on the experts. Its optimizer states are
  // sharded over the 8 ranks already: the experts' 1/8 over their 1 expert-data-parallel rank.
  CHECK(ep.bytes_of("weights") == Approx(one.bytes_of("weights") * share).epsilon(1e-9));
  CHECK(ep.bytes_of("gradients") == Approx(one.bytes_of("gradients") * share).epsilon(1e-9));
  CHECK(ep.bytes_of("optimizer_states") == Approx(one.bytes_of("optimizer_states")).epsilon(1e-9));
  CHECK(ep.total_bytes < 0.5 * one.total_bytes);
  CHECK(parallel_label(w) == "zero1, ep 8");
  // FSDP shards the weights already; only the gathered unit's experts drop to 1/ep.
  const Estimate f1 = estimate(mixtral(Shard::fsdp, 1, 8)),
                 f8 = estimate(mixtral(Shard::fsdp, 8, 8));
  CHECK(f8.bytes_of("weights") == Approx(f1.bytes_of("weights")).epsilon(1e-9));
  CHECK(f8.bytes_of("gathered_params") < f1.bytes_of("gathered_params"));
  CHECK(f8.total_bytes <= f1.total_bytes);
}

TEST_CASE("expert parallelism is refused where Megatron-Core refuses it") {
  CHECK_THROWS_AS(mixtral(Shard::zero1, 3, 6), Error);     // 8 experts: 3 does not divide
  CHECK_THROWS_AS(mixtral(Shard::zero1, 8, 4), Error);     // 4 dp ranks cannot hold 8
  CHECK_THROWS_AS(mixtral(Shard::zero1, 4, 8, 4), Error);  // tp 4 leaves 2 dp ranks
  CHECK_NOTHROW(mixtral(Shard::zero1, 2, 8, 4));
  Workload dense = ranker_fixtures::preset("llama-3-70b", Mode::full);
  dense.ep = 2;
  CHECK_THROWS_AS(on_gpus(dense, 2), Error);  // no experts to split
  Workload serve = ranker_fixtures::preset("mixtral-8x7b", Mode::inference);
  serve.ep = 2;
  CHECK_THROWS_AS(on_gpus(serve, 2), Error);  // a training split
  CHECK(places_replicas(mixtral(Shard::zero1, 8, 8), 16));
  CHECK(!places_replicas(mixtral(Shard::zero1, 8, 8), 12));
  Workload alone = ranker_fixtures::preset("mixtral-8x7b", Mode::full);
  alone.ep = 8;
  CHECK(fewest_gpus(alone) == 8);
}

TEST_CASE("splitting the experts is the first remedy for a mixture of experts on several GPUs") {
  Workload w = ranker_fixtures::preset("mixtral-8x7b", Mode::full);
  w.seq_len = 4096, w.tp = 2, w.shard = Shard::zero1, w.shard_given = true;
  const std::vector<WorkloadChange> changes = workload_changes(on_gpus(w, 16));
  REQUIRE(!changes.empty());
  CHECK(changes.front().change == "--ep 8");  // 8 experts, 8 dp ranks
  // One GPU, or a dense model: no such change.
  for (const WorkloadChange& c :
       workload_changes(ranker_fixtures::preset("mixtral-8x7b", Mode::full)))
    CHECK(c.change.rfind("--ep", 0) == std::string::npos);
}
