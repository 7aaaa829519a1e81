#pragma once
// Reading one field of a parsed data record, with messages that say which record and which
// field: shared by the catalog, cloud and model loaders. Not a public header.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "gpusel/base/error.hpp"

namespace gpusel::detail {

// "origin: gpus[3] (rtx-4090)": where a record sits, for messages a user can act on.
inline std::string record_at(const std::string& origin, const char* array, std::size_t index,
                             const nlohmann::json& rec) {
  std::string s = origin + ": " + array + "[" + std::to_string(index) + "]";
  if (rec.is_object() && rec.contains("id") && rec["id"].is_string())
    s += " (" + rec["id"].get<std::string>() + ")";
  return s;
}

// The field as a T; absent -> "missing field", present but not a T -> "wrong type".
template <typename T>
T required(const nlohmann::json& rec, const char* key, const std::string& at) {
  if (!rec.contains(key)) throw data_error(at + ": missing field '" + key + "'");
  try {
    return rec.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw data_error(at + ": field '" + key + "' has the wrong type");
  }
}

// The field as a T, or nullopt when it is absent or null.
template <typename T>
std::optional<T> present(const nlohmann::json& rec, const char* key, const std::string& at) {
  if (!rec.contains(key) || rec[key].is_null()) return std::nullopt;
  return required<T>(rec, key, at);
}

}  // namespace gpusel::detail
