// Chunked prefill: the memory stage's prompt workspace follows the engine the speed stage
// models, and covers one engine step while the KV cache covers the whole context.
#include <catch2/catch.hpp>

#include "estimator_fixtures.hpp"
#include "gpusel/data/constants.hpp"
#include "gpusel/memory/estimator.hpp"
#include "gpusel/speed/throughput.hpp"

using namespace gpusel;

namespace {

Workload prefill_serving(int batch, int seq_len, const char* engine) {
  Workload w = test_models::on(test_models::llama31_8b(), Mode::inference);
  w.batch = batch;
  w.seq_len = seq_len;
  w.engine = engine;
  return w;
}

}  // namespace

TEST_CASE("memory chunks the prefill with the engine the speed stage decodes with") {
  const auto& k = default_throughput_constants();
  for (const char* e : {"", "vllm", "llama.cpp", "ollama", "sglang", "mlx", "hf-generate"})
    for (int batch : {1, 8})
      for (bool tp : {false, true}) {
        Workload w = prefill_serving(batch, 4096, e);
        if (tp) w.gpus = 2, w.shard = Shard::tp;  // tensor parallel: vLLM without --engine
        INFO("engine '" << e << "' batch " << batch << " tp " << tp);
        CHECK(prefill_chunk(w).engine == engine_for(w, k).name);
      }
}

TEST_CASE("vLLM's prefill workspace stops at its token budget, the KV cache does not") {
  const double chunk = data_constant("prefill_chunk_tokens_vllm");
  REQUIRE(chunk == 8192);  // vllm serve's default on a large card (arg_utils.py)
  const Estimate at_chunk = estimate(prefill_serving(1, 8192, "vllm"));
  const Estimate longer = estimate(prefill_serving(1, 65536, "vllm"));
  CHECK(longer.bytes_of("prefill_workspace") == Approx(at_chunk.bytes_of("prefill_workspace")));
  CHECK(longer.bytes_of("kv_cache") == Approx(8 * at_chunk.bytes_of("kv_cache")));
  // Llama-3-8B: 8192 tokens x 2 B x max(attention 2h + 2q + 2kv, MLP 2h + 3I) + last logits.
  const double mlp = 2 * 4096 + 3 * 14336;
  CHECK(longer.bytes_of("prefill_workspace") ==
        Approx(8192 * 2 * mlp + 128256 * (2 + 4)).epsilon(1e-9));
}

TEST_CASE("engines without a documented chunk, and eager attention, run the whole prompt") {
  Workload whole = prefill_serving(1, 32768, "mlx");
  Workload eager = prefill_serving(1, 32768, "vllm");
  eager.flash_attn = false;
  const double chunked = estimate(prefill_serving(1, 32768, "vllm")).bytes_of("prefill_workspace");
  CHECK(estimate(whole).bytes_of("prefill_workspace") > 3 * chunked);
  CHECK(estimate(eager).bytes_of("prefill_workspace") > 3 * chunked);
}

TEST_CASE("the prefill workspace never shrinks as the prompt or batch grows") {
  for (const char* e : {"", "vllm", "llama.cpp", "mlx"}) {
    double last = 0;
    for (int seq = 256; seq <= 131072; seq *= 2) {
      const double b = estimate(prefill_serving(1, seq, e)).total_bytes;
      CHECK(b >= last);
      last = b;
    }
    last = 0;
    for (int batch = 1; batch <= 64; batch *= 2) {
      const double b = estimate(prefill_serving(batch, 4096, e)).total_bytes;
      CHECK(b >= last);
      last = b;
    }
  }
}

TEST_CASE("every build of llama.cpp chunks its prompt as llama.cpp does") {
  const double chunk = data_constant("prefill_chunk_tokens_llama_cpp");
  for (const auto& e : engine_names()) {
    INFO("engine " << e);
    if (is_llama_cpp(e)) CHECK(prefill_chunk(prefill_serving(1, 4096, e.c_str())).tokens == chunk);
  }
  CHECK(is_llama_cpp("llama.cpp-nograph"));
  CHECK(is_llama_cpp("Ollama"));
  CHECK_FALSE(is_llama_cpp("vllm"));
  CHECK(prefill_chunk(prefill_serving(1, 4096, "llama.cpp-nograph")).tokens == chunk);
}
