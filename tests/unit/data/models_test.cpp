#include "gpusel/memory/param_count.hpp"
#include "gpusel/data/models.hpp"

#include <catch2/catch.hpp>

#include "estimator_fixtures.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/json/json_source.hpp"

using namespace gpusel;

TEST_CASE("parse_param_count accepts the documented forms") {
  struct Case {
    const char* text;
    double total, active;
  };
  const Case cases[] = {{"7B", 7e9, 7e9},          {"7b", 7e9, 7e9},      {"1.5B", 1.5e9, 1.5e9},
                        {"350M", 3.5e8, 3.5e8},    {"0.5T", 5e11, 5e11},  {"7e9", 7e9, 7e9},
                        {"7000000000", 7e9, 7e9},  {" 13B ", 13e9, 13e9}, {"30B-A3B", 30e9, 3e9},
                        {"235b-a22b", 235e9, 22e9}};
  for (const auto& c : cases) {
    INFO(c.text);
    const ParamCount p = parse_param_count(c.text);
    CHECK(p.total == Approx(c.total));
    CHECK(p.active == Approx(c.active));
  }
}

TEST_CASE("NxM mixtures replicate the MLP of an M-sized dense model, two experts active") {
  const ParamCount p = parse_param_count("8x7B");
  // Mixtral 8x7B: 46.7B total, 12.9B active (a 7.24B Mistral backbone with a wide MLP);
  // a nominal "7B" of typical shape lands within 15 %.
  CHECK(p.total == Approx(46.7e9).epsilon(0.15));
  CHECK(p.active == Approx(12.9e9).epsilon(0.15));
  CHECK(p.active < p.total);
}

TEST_CASE("parse_param_count rejects everything else, quoting the input and the forms") {
  for (const char* bad : {"7Q", "-7B", "", "1e400B", "nanB", "0B", "inf", "7", "B", "+7B",
                          "30B-A40B", "1x7B", "x7B", "7B7", "0x10", "5e3", "   "}) {
    INFO("'" << bad << "'");
    try {
      parse_param_count(bad);
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.code() == ExitCode::usage);
      CHECK(std::string(e.what()).find("'" + std::string(bad) + "'") != std::string::npos);
      CHECK(std::string(e.what()).find("30B-A3B") != std::string::npos);
    }
  }
}

TEST_CASE("arch_params counts Llama-2-7B's published 6,738,415,616 parameters from its shape") {
  ModelArch m = test_models::llama2_7b();
  m.params = 0;  // force the shape count
  const ArchParams p = arch_params(m);
  CHECK(p.total == 6738415616.0);
  CHECK(p.embedding == 32000.0 * 4096);
  CHECK(p.lm_head == 32000.0 * 4096);
  CHECK(p.linear == 32.0 * (4 * 4096.0 * 4096 + 3 * 4096.0 * 11008));
}

TEST_CASE("arch_params counts a mixture's total and active experts (Mixtral 8x7B)") {
  ModelArch m = test_models::llama2_7b();
  m.params = 0, m.kv_heads = 8, m.intermediate = 14336;
  m.moe = MoeSpec{8, 2, 0, 14336, 0};
  const ArchParams p = arch_params(m);
  CHECK(p.total / 1e9 == Approx(46.70).epsilon(0.002));
  CHECK(p.active / 1e9 == Approx(12.88).epsilon(0.002));
}

TEST_CASE("typical_arch gives a Llama-3-style shape whose size matches the count") {
  const ModelArch m = typical_arch({8.03e9, 8.03e9});  // Llama 3.1 8B's own shape
  CHECK(m.hidden == 4096);
  CHECK(m.layers == 32);
  CHECK(m.intermediate == 14336);
  CHECK(m.kv_heads == 8);
  CHECK(m.vocab == 128256);
  CHECK(m.notes.find("Llama-3-style") != std::string::npos);
  for (double p : {1e9, 3e9, 8e9, 13e9, 34e9, 70e9, 405e9}) {
    ModelArch t = typical_arch({p, p});
    t.params = 0;
    INFO(p);
    CHECK(arch_params(t).total == Approx(p).epsilon(0.12));
  }
  // Every bare count gets a valid grouped-query layout.
  for (double p = 1e8; p < 2e12; p *= 1.37) {
    const ModelArch t = typical_arch({p, p});
    INFO(p);
    CHECK(t.heads % t.kv_heads == 0);
    CHECK(t.heads * t.head_dim == t.hidden);
  }
}

namespace {

nlohmann::json one_record() {
  return nlohmann::json::parse(R"({"schema_version": 1, "models": [{
    "id": "m", "name": "M", "kind": "decoder", "params": 1e9, "layers": 2, "hidden": 64,
    "heads": 4, "kv_heads": 2, "head_dim": 16, "intermediate": 128, "vocab": 100,
    "tied_embeddings": true, "mlp": "swiglu", "norm": "rmsnorm", "max_context": 512,
    "source": "https://example.org", "as_of": "2026-12-02"}]})");
}

}  // namespace

TEST_CASE("parse_models reads records and names the bad one") {
  auto doc = one_record();
  const auto models = parse_models(doc, "x.json");
  REQUIRE(models.size() == 1);
  CHECK(models[0].kv_heads == 2);
  CHECK(models[0].tied_embeddings);
  doc["models"][0].erase("hidden");
  CHECK_THROWS_WITH(parse_models(doc, "x.json"),
                    Catch::Contains("models[0] (m)") && Catch::Contains("hidden"));
  doc = one_record();
  doc["models"].push_back(doc["models"][0]);
  CHECK_THROWS_WITH(parse_models(doc, "x.json"), Catch::Contains("duplicate"));
  doc = one_record();
  doc["models"][0]["kv_heads"] = 8;
  CHECK_THROWS_WITH(parse_models(doc, "x.json"), Catch::Contains("kv_heads"));
}

TEST_CASE("the shipped presets parse, and their published sizes match their shapes") {
  const auto doc = parse_located(embedded_text("data/models.json"), "models").doc;
  const auto models = parse_models(doc, "data/models.json");
  CHECK(models.size() >= 25);
  for (auto m : models) {
    if (m.kind != "decoder") continue;
    INFO(m.id);
    const double published = m.params;
    m.params = 0;
    CHECK(arch_params(m).total == Approx(published).epsilon(0.06));
  }
  try {
    require_model(models, "llama-3.1-8");
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::usage);
    CHECK(std::string(e.what()).find("llama-3.1-8b") != std::string::npos);
  }
}
