// The Hugging Face config.json fixtures (tests/fixtures/hf_configs, sources in SOURCES.md)
// against the presets they stand for: a later --model-config reader is tested on them, so a
// fixture and its preset must describe the same shape.
#include <catch2/catch.hpp>
#include <fstream>

#include "gpusel/data/models.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_source.hpp"
#include "hf_fixture_pairs.hpp"

using namespace gpusel;

namespace {

using nlohmann::json;

// The kind HF gives layer i: layer_types when listed, else the model type's own rule.
LayerKind hf_layer_kind(const json& c, int i) {
  if (c.contains("layer_types"))
    return c["layer_types"][i] == "sliding_attention" ? LayerKind::sliding : LayerKind::full;
  if (c.contains("sliding_window_pattern"))  // Gemma 3: every p-th layer is global
    return (i + 1) % c["sliding_window_pattern"].get<int>() ? LayerKind::sliding : LayerKind::full;
  if (c.contains("full_attention_interval"))  // Qwen3-Next: the rest are Gated DeltaNet
    return (i + 1) % c["full_attention_interval"].get<int>() ? LayerKind::linear : LayerKind::full;
  if (c["model_type"] == "gemma2") return i % 2 ? LayerKind::full : LayerKind::sliding;
  const bool windowed = c.value("sliding_window", json()).is_number() &&
                        c.value("use_sliding_window", true);  // Qwen2 lists but disables it
  return windowed ? LayerKind::sliding : LayerKind::full;
}

void check_fixture_shape(const json& c, const ModelArch& m) {
  CHECK(c["num_hidden_layers"] == m.layers);
  CHECK(c["hidden_size"] == m.hidden);
  CHECK(c["num_attention_heads"] == m.heads);
  CHECK(c["num_key_value_heads"] == m.kv_heads);
  CHECK(c["vocab_size"] == m.vocab);
  if (c.contains("head_dim")) CHECK(c["head_dim"] == m.head_dim);
  if (c.contains("qk_nope_head_dim")) CHECK(c["qk_nope_head_dim"] == m.head_dim);
  if (c.contains("tie_word_embeddings")) CHECK(c["tie_word_embeddings"] == m.tied_embeddings);
  for (int i = 0; i < m.layers; ++i) CHECK(hf_layer_kind(c, i) == layer_kind(m, i));
  if (m.sliding_window) CHECK(c["sliding_window"] == *m.sliding_window);
  if (c.contains("kv_lora_rank")) {
    REQUIRE(m.mla);
    CHECK(c["kv_lora_rank"] == m.mla->kv_lora_rank);
    CHECK(c["qk_rope_head_dim"] == m.mla->qk_rope_head_dim);
    CHECK(c.value("q_lora_rank", json()).is_null() == (m.mla->q_lora_rank == 0));
  }
  if (c.contains("linear_num_value_heads")) {
    REQUIRE(m.linear_attention);
    CHECK(c["linear_num_key_heads"] == m.linear_attention->num_key_heads);
    CHECK(c["linear_key_head_dim"] == m.linear_attention->key_head_dim);
    CHECK(c["linear_num_value_heads"] == m.linear_attention->num_value_heads);
    CHECK(c["linear_value_head_dim"] == m.linear_attention->value_head_dim);
    CHECK(c["linear_conv_kernel_dim"] == m.linear_attention->conv_kernel);
  }
}

void check_fixture_mlp(const json& c, const ModelArch& m) {
  const json experts = c.contains("num_local_experts")  ? c["num_local_experts"]
                       : c.contains("n_routed_experts") ? c["n_routed_experts"]
                                                        : c.value("num_experts", json());
  if (experts.is_null()) {
    CHECK(!m.moe);
    CHECK(c["intermediate_size"] == m.intermediate);
    return;
  }
  REQUIRE(m.moe);
  CHECK(experts == m.moe->experts);
  CHECK(c["num_experts_per_tok"] == m.moe->active);
  CHECK(c.value("moe_intermediate_size", c["intermediate_size"]) == m.moe->expert_intermediate);
  CHECK(c.value("first_k_dense_replace", 0) == m.moe->dense_layers);
  const int shared = c.contains("shared_expert_intermediate_size") ? 1 : 0;
  CHECK(c.value("n_shared_experts", shared) == m.moe->shared_experts);
}

}  // namespace

TEST_CASE("each Hugging Face config fixture has the shape of the preset it stands for") {
  const auto doc = parse_located(embedded_text("data/models.json"), "models").doc;
  const auto models = parse_models(doc, "data/models.json");
  for (const auto& [file, id] : test_hf::kFixturePresets) {
    INFO(file);
    std::ifstream in(std::string(GPUSEL_FIXTURES) + "/hf_configs/" + file + ".json");
    REQUIRE(in);
    const json c = json::parse(in);
    const ModelArch& m = require_model(models, id);
    check_fixture_shape(c, m);
    check_fixture_mlp(c, m);
  }
}
