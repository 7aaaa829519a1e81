// An engine entry that names another ("like") takes the other's figures where it gives none:
// the same Engine as the entry written out in full, and refused when the name is wrong.
#include <catch2/catch.hpp>

#include "gpusel/base/error.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_schema.hpp"
#include "gpusel/speed/throughput.hpp"

using namespace gpusel;

namespace {

nlohmann::json engine_shipped() {
  return nlohmann::json::parse(embedded_text("data/throughput.json"));
}

// Every figure the model reads of an engine.
void same_figures(const Engine& a, const Engine& b) {
  CHECK(a.kernel_gddr == b.kernel_gddr);
  CHECK(a.kernel_hbm == b.kernel_hbm);
  CHECK(a.kernel_unified == b.kernel_unified);
  CHECK(a.int8_factor == b.int8_factor);
  CHECK(a.int4_factor == b.int4_factor);
  CHECK(a.int4_gemm == b.int4_gemm);
  CHECK(a.int4_gemm_hopper == b.int4_gemm_hopper);
  CHECK(a.layer_overhead_s == b.layer_overhead_s);
  CHECK(a.prefill_efficiency == b.prefill_efficiency);
  CHECK(a.prefill_fp16_accumulate == b.prefill_fp16_accumulate);
  CHECK(a.metal_prefill_efficiency == b.metal_prefill_efficiency);
  CHECK(a.metal_prefill_quantized_factor == b.metal_prefill_quantized_factor);
}

}  // namespace

TEST_CASE("vllm-0.5 is vllm but for its Hopper int4 GEMM, as if written out in full") {
  auto doc = engine_shipped();
  REQUIRE(doc["engines"]["vllm-0.5"]["like"] == "vllm");
  const ThroughputConstants k = parse_throughput_constants(doc, "t");
  // Written out: vllm's entry with vllm-0.5's own fields over it.
  auto full = doc;
  nlohmann::json entry = doc["engines"]["vllm"];
  for (const auto& [key, value] : doc["engines"]["vllm-0.5"].items())
    if (key != "like") entry[key] = value;
  full["engines"]["vllm-0.5"] = entry;
  const ThroughputConstants written = parse_throughput_constants(full, "t");
  same_figures(k.engines.at("vllm-0.5"), written.engines.at("vllm-0.5"));
  CHECK(k.engines.at("vllm-0.5").label == "vLLM 0.5 (V0)");
  CHECK(k.engines.at("vllm-0.5").aliases.empty());
  Engine hopper = k.engines.at("vllm");
  hopper.int4_gemm_hopper = k.engines.at("vllm-0.5").int4_gemm_hopper;
  same_figures(k.engines.at("vllm-0.5"), hopper);
  CHECK(k.engines.at("vllm-0.5").int4_gemm_hopper < k.engines.at("vllm").int4_gemm_hopper);
}

TEST_CASE("a 'like' naming no engine, or a chain of them that loops, is a data error") {
  auto unknown = engine_shipped(), looped = engine_shipped(), unlabelled = engine_shipped();
  unknown["engines"]["vllm-0.5"]["like"] = "vllm-9";
  looped["engines"]["vllm-0.4"] = {{"like", "vllm-0.3"}, {"label", "vLLM 0.4"}};
  looped["engines"]["vllm-0.3"] = {{"like", "vllm-0.4"}, {"label", "vLLM 0.3"}};
  unlabelled["engines"]["vllm-0.5"].erase("label");
  CHECK_THROWS_WITH(parse_throughput_constants(unknown, "t"),
                    Catch::Contains("engines.vllm-0.5.like: no engine 'vllm-9'"));
  CHECK_THROWS_WITH(parse_throughput_constants(looped, "t"),
                    Catch::Contains(".like: the chain of 'like' loops"));
  // A fault up the chain is named where it is, not at the entry that reached it.
  auto deep = engine_shipped();
  deep["engines"]["vllm-0.4"] = {{"like", "vllm-0.5"}, {"label", "vLLM 0.4"}};
  deep["engines"]["vllm-0.5"].erase("label");
  CHECK_THROWS_WITH(parse_throughput_constants(deep, "t"),
                    Catch::Contains("t: engines.vllm-0.5.label: missing"));
  CHECK_THROWS_WITH(parse_throughput_constants(unlabelled, "t"),
                    Catch::Contains("engines.vllm-0.5.label: missing"));
}

TEST_CASE("a chain of 'like' resolves from its root: each level's own fields win") {
  auto doc = engine_shipped();
  doc["engines"]["vllm-0.4"] = {{"like", "vllm-0.5"}, {"label", "vLLM 0.4"}};
  doc["engines"]["vllm-0.4"]["layer_overhead_us"] = {
      {"value", 7}, {"source", "test"}, {"as_of", "2026-12-05"}};
  const ThroughputConstants k = parse_throughput_constants(doc, "t");
  Engine expected = k.engines.at("vllm-0.5");  // vllm with its Hopper int4 GEMM
  expected.layer_overhead_s = 7e-6;
  same_figures(k.engines.at("vllm-0.4"), expected);
  CHECK(k.engines.at("vllm-0.4").int4_gemm_hopper < k.engines.at("vllm").int4_gemm_hopper);
  // The shipped chain: llama.cpp-cublas takes llama.cpp-2024's per-layer cost, not
  // llama.cpp's, and its own dequantizing prompt path.
  const ThroughputConstants shipped = parse_throughput_constants(engine_shipped(), "t");
  REQUIRE(engine_shipped()["engines"]["llama.cpp-cublas"]["like"] == "llama.cpp-2024");
  CHECK(shipped.engines.at("llama.cpp-cublas").layer_overhead_s ==
        shipped.engines.at("llama.cpp-2024").layer_overhead_s);
  CHECK(shipped.engines.at("llama.cpp-cublas").layer_overhead_s >
        shipped.engines.at("llama.cpp").layer_overhead_s);
  CHECK(shipped.engines.at("llama.cpp-cublas").dequant_above > 0);
  CHECK(shipped.engines.at("llama.cpp-2024").dequant_above == 0);
}

TEST_CASE("the schema takes a full engine entry or a 'like' with a label, and the loader agrees") {
  const auto schema = nlohmann::json::parse(embedded_text("data/schema/throughput.schema.json"));
  auto like = engine_shipped(), bare = engine_shipped();
  like["engines"]["vllm-0.4"] = {{"like", "vllm"}, {"label", "vLLM 0.4"}};
  bare["engines"]["vllm-0.4"] = {{"label", "vLLM 0.4"}};  // neither its figures nor a like
  CHECK(check_schema(schema, like).empty());
  CHECK_NOTHROW(parse_throughput_constants(like, "t"));
  CHECK_FALSE(check_schema(schema, bare).empty());
  CHECK_THROWS_AS(parse_throughput_constants(bare, "t"), Error);
}
