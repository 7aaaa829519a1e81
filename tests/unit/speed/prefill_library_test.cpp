// Prompt GEMMs at the rate of the library that runs them (engines.*.prefill_library with
// matmul entries of that library: llama.cpp's hipBLAS path through rocBLAS's Tensile kernels on
// gfx1151), and Apple M5 GPUs at their Neural Accelerators' measured rate.
#include <catch2/catch.hpp>

#include <algorithm>

#include "gpusel/base/error.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/speed/throughput.hpp"
#include "throughput_fixtures.hpp"

using namespace gpusel;
using namespace tput_fixtures;

namespace {

nlohmann::json shipped() { return nlohmann::json::parse(embedded_text("data/throughput.json")); }

Throughput prompt(const std::string& engine, const std::string& card,
                  const ThroughputConstants& k) {
  return estimate_throughput(preset_inference("llama-2-7b", "q4_0", engine, 513, 512),
                             shipped_gpu(card), 1, false, k);
}

bool says(const Throughput& t, const std::string& text) {
  return std::any_of(t.assumptions.begin(), t.assumptions.end(),
                     [&](const std::string& a) { return a.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("llama.cpp's hipBLAS prompts run at rocBLAS's measured rate on gfx1151, not PyTorch's") {
  const ThroughputConstants k = parse_throughput_constants(shipped(), "t");
  auto without = shipped();
  without["engines"]["llama.cpp-hipblas"].erase("prefill_library");
  const ThroughputConstants general = parse_throughput_constants(without, "t");
  const char* halo = "ryzen-ai-max-plus-395-128gb";
  const Throughput t = prompt("llama.cpp-hipblas", halo, k);
  CHECK(says(t, "prompt GEMMs through rocBLAS: 10.8 TFLOPS"));
  // ggml-org/llama.cpp issue #13565 (b5392, 2025-05-15, not a calibration row): Radeon 8060S,
  // Llama 2 7B Q4_0, the HIP build's default: pp512 348.62 tok/s.
  CHECK(t.prefill_tokens_per_s == Approx(348.62).epsilon(0.05));
  // At the card's PyTorch (hipBLASLt) rate the same build would be about three times faster.
  CHECK(prompt("llama.cpp-hipblas", halo, general).prefill_tokens_per_s >
        2.5 * t.prefill_tokens_per_s);
  // A card whose rocBLAS is its achievable rate (gfx1100's Tensile kernels are tuned) and an
  // engine that does not go through rocBLAS are unchanged.
  CHECK(prompt("llama.cpp-hipblas", "rx-7900-xtx", k).prefill_tokens_per_s ==
        prompt("llama.cpp-hipblas", "rx-7900-xtx", general).prefill_tokens_per_s);
  CHECK(prompt("llama.cpp", halo, k).prefill_tokens_per_s ==
        prompt("llama.cpp", halo, general).prefill_tokens_per_s);
}

TEST_CASE("a library's matmul entry needs its measured rate and an engine's library an object") {
  auto fraction = shipped(), text = shipped();
  for (auto& m : fraction["matmul"])
    if (m["id"] == "strix-halo-rocblas") m.erase("tflops"), m["fraction"] = 0.2;
  text["engines"]["llama.cpp-hipblas"]["prefill_library"]["value"] = 3;
  CHECK_THROWS_WITH(parse_throughput_constants(fraction, "t"),
                    Catch::Contains("an entry of one library gives its measured tflops"));
  CHECK_THROWS_WITH(parse_throughput_constants(text, "t"),
                    Catch::Contains("prefill_library.value: must be an object"));
}

TEST_CASE("M5 GPUs multiply prompts on their Neural Accelerators, per core alike") {
  const ThroughputConstants& k = default_throughput_constants();
  const Throughput m5 = prompt("llama.cpp", "apple-m5", k);
  CHECK(says(m5, "13.4 TFLOPS measured on MPS (torch 2.8.0, fp16; the GPU's per-core Neural"));
  // One accelerator per GPU core: the 8-core bin at 8/10 of the 10-core part's rate.
  CHECK(prompt("llama.cpp", "apple-m5-8c", k).prefill_tokens_per_s ==
        Approx(0.8 * m5.prefill_tokens_per_s).epsilon(0.01));
  // The M4's GPU has no matrix units: its 10 cores multiply at the ALU rate, a fraction of it.
  CHECK(prompt("llama.cpp", "apple-m4", k).prefill_tokens_per_s < 0.5 * m5.prefill_tokens_per_s);
  // Decode reads memory: the accelerators change nothing there.
  CHECK(m5.decode_tokens_per_s <
        1.2 * prompt("llama.cpp", "apple-m4", k).decode_tokens_per_s * 153.6 / 120);
}

TEST_CASE("MFU is a share of a published peak: never above 1, none where no peak is known") {
  // GB10 (DGX Spark) publishes no 16-bit tensor figure: its FP32 31 TFLOPS stood in for the
  // peak and its measured 92.3 TFLOPS made MFU 1.56 (round 27's audit).
  for (const Gpu& g : load_catalog({}).gpus) {
    CAPTURE(g.id);
    for (const Mode m : {Mode::full, Mode::lora}) {
      const Throughput t = estimate_throughput(training(m, 7e9), g, 1, false);
      CHECK(t.mfu >= 0);
      CHECK(t.mfu <= 1);
    }
  }
  const Throughput spark = estimate_throughput(training(Mode::lora, 7e9),
                                               shipped_gpu("dgx-spark"), 1, false);
  CHECK(spark.mfu == 0);
  CHECK(spark.train_tokens_per_s > 0);
}
