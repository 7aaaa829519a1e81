#pragma once
// Shared between hf_config.cpp and hf_config_layers.cpp; not a public header.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "gpusel/data/models.hpp"

namespace gpusel::hf {

// One config object being read: the file and model_type for messages, and the key prefix
// ("text_config.") of a nested decoder config.
struct Cfg {
  const nlohmann::json& j;
  const std::string& path;
  std::string type, scope;

  bool has(const char* key) const;  // present and not null
  [[noreturn]] void fail(const std::string& what) const;
  // A required whole number from 1 to `max` (default 1e9: counts and lengths).
  int count(const char* key, long max = 1000000000) const;
  std::optional<int> maybe_count(const char* key, long max = 1000000000) const;
  std::optional<bool> flag(const char* key) const;
  std::string text(const char* key, const std::string& fallback) const;
};

// Which layers are full, sliding, chunked or linear, and the window.
void read_attention_kinds(ModelArch& m, const Cfg& c);
// Mixture of experts (absent: a dense MLP).
void read_moe(ModelArch& m, const Cfg& c);
// DeepSeek multi-head latent attention (kv_lora_rank present).
void read_mla(ModelArch& m, const Cfg& c);
// Qwen3-Next Gated DeltaNet layers.
void read_linear_attention(ModelArch& m, const Cfg& c);

// What a nested text_config leaves out because it equals the class default (transformers
// writes sub-configs as a diff): Gemma3TextConfig (configuration_gemma3.py @008f5c8c) and
// Llama4TextConfig (configuration_llama4.py @008e5743).
nlohmann::json gemma3_text_defaults();
nlohmann::json llama4_text_defaults();

}  // namespace gpusel::hf
