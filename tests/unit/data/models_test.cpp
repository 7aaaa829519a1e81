#include "gpusel/data/models.hpp"
#include "gpusel/memory/param_count.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

#include "estimator_fixtures.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_source.hpp"
#include "gpusel/memory/estimator.hpp"

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
  // Mixtral 8x7B: 46.7B total, 12.9B active (a 7.24B Mistral backbone); a nominal "7B"
  // of Mistral's shape lands within 5 %.
  CHECK(p.experts == 8);
  CHECK(p.total == Approx(46.7e9).epsilon(0.05));
  CHECK(p.active == Approx(12.9e9).epsilon(0.05));
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

TEST_CASE("typical_arch gives a Llama-3-style shape whose size is the count") {
  const ModelArch m = typical_arch({8.1e9, 8.1e9});  // Llama 3.1 8B's own shape
  CHECK(m.hidden == 4096);
  CHECK(m.layers == 32);
  CHECK(m.intermediate == 14336);
  CHECK(m.kv_heads == 8);
  CHECK(m.vocab == 128256);
  CHECK(m.notes.find("Llama 3") != std::string::npos);
  CHECK(m.name.find("decoder-only LLM") != std::string::npos);
  for (double p : {1e9, 3e9, 8e9, 13e9, 34e9, 70e9, 405e9}) {
    const ModelArch t = typical_arch({p, p});
    const ArchParams a = arch_params(t);
    INFO(p);
    CHECK(a.total == Approx(p));  // the remainder beyond the shape is linear weights
    CHECK(a.linear + a.embedding + a.lm_head <= a.total * 1.000001);
    CHECK(t.kv_heads <= t.heads);
  }
}

TEST_CASE("family and vocabulary hints shape a bare count") {
  CHECK(typical_arch({7e9, 7e9}, {"llama2", 0}).vocab == 32000);
  CHECK(typical_arch({7e9, 7e9}, {"llama2", 0}).kv_heads ==
        typical_arch({7e9, 7e9}, {"llama2", 0}).heads);
  CHECK(typical_arch({7e9, 7e9}, {"bloom", 0}).vocab == 250880);
  CHECK(typical_arch({7e9, 7e9}, {"bloom", 0}).mlp == "gelu");
  CHECK(typical_arch({7e9, 7e9}, {"gemma", 0}).head_dim == 256);
  CHECK(typical_arch({7e9, 7e9}, {"", 50000}).vocab == 50000);
  CHECK_THROWS_WITH(typical_arch({7e9, 7e9}, {"lama3", 0}), Catch::Contains("llama3"));
  // A floor at the embedding: a 128k vocabulary alone is about 33M parameters untied.
  CHECK_THROWS_WITH(typical_arch({2e7, 2e7}), Catch::Contains("below the smallest"));
  CHECK_NOTHROW(typical_arch({2e7, 2e7}, {"", 32000}));
}

TEST_CASE("MoE forms get a per-expert shape near the presets, LoRA on every expert") {
  const ModelArch mix = typical_arch(parse_param_count("8x7B"));
  REQUIRE(mix.moe);
  CHECK(mix.moe->experts == 8);
  CHECK(mix.moe->active == 2);
  CHECK(arch_params(mix).total / 1e9 == Approx(46.7).epsilon(0.05));  // Mixtral 8x7B
  const ModelArch q = typical_arch(parse_param_count("30B-A3B"));
  REQUIRE(q.moe);
  CHECK(q.moe->active == 8);
  CHECK(q.moe->experts > 64);
  CHECK(arch_params(q).total == Approx(30e9));
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
  // A count below its own shape's embedding and LM head, or an active count above the total:
  // a data error at load, not an estimate out of range later.
  doc = one_record();
  doc["models"][0]["params"] = 1;
  CHECK_THROWS_WITH(parse_models(doc, "x.json"), Catch::Contains("models[0] (m)") &&
                                                     Catch::Contains("smaller than the embedding"));
  doc = one_record();
  doc["models"][0]["active_params"] = double(doc["models"][0]["params"]) * 2;
  CHECK_THROWS_WITH(parse_models(doc, "x.json"), Catch::Contains("active_params"));
}

TEST_CASE("the shipped presets parse, and their published sizes match their shapes") {
  const auto doc = parse_located(embedded_text("data/models.json"), "models").doc;
  const auto models = parse_models(doc, "data/models.json");
  CHECK(models.size() >= 85);
  for (auto m : models) {
    if (m.kind != "decoder") continue;  // encoders' published counts include poolers, heads
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

namespace {

// One decoder record with the given fields replaced (null erases nothing: it sets null).
nlohmann::json with(const nlohmann::json& patch) {
  auto doc = one_record();
  for (auto& [k, v] : patch.items()) doc["models"][0][k] = v;
  return doc;
}

void check_rejected(const nlohmann::json& patch, const char* says) {
  INFO(patch.dump() << " -> " << says);
  CHECK_THROWS_WITH(parse_models(with(patch), "x.json"),
                    Catch::Contains("models[0] (m)") && Catch::Contains(says));
}

}  // namespace

TEST_CASE("layer_pattern cycles from layer 0 and counts each kind of layer") {
  ModelArch m = test_models::llama2_7b();
  CHECK(layer_mix(m).full == 32);         // no pattern: every layer full
  m.layers = 26, m.sliding_window = 512;  // Gemma 3 1B: five sliding, then one global
  m.layer_pattern.assign(5, LayerKind::sliding);
  m.layer_pattern.push_back(LayerKind::full);
  CHECK(layer_kind(m, 0) == LayerKind::sliding);
  CHECK(layer_kind(m, 5) == LayerKind::full);
  CHECK(layer_kind(m, 23) == LayerKind::full);
  CHECK(layer_kind(m, 25) == LayerKind::sliding);
  const LayerMix g = layer_mix(m);
  CHECK(g.sliding == 22);
  CHECK(g.full == 4);
  m.layers = 48;  // Qwen3-Next: full_attention_interval 4
  m.layer_pattern = {LayerKind::linear, LayerKind::linear, LayerKind::linear, LayerKind::full};
  CHECK(layer_mix(m).linear == 36);
  CHECK(layer_mix(m).full == 12);
}

TEST_CASE("parse_models reads the attention fields and names the record that breaks them") {
  const auto gemma =
      parse_models(with({{"sliding_window", 1024}, {"layer_pattern", {"sliding", "full"}}}), "x");
  CHECK(gemma[0].sliding_window == 1024);
  CHECK(gemma[0].layer_pattern.size() == 2);
  const auto hybrid = parse_models(with({{"layer_pattern", {"linear", "full"}},
                                         {"linear_attention",
                                          {{"kind", "gated-deltanet"},
                                           {"num_key_heads", 16},
                                           {"key_head_dim", 128},
                                           {"num_value_heads", 32},
                                           {"value_head_dim", 128},
                                           {"conv_kernel", 4}}}}),
                                   "x");
  REQUIRE(hybrid[0].linear_attention);
  CHECK(hybrid[0].linear_attention->num_value_heads == 32);
  CHECK(layer_mix(hybrid[0]).linear == 1);
  const auto mla = parse_models(
      with({{"mla", {{"kv_lora_rank", 512}, {"qk_rope_head_dim", 64}, {"q_lora_rank", 1536}}}}),
      "x");
  CHECK(mla[0].mla->q_lora_rank == 1536);
  check_rejected({{"sliding_window", 4096}}, "no sliding or chunked layer");
  check_rejected({{"layer_pattern", {"sliding", "full"}}}, "sliding_window is null");
  check_rejected({{"layer_pattern", {"local"}}}, "'local' is not one of");
  check_rejected({{"layer_pattern", nlohmann::json::array()}}, "must not be empty");
  check_rejected({{"layer_pattern", {"full", "full", "linear"}}}, "longer than layers");
  check_rejected({{"layer_pattern", {"linear", "full"}}}, "linear_attention is null");
  check_rejected({{"linear_attention",
                   {{"kind", "gated-deltanet"},
                    {"num_key_heads", 1},
                    {"key_head_dim", 1},
                    {"num_value_heads", 1},
                    {"value_head_dim", 1},
                    {"conv_kernel", 4}}}},
                 "no linear layer");
  check_rejected(
      {{"layer_pattern", {"linear", "full"}}, {"linear_attention", {{"kind", "mamba2"}}}},
      "'mamba2' is not one of");
  check_rejected({{"vision_params", 0}}, "vision_params must be positive");
  check_rejected({{"kind", "diffusion"}}, "'diffusion' is not one of");
}

TEST_CASE("arch_params counts query latents, linear-attention layers and a vision tower") {
  ModelArch m = test_models::llama2_7b();
  m.params = 0;
  const double base = arch_params(m).total;
  m.vision_params = 4e8;
  CHECK(arch_params(m).total == Approx(base + 4e8));
  CHECK(arch_params(m).linear == Approx(arch_params(test_models::llama2_7b()).linear));

  // DeepSeek-V3 (config.json): 61 layers, MLA with q_lora_rank 1536, 256+1 experts of
  // 2048, 3 dense layers of 18432. Published 671B total / 36.6B active (README_WEIGHTS).
  ModelArch ds = m;
  ds.vision_params.reset();
  ds.layers = 61, ds.hidden = 7168, ds.heads = 128, ds.kv_heads = 128, ds.head_dim = 128;
  ds.intermediate = 18432, ds.vocab = 129280;
  ds.moe = MoeSpec{256, 8, 1, 2048, 3};
  ds.mla = MlaSpec{512, 64, 1536};
  CHECK(arch_params(ds).total / 1e9 == Approx(671.0).epsilon(0.002));
  CHECK(arch_params(ds).active / 1e9 == Approx(37.55).epsilon(0.002));

  // Qwen3-Next-80B-A3B: 36 Gated DeltaNet layers and 12 full-attention layers.
  ModelArch qn = m;
  qn.vision_params.reset();
  qn.layers = 48, qn.hidden = 2048, qn.heads = 16, qn.kv_heads = 2, qn.head_dim = 256;
  qn.intermediate = 512, qn.vocab = 151936;
  qn.moe = MoeSpec{512, 10, 1, 512, 0};
  qn.layer_pattern = {LayerKind::linear, LayerKind::linear, LayerKind::linear, LayerKind::full};
  qn.linear_attention = LinearAttentionSpec{"gated-deltanet", 16, 128, 32, 128, 4};
  const double with_linear = arch_params(qn).total;
  CHECK(with_linear / 1e9 == Approx(80.0).epsilon(0.01));
  qn.linear_attention.reset();
  // 36 x (33.7M linear-attention projections - 18.9M softmax attention) = +0.53B
  CHECK((with_linear - arch_params(qn).total) / 1e9 == Approx(0.534).epsilon(0.01));
}

TEST_CASE("a CNN record carries its published size, stages and counted activations") {
  auto doc = nlohmann::json::parse(R"({"schema_version": 1, "models": [{
    "id": "resnet-50", "name": "ResNet-50", "family": "resnet", "kind": "cnn",
    "params": 25557032, "active_params": null, "classes": 1000,
    "cnn": {"image_size": 224, "gflops": 4.089, "saved_values_per_image": 21500000, "stages": [
      {"stride": 2, "channels": 64, "mid_channels": 64, "blocks": 1},
      {"stride": 4, "channels": 256, "mid_channels": 64, "blocks": 3}]},
    "source": "https://example.org", "as_of": "2026-12-03", "notes": ""}]})");
  const auto models = parse_models(doc, "x.json");
  REQUIRE(models[0].cnn);
  CHECK(models[0].cnn->stages.size() == 2);
  CHECK(models[0].cnn->stages[1].mid_channels == 64);
  CHECK(models[0].cnn->saved_values == 21500000.0);
  CHECK(models[0].vocab == 1000);
  CHECK(arch_params(models[0]).total == 25557032.0);
  CHECK(require_model(models, "resnet-50").cnn);  // estimated since issue 11
  // The recipe's optimizer: absent means the framework's; only sgd or adamw are read.
  CHECK(models[0].cnn->optimizer.empty());
  doc["models"][0]["cnn"]["optimizer"] = "sgd";
  CHECK(parse_models(doc, "x.json")[0].cnn->optimizer == "sgd");
  doc["models"][0]["cnn"]["optimizer"] = "lamb";
  CHECK_THROWS_WITH(parse_models(doc, "x.json"), Catch::Contains("cnn.optimizer"));
  doc["models"][0]["cnn"].erase("optimizer");
  doc["models"][0]["cnn"]["stages"][1].erase("blocks");
  CHECK_THROWS_WITH(parse_models(doc, "x.json"),
                    Catch::Contains("(resnet-50).cnn.stages[1]") && Catch::Contains("blocks"));
}

TEST_CASE("the shipped presets' attention patterns match their configs") {
  const auto doc = parse_located(embedded_text("data/models.json"), "models").doc;
  const auto models = parse_models(doc, "data/models.json");
  struct Case {
    const char* id;
    int full, sliding, chunked, linear;
  };
  const Case cases[] = {{"llama-3.1-8b", 32, 0, 0, 0},
                        {"mistral-7b-v0.1", 0, 32, 0, 0},
                        {"gemma-2-9b", 21, 21, 0, 0},
                        {"gemma-3-1b", 4, 22, 0, 0},
                        {"gemma-3-27b", 10, 52, 0, 0},
                        {"gpt-oss-120b", 18, 18, 0, 0},
                        {"llama-4-scout-17b-16e", 12, 0, 36, 0},
                        {"qwen3-next-80b-a3b", 12, 0, 0, 36},
                        {"deepseek-v3", 61, 0, 0, 0}};
  for (const auto& c : cases) {
    INFO(c.id);
    const LayerMix mix = layer_mix(require_model(models, c.id));
    CHECK(mix.full == c.full);
    CHECK(mix.sliding == c.sliding);
    CHECK(mix.chunked == c.chunked);
    CHECK(mix.linear == c.linear);
  }
  CHECK(require_model(models, "deepseek-v3").mla->kv_lora_rank +
            require_model(models, "deepseek-v3").mla->qk_rope_head_dim ==
        576);
}

TEST_CASE("the shipped CNN presets carry their published sizes") {
  const auto doc = parse_located(embedded_text("data/models.json"), "models").doc;
  const auto models = parse_models(doc, "data/models.json");
  struct Case {
    const char* id;
    double params, gflops;
    int image_size, last_channels;
  };
  // torchvision weights metadata; ultralytics yolov8.yaml summary comments.
  const Case cases[] = {{"resnet-50", 25557032, 4.089, 224, 2048},
                        {"resnet-101", 44549160, 7.801, 224, 2048},
                        {"yolov8n", 3157200, 8.9, 640, 256},
                        {"yolov8m", 25902640, 79.3, 640, 576},
                        {"yolov8x", 68229648, 258.5, 640, 640}};
  for (const auto& c : cases) {
    INFO(c.id);
    const auto it = std::find_if(models.begin(), models.end(),
                                 [&](const ModelArch& m) { return m.id == c.id; });
    REQUIRE(it != models.end());
    REQUIRE(it->cnn);
    CHECK(it->params == c.params);
    CHECK(it->cnn->gflops == c.gflops);
    CHECK(it->cnn->image_size == c.image_size);
    CHECK(it->cnn->stages.back().channels == c.last_channels);
    CHECK(it->cnn->stages.back().stride == 32);
  }
}

TEST_CASE("a bare count is named in B, T or M, never with an exponent") {
  CHECK_THAT(typical_arch({7e9, 7e9}).name, Catch::Contains("LLM of 7B "));
  CHECK_THAT(typical_arch({2000e9, 2000e9}).name, Catch::Contains("LLM of 2T "));
  CHECK_THAT(typical_arch({999.9e9, 999.9e9}).name, Catch::Contains("LLM of 1000B "));
  CHECK_THAT(typical_arch({0.5e9, 0.5e9}).name, Catch::Contains("LLM of 500M "));
}

TEST_CASE("a published count rounded below the shape's never leaves a part negative") {
  // Kimi K2's card says 1T; its routed experts alone count 1,014.7B from config.json.
  ModelArch m = require_model(gpusel::load_models(""), "kimi-k2");
  const double shape_experts = arch_params(m).experts;
  m.params = 1e12;
  const ArchParams a = arch_params(m);
  CHECK(a.total == 1e12);
  CHECK(a.experts < shape_experts);
  CHECK(a.experts <= a.linear);
  // The attention and dense layers keep their computed size; the experts give way.
  ModelArch shape = m;
  shape.params = 0, shape.active_params.reset();
  const ArchParams s = arch_params(shape);
  CHECK(a.linear - a.experts == Approx(s.linear - s.experts));
  for (const Precision p : {Precision::int4, Precision::int8}) {
    Workload w = on(m, Mode::inference);
    w.precision = p;
    for (const int cpu_moe : {0, kCpuMoeAll}) {
      w.cpu_moe = cpu_moe;
      const Estimate e = estimate(w);
      for (const auto& c : e.components) CHECK(c.bytes >= 0);
    }
  }
}
