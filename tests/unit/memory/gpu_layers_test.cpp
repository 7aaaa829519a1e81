// --gpu-layers N (llama.cpp -ngl): the last N layers on the GPU, the rest and, unless N exceeds
// the layers, the output layer in host RAM with their KV cache; the CPU runs them in series.
#include <catch2/catch.hpp>

#include "ranker_fixtures.hpp"

#include "gpusel/base/error.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/data/quantization.hpp"
#include "gpusel/memory/estimator.hpp"
#include "gpusel/speed/throughput.hpp"

using namespace gpusel;

namespace {

Workload gguf70(int gpu_layers) {
  Workload w = ranker_fixtures::preset("llama-3.1-70b", Mode::inference);  // 80 layers
  set_precision(w, "q4_k_m");
  w.engine = "llama.cpp", w.gpu_layers = gpu_layers;
  return on_gpus(w, 1);
}

double host_bytes(const Estimate& e) {
  double b = 0;
  for (const auto& c : e.components)
    if (c.where == "host") b += c.bytes;
  return b;
}

}  // namespace

TEST_CASE("the layers left off the GPU and their cache move to host RAM") {
  const Estimate all = estimate(gguf70(-1)), beyond = estimate(gguf70(81));
  CHECK(beyond.total_bytes == Approx(all.total_bytes).epsilon(1e-12));  // N > 80: everything
  const Estimate half = estimate(gguf70(40)), none = estimate(gguf70(0));
  // The GPU's and the host's shares add up to the whole model and cache.
  CHECK(half.total_bytes + host_bytes(half) == Approx(all.total_bytes).epsilon(0.01));
  CHECK(half.bytes_of("kv_cache") == Approx(all.bytes_of("kv_cache") / 2).epsilon(1e-9));
  CHECK(none.bytes_of("kv_cache") == 0);
  CHECK(none.total_bytes < half.total_bytes);
  CHECK(half.total_bytes < all.total_bytes);
  // With all 80 layers the output layer still stays on the CPU (it needs N > n_layer).
  CHECK(host_bytes(estimate(gguf70(80))) > 0);
}

TEST_CASE("the CPU's layers slow every token, more as fewer stay on the GPU") {
  const Gpu& g = require_gpu(ranker_fixtures::catalog(), "rtx-4090");
  auto decode = [&](int n) {
    return estimate_throughput(gguf70(n), g, 1, false).decode_tokens_per_s;
  };
  auto prefill = [&](int n) {
    return estimate_throughput(gguf70(n), g, 1, false).prefill_tokens_per_s;
  };
  CHECK(decode(81) == Approx(decode(-1)));
  CHECK(decode(60) < decode(81));
  CHECK(decode(20) < decode(60));
  CHECK(prefill(20) < prefill(60));
  CHECK(prefill(60) < prefill(81));
}

TEST_CASE("partial offload is llama.cpp inference on one GPU") {
  Workload train = ranker_fixtures::preset("llama-3.1-8b", Mode::lora);
  train.gpu_layers = 10;
  CHECK_THROWS_AS(validate(train), Error);
  Workload vllm = gguf70(40);
  vllm.engine = "vllm";
  vllm.weight_format.clear(), vllm.weight_bits = 0, vllm.precision = Precision::int4;
  CHECK_THROWS_AS(validate(vllm), Error);
  Workload two = gguf70(40);
  two.gpus = 2;
  CHECK_THROWS_AS(validate(two), Error);
  Workload moe = ranker_fixtures::preset("mixtral-8x7b", Mode::inference);
  set_precision(moe, "q4_k_m");
  moe.gpu_layers = 10, moe.cpu_moe = 4;
  CHECK_THROWS_AS(validate(moe), Error);
}

TEST_CASE("recommend and compare place partial offload on one card only") {
  CHECK(tensor_parallel_splits(gguf70(40), 1));
  CHECK(!tensor_parallel_splits(gguf70(40), 2));
  CHECK(tensor_parallel_splits(gguf70(-1), 2));  // without it, llama.cpp's layer split
}
