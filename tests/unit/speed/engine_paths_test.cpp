// How an engine runs on a given card: llama.cpp captures CUDA graphs only on architectures at
// or above its gate (Pascal and older launch every kernel from the host each token; Metal has
// none) and runs SYCL kernels on Intel GPUs (engines.llama.cpp.graphless_on, backend_on: the
// entry that describes it running so, which the decode estimate follows); today's llama.cpp
// multiplies 4-bit prompts in its int8 tensor-core kernels (MMQ) on NVIDIA cards from Ampere
// on, where builds before June 2024 (llama.cpp-nograph, llama.cpp-cublas) went through FP16
// cuBLAS; ipex-llm on an Arc A770.
#include <catch2/catch.hpp>

#include "gpusel/base/error.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/data/quantization.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_schema.hpp"
#include "gpusel/speed/throughput.hpp"
#include "throughput_fixtures.hpp"

using namespace gpusel;
using namespace tput_fixtures;

namespace {

nlohmann::json shipped_throughput() {
  return nlohmann::json::parse(embedded_text("data/throughput.json"));
}

Workload q4_decode(const std::string& engine) {
  return preset_inference("llama-3.1-8b", "q4_0", engine, 129, 1);
}

double prompt_of(const std::string& model, const std::string& precision, const std::string& engine,
                 const std::string& card) {
  return estimate_throughput(preset_inference(model, precision, engine, 513, 512),
                             shipped_gpu(card), 1, false)
      .prefill_tokens_per_s;
}

}  // namespace

TEST_CASE("llama.cpp runs without its graphs on Pascal and Metal, with them on Volta and newer") {
  const ThroughputConstants& k = default_throughput_constants();
  const Engine& cpp = k.engines.at("llama.cpp");
  CHECK(engine_on(cpp, shipped_gpu("tesla-p40"), k).name == "llama.cpp-nograph");
  // Metal has no CUDA graphs; the unified-memory kernel figure was read with that overhead out.
  CHECK(engine_on(cpp, shipped_gpu("apple-m2-ultra"), k).name == "llama.cpp-nograph");
  for (const char* id : {"v100-sxm2-32gb", "rtx-2080-ti", "rtx-3090", "rtx-4090", "h100-sxm"})
    CHECK(engine_on(cpp, shipped_gpu(id), k).name == "llama.cpp");
  // Engines without graphs named stay themselves everywhere.
  CHECK(engine_on(k.engines.at("vllm"), shipped_gpu("tesla-p40"), k).name == "vllm");
}

TEST_CASE("on a Pascal card --engine llama.cpp costs the graphless per-layer overhead") {
  const ThroughputConstants& k = default_throughput_constants();
  const Throughput now =
      estimate_throughput(q4_decode("llama.cpp"), shipped_gpu("tesla-p40"), 1, false);
  const Throughput old =
      estimate_throughput(q4_decode("llama.cpp-nograph"), shipped_gpu("tesla-p40"), 1, false);
  CHECK(now.decode_tokens_per_s == old.decode_tokens_per_s);
  CHECK(now.engine == "llama.cpp-nograph");
  bool said = false;
  for (const auto& a : now.assumptions) said = said || a.find("runs without its graphs") != a.npos;
  CHECK(said);
  // Were the gate gone, the same card would pay 32 layers x (91 - 24) us less per token.
  auto doc = shipped_throughput();
  doc["engines"]["llama.cpp"].erase("graphless_on");
  const ThroughputConstants ungated = parse_throughput_constants(doc, "t");
  const Throughput graphed =
      estimate_throughput(q4_decode("llama.cpp"), shipped_gpu("tesla-p40"), 1, false, ungated);
  CHECK(graphed.engine == "llama.cpp");
  const double per_layer = k.engines.at("llama.cpp-nograph").layer_overhead_s -
                           k.engines.at("llama.cpp").layer_overhead_s;
  CHECK(per_layer == Approx(67e-6));
  CHECK(1 / now.decode_tokens_per_s - 1 / graphed.decode_tokens_per_s ==
        Approx(32 * per_layer).epsilon(1e-6));
}

TEST_CASE("graphless_on naming no engine or no architecture is a data error") {
  auto unknown = shipped_throughput(), empty = shipped_throughput();
  unknown["engines"]["llama.cpp"]["graphless_on"]["value"][0]["engine"] = "llama.cpp-9";
  empty["engines"]["llama.cpp"]["graphless_on"]["value"][1]["architectures"] = "|";
  CHECK_THROWS_WITH(parse_throughput_constants(unknown, "t"),
                    Catch::Contains("graphless_on: no engine 'llama.cpp-9'"));
  CHECK_THROWS_WITH(parse_throughput_constants(empty, "t"),
                    Catch::Contains("names no architecture"));
  const auto schema = nlohmann::json::parse(embedded_text("data/schema/throughput.schema.json"));
  CHECK(check_schema(schema, shipped_throughput()).empty());
}

TEST_CASE("without int8 matrix units quantized prompts run on dp4a at 4x FP32: the P40's 912") {
  // ggml-org/llama.cpp PR #4766 (January 2024, master): Tesla P40 LLaMA 7B Q4_0 pp512 912.41.
  CHECK(prompt_of("llama-2-7b", "q4_0", "llama.cpp", "tesla-p40") == Approx(912.41).epsilon(0.03));
  // The same share of the dot-product rate on AMD's dp4a cards; the prompt rate of a 4-bit
  // model follows 4 x FP32 there, whatever the FP16 figure.
  const double eff = default_throughput_constants().engines.at("llama.cpp").dp4a_efficiency;
  for (const char* card : {"mi50-32gb", "rx-6800-xt"}) {
    const Throughput t = estimate_throughput(
        preset_inference("llama-2-7b", "q4_0", "llama.cpp", 513, 512), shipped_gpu(card), 1, false);
    // 2 x the matmul weights (6.74B less the 32000 x 4096 embedding) + causal attention
    // over half of 512 tokens, 32 layers of 4096.
    const double flops = 2 * (6.74e9 - 32000 * 4096.0) + 4 * 32 * 4096 * 256.0;
    CHECK(t.prefill_tokens_per_s * flops / 1e12 ==
          Approx(4 * shipped_gpu(card).fp32_tflops * eff).epsilon(0.02));
  }
  // Not GP100 (no dp4a), not 16-bit weights, not cards with int8 matrix units.
  const auto ratio = [](const char* card) {
    return prompt_of("llama-2-7b", "q4_0", "llama.cpp", card) /
           prompt_of("llama-2-7b", "fp16", "llama.cpp", card);
  };
  CHECK(ratio("tesla-p100-pcie-16gb") == Approx(0.72).epsilon(1e-6));
  CHECK(ratio("rtx-3090") == Approx(1.09).epsilon(1e-6));
}

TEST_CASE("a malformed prefill_dequantize or int4_gemm_also_on is a data error") {
  auto vendor = shipped_throughput(), above = shipped_throughput(), list = shipped_throughput();
  vendor["engines"]["llama.cpp-cublas"]["prefill_dequantize"]["value"]["vendor"] = "intel";
  above["engines"]["llama.cpp-hipblas"]["prefill_dequantize"]["value"].erase("above");
  list["engines"]["llama.cpp"]["int4_gemm_also_on"]["value"] = "||";
  auto dp4a = shipped_throughput();
  dp4a["engines"]["llama.cpp"]["prefill_dp4a"]["value"]["efficiency"] = 1.5;
  CHECK_THROWS_WITH(parse_throughput_constants(dp4a, "t"),
                    Catch::Contains("prefill_dp4a.value.efficiency: value 1.5 outside"));
  CHECK_THROWS_WITH(parse_throughput_constants(vendor, "t"),
                    Catch::Contains("llama.cpp-cublas.prefill_dequantize.value.vendor: must be"));
  CHECK_THROWS_WITH(parse_throughput_constants(above, "t"),
                    Catch::Contains("prefill_dequantize.value.above: value must be a number"));
  CHECK_THROWS_WITH(parse_throughput_constants(list, "t"),
                    Catch::Contains("int4_gemm_also_on: names no architecture"));
}

TEST_CASE("LPDDR parts outside Apple decode with the CUDA/HIP kernels' figure, not Metal's") {
  // The decode assumption names the kernel class: "... llama.cpp on gddr [engines...]".
  const auto on = [](const std::string& card, const std::string& cls) {
    const Throughput t = estimate_throughput(q4_decode("llama.cpp"), shipped_gpu(card), 1, false);
    for (const auto& a : t.assumptions)
      if (a.rfind("decode bandwidth", 0) == 0) return a.find(" on " + cls + " [") != a.npos;
    return false;
  };
  CHECK(on("ryzen-ai-max-plus-395-128gb", "gddr"));
  CHECK(on("dgx-spark", "gddr"));
  CHECK(on("apple-m2-ultra", "unified"));
  CHECK_FALSE(on("apple-m2-ultra", "gddr"));
}

TEST_CASE("llama.cpp runs its SYCL back end on Intel GPUs, not Gaudi") {
  const ThroughputConstants& k = default_throughput_constants();
  const Engine& cpp = k.engines.at("llama.cpp");
  for (const char* id : {"arc-a770-16gb", "arc-b580", "max-1100"})
    CHECK(engine_on(cpp, shipped_gpu(id), k).name == "llama.cpp-sycl");
  CHECK(engine_on(cpp, shipped_gpu("gaudi-2"), k).name == "llama.cpp");
  // Today's SYCL build on an A770 (NeoZhangJianyu/ci_log b9226): tg128 58.96, pp512 933.41.
  const Throughput tg =
      estimate_throughput(preset_inference("llama-2-7b", "q4_0", "llama.cpp", 129, 1),
                          shipped_gpu("arc-a770-16gb"), 1, false);
  CHECK(tg.engine == "llama.cpp-sycl");
  CHECK(tg.decode_tokens_per_s == Approx(58.96).epsilon(0.02));
  const Throughput pp =
      estimate_throughput(preset_inference("llama-2-7b", "q4_0", "llama.cpp", 513, 512),
                          shipped_gpu("arc-a770-16gb"), 1, false);
  CHECK(pp.prefill_tokens_per_s == Approx(933.41).epsilon(0.02));
}

TEST_CASE("a backend_on naming no engine is a data error") {
  auto doc = shipped_throughput();
  doc["engines"]["llama.cpp"]["backend_on"]["value"]["engine"] = "llama.cpp-oneapi";
  CHECK_THROWS_WITH(parse_throughput_constants(doc, "t"),
                    Catch::Contains("engines.llama.cpp.backend_on: no engine 'llama.cpp-oneapi'"));
}

TEST_CASE("through cuBLAS a 4-bit prompt first writes an FP16 copy: PR #4766's RTX 4090 ratio") {
  // ggml-org/llama.cpp PR #4766 (January 2024): CodeLlama 7B pp512 on an RTX 4090, Q4_0
  // 7979.85 and F16 11048.22 tok/s.
  const double q4 = prompt_of("llama-2-7b", "q4_0", "llama.cpp-nograph", "rtx-4090");
  const double f16 = prompt_of("llama-2-7b", "fp16", "llama.cpp-nograph", "rtx-4090");
  CHECK(q4 / f16 == Approx(7979.85 / 11048.22).epsilon(0.02));
  // The copy costs every card the same bytes per 512-token pass, at its streaming rate: the
  // linear weights' Q4_0 blocks read and 2 B each written (6.48B of Llama 2 7B's 6.74B).
  const auto& k = default_throughput_constants();
  const Engine& e = k.engines.at("llama.cpp-cublas");
  const double bits = find_gguf("q4_0")->bits_per_weight;
  const double bytes = (bits / 8 + 2) * (6.738e9 - 2 * 32000 * 4096.0);
  const std::vector<std::pair<const char*, double>> cards = {{"rtx-4090", e.kernel_gddr},
                                                             {"rtx-3090", e.kernel_gddr_ampere},
                                                             {"a100-80gb-sxm", e.kernel_hbm},
                                                             {"h100-pcie", e.kernel_hbm}};
  for (const auto& [card, kernel] : cards) {
    const Gpu& g = shipped_gpu(card);
    const double copy_bw = g.bandwidth_gbs * 1e9 * k.memory_types.at(g.memory_type) * kernel;
    const double per_pass = (1 / prompt_of("llama-2-7b", "q4_0", "llama.cpp-cublas", card) -
                             1 / prompt_of("llama-2-7b", "fp16", "llama.cpp-cublas", card)) *
                            512 * copy_bw;
    CHECK(per_pass == Approx(bytes).epsilon(0.01));
  }
}

TEST_CASE("MMQ runs 4-bit prompts at 1.09 of F16 today, 0.94 in 2024, on NVIDIA Ampere+ and AMD") {
  const auto ratio = [](const char* engine, const char* card) {
    return prompt_of("llama-3.1-8b", "q4_0", engine, card) /
           prompt_of("llama-3.1-8b", "fp16", engine, card);
  };
  for (const char* card :
       {"rtx-3090", "rtx-4090", "rx-7900-xtx", "radeon-ai-pro-r9700", "mi300x"}) {
    INFO(card);
    CHECK(ratio("llama.cpp", card) == Approx(1.09).epsilon(1e-6));
    CHECK(ratio("llama.cpp-vulkan", card) == Approx(1.09).epsilon(1e-6));
  }
  // PR #24127 (2026, RTX 4090 Llama 3 8B Q4_K_S pp512 12394.00) and PR #12135 (2025, RTX
  // 3090 Q4_0 5060.73): the median reading lies between them.
  CHECK(prompt_of("llama-3-8b", "q4_0", "llama.cpp", "rtx-3090") == Approx(5061).epsilon(0.02));
  CHECK(prompt_of("llama-3-8b", "q4_k_s", "llama.cpp", "rtx-4090") < 12394);
  CHECK(ratio("llama.cpp-2024", "rtx-3090") == Approx(0.94).epsilon(1e-6));
  // MMQ takes Q8_0 as Q4_0 (PR #12135, RTX 3090 CUDA: 5072.68 and 5060.73 tok/s); the
  // cuBLAS-era builds copy 8-bit weights as they copy 4-bit ones.
  CHECK(prompt_of("llama-3.1-8b", "q8_0", "llama.cpp", "rtx-3090") ==
        Approx(prompt_of("llama-3.1-8b", "q4_0", "llama.cpp", "rtx-3090")).epsilon(1e-9));
  CHECK(prompt_of("llama-3.1-8b", "q8_0", "llama.cpp-cublas", "rtx-3090") <
        0.9 * prompt_of("llama-3.1-8b", "q8_0", "llama.cpp", "rtx-3090"));
  CHECK(ratio("llama.cpp", "h100-sxm") == Approx(0.72).epsilon(1e-6));        // int4_gemm_hopper
  CHECK(ratio("llama.cpp", "apple-m2-ultra") == Approx(0.92).epsilon(1e-6));  // Metal's own
  // ROCm builds of 2025 copy the weights for hipBLAS on AMD cards only.
  CHECK(ratio("llama.cpp-hipblas", "rx-7900-xtx") < 0.94);
  CHECK(ratio("llama.cpp-hipblas", "rx-7900-xtx") != Approx(0.72).epsilon(0.01));
  // A ROCm build has no back end for a CUDA card: no figure there at all.
  CHECK(prompt_of("llama-3.1-8b", "q4_0", "llama.cpp-hipblas", "rtx-4090") == 0);
}

TEST_CASE("ipex-llm decodes Llama 2 7B sym_int4 on an Arc A770 at its measured 16.9 ms") {
  // intel/ipex-llm PR #10629: ~1k-token prompt; the model's context at its midpoint.
  const Throughput t =
      estimate_throughput(preset_inference("llama-2-7b", "int4", "ipex-llm", 1354, 1024),
                          shipped_gpu("arc-a770-16gb"), 1, false);
  CHECK(t.engine == "ipex-llm");
  CHECK(1e3 / t.decode_tokens_per_s == Approx(16.9).epsilon(0.02));
}
