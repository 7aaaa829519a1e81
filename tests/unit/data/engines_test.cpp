// Which engine runs an inference and how it spreads a model over GPUs (data/throughput.json
// default_engine and engines.*.multi_gpu), as the memory stage reads them.
#include <catch2/catch.hpp>

#include "core/data/engines_internal.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/data/catalog.hpp"
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

namespace {

// A two-engine table like data/throughput.json's, which each case below breaks in one place.
nlohmann::json table() {
  return nlohmann::json::parse(R"({
    "constants": {"default_engine": {"value": {"batch1": "cpp", "batched": "srv"}}},
    "engines": {
      "cpp": {"aliases": ["Local"], "multi_gpu": {"value": "layer"},
              "runs_on": {"value": ["cuda", "metal"]}},
      "cpp-old": {"like": "cpp"},
      "cpp-older": {"like": "cpp-old", "runs_on": {"value": ["cuda"]}},
      "srv": {"multi_gpu": {"value": "tensor"}, "runs_on": {"value": ["cuda"]}}}})");
}

std::string error_of(const nlohmann::json& doc) {
  try {
    detail::parse_engine_splits(doc, "t.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the engine table: layouts inherit through like, aliases resolve") {
  const auto t = detail::parse_engine_splits(table(), "t.json");
  CHECK(t.batch1 == "cpp");
  CHECK(t.batched == "srv");
  CHECK(t.layers.at("cpp-old"));
  CHECK_FALSE(t.layers.at("srv"));
  CHECK(t.key_of.at("local") == "cpp");
  CHECK(t.runs_on.at("cpp-old") == std::vector<std::string>{"cuda", "metal"});
  // Through two levels: its own runs_on, the root's layout.
  CHECK(t.layers.at("cpp-older"));
  CHECK(t.runs_on.at("cpp-older") == std::vector<std::string>{"cuda"});
  // An optional field set to null is not inherited, as the speed stage reads it.
  auto doc = table();
  doc["engines"]["cpp"]["weight_kernels"] = {{"value", {{"fp8", {{"cuda_min", "sm_89"}}}}}};
  doc["engines"]["cpp-old"]["weight_kernels"] = nullptr;
  const auto n = detail::parse_engine_splits(doc, "t.json");
  CHECK(n.kernels.at("cpp").count("fp8"));
  CHECK(n.kernels.at("cpp-old").empty());
  // The cards an engine supports inherit the same way; null stops them.
  doc["engines"]["cpp"]["targets"] = {{"value", {{"cuda_min", "sm_75"}, {"rocm", {"gfx942"}}}}};
  doc["engines"]["cpp-older"]["targets"] = nullptr;
  const auto c = detail::parse_engine_splits(doc, "t.json");
  CHECK(c.targets.at("cpp-old").cuda_min == 75);
  CHECK(c.targets.at("cpp-old").rocm == std::vector<std::string>{"gfx942"});
  CHECK_FALSE(c.targets.count("cpp-older"));
  CHECK_FALSE(c.targets.count("srv"));
}

TEST_CASE("a malformed engine table is a data error naming the file and the field") {
  auto doc = table();
  doc["constants"]["default_engine"]["value"]["batch1"] = "nope";
  CHECK(error_of(doc) == "t.json: constants.default_engine.value.batch1: must name an engine");
  doc = table();
  doc["constants"]["default_engine"]["value"].erase("batched");
  CHECK(error_of(doc) == "t.json: constants.default_engine.value.batched: must name an engine");
  doc = table();
  doc["constants"].erase("default_engine");
  CHECK(error_of(doc) == "t.json: constants.default_engine.value.batch1: must name an engine");
  doc = table();
  doc["engines"]["srv"]["multi_gpu"]["value"] = "pipeline";
  CHECK(error_of(doc) == "t.json: engines.srv.multi_gpu.value: must be \"layer\" or \"tensor\"");
  doc = table();
  doc["engines"]["cpp-old"]["like"] = "missing";
  CHECK(error_of(doc) == "t.json: engines.cpp-old.multi_gpu: missing");
  doc = table();
  doc["engines"]["cpp-old"]["like"] = "cpp-older";  // a loop ends, the field is missing
  CHECK(error_of(doc) == "t.json: engines.cpp-old.multi_gpu: missing");
  doc = table();
  doc["engines"]["srv"]["runs_on"]["value"] = nlohmann::json::array();
  CHECK(error_of(doc) ==
        "t.json: engines.srv.runs_on.value: must list ecosystems (cuda, rocm, ...)");
  doc = table();
  doc["engines"]["srv"].erase("runs_on");
  CHECK(error_of(doc) == "t.json: engines.srv.runs_on: missing");
  doc = table();
  doc["engines"]["srv"]["targets"] = {{"value", {{"cuda_min", "volta"}}}};
  CHECK(error_of(doc) == "t.json: engines.srv.targets.value.cuda_min: must be sm_NN");
  doc = table();
  doc["engines"]["srv"]["targets"] = {{"value", 3}};
  CHECK(error_of(doc) == "t.json: engines.srv.targets.value: must be an object");
  doc = table();
  doc["engines"]["srv"] = 3;
  CHECK(error_of(doc) == "t.json: engines.srv: must be an object");
  CHECK(error_of(nlohmann::json::object()) == "t.json: engines: missing (an object of engines)");
}

TEST_CASE("engines run on the platforms their documentation lists") {
  CHECK(engine_runs_on("mlx", "metal"));
  CHECK_FALSE(engine_runs_on("mlx", "cuda"));
  CHECK(engine_runs_on("tensorrt-llm", "cuda"));
  for (const char* eco : {"rocm", "metal", "oneapi", "synapseai", "cann"}) {
    INFO(eco);
    CHECK_FALSE(engine_runs_on("tensorrt-llm", eco));
  }
  CHECK_FALSE(engine_runs_on("vllm", "metal"));
  CHECK(engine_runs_on("vllm-0.5", "rocm"));              // inherited from vllm
  CHECK_FALSE(engine_runs_on("llama.cpp", "synapseai"));  // no Gaudi backend
  CHECK(engine_runs_on("llama.cpp-nograph", "cann"));     // inherited from llama.cpp
  CHECK_FALSE(engine_runs_on("llama.cpp-hipblas", "cuda"));
  CHECK(engine_runs_on("ipex-llm", "oneapi"));
  CHECK(engine_platforms("gpt-fast") == "cuda, rocm");
}

namespace {

Gpu card(const char* ecosystem, const char* target) {
  Gpu g;
  g.id = target, g.ecosystem = ecosystem, g.platform_target = target;
  return g;
}

}  // namespace

TEST_CASE("engines run only on the GPUs their installation pages support") {
  // Current vLLM: compute capability 7.5 and up; its ROCm list (vLLM docs, gpu.*.inc.md).
  for (const char* t : {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"}) {
    INFO(t);
    CHECK(engine_runs_on("vllm", card("cuda", t)));
  }
  for (const char* t : {"sm_70", "sm_61", "sm_60", "sm_52"}) {
    INFO(t);
    CHECK_FALSE(engine_runs_on("vllm", card("cuda", t)));
  }
  for (const char* t : {"gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1101", "gfx1200", "gfx1201",
                        "gfx1150", "gfx1151"}) {
    INFO(t);
    CHECK(engine_runs_on("vllm", card("rocm", t)));
  }
  for (const char* t : {"gfx906", "gfx908", "gfx1010", "gfx1030", "gfx1102", "gfx1103"}) {
    INFO(t);
    CHECK_FALSE(engine_runs_on("vllm", card("rocm", t)));
  }
  // vLLM 0.4-0.5 and the eager builds of that time still ran Volta, on three ROCm targets.
  CHECK(engine_runs_on("vllm-0.5", card("cuda", "sm_70")));
  CHECK(engine_runs_on("vllm-eager", card("cuda", "sm_70")));
  CHECK_FALSE(engine_runs_on("vllm-0.5", card("rocm", "gfx1201")));
  // transformers (like vllm-eager) runs wherever PyTorch does: the list is not inherited.
  CHECK(engine_runs_on("transformers", card("cuda", "sm_61")));
  CHECK(engine_runs_on("llama.cpp", card("rocm", "gfx906")));
  // The platform still decides first; other ecosystems are not constrained by the list.
  CHECK_FALSE(engine_runs_on("vllm", card("metal", "apple9")));
  CHECK(engine_runs_on("vllm", card("oneapi", "xe-hpg")));
}
