// llama.cpp's Vulkan back end (engines.llama.cpp-vulkan): llama.cpp's figures on NVIDIA and
// AMD cards, none of its CUDA-graph or SYCL variants, no row split, and no Intel or Apple card.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "gpusel/base/error.hpp"
#include "gpusel/data/engines.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/memory/estimator.hpp"
#include "gpusel/speed/throughput.hpp"
#include "throughput_fixtures.hpp"

using namespace gpusel;
using namespace tput_fixtures;

namespace {

Throughput vk_run(const std::string& engine, const char* card, int seq = 129, int prompt = 1) {
  return estimate_throughput(preset_inference("llama-3.1-8b", "q4_0", engine, seq, prompt),
                             shipped_gpu(card), 1, false);
}

}  // namespace

TEST_CASE("Vulkan runs llama.cpp's figures on NVIDIA and AMD cards with graphs or without") {
  for (const char* card : {"rtx-3090", "rtx-4090", "rx-7900-xtx", "rx-9070-xt"}) {
    INFO(card);
    if (std::string(card) != "rx-7900-xtx")  // RDNA 3: ROCm's HIP graphs, below
      CHECK(vk_run("llama.cpp-vulkan", card).decode_tokens_per_s ==
            Approx(vk_run("llama.cpp", card).decode_tokens_per_s).epsilon(1e-9));
    CHECK(vk_run("llama.cpp-vulkan", card, 513, 512).prefill_tokens_per_s ==
          Approx(vk_run("llama.cpp", card, 513, 512).prefill_tokens_per_s).epsilon(1e-9));
  }
  // On Pascal llama.cpp's CUDA build launches every kernel (llama.cpp-nograph); Vulkan keeps
  // its own path there: the per-layer cost of today's builds, so it decodes faster.
  const Throughput vk = vk_run("llama.cpp-vulkan", "tesla-p40");
  CHECK(vk.engine == "llama.cpp-vulkan");
  CHECK(vk_run("llama.cpp", "tesla-p40").engine == "llama.cpp-nograph");
  CHECK(vk.decode_tokens_per_s > vk_run("llama.cpp", "tesla-p40").decode_tokens_per_s);
  // The alias.
  CHECK(inference_engine("Vulkan", 1, false) == "llama.cpp-vulkan");
}

TEST_CASE("Vulkan's entry nulls the variants it would inherit, and has no row split") {
  const ThroughputConstants& k = default_throughput_constants();
  const Engine& vk = k.engines.at("llama.cpp-vulkan");
  CHECK(vk.variants.empty());
  CHECK_FALSE(k.engines.at("llama.cpp").variants.empty());
  CHECK_FALSE(vk.row_split);
  CHECK(k.engines.at("llama.cpp").row_split);
  CHECK(engine_runs_on("llama.cpp-vulkan", "cuda"));
  CHECK(engine_runs_on("llama.cpp-vulkan", "rocm"));
  for (const char* eco : {"oneapi", "metal", "cann", "synapseai"}) {
    INFO(eco);
    CHECK_FALSE(engine_runs_on("llama.cpp-vulkan", eco));
  }
  Workload w = preset_inference("llama-3.1-8b", "q4_0", "llama.cpp-vulkan", 2048, 2048);
  w.gpus = 2, w.row_split = true;
  CHECK_THROWS_WITH(require_split_mode(w), Catch::Contains("has no row split"));
  w.engine = "llama.cpp";
  CHECK_NOTHROW(require_split_mode(w));
}

TEST_CASE("rule llama-cpp-no-fp8 names every llama.cpp engine of the data") {
  const auto rules = nlohmann::json::parse(embedded_text("data/rules.json"));
  nlohmann::json engines;
  for (const auto& r : rules["rules"])
    if (r["id"] == "llama-cpp-no-fp8") engines = r["when"]["all"][0][2];
  REQUIRE(engines.is_array());
  for (const auto& [name, e] : default_throughput_constants().engines) {
    if (!is_llama_cpp(name) || name == "ollama") continue;
    INFO(name);
    CHECK(std::find(engines.begin(), engines.end(), name) != engines.end());
  }
}

TEST_CASE("on RDNA 3 llama.cpp's ROCm build runs HIP graphs that save about 15 us per layer") {
  const ThroughputConstants& k = default_throughput_constants();
  const Engine& cpp = k.engines.at("llama.cpp");
  for (const char* card : {"rx-7900-xtx", "ryzen-ai-max-plus-395-128gb"})
    CHECK(engine_on(cpp, shipped_gpu(card), k).name == "llama.cpp-hip-rdna3");
  for (const char* card : {"rx-9070-xt", "mi300x", "rtx-4090"})
    CHECK(engine_on(cpp, shipped_gpu(card), k).name == "llama.cpp");
  // The engines of other builds keep their own path there.
  for (const char* e : {"llama.cpp-hipblas", "llama.cpp-nograph", "llama.cpp-vulkan"})
    CHECK(engine_on(k.engines.at(e), shipped_gpu("rx-7900-xtx"), k).name == e);
  // PR #22254 (gfx1100): HIP graphs took Qwen2.5 14B Q8_0 from 47.17 to 48.51 t/s (tg64).
  Workload w = preset_inference("qwen2.5-14b", "q8_0", "llama.cpp-nograph", 65, 1);
  const double before =
      estimate_throughput(w, shipped_gpu("rx-7900-xtx"), 1, false).decode_tokens_per_s;
  w.engine = "llama.cpp";
  const double after =
      estimate_throughput(w, shipped_gpu("rx-7900-xtx"), 1, false).decode_tokens_per_s;
  CHECK(after / before == Approx(48.51 / 47.17).epsilon(0.02));
  // Vulkan pays today's per-layer cost there: faster than ROCm (issue #20934).
  CHECK(vk_run("llama.cpp-vulkan", "rx-7900-xtx").decode_tokens_per_s >
        1.2 * vk_run("llama.cpp", "rx-7900-xtx").decode_tokens_per_s);
}

TEST_CASE("a variant list with an entry that is not an object is a data error") {
  auto doc = nlohmann::json::parse(embedded_text("data/throughput.json"));
  doc["engines"]["llama.cpp"]["graphless_on"]["value"][1] = "RDNA 3";
  CHECK_THROWS_WITH(parse_throughput_constants(doc, "t"),
                    Catch::Contains("engines.llama.cpp.graphless_on.value[1]: must be an object"));
}

TEST_CASE("An engine named for a card it has no backend for gives no speed figure") {
  const Throughput arc = vk_run("llama.cpp-vulkan", "arc-a770-16gb", 513, 512);
  CHECK(arc.decode_tokens_per_s == 0);
  CHECK(arc.prefill_tokens_per_s == 0);
  CHECK(arc.engine == "llama.cpp-vulkan");
  REQUIRE_FALSE(arc.assumptions.empty());
  CHECK_THAT(arc.assumptions.back(), Catch::Contains("no backend for oneapi"));
  // The same card under an engine that runs there keeps its figure.
  CHECK(vk_run("llama.cpp", "arc-a770-16gb").decode_tokens_per_s > 0);
  CHECK(estimate_throughput(preset_inference("llama-3.1-8b", "bf16", "mlx", 2048, 2048),
                            shipped_gpu("rtx-4090"), 1, false)
            .decode_tokens_per_s == 0);
}
