#include <catch2/catch.hpp>

#include <algorithm>

#include "gpusel/base/error.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/speed/throughput.hpp"
#include "serve_fixtures.hpp"

using namespace gpusel;
using serve_fixtures::gpu;

TEST_CASE("serving data: the engines and their sourced defaults", "[serve]") {
  const ServingData& d = default_serving_data();
  CHECK(d.engine("vllm").kv_block_tokens == 16);
  CHECK(d.engine("tensorrt-llm").kv_block_tokens == 32);
  CHECK(d.engine("vllm").memory_fraction == Approx(0.92));
  CHECK(d.engine("tensorrt-llm").memory_fraction == Approx(0.9));
  CHECK(d.engine("tensorrt-llm").reservation == KvReservation::whole_request);
  CHECK(d.engine("vllm").reservation == KvReservation::on_demand);
  CHECK(d.engine("sglang").policy == MemoryPolicy::reserved);
  CHECK(d.engine("llama.cpp").policy == MemoryPolicy::usable);
  CHECK(d.amortisation_years == 3);
}

TEST_CASE("serving data: engines by name, alias and case, unknown names are usage errors",
          "[serve]") {
  const ServingData& d = default_serving_data();
  CHECK(d.engine("TRTLLM").name == "tensorrt-llm");
  CHECK(d.engine("ollama").name == "llama.cpp");
  CHECK(d.engine("vLLM").name == "vllm");
  try {
    d.engine("vlm");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::usage);
    CHECK(std::string(e.what()).find("did you mean vllm") != std::string::npos);
  }
}

TEST_CASE("serving data: the engine a card gets", "[serve]") {
  const ServingData& d = default_serving_data();
  CHECK(d.engine_for(gpu("h100-sxm"), "")->name == "vllm");
  CHECK(d.engine_for(gpu("mi300x"), "")->name == "vllm");
  CHECK(d.engine_for(gpu("apple-m2-ultra"), "")->name == "llama.cpp");  // Metal
  CHECK(d.engine_for(gpu("mi300x"), "tensorrt-llm") == nullptr);        // CUDA only
  CHECK(d.engine_for(gpu("ascend-910b"), "") == nullptr);
}

TEST_CASE("serving data: vLLM's limits follow the card's memory, A100 excepted", "[serve]") {
  const ServingEngine& v = default_serving_data().engine("vllm");
  CHECK(v.limits_for(gpu("h100-sxm")).max_seqs == 1024);
  CHECK(v.limits_for(gpu("h100-sxm")).batched_tokens == 8192);
  CHECK(v.limits_for(gpu("a100-80gb-sxm")).max_seqs == 256);  // PR #17885
  CHECK(v.limits_for(gpu("rtx-4090")).batched_tokens == 2048);
  const ServingEngine& s = default_serving_data().engine("sglang");
  // (9.5 + 2/2) GiB for an 80 GB card in a 2-card group
  CHECK(s.reserved_bytes(gpu("h100-sxm"), 2) == Approx(10.5 * 1024 * 1024 * 1024));
}

TEST_CASE("serving data: every serving engine is one speed/ knows, by the same name", "[serve]") {
  const std::vector<std::string> speed = engine_names();
  for (const auto& [name, e] : default_serving_data().engines)
    CHECK(std::find(speed.begin(), speed.end(), name) != speed.end());
  auto doc = nlohmann::json::parse(embedded_text("data/serving.json"));
  doc["engines"]["tgi"] = doc["engines"]["vllm"];
  try {
    parse_serving_data(doc, "x.json");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::data);
    CHECK(std::string(e.what()).find("tgi") != std::string::npos);
  }
}

TEST_CASE("serving data: a document breaking the schema is a data error", "[serve]") {
  auto doc = nlohmann::json::parse(embedded_text("data/serving.json"));
  doc["engines"]["vllm"]["memory"]["fraction"]["value"] = 1.5;
  CHECK_THROWS_AS(parse_serving_data(doc, "x.json"), Error);
  doc = nlohmann::json::parse(embedded_text("data/serving.json"));
  doc["engines"]["vllm"]["kv_block_tokens"].erase("source");
  try {
    parse_serving_data(doc, "x.json");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::data);
    CHECK(std::string(e.what()).find("x.json") != std::string::npos);
  }
  doc = nlohmann::json::parse(embedded_text("data/serving.json"));
  doc["default_engine"]["value"] = "tgi";
  CHECK_THROWS_AS(parse_serving_data(doc, "x.json"), Error);
}
