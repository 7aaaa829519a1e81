#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include "gpusel/base/error.hpp"
#include "gpusel/json/json_source.hpp"
#include "json_schema_internal.hpp"

// Checks the schema itself, once per check_schema() call, so that a keyword this validator
// does not implement is an error even in branches no document reaches.
namespace gpusel::schema_detail {
namespace {

using json = nlohmann::json;

const std::set<std::string> kAnnotations = {"$schema",  "$id",      "title",  "description",
                                            "$comment", "examples", "default"};

void lint_subschemas(const json& root, const json& v, const std::string& where, bool named) {
  if (named ? !v.is_object() : !v.is_array() || v.empty())
    schema_error(where, named ? "must be an object of schemas" : "must be a non-empty array");
  for (auto& [k, sub] : v.items()) lint(root, sub, where + "/" + pointer_escape(k));
}

void lint_pattern(const json& v, const std::string& where) {
  if (!v.is_string()) schema_error(where, "must be a string");
  try {
    regex_for(v.get<std::string>());
  } catch (const std::regex_error& e) {
    schema_error(where, "invalid pattern " + v.dump() + ": " + e.what());
  }
}

void lint_value(const std::string& k, const json& v, const std::string& where) {
  static const std::set<std::string> kTypes = {"null",   "boolean", "object", "array",
                                               "number", "integer", "string"};
  static const std::set<std::string> kCounts = {"minLength", "maxLength", "minItems", "maxItems"};
  static const std::set<std::string> kBounds = {"minimum", "maximum", "exclusiveMinimum",
                                                "exclusiveMaximum"};
  if (k == "type") {
    for (auto& t : v.is_array() ? v : json::array({v}))
      if (!t.is_string() || !kTypes.count(t)) schema_error(where, "unknown type " + t.dump());
  } else if (k == "required") {
    if (!v.is_array() || !std::all_of(v.begin(), v.end(), [](auto& n) { return n.is_string(); }))
      schema_error(where, "must be an array of names");
  } else if (k == "enum") {
    if (!v.is_array() || v.empty()) schema_error(where, "must be a non-empty array");
  } else if (k == "uniqueItems") {
    if (!v.is_boolean()) schema_error(where, "must be true or false");
  } else if (k == "format") {
    if (v != "date" && v != "uri") schema_error(where, "unsupported format " + v.dump());
  } else if (k == "pattern") {
    lint_pattern(v, where);
  } else if (kCounts.count(k) && !v.is_number_unsigned()) {
    schema_error(where, "must be a non-negative integer");
  } else if (kBounds.count(k) && !v.is_number()) {
    schema_error(where, "must be a number");
  }
}

void lint_keyword(const json& root, const std::string& k, const json& v, const std::string& where) {
  static const std::set<std::string> kValueKeywords = {
      "type",      "required",         "enum",
      "const",     "minimum",          "maximum",
      "minLength", "maxLength",        "pattern",
      "minItems",  "maxItems",         "uniqueItems",
      "format",    "exclusiveMinimum", "exclusiveMaximum"};
  if (k == "properties" || k == "$defs") return lint_subschemas(root, v, where, true);
  if (k == "anyOf" || k == "oneOf" || k == "allOf") return lint_subschemas(root, v, where, false);
  if (k == "items" || k == "additionalProperties") return lint(root, v, where);
  if (k == "$ref") return void(resolve(root, v, where));
  if (!kValueKeywords.count(k)) schema_error(where, "unsupported keyword '" + k + "'");
  lint_value(k, v, where);
}

}  // namespace

[[noreturn]] void schema_error(const std::string& where, const std::string& what) {
  throw data_error("schema #" + where + ": " + what);
}

const std::regex& regex_for(const std::string& pattern) {
  static std::mutex mutex;
  static std::map<std::string, std::regex> cache;  // node-based: references stay valid
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(pattern);
  if (it == cache.end()) it = cache.emplace(pattern, std::regex(pattern)).first;
  return it->second;
}

const json& resolve(const json& root, const json& ref, const std::string& where) {
  const std::string prefix = "#/$defs/";
  std::string r = ref.is_string() ? ref.get<std::string>() : "";
  if (r.rfind(prefix, 0) != 0 || r.find('/', prefix.size()) != std::string::npos)
    schema_error(where, "unsupported $ref " + ref.dump() + " (only \"#/$defs/<name>\")");
  try {
    return root.at(json::json_pointer(r.substr(1)));
  } catch (const json::exception&) {
    schema_error(where, "$ref " + r + " does not resolve");
  }
}

void lint(const json& root, const json& s, const std::string& where) {
  if (s.is_boolean()) return;
  if (!s.is_object()) schema_error(where, "a schema must be an object or true/false");
  for (auto& [k, v] : s.items())
    if (!kAnnotations.count(k)) lint_keyword(root, k, v, where + "/" + pointer_escape(k));
}

}  // namespace gpusel::schema_detail
