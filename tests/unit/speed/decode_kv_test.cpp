// Decode reads the KV cache each layer kind keeps (memory/kv_cache), in the --kv-dtype's
// bytes, and GGUF weights at their bits per weight.
#include <catch2/catch.hpp>

#include "gpusel/data/quantization.hpp"
#include "gpusel/memory/kv_cache.hpp"
#include "gpusel/speed/throughput.hpp"
#include "throughput_fixtures.hpp"

using namespace gpusel;

namespace {

// Bandwidth-bound card and constants with the refinements off: decode time is bytes / bw.
Gpu decode_card() {
  Gpu g;
  g.id = "bw";
  g.bandwidth_gbs = 1000, g.fp32_tflops = 1e5;
  g.bf16_tflops_dense = g.fp16_tflops_dense = 1e6;
  return g;
}

// Every factor 1: memory type unknown (1), engine kernels 1, no dequantization factor, no
// per-layer overhead.
ThroughputConstants kv_plain() {
  ThroughputConstants k = tput_fixtures::plain();
  k.int4_bits_per_weight = 4.5, k.int8_bits_per_weight = 8.5, k.kv_cache_bytes_per_value = 2;
  for (auto& [name, e] : k.engines) e.kernel_gddr = e.kernel_hbm = e.kernel_unified = 1;
  return k;
}

// gpt-oss-like: 36 layers alternating sliding (128) and full, 8 KV heads of 64.
Workload windowed(int seq_len) {
  Workload w;
  w.model.id = "w";
  w.model.params = 1e9;
  w.model.layers = 36, w.model.hidden = 2880, w.model.heads = 64, w.model.kv_heads = 8;
  w.model.head_dim = 64, w.model.intermediate = 2880, w.model.vocab = 1000;
  w.model.tied_embeddings = true;
  w.model.sliding_window = 128;
  w.model.layer_pattern = {LayerKind::sliding, LayerKind::full};
  w.mode = Mode::inference;
  w.seq_len = seq_len;
  w.batch = 8;
  return w;
}

double step_s(const Workload& w) {
  return w.batch / estimate_throughput(w, decode_card(), 1, false, kv_plain()).decode_tokens_per_s;
}

}  // namespace

TEST_CASE("decode reads the full layers' whole context and the sliding layers' window") {
  const Workload w = windowed(65536);
  const double weights = 1e9 * 2;  // tied: the matmul count is the parameter count
  // Mean context of the step is seq_len (no prompt_len): full layers all of it.
  const double kv = 8 * (18 * 2.0 * 8 * 64 * 65536 + 18 * 2.0 * 8 * 64 * 128) * 2;
  CHECK(step_s(w) == Approx((weights + kv) / 1e12));
  // More context costs the full layers only: the step grows by their share alone.
  const double longer = step_s(windowed(131072)) - step_s(w);
  CHECK(longer == Approx(8 * 18 * 2.0 * 8 * 64 * 65536 * 2 / 1e12));
}

TEST_CASE("decode with --kv-dtype fp8 or q4_0 reads proportionally fewer cache bytes") {
  Workload w = windowed(65536);
  const double kv16 = step_s(w) - 2e9 / 1e12;
  w.kv_dtype = KvDtype::fp8;
  CHECK(step_s(w) - 2e9 / 1e12 == Approx(kv16 / 2));
  w.kv_dtype = KvDtype::q4_0;
  CHECK(step_s(w) - 2e9 / 1e12 == Approx(kv16 * (18.0 / 32) / 2));
}

TEST_CASE("a GGUF model's decode reads its bits per weight, the output included") {
  Workload w = windowed(1);
  w.batch = 1;
  set_precision(w, "q4_k_m");
  const double bits = find_gguf("q4_k_m")->bits_per_weight;
  const double kv = 36 * 2.0 * 8 * 64 * 1 * 2;
  CHECK(step_s(w) == Approx((1e9 * bits / 8 + kv) / 1e12));
  const Throughput t = estimate_throughput(w, decode_card(), 1, false, kv_plain());
  bool named = false;
  for (const auto& a : t.assumptions) named = named || a.find("GGUF q4_k_m") != std::string::npos;
  CHECK(named);
}
