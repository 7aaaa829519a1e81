#pragma once
// Any model: a Hugging Face config.json read into the architecture the estimator uses
// (--model-config PATH). Each supported model_type maps its own field names; the parameter
// count is computed from the shape, as `arch_params` does for presets.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "gpusel/data/models.hpp"

namespace gpusel {

// The model_type values read: llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe,
// qwen3_next, gemma, gemma2, gemma3, gemma3_text, phi3, deepseek_v2, deepseek_v3, kimi_k2,
// gpt_oss, glm4_moe, llama4, llama4_text.
std::vector<std::string> hf_model_types();

// Error(data) naming `path` and the field for a missing or mistyped field, a model_type not
// in hf_model_types() (listing them), or a shape the estimator cannot represent.
ModelArch model_from_hf_config(const nlohmann::json& config, const std::string& path);

// Reads and parses the file (JSON errors as path:line:col), then model_from_hf_config.
ModelArch read_hf_config(const std::string& path);
// The same from the file's text (read_hf_config reads the file bounded, then calls this).
ModelArch hf_config_from_text(std::string_view text, const std::string& path);

}  // namespace gpusel
