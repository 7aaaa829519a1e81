#include <catch2/catch.hpp>

#include "gpusel/speed/step.hpp"
#include "gpusel/speed/throughput.hpp"
#include "ranker_fixtures.hpp"

using namespace gpusel;

namespace {

Workload step_batched(const std::string& model, int batch, Shard shard = Shard::tp) {
  Workload w = ranker_fixtures::preset(model, Mode::inference);
  w.batch = batch;
  w.prompt_len = 1000;
  w.seq_len = 1200;
  w.shard = shard;
  return w;
}

const Gpu& step_card(const std::string& id) { return require_gpu(ranker_fixtures::catalog(), id); }

}  // namespace

TEST_CASE("step model: decode tokens/s is batch / step(batch, 0) of the same model",
          "[speed][serve]") {
  for (const auto& [gpu, count] : {std::pair{"h100-sxm", 1}, std::pair{"h100-sxm", 2},
                                   std::pair{"rtx-4090", 1}, std::pair{"l40s", 4}}) {
    for (int batch : {1, 8, 64, 256}) {
      const Workload w = step_batched("llama-3.1-8b", batch);
      const Gpu& g = step_card(gpu);
      const bool linked = g.interconnect.bandwidth_gbs > 0 && count > 1;
      const Throughput t = estimate_throughput(w, g, count, linked);
      const StepModel m = step_model(w, g, count, linked);
      CAPTURE(gpu, count, batch);
      CHECK(m.engine == t.engine);
      CHECK(t.decode_tokens_per_s == Approx(batch / step_seconds(m, batch, 0)));
    }
  }
}

TEST_CASE("step model: prompt tokens and sequences only ever lengthen a step", "[speed][serve]") {
  const StepModel m = step_model(step_batched("llama-3.1-70b", 1), step_card("h100-sxm"), 4, true);
  CHECK(m.tp == 4);
  double last = 0;
  for (double t : {0.0, 128.0, 1024.0, 8192.0}) {
    const double s = step_seconds(m, 32, t);
    CHECK(s >= last);
    last = s;
  }
  // Pipelined stages spread a big batch's compute; memory-bound steps gain nothing.
  const StepModel split =
      step_model(step_batched("llama-3.1-70b", 1, Shard::none), step_card("h100-sxm"), 4, true);
  CHECK(split.stages == 4);
  CHECK(step_seconds(split, 1, 0, true) == Approx(step_seconds(split, 1, 0, false)).epsilon(0.01));
  CHECK(step_seconds(split, 0, 32768, true) < 0.5 * step_seconds(split, 0, 32768, false));
}
