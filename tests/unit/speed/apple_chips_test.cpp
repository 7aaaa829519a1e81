// Apple's chips under llama.cpp's Metal build: base and Pro parts fill their memory system
// (engines.llama.cpp.kernel.unified_base, PR #10491's M1 Pro); Max and Ultra parts keep the
// M2 Ultra's figure; a binned part decodes as its bandwidth says and prompts as its cores do.
#include <catch2/catch.hpp>

#include "gpusel/speed/throughput.hpp"
#include "throughput_fixtures.hpp"

using namespace gpusel;
using namespace tput_fixtures;

namespace {

Throughput on_chip(const char* card, const char* model, const char* precision, int seq = 129,
                   int prompt = 1) {
  return estimate_throughput(preset_inference(model, precision, "llama.cpp", seq, prompt),
                             shipped_gpu(card), 1, false);
}

}  // namespace

TEST_CASE("an M1 Pro decodes Llama 2 13B Q8_0 at PR 10491's 12.26 tokens/s") {
  const Throughput t = on_chip("apple-m1-pro", "llama-2-13b", "q8_0");
  CHECK(t.decode_tokens_per_s == Approx(12.26).epsilon(0.03));
  CHECK(joined(t).find("[engines.llama.cpp-nograph.kernel.unified_base]") != std::string::npos);
}

TEST_CASE("base and Pro chips take the base kernel, Max and Ultra chips the M2 Ultra's") {
  for (const char* card : {"apple-m1", "apple-m2", "apple-m3-pro", "apple-m4", "apple-m5"}) {
    INFO(card);
    CHECK(joined(on_chip(card, "llama-2-7b", "q4_0")).find("kernel.unified_base]") !=
          std::string::npos);
  }
  for (const char* card : {"apple-m1-max", "apple-m3-max-30c", "apple-m2-ultra", "apple-m5-max"}) {
    INFO(card);
    const Throughput t = on_chip(card, "llama-2-7b", "q4_0");
    CHECK(joined(t).find("kernel.unified_base]") == std::string::npos);
    CHECK(joined(t).find("[engines.llama.cpp-nograph.kernel]") != std::string::npos);
  }
  // The M2 Ultra's own measurement (PR #2917, Q8_0 62.05 tok/s) is unchanged.
  CHECK(on_chip("apple-m2-ultra", "llama-2-7b", "q8_0").decode_tokens_per_s ==
        Approx(62.05).epsilon(0.04));
}

TEST_CASE("a binned Apple chip decodes as its bandwidth says and prompts as its cores do") {
  // Same 800 GB/s, fewer cores: the same decode, a slower prompt.
  const Throughput full = on_chip("apple-m2-ultra", "llama-2-7b", "q4_0", 512, 512);
  const Throughput binned = on_chip("apple-m2-ultra-60c", "llama-2-7b", "q4_0", 512, 512);
  CHECK(binned.prefill_tokens_per_s < 0.9 * full.prefill_tokens_per_s);
  CHECK(on_chip("apple-m2-ultra-60c", "llama-2-7b", "q4_0").decode_tokens_per_s ==
        Approx(on_chip("apple-m2-ultra", "llama-2-7b", "q4_0").decode_tokens_per_s));
  // The 30-core M3 Max has 300 GB/s where the 40-core has 400; the M3 Pro 150 where the M2
  // Pro had 200: the newer chip decodes slower.
  CHECK(on_chip("apple-m3-max-30c", "llama-2-7b", "q4_0").decode_tokens_per_s <
        0.8 * on_chip("apple-m3-max", "llama-2-7b", "q4_0").decode_tokens_per_s);
  CHECK(on_chip("apple-m3-pro", "llama-2-7b", "q4_0").decode_tokens_per_s <
        on_chip("apple-m2-pro", "llama-2-7b", "q4_0").decode_tokens_per_s);
}

// MLX quantizes the LM head with the rest (mlx_lm quantize_model), and its quantized weights
// stream at the 16-bit per-byte rate beside 63 us per layer (mlx-lm BENCHMARKS.md: one M4 Max,
// one build, Qwen3-4B in bf16, 8-bit and 4-bit).
TEST_CASE("MLX reads a 4-bit LM head at 4.5 bits, at the 16-bit per-byte rate") {
  const auto run = [](const char* engine, const char* precision) {
    return estimate_throughput(preset_inference("llama-3.1-8b", precision, engine, 129, 1),
                               shipped_gpu("apple-m4-max"), 1, false);
  };
  const Throughput bf16 = run("mlx", "bf16"), int4 = run("mlx", "int4");
  // About 15.0 / 4.2 GB of weights, less the 32 x 63 us that does not shrink with the bits.
  const double ratio = int4.decode_tokens_per_s / bf16.decode_tokens_per_s;
  CHECK(ratio > 3.0);  // a 16-bit head would leave about 2.7
  CHECK(ratio < 3.3);
  CHECK(joined(int4).find("63 us per layer [engines.mlx.layer_overhead_us]") != std::string::npos);
  CHECK(joined(int4).find("for int4 weights") == std::string::npos);
  // llama.cpp's --precision int4 (GPTQ-style) keeps the head at 16 bits: a smaller gain.
  CHECK(run("llama.cpp", "int4").decode_tokens_per_s /
            run("llama.cpp", "bf16").decode_tokens_per_s <
        ratio);
}
