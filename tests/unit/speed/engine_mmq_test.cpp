// Today's llama.cpp multiplies 4-bit prompts in its int8 tensor-core kernels (MMQ) on NVIDIA
// cards from Ampere on; builds before June 2024 (llama.cpp-nograph, llama.cpp-cublas) went
// through FP16 cuBLAS after dequantizing. Hopper, AMD and Apple keep the cuBLAS-path figure.
#include <catch2/catch.hpp>

#include "gpusel/data/data_source.hpp"
#include "gpusel/speed/throughput.hpp"

using namespace gpusel;

namespace {

const Gpu& gpu(const std::string& id) {
  static const Catalog c = load_catalog({});
  return require_gpu(c, id);
}

double prompt_rate(const std::string& engine, const std::string& card) {
  static const std::vector<ModelArch> models = load_models({});
  Workload w;
  w.model = require_model(models, "llama-3.1-8b");
  w.model_from_preset = true;
  w.mode = Mode::inference;
  set_precision(w, "q4_0");
  w.seq_len = 513, w.prompt_len = 512;
  w.engine = engine;
  return estimate_throughput(w, gpu(card), 1, false).prefill_tokens_per_s;
}

}  // namespace

TEST_CASE("4-bit prompts run 0.94/0.72 faster on today's llama.cpp than through cuBLAS") {
  const auto& k = default_throughput_constants();
  CHECK(k.engines.at("llama.cpp").int4_gemm == Approx(0.94));
  CHECK(k.engines.at("llama.cpp-cublas").int4_gemm == Approx(0.72));
  CHECK(k.engines.at("llama.cpp-nograph").int4_gemm == Approx(0.72));
  for (const char* card : {"rtx-4090", "rtx-3090", "a100-80gb-sxm"})
    CHECK(prompt_rate("llama.cpp", card) / prompt_rate("llama.cpp-cublas", card) ==
          Approx(0.94 / 0.72).epsilon(1e-6));
}

TEST_CASE("Hopper, AMD and Apple keep the cuBLAS path's prompt figure") {
  for (const char* card : {"h100-sxm", "rx-7900-xtx", "apple-m2-ultra"})
    CHECK(prompt_rate("llama.cpp", card) == Approx(prompt_rate("llama.cpp-cublas", card)));
}

TEST_CASE("ipex-llm decodes Llama 2 7B sym_int4 on an Arc A770 at its measured 16.9 ms") {
  // intel/ipex-llm PR #10629: ~1k-token prompt; the model's context at its midpoint.
  static const std::vector<ModelArch> models = load_models({});
  Workload w;
  w.model = require_model(models, "llama-2-7b");
  w.model_from_preset = true;
  w.mode = Mode::inference;
  w.precision = Precision::int4;
  w.seq_len = 1354, w.prompt_len = 1024;
  w.engine = "ipex-llm";
  const Throughput t = estimate_throughput(w, gpu("arc-a770-16gb"), 1, false);
  CHECK(t.engine == "ipex-llm");
  CHECK(1e3 / t.decode_tokens_per_s == Approx(16.9).epsilon(0.02));
}
