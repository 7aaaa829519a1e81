// Which engine runs an inference and how it spreads a model over GPUs (data/throughput.json
// default_engine and engines.*.multi_gpu), as the memory stage reads them.
#include <catch2/catch.hpp>

#include "gpusel/data/engines.hpp"

using namespace gpusel;

TEST_CASE("the default engine: llama.cpp at batch 1, vLLM batched or tensor parallel") {
  CHECK(inference_engine("", 1, false) == "llama.cpp");
  CHECK(inference_engine("", 2, false) == "vllm");
  CHECK(inference_engine("", 1, true) == "vllm");
  // A given engine wins; aliases resolve to their entry, names are case-blind.
  CHECK(inference_engine("Ollama", 8, true) == "llama.cpp");
  CHECK(inference_engine("hf-generate", 1, false) == "transformers");
  CHECK(inference_engine("SGLang", 1, false) == "sglang");
  CHECK(inference_engine("no-such-engine", 1, false) == "no-such-engine");
}

TEST_CASE("engines split a model over GPUs as their documentation says") {
  for (const char* e :
       {"llama.cpp", "llama.cpp-cublas", "llama.cpp-hipblas", "llama.cpp-nograph", "llama.cpp-sycl",
        "transformers", "exllamav2", "exllamav2-2023", "ipex-llm", "mlx"}) {
    INFO(e);
    CHECK(engine_splits_layers(e));
  }
  for (const char* e :
       {"vllm", "vllm-0.5", "vllm-eager", "sglang", "tensorrt-llm", "mlc", "gpt-fast"}) {
    INFO(e);
    CHECK_FALSE(engine_splits_layers(e));
  }
  CHECK_FALSE(engine_splits_layers("no-such-engine"));
  CHECK(tensor_parallel_engines() == "gpt-fast|mlc|sglang|tensorrt-llm|vllm|vllm-0.5|vllm-eager");
}
