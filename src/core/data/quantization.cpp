#include "gpusel/data/quantization.hpp"

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/data/snapshot.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_source.hpp"
#include "json/json_fields.hpp"

namespace gpusel {
namespace {

using detail::required;
using nlohmann::json;

std::string entry_at(const std::string& origin, const char* list, std::size_t i, const json& e) {
  std::string at = origin + ": " + list + "[" + std::to_string(i) + "]";
  if (e.is_object() && e.contains("name") && e["name"].is_string())
    at += " (" + e["name"].get<std::string>() + ")";
  return at;
}

double positive(const json& e, const char* key, const std::string& at) {
  const double v = required<double>(e, key, at);
  if (!(v > 0)) throw data_error(at + ": field '" + key + "' must be positive");
  return v;
}

GgufType parse_gguf(const json& e, const std::string& at) {
  GgufType t;
  t.name = to_lower(required<std::string>(e, "name", at));
  t.bits_per_weight = positive(e, "bits_per_weight", at);
  t.klass = required<std::string>(e, "class", at);
  if (t.klass != "int8" && t.klass != "int4")
    throw data_error(at + ": class '" + t.klass + "' is not one of: int8, int4");
  t.basis = required<std::string>(e, "basis", at);
  t.source = required<std::string>(e, "source", at);
  t.as_of = required<std::string>(e, "as_of", at);
  return t;
}

KvCacheType parse_kv(const json& e, const std::string& at) {
  KvCacheType t;
  t.name = to_lower(required<std::string>(e, "name", at));
  t.bytes_per_value = positive(e, "bytes_per_value", at);
  t.basis = required<std::string>(e, "basis", at);
  t.source = required<std::string>(e, "source", at);
  t.as_of = required<std::string>(e, "as_of", at);
  return t;
}

const json& list_of(const json& doc, const char* key, const std::string& origin) {
  if (!doc.contains(key) || !doc[key].is_array())
    throw data_error(origin + ": expected a \"" + std::string(key) + "\" array");
  return doc[key];
}

}  // namespace

Quantizations parse_quantizations(const json& doc, const std::string& origin) {
  if (!doc.is_object()) throw data_error(origin + ": expected an object");
  Quantizations q;
  q.reviewed = required<std::string>(doc, "reviewed", origin);
  const json& gguf = list_of(doc, "gguf", origin);
  for (std::size_t i = 0; i < gguf.size(); ++i)
    q.gguf.push_back(parse_gguf(gguf[i], entry_at(origin, "gguf", i, gguf[i])));
  const json& kv = list_of(doc, "kv_cache", origin);
  for (std::size_t i = 0; i < kv.size(); ++i)
    q.kv_cache.push_back(parse_kv(kv[i], entry_at(origin, "kv_cache", i, kv[i])));
  return q;
}

const Quantizations& default_quantizations() {
  static const Quantizations q = [] {
    if (auto shipped = snapshot_quantizations(shipped_snapshot())) return std::move(*shipped);
    const std::string origin = "data/quantizations.json";
    return parse_quantizations(embedded_json(origin), origin);
  }();
  return q;
}

const GgufType* find_gguf(std::string_view name) {
  const std::string key = to_lower(name);
  for (const auto& t : default_quantizations().gguf)
    if (t.name == key) return &t;
  return nullptr;
}

const KvCacheType* find_kv_cache_type(std::string_view name) {
  const std::string key = to_lower(name);
  for (const auto& t : default_quantizations().kv_cache)
    if (t.name == key) return &t;
  return nullptr;
}

}  // namespace gpusel
