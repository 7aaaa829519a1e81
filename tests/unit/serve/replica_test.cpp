#include <catch2/catch.hpp>

#include "gpusel/memory/kv_cache.hpp"
#include "serve_fixtures.hpp"

using namespace gpusel;
using namespace serve_fixtures;

TEST_CASE("replica: the KV pool is what vLLM's fraction leaves after weights and workspace",
          "[serve]") {
  const Replica r = replica(served("llama-3.1-8b", kChat), "h100-sxm", 1);
  const double gib = 1024.0 * 1024 * 1024;
  CHECK(r.card_bytes == Approx(80 * gib));
  CHECK(r.kv_pool_bytes == Approx(0.92 * 80 * gib - r.weight_bytes - 5.0 * gib));
  // 1000 + 200/2 tokens held on average, plus half a 16-token block
  CHECK(r.held_tokens == Approx(1107.5));
  // Llama 3.1 8B: 32 layers x 2 x 8 KV heads x 128 x 2 bytes = 128 KiB per token
  CHECK(r.seq_kv_bytes == Approx(1107.5 * 131072).epsilon(0.001));
  CHECK(r.memory_seqs == int(r.kv_pool_bytes / r.seq_kv_bytes));
  CHECK(r.max_seqs == std::min({r.memory_seqs, 1024, int(8192 * 200 / 1200.0)}));
}

TEST_CASE("replica: more memory holds more sequences", "[serve]") {
  const Workload w = served("llama-3.1-70b", kChat, Precision::fp8);
  const Replica small = replica(w, "h100-sxm", 1), large = replica(w, "h200-sxm", 1);
  CHECK(large.memory_seqs > small.memory_seqs);
  const Replica two = replica(w, "h100-sxm", 2);  // tensor parallel halves weights and KV
  CHECK(two.memory_seqs > 2 * small.memory_seqs);
}

TEST_CASE("replica: an fp8 KV cache holds about twice the sequences", "[serve]") {
  const Replica bf = replica(served("llama-3.1-70b", kChat, Precision::fp8), "h200-sxm", 1);
  const Replica f8 =
      replica(served("llama-3.1-70b", kChat, Precision::fp8, KvDtype::fp8), "h200-sxm", 1);
  CHECK(f8.memory_seqs >= 2 * bf.memory_seqs - 1);
  CHECK(f8.memory_seqs <= 2 * bf.memory_seqs + 1);
}

TEST_CASE("replica: reserving whole requests holds fewer than paging on demand", "[serve]") {
  const Workload w = served("llama-3.1-8b", kChat);
  const Replica v = replica(w, "h100-sxm", 1, "vllm"),
                t = replica(w, "h100-sxm", 1, "tensorrt-llm");
  CHECK(t.held_tokens == Approx(1200 + 15.5));
  CHECK(t.seq_kv_bytes > v.seq_kv_bytes);
}

TEST_CASE("replica: a model that does not fit holds no sequence", "[serve]") {
  const Replica r = replica(served("llama-3.1-70b", kChat), "rtx-4090", 1);
  CHECK_FALSE(r.fits());
  CHECK(r.max_seqs == 0);
}

TEST_CASE("step time: memory-bound at small batches, linear in the batch past the ridge",
          "[serve]") {
  const Replica r = replica(served("llama-3.1-8b", kChat), "h100-sxm", 1);
  const StepModel& m = r.step;
  const double one = step_seconds(r, 1, 0), two = step_seconds(r, 2, 0);
  // Weights dominate: one more sequence adds only its KV read.
  CHECK(one == Approx((m.weight_bytes + m.kv_bytes_per_seq) / m.bandwidth + m.fixed_s));
  CHECK(two - one == Approx(m.kv_bytes_per_seq / m.bandwidth));
  // Far past the ridge point prompt tokens are compute-bound: the slope is their FLOPs.
  const double a = step_seconds(r, 0, 40000), b = step_seconds(r, 0, 80000);
  CHECK((b - a) / 40000 == Approx(m.prefill_linear_flops / m.linear_flops_per_s +
                                  m.prefill_attention_flops / m.attention_flops_per_s));
  double last = 0;
  for (double n : {1, 4, 16, 64, 256, 1024}) {
    const double t = step_seconds(r, n, 0);
    CHECK(t > last);
    last = t;
  }
  CHECK(step_seconds(r, 64, 2048) > step_seconds(r, 64, 0));
}

TEST_CASE("step time: tensor parallelism splits the weights and pays all-reduces", "[serve]") {
  const Workload w = served("llama-3.1-70b", kChat, Precision::fp8);
  const Replica one = replica(w, "h200-sxm", 1), four = replica(w, "h200-sxm", 4);
  CHECK(four.tp == 4);
  CHECK(four.pp == 1);
  CHECK(step_seconds(four, 1, 0) < step_seconds(one, 1, 0) / 2);
  CHECK(four.step.fixed_s > one.step.fixed_s);  // 2 all-reduces per layer
  CHECK(four.step.comm_s_per_token > 0);
  CHECK(one.step.comm_s_per_token == 0);
}

TEST_CASE("step time: a mixture of experts reads the experts its tokens touch", "[serve]") {
  const Replica r = replica(served("mixtral-8x7b", kChat), "h200-sxm", 1);
  CHECK(r.step.routed_bytes > 0.8 * r.weight_bytes);
  CHECK(r.step.route_fraction == Approx(0.25));
  // One token reads the shared part and 2 of 8 experts; 64 tokens touch nearly all of them.
  CHECK(step_seconds(r, 1, 0) < 0.5 * step_seconds(r, 64, 0));
  const Replica dense = replica(served("llama-3.1-8b", kChat), "h200-sxm", 1);
  CHECK(dense.step.routed_bytes == 0);
}

TEST_CASE("step time: past the CUDA-graph batch the engine pays a launch cost per layer",
          "[serve]") {
  const Replica r = replica(served("llama-3.1-8b", kChat), "h100-sxm", 1);
  const int g = r.graph_max_batch;
  REQUIRE(g > 0);
  const double jump = step_seconds(r, g + 1, 0) - step_seconds(r, g, 0);
  const double smooth = step_seconds(r.step, g + 1, 0, true) - step_seconds(r.step, g, 0, true);
  CHECK(jump - smooth == Approx(r.layers * r.engine->eager_layer_overhead_s));
}
