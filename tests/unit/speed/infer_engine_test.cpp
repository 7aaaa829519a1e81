// Inference refinements: the engine's Metal prompt efficiency on Apple GPUs, tensor-parallel
// all-reduces on the critical path of every step, and vLLM's eager (pre-CUDA-graph) mode.
#include <catch2/catch.hpp>

#include "gpusel/speed/step.hpp"
#include "gpusel/speed/throughput.hpp"
#include "ranker_fixtures.hpp"
#include "throughput_fixtures.hpp"

using namespace gpusel;

namespace {

Workload long_prompt(Precision p) {
  Workload w = tput_fixtures::inference(7e9, p);
  w.prompt_len = 4096, w.seq_len = 4097;  // compute-bound prompt, far above the weight floor
  return w;
}

double prefill(const Workload& w, const Gpu& g, const ThroughputConstants& k) {
  return estimate_throughput(w, g, 1, false, k).prefill_tokens_per_s;
}

Workload batched(const std::string& model, int batch, const std::string& engine = "") {
  Workload w = ranker_fixtures::preset(model, Mode::inference);
  w.batch = batch, w.prompt_len = 1000, w.seq_len = 1200, w.shard = Shard::tp;
  w.engine = engine;
  return w;
}

const Gpu& infer_card(const std::string& id) { return require_gpu(ranker_fixtures::catalog(), id); }

}  // namespace

TEST_CASE("Apple GPUs run prompts at the engine's Metal efficiency and quantized factor") {
  auto k = tput_fixtures::plain();
  k.prefill_quantized_factor = 0.5;
  Engine& e = k.engines.at("vllm");
  e.metal_prefill_efficiency = 0.9, e.metal_prefill_quantized_factor = 0.8;
  Gpu nvidia = tput_fixtures::card(100), apple = nvidia;
  apple.vendor = "apple";
  Workload w = long_prompt(Precision::bf16), q = long_prompt(Precision::int4);
  w.engine = q.engine = "vllm";
  CHECK(prefill(w, apple, k) / prefill(w, nvidia, k) == Approx(0.9 / 0.5));
  CHECK(prefill(q, apple, k) / prefill(w, apple, k) == Approx(0.8));
  CHECK(prefill(q, nvidia, k) / prefill(w, nvidia, k) == Approx(0.5));
  // An engine without a Metal figure keeps its own on Apple too.
  w.engine = "llama.cpp";
  CHECK(prefill(w, apple, k) == Approx(prefill(w, nvidia, k)));
}

TEST_CASE("the shipped llama.cpp and MLX figures reach more of Apple's rate than of CUDA's") {
  const auto& k = default_throughput_constants();
  for (const char* name : {"llama.cpp", "mlx"}) {
    const Engine& e = k.engines.at(name);
    CAPTURE(name);
    CHECK(e.metal_prefill_efficiency > e.prefill_efficiency);
    CHECK(e.metal_prefill_quantized_factor > k.prefill_quantized_factor);
  }
  const Throughput m2 = estimate_throughput(batched("llama-3.1-8b", 1, "llama.cpp"),
                                            infer_card("apple-m2-ultra"), 1, false);
  CHECK(m2.prefill_tokens_per_s > 0);
}

TEST_CASE("tensor-parallel all-reduces add to the step instead of hiding under it") {
  StepModel m = step_model(batched("llama-3.1-70b", 1), infer_card("h100-sxm"), 4, true);
  REQUIRE(m.comm_s_per_token > 0);
  for (double b : {1.0, 64.0, 512.0}) {
    StepModel more = m;
    more.comm_s_per_token += 1e-4;
    CAPTURE(b);
    CHECK(step_seconds(more, b, 0) == Approx(step_seconds(m, b, 0) + b * 1e-4));
  }
}

TEST_CASE("tensor parallel over PCIe is slower than over NVLink at every batch") {
  double last_pcie = 0;
  for (int b : {1, 16, 128, 512}) {
    const Workload w = batched("llama-3.1-70b", b);
    const double nvlink =
        estimate_throughput(w, infer_card("h100-sxm"), 4, true).decode_tokens_per_s;
    const double pcie =
        estimate_throughput(w, infer_card("h100-sxm"), 4, false).decode_tokens_per_s;
    CAPTURE(b);
    CHECK(pcie < nvlink);
    CHECK(pcie >= last_pcie);  // a larger batch never lowers tokens/s
    last_pcie = pcie;
    const StepModel m = step_model(w, infer_card("h100-sxm"), 4, false);
    CHECK(step_seconds(m, b + 1, 0) >= step_seconds(m, b, 0));  // nor shortens a step
  }
}

TEST_CASE("vLLM without CUDA graphs pays its eager launch cost on every layer") {
  const auto& k = default_throughput_constants();
  const double per_layer = k.engines.at("vllm-eager").layer_overhead_s;
  REQUIRE(per_layer == Approx(47e-6));  // vLLM PR #1440: 1.2 s vs 1.05 s for 100 tokens
  const Workload graphs = batched("llama-3.1-8b", 1, "vllm");
  const Workload eager = batched("llama-3.1-8b", 1, "vllm-eager");
  const double a =
      estimate_throughput(graphs, infer_card("a100-80gb-sxm"), 1, false).decode_tokens_per_s;
  const double b =
      estimate_throughput(eager, infer_card("a100-80gb-sxm"), 1, false).decode_tokens_per_s;
  CHECK(1 / b - 1 / a == Approx(32 * per_layer));
}

TEST_CASE("a MoE layer adds the engine's fixed cost per decode step, dense layers do not") {
  const auto& k = default_throughput_constants();
  const double moe = k.engines.at("vllm").moe_layer_overhead_s;
  REQUIRE(moe == Approx(66e-6));  // tt-inference-server#340: Qwen3-30B-A3B against Qwen3-1.7B
  const Gpu& h100 = infer_card("h100-sxm");
  auto per_token = [&](Workload w, double overhead_s) {
    auto kk = k;
    kk.engines.at("vllm").moe_layer_overhead_s = overhead_s;
    return 1 / estimate_throughput(w, h100, 1, false, kk).decode_tokens_per_s;
  };
  Workload oss = batched("gpt-oss-120b", 1, "vllm");
  oss.shard = Shard::none;
  use_shipped_weights(oss);
  CHECK(per_token(oss, moe) - per_token(oss, 0) == Approx(36 * moe));  // 36 MoE layers
  const Workload dense = batched("llama-3.1-8b", 1, "vllm");
  CHECK(per_token(dense, moe) == Approx(per_token(dense, 0)));
  // gpt-oss streams its active experts at 4.25 bits and the rest (attention, router, LM head)
  // at 16: bf16 is dearer, and the step stays far from 4.25 bits over everything.
  Workload all_bits = oss;
  set_weight_bits(all_bits, 4.25);
  CHECK(per_token(oss, 0) > 1.2 * per_token(all_bits, 0));
}

// transformers generate(): eager PyTorch issued from Python each token; the host's time per
// step and per layer (measured on an H200 host) is a floor the GPU cannot beat.
TEST_CASE("transformers generate() decodes at its host's pace unless the GPU is slower") {
  const auto& k = default_throughput_constants();
  const Engine& e = k.engines.at("transformers");
  REQUIRE(e.host_step_s == Approx(800e-6));
  REQUIRE(e.host_layer_s == Approx(631e-6));
  // An 8B model on an H200: the GPU needs ~5 ms a token, the host 0.8 + 32 x 0.631 ms.
  Workload w = batched("llama-3.1-8b", 1, "transformers");
  const double h200 = estimate_throughput(w, infer_card("h200-sxm"), 1, false).decode_tokens_per_s;
  CHECK(1 / h200 == Approx(800e-6 + 32 * 631e-6));
  // The same floor on a 4090: both are host-bound, so the card does not matter.
  CHECK(estimate_throughput(w, infer_card("rtx-4090"), 1, false).decode_tokens_per_s ==
        Approx(h200));
  // A 70B model in bf16 over two A100s: the GPUs' own step is longer than the host's, and
  // the engine runs at its GPU figures (vLLM's eager ones).
  Workload big = batched("llama-3.1-70b", 1, "transformers");
  Workload eager = big;
  eager.engine = "vllm-eager";
  const double t =
      estimate_throughput(big, infer_card("a100-80gb-sxm"), 2, true).decode_tokens_per_s;
  const double v =
      estimate_throughput(eager, infer_card("a100-80gb-sxm"), 2, true).decode_tokens_per_s;
  CHECK(1 / v > 800e-6 + 80 * 631e-6);
  CHECK(t == Approx(v));
}

TEST_CASE("hf-generate names the transformers engine") {
  Workload a = batched("llama-3.1-8b", 1, "hf-generate"), b = a;
  b.engine = "transformers";
  CHECK(estimate_throughput(a, infer_card("h200-sxm"), 1, false).decode_tokens_per_s ==
        Approx(estimate_throughput(b, infer_card("h200-sxm"), 1, false).decode_tokens_per_s));
}
