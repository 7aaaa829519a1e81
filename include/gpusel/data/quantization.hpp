#pragma once
// Storage formats known by name (data/quantizations.json): llama.cpp GGUF weight types with
// their real bits per weight, and KV-cache value types with their bytes per value.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace gpusel {

struct GgufType {
  std::string name;            // llama-quantize's name in lower case: q4_k_m
  double bits_per_weight = 0;  // whole model, block scales included
  std::string klass;           // int8 | int4: what rules and remedies treat it as
  std::string basis, source, as_of;
  bool operator==(const GgufType&) const = default;
};

struct KvCacheType {
  std::string name;  // fp16 bf16 fp8 int8 q8_0 q4_0
  double bytes_per_value = 0;
  std::string basis, source, as_of;
  bool operator==(const KvCacheType&) const = default;
};

struct Quantizations {
  std::string reviewed;
  std::vector<GgufType> gguf;
  std::vector<KvCacheType> kv_cache;
  bool operator==(const Quantizations&) const = default;
};

// Parses the document; Error(data) naming origin and entry on a missing or bad field.
Quantizations parse_quantizations(const nlohmann::json& doc, const std::string& origin);

// The embedded data/quantizations.json, parsed once.
const Quantizations& default_quantizations();

// Case-insensitive lookups in the embedded table; nullptr when the name is not there.
const GgufType* find_gguf(std::string_view name);
const KvCacheType* find_kv_cache_type(std::string_view name);

}  // namespace gpusel
