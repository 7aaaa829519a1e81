// FP8 full training as torchao float8 allocates it: the model's own weights (bf16, or fp32
// under --amp with no 16-bit working copy and no separate master), gradients and AdamW
// states in the parameters' dtype; the fp8 casts live for one matmul.
#include <catch2/catch.hpp>

#include "estimator_fixtures.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/memory/estimator.hpp"

using namespace gpusel;

namespace {

Workload fp8_full(bool amp) {
  Workload w = test_models::on(test_models::llama31_8b(), Mode::full);
  w.precision = Precision::fp8;
  w.amp = amp;
  return w;
}

double states(const Estimate& e) {
  return e.bytes_of("weights") + e.bytes_of("gradients") + e.bytes_of("optimizer_states") +
         e.bytes_of("master_weights");
}

}  // namespace

TEST_CASE("fp8 full training estimates, with bf16 or fp32 parameters") {
  const Estimate pure = estimate(fp8_full(false));
  const Estimate amp = estimate(fp8_full(true));
  const double params = 8.03e9;
  // bf16 weights, grads and AdamW's two states: 2 + 2 + 4 B per parameter.
  CHECK(states(pure) / params == Approx(8).epsilon(0.01));
  // fp32 parameters are the master copy: 4 + 4 + 8 B, no working copy, no master_weights.
  CHECK(states(amp) / params == Approx(16).epsilon(0.01));
  CHECK(amp.bytes_of("master_weights") == 0);
  // bf16 AMP keeps a 16-bit working copy beside the fp32 master: 2 + 4 + 4 + 8 B.
  Workload bf16 = fp8_full(true);
  bf16.precision = Precision::bf16;
  CHECK(states(estimate(bf16)) > states(amp));
}

TEST_CASE("fp8 --amp is a full-training recipe only") {
  Workload lora = fp8_full(true);
  lora.mode = Mode::lora;
  CHECK_THROWS_AS(estimate(lora), Error);
  Workload serve = fp8_full(true);
  serve.mode = Mode::inference;
  CHECK_THROWS_AS(estimate(serve), Error);
}

TEST_CASE("fp8 full training grows with parameters, batch and sequence") {
  for (bool amp : {false, true}) {
    double last = 0;
    for (int seq = 256; seq <= 8192; seq *= 2) {
      Workload w = fp8_full(amp);
      w.seq_len = seq;
      const double b = estimate(w).total_bytes;
      CHECK(b > last);
      last = b;
    }
    last = 0;
    for (int batch = 1; batch <= 16; batch *= 2) {
      Workload w = fp8_full(amp);
      w.batch = batch;
      const double b = estimate(w).total_bytes;
      CHECK(b > last);
      last = b;
    }
  }
}
