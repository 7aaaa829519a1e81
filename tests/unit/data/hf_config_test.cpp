// --model-config: each real config.json fixture (tests/fixtures/hf_configs, SOURCES.md) read
// into the shape of the preset it stands for, and the same estimate once the figures a
// config cannot state (published parameter counts, the model card's context) are the
// preset's.
#include "gpusel/data/hf_config.hpp"

#include <catch2/catch.hpp>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_source.hpp"
#include "gpusel/memory/estimator.hpp"
#include "hf_fixture_pairs.hpp"

using namespace gpusel;

namespace {

const std::vector<ModelArch>& presets() {
  static const auto models = parse_models(
      parse_located(embedded_text("data/models.json"), "models").doc, "data/models.json");
  return models;
}

std::string hf_fixture(const std::string& name) {
  return std::string(GPUSEL_FIXTURES) + "/hf_configs/" + name + ".json";
}

void check_same_shape(const ModelArch& c, const ModelArch& p) {
  CHECK(c.layers == p.layers);
  CHECK(c.hidden == p.hidden);
  CHECK(c.heads == p.heads);
  CHECK(c.kv_heads == p.kv_heads);
  CHECK(c.head_dim == p.head_dim);
  CHECK(c.intermediate == p.intermediate);
  CHECK(c.vocab == p.vocab);
  CHECK(c.tied_embeddings == p.tied_embeddings);
  CHECK(c.mlp == p.mlp);
  CHECK(c.norm == p.norm);
  CHECK(c.qkv_bias == p.qkv_bias);
  CHECK(c.sliding_window == p.sliding_window);
  CHECK(c.layer_pattern == p.layer_pattern);
  REQUIRE(bool(c.moe) == bool(p.moe));
  if (c.moe) {
    CHECK(c.moe->experts == p.moe->experts);
    CHECK(c.moe->active == p.moe->active);
    CHECK(c.moe->shared_experts == p.moe->shared_experts);
    CHECK(c.moe->expert_intermediate == p.moe->expert_intermediate);
    CHECK(c.moe->dense_layers == p.moe->dense_layers);
  }
  REQUIRE(bool(c.mla) == bool(p.mla));
  if (c.mla) {
    CHECK(c.mla->kv_lora_rank == p.mla->kv_lora_rank);
    CHECK(c.mla->qk_rope_head_dim == p.mla->qk_rope_head_dim);
    CHECK(c.mla->q_lora_rank == p.mla->q_lora_rank);
  }
  REQUIRE(bool(c.linear_attention) == bool(p.linear_attention));
  if (c.linear_attention) {
    CHECK(c.linear_attention->num_key_heads == p.linear_attention->num_key_heads);
    CHECK(c.linear_attention->key_head_dim == p.linear_attention->key_head_dim);
    CHECK(c.linear_attention->num_value_heads == p.linear_attention->num_value_heads);
    CHECK(c.linear_attention->value_head_dim == p.linear_attention->value_head_dim);
    CHECK(c.linear_attention->conv_kernel == p.linear_attention->conv_kernel);
  }
}

Workload on(const ModelArch& m, Mode mode) {
  Workload w;
  w.model = m;
  w.model_from_preset = true;
  w.mode = mode;
  w.seq_len = 4096;
  w.allow_long_context = true;
  return w;
}

}  // namespace

TEST_CASE("option --model-config reads each fixture into its preset's shape and estimate") {
  for (const auto& [file, id] : test_hf::kFixturePresets) {
    INFO(file);
    ModelArch c = read_hf_config(hf_fixture(file));
    const ModelArch& p = require_model(presets(), id);
    check_same_shape(c, p);
    // The shape's own count is close to the published one (gpt-oss: attention sinks and
    // MXFP4 scales aside; DeepSeek: the MTP layer is not in either shape).
    CHECK(c.params == Approx(p.params).epsilon(0.03));
    // What a config cannot say comes from the model card: with those, the same estimate.
    c.params = p.params, c.active_params = p.active_params, c.max_context = p.max_context;
    c.vision_params = p.vision_params;
    for (Mode mode : {Mode::inference, Mode::lora, Mode::full}) {
      CHECK(estimate(on(c, mode)).total_bytes == estimate(on(p, mode)).total_bytes);
    }
  }
}

TEST_CASE("a Gemma 3 multimodal config fills its text_config from Gemma3TextConfig's defaults") {
  // Shaped like google/gemma-3-27b-it's config.json: the text_config lists only what differs
  // from the class defaults (vocab 262208, head_dim 256 are defaults; 128 here is not).
  const auto config = nlohmann::json::parse(R"({
    "model_type": "gemma3",
    "text_config": {"model_type": "gemma3_text", "hidden_size": 5376, "intermediate_size": 21504,
                    "num_hidden_layers": 62, "num_attention_heads": 32, "num_key_value_heads": 16,
                    "head_dim": 128, "sliding_window": 1024, "query_pre_attn_scalar": 168},
    "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 1152,
                      "image_size": 896, "intermediate_size": 4304, "num_hidden_layers": 27,
                      "num_attention_heads": 16, "patch_size": 14}})");
  const ModelArch c = model_from_hf_config(config, "gemma-3-27b-it/config.json");
  const ModelArch& p = require_model(presets(), "gemma-3-27b");
  check_same_shape(c, p);
  CHECK(c.id == "gemma-3-27b-it");
  CHECK(*c.vision_params == Approx(*p.vision_params).epsilon(1e-3));  // SigLIP + projector
  CHECK(c.params == Approx(p.params).epsilon(0.01));
}

TEST_CASE("Llama 4: chunked RoPE layers, NoPE global layers, MoE every step-th layer") {
  const auto config = nlohmann::json::parse(R"({"model_type": "llama4",
    "text_config": {"num_local_experts": 128, "interleave_moe_layer_step": 2,
                    "max_position_embeddings": 1048576}})");
  const ModelArch c = model_from_hf_config(config, "Llama-4-Maverick/config.json");
  check_same_shape(c, require_model(presets(), "llama-4-maverick-17b-128e"));
}

TEST_CASE("glm4_moe: the field names of Glm4MoeConfig give GLM-4.5's shape") {
  // No verbatim GLM-4.5 config.json was found (SOURCES.md); these are the preset's figures
  // under transformers' Glm4MoeConfig names, so this checks the mapping, not the data.
  const auto config = nlohmann::json::parse(R"({"model_type": "glm4_moe",
    "num_hidden_layers": 92, "hidden_size": 5120, "num_attention_heads": 96,
    "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 12288,
    "vocab_size": 151552, "max_position_embeddings": 131072, "attention_bias": true,
    "tie_word_embeddings": false, "hidden_act": "silu", "n_routed_experts": 160,
    "n_shared_experts": 1, "num_experts_per_tok": 8, "moe_intermediate_size": 1536,
    "first_k_dense_replace": 3, "num_nextn_predict_layers": 1})");
  check_same_shape(model_from_hf_config(config, "GLM-4.5/config.json"),
                   require_model(presets(), "glm-4.5"));
}

TEST_CASE("a DeepSeek config with more dense layers than layers is refused") {
  auto config = nlohmann::json::parse(R"({"model_type": "glm4_moe",
    "num_hidden_layers": 4, "hidden_size": 512, "num_attention_heads": 8,
    "num_key_value_heads": 8, "head_dim": 64, "intermediate_size": 1024,
    "vocab_size": 1000, "max_position_embeddings": 4096, "attention_bias": true,
    "tie_word_embeddings": false, "hidden_act": "silu", "n_routed_experts": 8,
    "n_shared_experts": 1, "num_experts_per_tok": 2, "moe_intermediate_size": 256,
    "first_k_dense_replace": 5})");
  CHECK_THROWS_WITH(model_from_hf_config(config, "c.json"),
                    Catch::Contains("c.json: first_k_dense_replace exceeds num_hidden_layers"));
  config["first_k_dense_replace"] = 1;
  CHECK(model_from_hf_config(config, "c.json").moe->dense_layers == 1);
}

TEST_CASE("option --model-config errors name the file and the field, or list what is supported") {
  CHECK_THROWS_WITH(
      model_from_hf_config(nlohmann::json::parse(R"({"model_type": "bert"})"), "b.json"),
      Catch::Contains("b.json: model_type 'bert' is not supported") &&
          Catch::Contains("qwen3_next") && Catch::Contains("gpt_oss"));
  CHECK_THROWS_WITH(
      model_from_hf_config(nlohmann::json::parse(R"({"model_type": "llama", "hidden_size": 64})"),
                           "l.json"),
      Catch::Contains("l.json: missing field 'num_hidden_layers' (model_type llama)"));
  CHECK_THROWS_WITH(model_from_hf_config(nlohmann::json::parse(R"({"hidden_size": 64})"), "x.json"),
                    Catch::Contains("x.json: missing field 'model_type'"));
  CHECK_THROWS_AS(read_hf_config(hf_fixture("does-not-exist")), Error);
  try {
    model_from_hf_config(nlohmann::json::parse(R"({"model_type": "qwen3_next"})"), "n.json");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::data);
  }
}

TEST_CASE("a config file's name is input data: its control characters never reach the model id") {
  const std::string text = read_file(hf_fixture("Llama-3.1-8B"));
  const ModelArch m = hf_config_from_text(text, "/tmp/x\nfits: everything fits.json");
  CHECK(m.id.find('\n') == std::string::npos);
  CHECK(m.id == "x\\nfits: everything fits");
  const ModelArch dir = hf_config_from_text(text, "/tmp/a\x1b[31mred/config.json");
  CHECK(dir.id.find('\x1b') == std::string::npos);
}
