// Quantized weights in the GEMMs: int4 weights are dequantized to 16 bits and multiplied on
// the 16-bit tensor cores, at the engine's measured share of its 16-bit GEMM rate (Marlin's
// for vLLM and SGLang, a Hopper figure where the engine runs another kernel there), on prompt
// and batched decode GEMMs alike; the memory-bound batch-1 decode reads fewer bytes.
#include <catch2/catch.hpp>

#include "gpusel/speed/step.hpp"
#include "gpusel/speed/throughput.hpp"
#include "ranker_fixtures.hpp"
#include "throughput_fixtures.hpp"

using namespace gpusel;

namespace {

Workload prompt(Precision p) {
  Workload w = tput_fixtures::inference(7e9, p);
  w.prompt_len = 4096, w.seq_len = 4097;  // compute-bound prompt, far above the weight floor
  w.engine = "vllm";
  return w;
}

double quantized_prefill(const Workload& w, const Gpu& g, const ThroughputConstants& k) {
  return estimate_throughput(w, g, 1, false, k).prefill_tokens_per_s;
}

ThroughputConstants marlin_like() {
  auto k = tput_fixtures::plain();
  k.prefill_quantized_factor = 0.5;
  Engine& e = k.engines.at("vllm");
  e.int4_gemm = 0.6, e.int4_gemm_hopper = 0.8;
  return k;
}

Workload quantized_served(const std::string& engine, int batch) {
  Workload w = ranker_fixtures::preset("llama-2-70b", Mode::inference);
  w.precision = Precision::int4;
  w.batch = batch, w.prompt_len = 222, w.seq_len = 513, w.shard = Shard::tp;
  w.engine = engine;
  return w;
}

const Gpu& quantized_card(const std::string& id) {
  return require_gpu(ranker_fixtures::catalog(), id);
}

}  // namespace

TEST_CASE("int4 prompt GEMMs run at the engine's own W4A16 figure, on Hopper its Hopper one") {
  const auto k = marlin_like();
  Gpu ampere = tput_fixtures::card(100), hopper = ampere;
  hopper.architecture = "Hopper";
  const Workload bf16 = prompt(Precision::bf16), int4 = prompt(Precision::int4);
  CHECK(quantized_prefill(int4, ampere, k) / quantized_prefill(bf16, ampere, k) == Approx(0.6));
  CHECK(quantized_prefill(int4, hopper, k) / quantized_prefill(bf16, hopper, k) == Approx(0.8));
  // int8 weights and engines without a W4A16 figure keep llama.cpp's quantized factor.
  CHECK(quantized_prefill(prompt(Precision::int8), ampere, k) /
            quantized_prefill(bf16, ampere, k) ==
        Approx(0.5));
  Workload other = int4, other16 = bf16;
  other.engine = other16.engine = "llama.cpp";
  CHECK(quantized_prefill(other, hopper, k) / quantized_prefill(other16, hopper, k) == Approx(0.5));
}

TEST_CASE("the W4A16 factor slows compute-bound decode steps, not memory-bound ones") {
  const Gpu& h100 = quantized_card("h100-sxm");
  StepModel m = step_model(quantized_served("vllm-0.5", 1024), h100, 4, true);
  REQUIRE(m.gemm_factor < 1);
  StepModel dense = m;
  dense.gemm_factor = 1;
  m.comm_s_per_token = dense.comm_s_per_token = 0;  // the GEMMs alone
  m.fixed_s = dense.fixed_s = 0;
  // 1024 sequences: compute-bound, the step grows by exactly 1 / factor.
  CHECK(step_seconds(m, 1024, 0) == Approx(step_seconds(dense, 1024, 0) / m.gemm_factor));
  // One sequence: the 4-bit weights' read bounds the step, the GEMM factor costs nothing.
  CHECK(step_seconds(m, 1, 0) == Approx(step_seconds(dense, 1, 0)));
}

TEST_CASE("shipped data: vLLM before 0.6 runs Marlin on Hopper too, current vLLM Machete") {
  const auto& k = default_throughput_constants();
  const Engine &v0 = k.engines.at("vllm-0.5"), &v1 = k.engines.at("vllm");
  CHECK(v0.int4_gemm > 0);
  CHECK(v0.int4_gemm < 1);                    // no int4 speed-up past the memory-bound batches
  CHECK(v0.int4_gemm_hopper < v0.int4_gemm);  // mma on Hopper: below wgmma cuBLAS
  CHECK(v1.int4_gemm_hopper == 1);            // Machete matches the 16-bit GEMM
  CHECK(k.engines.at("sglang").int4_gemm == v0.int4_gemm);  // the same Marlin kernels
  // Same memory-bound kernels at batch 1; at a serving batch the old engine is slower on H100.
  const Gpu& h100 = quantized_card("h100-sxm");
  const auto tps = [&](const char* e, int b) {
    return estimate_throughput(quantized_served(e, b), h100, 4, true).decode_tokens_per_s;
  };
  CHECK(tps("vllm-0.5", 1) == Approx(tps("vllm", 1)));
  CHECK(tps("vllm-0.5", 1024) < tps("vllm", 1024));
}

TEST_CASE("FP8 weights on a card without FP8 tensor cores take the weight-only kernel") {
  const auto k = marlin_like();
  const Gpu ampere = tput_fixtures::card(100);  // no FP8 rate: FP8 weights run weight-only
  const Workload bf16 = prompt(Precision::bf16), fp8 = prompt(Precision::fp8);
  CHECK(quantized_prefill(fp8, ampere, k) / quantized_prefill(bf16, ampere, k) == Approx(0.6));
  Workload other = fp8, other16 = bf16;  // no weight-only figure: 16-bit speed, not llama.cpp's
  other.engine = other16.engine = "llama.cpp";
  CHECK(quantized_prefill(other, ampere, k) / quantized_prefill(other16, ampere, k) == Approx(1.0));
  Gpu ada = ampere;  // an FP8 rate: W8A8 on the FP8 tensor cores, no weight-only factor
  ada.fp8_tflops_dense = 200;
  CHECK(quantized_prefill(fp8, ada, k) > quantized_prefill(bf16, ada, k));
}
