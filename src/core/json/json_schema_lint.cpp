#include <algorithm>
#include <set>

#include "gpusel/base/error.hpp"
#include "gpusel/json/json_source.hpp"
#include "json_schema_internal.hpp"

// Checks the schema itself, once when it is read, so that a keyword this validator does not
// implement is an error even in branches no document reaches; indexes each schema object's
// keywords on the way.
namespace gpusel::schema_detail {
namespace {

const std::set<std::string> kAnnotations = {"$schema",  "$id",      "title",  "description",
                                            "$comment", "examples", "default"};

const json& resolve(const json& root, const json& ref, const std::string& where) {
  const std::string prefix = "#/$defs/";
  std::string r = ref.is_string() ? ref.get<std::string>() : "";
  if (r.rfind(prefix, 0) != 0 || r.find('/', prefix.size()) != std::string::npos)
    schema_error(where, "unsupported $ref " + ref.dump() + " (only \"#/$defs/<name>\")");
  const auto defs = root.find("$defs");
  if (!root.is_object() || defs == root.end() || !defs->is_object() ||
      !defs->contains(r.substr(prefix.size())))
    schema_error(where, "$ref " + r + " does not resolve");
  return defs->at(r.substr(prefix.size()));
}

void lint_subschemas(const json& root, const json& v, const std::string& where, bool named,
                     KeywordIndex& index) {
  if (named ? !v.is_object() : !v.is_array() || v.empty())
    schema_error(where, named ? "must be an object of schemas" : "must be a non-empty array");
  for (auto& [k, sub] : v.items()) lint(root, sub, where + "/" + pointer_escape(k), index);
}

void lint_pattern(const json& v, const std::string& where, Keywords& kw) {
  if (!v.is_string()) schema_error(where, "must be a string");
  try {
    kw.pattern_source = v.get<std::string>();
    kw.pattern = std::make_shared<const json_detail::Pattern>(kw.pattern_source);
  } catch (const std::invalid_argument& e) {
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
  } else if (kCounts.count(k) && !v.is_number_unsigned()) {
    schema_error(where, "must be a non-negative integer");
  } else if (kBounds.count(k) && !v.is_number()) {
    schema_error(where, "must be a number");
  }
}

// Where each value keyword goes in Keywords.
const json** slot(Keywords& kw, const std::string& k) {
  static const std::unordered_map<std::string, const json* Keywords::*> kSlots = {
      {"type", &Keywords::type},
      {"const", &Keywords::const_value},
      {"enum", &Keywords::enum_values},
      {"required", &Keywords::required},
      {"properties", &Keywords::properties},
      {"additionalProperties", &Keywords::additional},
      {"items", &Keywords::items},
      {"minItems", &Keywords::min_items},
      {"maxItems", &Keywords::max_items},
      {"minimum", &Keywords::minimum},
      {"maximum", &Keywords::maximum},
      {"exclusiveMinimum", &Keywords::exclusive_minimum},
      {"exclusiveMaximum", &Keywords::exclusive_maximum},
      {"minLength", &Keywords::min_length},
      {"maxLength", &Keywords::max_length},
      {"format", &Keywords::format},
      {"allOf", &Keywords::all_of},
      {"anyOf", &Keywords::any_of},
      {"oneOf", &Keywords::one_of}};
  auto it = kSlots.find(k);
  return it == kSlots.end() ? nullptr : &(kw.*(it->second));
}

void lint_keyword(const json& root, const std::string& k, const json& v, const std::string& where,
                  Keywords& kw, KeywordIndex& index) {
  if (k == "$defs") return lint_subschemas(root, v, where, true, index);
  if (const json** s = slot(kw, k)) *s = &v;
  if (k == "properties") {
    lint_subschemas(root, v, where, true, index);
    for (auto& [name, sub] : v.items()) kw.property.emplace(name, &sub);
    return;
  }
  if (k == "anyOf" || k == "oneOf" || k == "allOf")
    return lint_subschemas(root, v, where, false, index);
  if (k == "items" || k == "additionalProperties") return lint(root, v, where, index);
  if (k == "$ref") {
    kw.ref = &resolve(root, v, where);
    kw.ref_name = v.get<std::string>();
    return;
  }
  if (k == "pattern") return lint_pattern(v, where, kw);
  if (k == "uniqueItems") {
    lint_value(k, v, where);
    kw.unique_items = v.get<bool>();
    return;
  }
  if (!slot(kw, k)) schema_error(where, "unsupported keyword '" + k + "'");
  lint_value(k, v, where);
  if (k == "required") {
    for (auto& name : v)
      if (name.is_string()) kw.required_names.insert(name.get_ref<const std::string&>());
    kw.required_sorted.assign(kw.required_names.begin(), kw.required_names.end());
    std::sort(kw.required_sorted.begin(), kw.required_sorted.end());
  }
  if (k == "type")
    for (auto& t : v.is_array() ? v : json::array({v}))
      kw.type_mask |= type_bit(t.get<std::string>());
}

// The flat checker's view of "properties" and "required" (Keywords::member_names).
void compile_members(Keywords& kw) {
  std::vector<std::pair<std::string_view, const json*>> names;
  for (const auto& [name, sub] : kw.property) names.emplace_back(name, sub);
  for (std::string_view name : kw.required_names)
    if (!kw.property.count(std::string(name))) names.emplace_back(name, nullptr);
  std::sort(names.begin(), names.end());
  for (const auto& [name, sub] : names) {
    kw.member_names.push_back(name);
    kw.member_schemas.push_back(sub);
    kw.member_keys.push_back(json_detail::flat_key(name));
  }
  kw.required_fits =
      !kw.required || (kw.required_names.size() == kw.required->size() && names.size() <= 64);
  for (std::size_t i = 0; kw.required_fits && i < names.size(); ++i)
    if (kw.required_names.count(names[i].first)) kw.required_bits |= std::uint64_t{1} << i;
}

}  // namespace

unsigned type_bit(const std::string& name) {
  static const std::unordered_map<std::string, unsigned> kBits = {
      {"null", t_null},     {"boolean", t_boolean}, {"object", t_object}, {"array", t_array},
      {"number", t_number}, {"integer", t_integer}, {"string", t_string}};
  auto it = kBits.find(name);
  return it == kBits.end() ? 0 : it->second;
}

[[noreturn]] void schema_error(const std::string& where, const std::string& what) {
  throw data_error("schema #" + where + ": " + what);
}

void lint(const json& root, const json& s, const std::string& where, KeywordIndex& index) {
  if (s.is_boolean()) return;
  if (!s.is_object()) schema_error(where, "a schema must be an object or true/false");
  Keywords kw;
  for (auto& [k, v] : s.items())
    if (!kAnnotations.count(k))
      lint_keyword(root, k, v, where + "/" + pointer_escape(k), kw, index);
  compile_members(kw);
  index[&s] = std::move(kw);
}

}  // namespace gpusel::schema_detail
