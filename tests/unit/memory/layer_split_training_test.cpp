// --shard none on several GPUs in training: naive model parallelism (HF device_map), each GPU
// holding its share of the layers and their gradients, optimizer states and activations, one
// GPU busy at a time.
#include <catch2/catch.hpp>

#include <cmath>

#include "estimator_fixtures.hpp"
#include "gpusel/memory/estimator.hpp"

using namespace gpusel;

namespace {

Workload split(Mode mode, int gpus) {
  Workload w = test_models::on(test_models::llama2_7b(), mode);
  w.shard = Shard::none;
  w.shard_given = true;
  return on_gpus(w, gpus);
}

}  // namespace

TEST_CASE("a training layer split divides the model states by layers, never raising them") {
  for (const Mode mode : {Mode::full, Mode::lora, Mode::qlora, Mode::freeze}) {
    CAPTURE(to_string(mode));
    const Estimate one = estimate(split(mode, 1));
    double last = one.total_bytes;
    for (int gpus : {2, 4, 8}) {
      CAPTURE(gpus);
      const Workload w = split(mode, gpus);
      REQUIRE(w.shard == Shard::none);
      const Estimate e = estimate(w);
      CHECK(e.total_bytes <= last * (1 + 1e-9));
      CHECK(e.total_bytes < one.total_bytes);
      // One GPU frees its gradients before the next forward (grads_phased): compare the
      // parts both count.
      for (const char* part : {"weights", "lora_adapters", "optimizer_states", "activations"})
        CHECK(e.bytes_of(part) <= one.bytes_of(part) * (1 + 1e-9));
      last = e.total_bytes;
    }
  }
}

TEST_CASE("full training on 4 GPUs by layers: a quarter of the blocks and the larger edge") {
  const Estimate one = estimate(split(Mode::full, 1)), four = estimate(split(Mode::full, 4));
  // Llama 2 7B: 32 blocks, 8 per GPU; embedding and head 32000 x 4096 each, one per GPU.
  const double edge = 32000.0 * 4096, edges = 2 * edge, blocks = 6.74e9 - edges;
  const double share = (blocks / 4 + edge) / (blocks + edges);
  CHECK(four.bytes_of("weights") / one.bytes_of("weights") == Approx(share).epsilon(0.02));
  CHECK(four.bytes_of("optimizer_states") / one.bytes_of("optimizer_states") ==
        Approx(share).epsilon(0.02));
  CHECK(four.bytes_of("logits") == Approx(one.bytes_of("logits")));  // the last GPU's loss
}

TEST_CASE("without --shard, several GPUs train sharded, not split by layers") {
  Workload w = test_models::on(test_models::llama2_7b(), Mode::full);
  CHECK(on_gpus(w, 4).shard == Shard::fsdp);
  w.gpus = 4;  // a workload built by hand with no strategy: a full copy per GPU (DDP)
  CHECK(estimate(w).total_bytes > estimate(split(Mode::full, 4)).total_bytes);
}
