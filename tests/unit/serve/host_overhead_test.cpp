// vLLM before v0.6 (engine vllm-0.5): CPU work per running sequence between steps that the
// GPU waits for (data/serving.json engines.vllm-0.5.host_us_per_seq, api_host_us_per_seq).
#include <catch2/catch.hpp>

#include "serve_fixtures.hpp"

using namespace gpusel;
using namespace serve_fixtures;

namespace {
// The vLLM v0.6.0 post's profile: Llama 3 8B on one H100, ShareGPT (202 in / 179 out).
const Traffic kShareGpt{{202, 0}, {179, 0}};
}  // namespace

TEST_CASE("vllm-0.5: the V0 engine's defaults and its CPU cost per sequence", "[serve]") {
  const ServingEngine& old = default_serving_data().engine("vllm-0.5");
  CHECK(old.name == "vllm-0.5");
  CHECK(old.host_s_per_seq == Approx(32.3e-6));
  CHECK(old.api_host_s_per_seq == Approx(36.8e-6));
  CHECK(old.memory_fraction == Approx(0.9));
  const EngineTier& lim = old.limits_for(gpu("h100-sxm"));
  CHECK(lim.max_seqs == 256);
  CHECK(lim.graph_max_batch == 256);
  // The current engine overlaps this work with the GPU: it pays none.
  const ServingEngine& now = default_serving_data().engine("vllm");
  CHECK(now.host_s_per_seq == 0);
  CHECK(now.api_host_s_per_seq == 0);
}

TEST_CASE("vllm-0.5: each running sequence adds the CPU time to the step", "[serve]") {
  const Workload w = served("llama-3.1-8b", kChat);
  const Replica v0 = replica(w, "h100-sxm", 1, "vllm-0.5"), v1 = replica(w, "h100-sxm", 1, "vllm");
  for (double b : {1.0, 64.0, 200.0}) {  // under both engines' CUDA-graph batch: same GPU time
    CHECK(step_seconds(v0, b, 0) - step_seconds(v1, b, 0) == Approx(b * 69.1e-6));
    CHECK(step_seconds(v0, b, 500) - step_seconds(v1, b, 500) == Approx(b * 69.1e-6));
  }
}

TEST_CASE("vllm-0.5: reproduces the post's profile, GPU 38 % of the time at 256 sequences",
          "[serve]") {
  const Replica v0 = replica(served("llama-3-8b", kShareGpt), "h100-sxm", 1, "vllm-0.5", kShareGpt);
  const Replica v1 = replica(served("llama-3-8b", kShareGpt), "h100-sxm", 1, "vllm", kShareGpt);
  const double gpu_s = step_seconds(v1, 256, 0), all_s = step_seconds(v0, 256, 0);
  CHECK(gpu_s / all_s == Approx(0.38).margin(0.005));
  CHECK(v0.max_seqs == 256);  // the profile's batch is the V0 cap
}

TEST_CASE("vllm-0.5: the CPU share shrinks as the GPU step grows", "[serve]") {
  // The post: 2.7x from v0.6 on Llama 8B (1 x H100), 1.8x on Llama 70B (4 x H100).
  const Workload small = served("llama-3-8b", kShareGpt), large = served("llama-3-70b", kShareGpt);
  const auto ratio = [](const Workload& w, int cards) {
    const Replica v0 = replica(w, "h100-sxm", cards, "vllm-0.5", kShareGpt);
    const Replica v1 = replica(w, "h100-sxm", cards, "vllm", kShareGpt);
    return step_seconds(v0, 256, 0) / step_seconds(v1, 256, 0);
  };
  const double r8 = ratio(small, 1), r70 = ratio(large, 4);
  CHECK(r8 == Approx(1 / 0.38).epsilon(0.02));
  CHECK(r70 < r8);
  CHECK(r70 == Approx(1.8).epsilon(0.12));  // gpusel 1.65 against the post's 1.8
  // More sequences: a larger CPU share of every step.
  const Replica v0 = replica(small, "h100-sxm", 1, "vllm-0.5", kShareGpt);
  const Replica v1 = replica(small, "h100-sxm", 1, "vllm", kShareGpt);
  double last = 0;
  for (double b : {8.0, 32.0, 128.0, 256.0}) {
    const double share = 1 - step_seconds(v1, b, 0) / step_seconds(v0, b, 0);
    CHECK(share > last);
    last = share;
  }
}

TEST_CASE("vllm-0.5: carries less load than the current engine on the same card", "[serve]") {
  const Workload w = served("llama-3.1-8b", kChat);
  const Replica v0 = replica(w, "h100-sxm", 1, "vllm-0.5"), v1 = replica(w, "h100-sxm", 1, "vllm");
  CHECK(saturation_rate(v0) < saturation_rate(v1));
  const LoadPoint a = at_rate(v0, 2), b = at_rate(v1, 2);
  REQUIRE(a.stable);
  CHECK(a.tpot.p50 > b.tpot.p50);
}

TEST_CASE("vllm-0.5: runs no card launched after its release, current vLLM does", "[serve]") {
  const ServingEngine& old = default_serving_data().engine("vllm-0.5");
  const ServingEngine& now = default_serving_data().engine("vllm");
  CHECK(old.newest_launch_year == 2024);
  // 2025 cards: no kernels for their architecture in a 2024 release.
  for (const char* id : {"rx-9070-xt", "rtx-5090"}) {
    CHECK_FALSE(old.runs(gpu(id)));
    CHECK(old.why_not_on(gpu(id)).find("predates " + std::string(id)) != std::string::npos);
    CHECK(now.runs(gpu(id)));
  }
  // Blackwell of 2024 (first PyTorch support in April 2025) is named; Hopper of 2024 runs.
  CHECK_FALSE(old.runs(gpu("b200")));
  CHECK(old.runs(gpu("h200-sxm")));
  CHECK(old.runs(gpu("rtx-4090")));
  // An ecosystem it never ran on keeps its own reason.
  CHECK(old.why_not_on(gpu("apple-m2-ultra")) == "vllm-0.5 does not run on metal");
}
