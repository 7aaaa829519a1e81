// The KV cache by attention kind, against hand-computed sizes of real presets.
#include "gpusel/memory/kv_cache.hpp"

#include <catch2/catch.hpp>

#include "ranker_fixtures.hpp"

#include "estimator_fixtures.hpp"
#include "gpusel/data/quantization.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_source.hpp"
#include "gpusel/memory/estimator.hpp"

using namespace gpusel;

namespace {

const ModelArch& preset(const char* id) { return ranker_fixtures::model(id); }

Workload serving(const char* id, int seq_len) {
  Workload w = test_models::on(preset(id), Mode::inference);
  w.seq_len = seq_len;
  return w;
}

}  // namespace

TEST_CASE("full attention keeps 2 x kv_heads x head_dim per token per layer") {
  // Llama 3.1 8B: 32 layers, 8 KV heads of 128: 128 KiB per token in 16-bit.
  const KvCacheSize kv = kv_cache_size(preset("llama-3.1-8b"), 2048, 2, 2);
  CHECK(kv.bytes == 32.0 * 2 * 8 * 128 * 2048 * 2);
  CHECK(kv.state_bytes == 0);
}

TEST_CASE("sliding-window layers keep only their window") {
  const ModelArch& mistral = preset("mistral-7b-v0.1");  // every layer sliding, window 4096
  const double at_window = kv_cache_size(mistral, 4096, 2, 2).bytes;
  CHECK(at_window == 32.0 * 2 * 8 * 128 * 4096 * 2);
  CHECK(kv_cache_size(mistral, 32768, 2, 2).bytes == at_window);
  CHECK(kv_cache_size(mistral, 1024, 2, 2).bytes == at_window / 4);
}

TEST_CASE("gpt-oss alternates sliding (128) and full layers") {
  const double t = 32768;
  const KvCacheSize kv = kv_cache_size(preset("gpt-oss-120b"), t, 2, 2);
  CHECK(kv.bytes == 18 * 2.0 * 8 * 64 * t * 2 + 18 * 2.0 * 8 * 64 * 128 * 2);
  // Counting every layer as full (what the cache held before) is about twice as much.
  CHECK(kv.bytes < 36 * 2.0 * 8 * 64 * t * 2 * 0.51);
}

TEST_CASE("Gemma 3 1B: five sliding (512) layers to one global") {
  const KvCacheSize kv = kv_cache_size(preset("gemma-3-1b"), 8192, 2, 2);
  // 26 layers: layers 5, 11, 17, 23 global (4), the other 22 sliding.
  CHECK(kv.bytes == 4 * 2.0 * 1 * 256 * 8192 * 2 + 22 * 2.0 * 1 * 256 * 512 * 2);
}

TEST_CASE("Llama 4 Scout: chunked layers keep their 8192-token chunk") {
  const KvCacheSize kv = kv_cache_size(preset("llama-4-scout-17b-16e"), 100000, 2, 2);
  CHECK(kv.bytes == 12 * 2.0 * 8 * 128 * 100000 * 2 + 36 * 2.0 * 8 * 128 * 8192 * 2);
}

TEST_CASE("MLA caches the latent plus the rope key, replicated under tensor parallelism") {
  const ModelArch& v3 = preset("deepseek-v3");  // 61 layers, kv_lora_rank 512, rope 64
  const double one = 61.0 * (512 + 64) * 4096 * 2;
  CHECK(kv_cache_size(v3, 4096, 2, 2).bytes == one);
  CHECK(kv_cache_size(v3, 4096, 2, 2, {8, true}).bytes == one);       // every TP rank holds it all
  CHECK(kv_cache_size(v3, 4096, 2, 2, {8, false}).bytes == one / 8);  // layer split divides
}

TEST_CASE("GQA under tensor parallelism divides by the KV heads a card holds") {
  const ModelArch& m = preset("llama-3.1-8b");  // 8 KV heads
  const double one = kv_cache_size(m, 4096, 2, 2).bytes;
  CHECK(kv_cache_size(m, 4096, 2, 2, {4, true}).bytes == one / 4);
  CHECK(kv_cache_size(m, 4096, 2, 2, {16, true}).bytes == one / 8);  // heads replicated past 8
}

TEST_CASE("Qwen3-Next: 12 full layers grow, 36 Gated DeltaNet layers keep a constant state") {
  const ModelArch& m = preset("qwen3-next-80b-a3b");
  // Per linear layer: conv (4 - 1) x (2 x 16 x 128 + 32 x 128) + recurrent 32 x 128 x 128.
  const double state = 36 * (3.0 * (2 * 16 * 128 + 32 * 128) + 32.0 * 128 * 128) * 2;
  const KvCacheSize a = kv_cache_size(m, 1000, 2, 2), b = kv_cache_size(m, 100000, 2, 2);
  CHECK(a.state_bytes == state);
  CHECK(b.state_bytes == state);
  CHECK(b.token_bytes == 12 * 2.0 * 2 * 256 * 100000 * 2);
  // The KV dtype does not change the state (vLLM's mamba_cache_dtype is separate).
  CHECK(kv_cache_size(m, 1000, 1, 2).state_bytes == state);
}

TEST_CASE("option --kv-dtype sets bytes per value with llama.cpp's block scales") {
  Workload w = serving("llama-3.1-8b", 8192);
  const double bf16 = estimate(w).bytes_of("kv_cache");
  w.kv_dtype = KvDtype::fp8;
  CHECK(estimate(w).bytes_of("kv_cache") == Approx(bf16 / 2));
  w.kv_dtype = KvDtype::q8_0;  // 34 B per block of 32
  CHECK(estimate(w).bytes_of("kv_cache") == Approx(bf16 * 34 / 32 / 2));
  w.kv_dtype = KvDtype::q4_0;  // 18 B per block of 32
  CHECK(estimate(w).bytes_of("kv_cache") == Approx(bf16 * 18 / 32 / 2));
  CHECK(parse_kv_dtype("Q8_0") == KvDtype::q8_0);
  CHECK_THROWS_WITH(parse_kv_dtype("fp4"), Catch::Contains("auto|fp16|bf16|fp8|int8|q8_0|q4_0"));
}

TEST_CASE("option --kv-dtype applies to inference only") {
  Workload w = serving("llama-3.1-8b", 2048);
  w.mode = Mode::lora;
  w.kv_dtype = KvDtype::fp8;
  CHECK_THROWS_WITH(estimate(w), Catch::Contains("--kv-dtype"));
}

TEST_CASE("the KV cache grows with context and batch, and never for linear state alone") {
  for (const char* id : {"llama-3.1-8b", "gpt-oss-120b", "gemma-3-1b", "qwen3-next-80b-a3b",
                         "deepseek-v3", "mistral-7b-v0.1"}) {
    INFO(id);
    double last = 0;
    for (int t : {128, 1024, 4096, 16384}) {
      Workload w = serving(id, t);
      const double kv = estimate(w).bytes_of("kv_cache");
      CHECK(kv >= last);
      last = kv;
      w.batch = 3;
      CHECK(estimate(w).bytes_of("kv_cache") == Approx(3 * kv));
    }
  }
}

TEST_CASE("llama.cpp without -fa: the cache allocated once, a ubatch's KQ, not the prompt's") {
  auto need = [](int prompt, bool fa) {
    Workload w = ranker_fixtures::preset("llama-3.1-8b", Mode::inference);
    w.engine = "llama.cpp", w.flash_attn = fa;
    w.prompt_len = prompt, w.seq_len = prompt + 128;
    return estimate(on_gpus(w, 1));
  };
  const Estimate fa = need(16384, true), plain = need(16384, false);
  CHECK(plain.bytes_of("kv_cache") == Approx(fa.bytes_of("kv_cache")));
  // 512 queries x 32 heads x the context's 16,512 keys x (F32 KQ + F32 softmax) = 2.16 GB on
  // top: the buffer llama.cpp reserves for its worst graph, whatever the prompt.
  CHECK(plain.bytes_of("prefill_workspace") - fa.bytes_of("prefill_workspace") ==
        Approx(512.0 * 32 * 16512 * 8).epsilon(1e-9));
  // Linear in the context (one ubatch of rows), not quadratic as eager PyTorch's scores.
  const double grow = need(32768, false).bytes_of("prefill_workspace") /
                      need(16384, false).bytes_of("prefill_workspace");
  CHECK(grow < 2.01);
  CHECK(grow > 1.9);
}
