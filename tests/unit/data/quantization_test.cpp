#include "gpusel/data/quantization.hpp"

#include <catch2/catch.hpp>

#include "estimator_fixtures.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_schema.hpp"
#include "gpusel/json/json_source.hpp"
#include "gpusel/memory/estimator.hpp"

using namespace gpusel;

TEST_CASE("GGUF bits per weight follow llama-quantize's Llama-3-8B sizes") {
  // 4.58 GiB x 2^30 x 8 / 8.03e9 parameters.
  REQUIRE(find_gguf("Q4_K_M"));
  CHECK(find_gguf("q4_k_m")->bits_per_weight ==
        Approx(4.58 * 1073741824.0 * 8 / 8.03e9).epsilon(1e-3));
  CHECK(find_gguf("q8_0")->bits_per_weight == Approx(8.515));
  CHECK(find_gguf("q8_0")->klass == "int8");
  CHECK(find_gguf("q6_k")->klass == "int8");
  CHECK(find_gguf("q5_k_m")->klass == "int4");
  CHECK(find_gguf("iq4_xs")->bits_per_weight == 4.25);
  CHECK(find_gguf("q4_k_q") == nullptr);
  // Every file figure is at least its block layout's rate (block_q8_0: 34 B per 32).
  CHECK(find_gguf("q8_0")->bits_per_weight >= 34.0 * 8 / 32);
  CHECK(find_gguf("q4_0")->bits_per_weight >= 18.0 * 8 / 32);
  CHECK(find_gguf("q6_k")->bits_per_weight >= 210.0 * 8 / 256);
}

TEST_CASE("KV cache types carry their block scales") {
  CHECK(find_kv_cache_type("q8_0")->bytes_per_value == 34.0 / 32);
  CHECK(find_kv_cache_type("q4_0")->bytes_per_value == 18.0 / 32);
  CHECK(find_kv_cache_type("fp8")->bytes_per_value == 1);
}

TEST_CASE("data/quantizations.json passes its schema") {
  const auto schema =
      parse_located(embedded_text("data/schema/quantizations.schema.json"), "s").doc;
  const auto doc = parse_located(embedded_text("data/quantizations.json"), "q").doc;
  CHECK(check_schema(schema, doc).empty());
}

TEST_CASE("a bad entry names the file and the entry") {
  const auto doc = nlohmann::json::parse(
      R"({"reviewed": "2026-12-03", "gguf": [{"name": "q4_k_m", "bits_per_weight": -1}], "kv_cache": []})");
  CHECK_THROWS_WITH(
      parse_quantizations(doc, "q.json"),
      Catch::Contains("q.json: gguf[0] (q4_k_m)") && Catch::Contains("bits_per_weight"));
}

TEST_CASE("option --precision q4_k_m stores every parameter at its bits per weight") {
  Workload w = test_models::on(test_models::llama31_8b(), Mode::inference);
  set_precision(w, "q4_k_m");
  CHECK(w.precision == Precision::int4);
  CHECK(precision_label(w) == "q4_k_m");
  const Estimate e = estimate(w);
  CHECK(e.bytes_of("weights") == Approx(8.03e9 * find_gguf("q4_k_m")->bits_per_weight / 8));
  CHECK(e.bytes_of("quantization_state") == 0);  // the scales are in the blocks
  set_precision(w, "q8_0");
  CHECK(w.precision == Precision::int8);
  CHECK(estimate(w).bytes_of("weights") > e.bytes_of("weights"));
  set_precision(w, "bf16");  // a plain precision clears the GGUF type
  CHECK(w.weight_format.empty());
  CHECK(estimate(w).bytes_of("weights") == Approx(2 * 8.03e9));
  CHECK_THROWS_WITH(set_precision(w, "q4_k"), Catch::Contains("or a GGUF type: q8_0"));
}

TEST_CASE("GGUF types serve inference only") {
  Workload w = test_models::on(test_models::llama31_8b(), Mode::qlora);
  set_precision(w, "q4_k_m");
  CHECK_THROWS_WITH(estimate(w), Catch::Contains("GGUF") && Catch::Contains("--mode inference"));
}
