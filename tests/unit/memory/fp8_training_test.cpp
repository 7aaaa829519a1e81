// FP8 full training as torchao float8 allocates it: the model's own weights (bf16, or fp32
// under --amp with no 16-bit working copy and no separate master), gradients and AdamW
// states in the parameters' dtype; the fp8 casts live for one matmul.
#include <algorithm>
#include <catch2/catch.hpp>
#include <utility>

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

// Accumulating micro-batches: the gradients stay allocated through the next forward, so
// every state counts whole (one micro-batch frees them before the forward: see below).
Workload accumulating(Workload w) {
  w.grad_accum = 2;
  return w;
}

double state_bytes(const Estimate& e) {
  return e.bytes_of("weights") + e.bytes_of("gradients") + e.bytes_of("optimizer_states") +
         e.bytes_of("master_weights");
}

}  // namespace

TEST_CASE("fp8 full training estimates, with bf16 or fp32 parameters") {
  const Estimate pure = estimate(accumulating(fp8_full(false)));
  const Estimate amp = estimate(accumulating(fp8_full(true)));
  const double params = 8.03e9;
  // bf16 weights, grads and AdamW's two states: 2 + 2 + 4 B per parameter.
  CHECK(state_bytes(pure) / params == Approx(8).epsilon(0.01));
  // fp32 parameters are the master copy: 4 + 4 + 8 B, no working copy, no master_weights.
  CHECK(state_bytes(amp) / params == Approx(16).epsilon(0.01));
  CHECK(amp.bytes_of("master_weights") == 0);
  // bf16 under torch autocast trains the same fp32 parameters (4 + 4 + 8 B) and adds the
  // forward's cache of their 16-bit casts; float8 casts per matmul and caches none.
  Workload bf16 = accumulating(fp8_full(true));
  bf16.precision = Precision::bf16;
  CHECK(state_bytes(estimate(bf16)) == Approx(state_bytes(amp)));
  CHECK(estimate(bf16).bytes_of("autocast_cache") > 0);
  CHECK(amp.bytes_of("autocast_cache") == 0);
  // Under ZeRO a 16-bit working copy sits beside the fp32 master partition: more per GPU
  // than the fp32 parameters alone would be.
  bf16.gpus = 2, bf16.shard = Shard::zero1;
  CHECK(estimate(bf16).bytes_of("master_weights") > 0);
}

TEST_CASE(
    "one micro-batch: the gradients of a full fine-tune are made as backward frees the "
    "activations and the peak is the larger of the two") {
  const Workload w = fp8_full(false);  // bf16 parameters, gradients and states
  const Estimate one = estimate(w), acc = estimate(accumulating(w));
  const double grads = acc.bytes_of("gradients");  // 8.03e9 x 2 B, whole
  const double forward = acc.bytes_of("activations") + acc.bytes_of("logits");
  CHECK(grads == Approx(8.03e9 * 2).epsilon(0.01));
  CHECK(one.bytes_of("gradients") == Approx(std::max(0.0, grads - forward)));
  CHECK(one.allocated_bytes() == Approx(acc.allocated_bytes() - std::min(grads, forward)));
}

TEST_CASE("fp8 --amp is a full-training recipe only") {
  Workload lora = fp8_full(true);
  lora.mode = Mode::lora;
  CHECK_THROWS_AS(estimate(lora), Error);
  Workload serve = fp8_full(true);
  serve.mode = Mode::inference;
  CHECK_THROWS_AS(estimate(serve), Error);
}

// Never falls; strictly grows once the forward's activations outweigh the gradients made in
// backward (below that the end of backward is the peak, whatever the batch).
TEST_CASE("fp8 full training grows with parameters, batch and sequence") {
  // Totals over a doubling series of one setting: never falling with one micro-batch,
  // strictly growing when accumulation keeps the gradients. Returns {first, last}.
  const auto series = [](bool amp, int accum, int from, int to, void (*set)(Workload&, int)) {
    double first = 0, last = 0;
    for (int v = from; v <= to; v *= 2) {
      Workload w = fp8_full(amp);
      w.grad_accum = accum, set(w, v);
      const double b = estimate(w).total_bytes;
      CHECK((accum == 1 ? b >= last : b > last));
      last = b, first = first > 0 ? first : b;
    }
    return std::pair{first, last};
  };
  for (bool amp : {false, true}) {
    for (int accum : {1, 2}) {
      INFO("amp " << amp << " accumulation " << accum);
      const auto seq = series(amp, accum, 256, 8192, [](Workload& w, int v) { w.seq_len = v; });
      if (accum > 1) CHECK(seq.second > seq.first);  // at batch 1 the gradients outweigh 8k tokens
      const auto batch = series(amp, accum, 1, 16, [](Workload& w, int v) { w.batch = v; });
      CHECK(batch.second > batch.first);
    }
  }
}

TEST_CASE("lora --precision fp8 is FP8 compute over the bf16 base: a bf16 lora's memory") {
  Workload fp8 = test_models::on(test_models::llama31_8b(), Mode::lora);
  fp8.precision = Precision::fp8;
  Workload bf16 = fp8;
  bf16.precision = Precision::bf16;
  const Estimate a = estimate(fp8), b = estimate(bf16);
  // Transformer Engine casts the frozen weights per GEMM: the base stays 2 B a parameter.
  CHECK(a.bytes_of("weights") == Approx(b.bytes_of("weights")).epsilon(1e-12));
  CHECK(a.bytes_of("weights") > 8.03e9 * 1.9);
  CHECK(a.bytes_of("lora_adapters") == Approx(b.bytes_of("lora_adapters")).epsilon(1e-12));
  CHECK(a.total_bytes == Approx(b.total_bytes).epsilon(1e-9));
  // qlora's base is NF4 or int8, never fp8.
  Workload q = fp8;
  q.mode = Mode::qlora;
  CHECK_THROWS_AS(estimate(q), Error);
}
