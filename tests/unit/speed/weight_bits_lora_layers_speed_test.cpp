// --weight-bits and --lora-layers in the speed stage: decode reads the weights at the bits
// memory prices them at; LoRA on the last N blocks backpropagates through those N only.
#include <catch2/catch.hpp>

#include "gpusel/speed/throughput.hpp"
#include "throughput_fixtures.hpp"

using namespace gpusel;
using namespace tput_fixtures;

TEST_CASE("decode reads --weight-bits linear weights, the LM head at 16 bits") {
  const auto k = plain();  // int4 at 4 bits, no KV cache bytes, no per-layer overhead
  Workload four = inference(7e9, Precision::int4), exl2 = four;
  set_weight_bits(exl2, 2.5);
  const double head = 32000.0 * 4096;
  const double bytes4 = (7e9 - head) * 0.5 + head * 2, bytes25 = (7e9 - head) * 2.5 / 8 + head * 2;
  const double r4 = estimate_throughput(four, card(), 1, false, k).decode_tokens_per_s;
  const double r25 = estimate_throughput(exl2, card(), 1, false, k).decode_tokens_per_s;
  CHECK(r25 / r4 == Approx(bytes4 / bytes25));
  CHECK(joined(estimate_throughput(exl2, card(), 1, false, k)).find("2.5 bits/weight") !=
        std::string::npos);
}

TEST_CASE("LoRA on the last N blocks: backward and recompute through N/L of the model") {
  const auto k = plain();
  Workload w = training(Mode::lora, 1e9);  // 32 layers, no checkpointing
  set_lora_layers(w, 16);
  // Forward 2 x params + attention, backward input gradients through half: 1.5 x and 2 x.
  CHECK(estimate_throughput(w, card(100), 1, false, k).train_tokens_per_s ==
        Approx(100e12 * 0.5 / (1.5 * 2e9 + 2 * attention(w))));
  w.grad_ckpt = true;  // the recompute covers the same half
  CHECK(estimate_throughput(w, card(100), 1, false, k).train_tokens_per_s ==
        Approx(100e12 * 0.5 / (2 * 2e9 + 2.5 * attention(w))));
  set_lora_layers(w, 32);  // every block: LoRA's 2 x and 3 x (+1 recompute)
  CHECK(estimate_throughput(w, card(100), 1, false, k).train_tokens_per_s ==
        Approx(100e12 * 0.5 / (3 * 2e9 + 4 * attention(w))));
}
