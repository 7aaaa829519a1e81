// The Hugging Face config.json fixtures in tests/fixtures/hf (file stem) and the preset each
// one describes: one list for the loader's tests and the presets' shape tests.
#pragma once
#include <utility>

namespace gpusel::test_hf {

inline constexpr std::pair<const char*, const char*> kFixturePresets[] = {
    {"Llama-3.1-8B", "llama-3.1-8b"},
    {"Mistral-7B-v0.1", "mistral-7b-v0.1"},
    {"Mistral-Nemo-Base-2407", "mistral-nemo-12b"},
    {"Mixtral-8x22B-Instruct-v0.1", "mixtral-8x22b"},
    {"Qwen2.5-7B", "qwen2.5-7b"},
    {"Qwen3-8B", "qwen3-8b"},
    {"Qwen3-30B-A3B", "qwen3-30b-a3b"},
    {"Qwen3-Next-80B-A3B-Instruct", "qwen3-next-80b-a3b"},
    {"gemma-2-9b-it", "gemma-2-9b"},
    {"gemma-3-1b-it", "gemma-3-1b"},
    {"phi-4", "phi-4"},
    {"DeepSeek-V2-Lite", "deepseek-v2-lite"},
    {"DeepSeek-V3", "deepseek-v3"},
    {"gpt-oss-120b", "gpt-oss-120b"}};

}  // namespace gpusel::test_hf
