// Loading rules files: shape, vocabulary and type checks, each failure naming the file and
// the JSON path so a user can fix their --rules file without reading our code.
#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <stdexcept>
#include <tuple>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/data/catalog.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/data/snapshot.hpp"
#include "gpusel/rank/rules.hpp"
#include "gpusel/rank/rules_snapshot.hpp"
#include "rules_internal.hpp"

namespace gpusel {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& at, const std::string& what) {
  throw data_error(at + ": " + what);
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& options) {
  const auto near = nearest(word, options, 1);
  return near.empty() ? "" : " (did you mean " + near.front() + "?)";
}

std::string kind_of(const json& j) {
  if (j.is_boolean()) return "a boolean";
  if (j.is_number()) return "a number";
  if (j.is_string()) return "a string";
  if (j.is_array()) return "an array";
  if (j.is_object()) return "an object";
  return "null";
}

void check_keys(const json& obj, const std::vector<std::string>& allowed, const std::string& at) {
  for (const auto& [key, value] : obj.items())
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      fail(at, "unknown key '" + quote_input(key) + "'" + did_you_mean(key, allowed));
}

std::string text_field(const json& obj, const char* key, const std::string& at) {
  const json& v = obj.at(key);
  if (!v.is_string() || v.get<std::string>().empty())
    fail(at + "." + key, "must be a non-empty string, got " + kind_of(v));
  return v.get<std::string>();
}

std::vector<std::string> fact_names() {
  std::vector<std::string> names;
  for (const auto& f : fact_vocabulary()) names.push_back(f.name);
  return names;
}

const FactInfo& parse_fact_name(const json& j, const std::string& at) {
  if (!j.is_string()) fail(at, "the fact name must be a string, got " + kind_of(j));
  const std::string name = j.get<std::string>();
  const FactInfo* info = find_fact(name);
  if (!info)
    fail(at, "unknown fact '" + quote_input(name) + "'" + did_you_mean(name, fact_names()));
  return *info;
}

Op parse_op(const json& j, const std::string& at) {
  static const std::vector<std::pair<std::string, Op>> ops{
      {"==", Op::eq}, {"!=", Op::ne}, {"<", Op::lt},  {"<=", Op::le},
      {">", Op::gt},  {">=", Op::ge}, {"in", Op::in}, {"not-in", Op::not_in}};
  const std::string s = j.is_string() ? j.get<std::string>() : j.dump();
  for (const auto& [name, op] : ops)
    if (name == s) return op;
  fail(at, "unknown operator '" + quote_input(s) + "' (expected one of == != < <= > >= in not-in)");
}

void check_op_fits(Op op, const FactInfo& info, const std::string& at) {
  const bool ordering = op == Op::lt || op == Op::le || op == Op::gt || op == Op::ge;
  if (ordering && info.type != FactType::number)
    fail(at, "operator '" + to_string(op) + "' needs a number, but " + info.name + " is a " +
                 to_string(info.type));
  if ((op == Op::in || op == Op::not_in) && info.type == FactType::boolean)
    fail(at, "operator '" + to_string(op) + "' on the boolean " + info.name + ": use == or !=");
}

FactValue parse_value(const json& j, const FactInfo& info, const std::string& at) {
  const std::string expect = info.name + " is a " + to_string(info.type) + ", got " + kind_of(j);
  switch (info.type) {
    case FactType::number:
      if (!j.is_number()) fail(at, expect + " " + j.dump());
      return j.get<double>();
    case FactType::boolean:
      if (!j.is_boolean()) fail(at, expect + " " + j.dump());
      return j.get<bool>();
    case FactType::text:
      break;
  }
  if (!j.is_string()) fail(at, expect + " " + j.dump());
  const std::string s = j.get<std::string>();
  if (!info.values.empty() &&
      std::find(info.values.begin(), info.values.end(), s) == info.values.end()) {
    std::string list;
    for (const auto& v : info.values) list += (list.empty() ? "" : " ") + v;
    fail(at, "unknown value '" + quote_input(s) + "' for " + info.name +
                 did_you_mean(s, info.values) + "; expected one of: " + list);
  }
  return s;
}

Condition parse_condition(const json& j, const std::string& at);

Condition parse_compare(const json& j, const std::string& at) {
  if (j.size() != 3)
    fail(at, "a comparison is [fact, op, value]: 3 elements, got " + std::to_string(j.size()));
  Condition c;
  c.kind = Condition::Kind::compare;
  const FactInfo& info = parse_fact_name(j[0], at + "[0]");
  c.fact = info.name;
  c.fact_index = static_cast<int>(fact_index(info));
  c.op = parse_op(j[1], at + "[1]");
  check_op_fits(c.op, info, at + "[1]");
  const std::string vat = at + "[2]";
  if (c.op != Op::in && c.op != Op::not_in) {
    c.values.push_back(parse_value(j[2], info, vat));
    return c;
  }
  if (!j[2].is_array() || j[2].empty())
    fail(vat, "'" + to_string(c.op) + "' takes a non-empty array, got " + kind_of(j[2]));
  for (std::size_t i = 0; i < j[2].size(); ++i)
    c.values.push_back(parse_value(j[2][i], info, vat + "[" + std::to_string(i) + "]"));
  return c;
}

Condition parse_group(const json& j, const std::string& at) {
  if (j.size() != 1) fail(at, "a condition object has exactly one key: all, any or not");
  const std::string key = j.begin().key();
  const json& value = j.begin().value();
  check_keys(j, {"all", "any", "not"}, at);
  Condition c;
  const std::string sub = at + "." + key;
  if (key == "not") {
    c.kind = Condition::Kind::negate;
    c.operands.push_back(parse_condition(value, sub));
    return c;
  }
  c.kind = key == "all" ? Condition::Kind::all : Condition::Kind::any;
  if (!value.is_array() || value.empty())
    fail(sub,
         "'" + quote_input(key) + "' takes a non-empty array of conditions, got " + kind_of(value));
  for (std::size_t i = 0; i < value.size(); ++i)
    c.operands.push_back(parse_condition(value[i], sub + "[" + std::to_string(i) + "]"));
  return c;
}

Condition parse_condition(const json& j, const std::string& at) {
  if (j.is_array()) return parse_compare(j, at);
  if (j.is_object()) return parse_group(j, at);
  fail(at, "a condition is [fact, op, value] or {\"all\"|\"any\"|\"not\": ...}, got " + kind_of(j));
}

// Placeholders are checked now so that a typo fails at load, not in the middle of a ranking.
void check_text(const std::string& text, const std::string& at) {
  try {
    rules_detail::expand_placeholders(text, [&](std::string_view name, bool) {
      if (!find_fact(name))
        fail(at, "unknown fact '{" + quote_input(name) + "}' in the text" +
                     did_you_mean(name, fact_names()));
      return std::string();
    });
  } catch (const std::invalid_argument& e) {
    fail(at, e.what());
  }
}

ScoreDelta parse_score(const json& j, const std::string& at) {
  if (!j.is_object()) fail(at, "must be an object, got " + kind_of(j));
  if (j.contains("compute"))
    fail(at + ".compute",
         "the compute score is measured tokens/s and no rule moves it: adjust budget or "
         "ecosystem, or describe the slowdown in a warning");
  check_keys(j, {"budget", "ecosystem"}, at);
  if (j.empty()) fail(at, "needs at least one of budget, ecosystem");
  ScoreDelta d;
  for (auto [key, field] : {std::pair{"budget", &d.budget}, std::pair{"ecosystem", &d.ecosystem}}) {
    if (!j.contains(key)) continue;
    const json& v = j[key];
    if (!v.is_number() || v.get<double>() < -100 || v.get<double>() > 100)
      fail(at + "." + key, "must be a number from -100 to 100, got " + v.dump());
    *field = v.get<double>();
  }
  return d;
}

// The Simplified Chinese texts: only for texts the rule has, with the placeholders checked
// as the English ones are.
void parse_zh(Effects& e, const json& j, const std::string& at) {
  if (!j.is_object()) fail(at, "must be an object, got " + kind_of(j));
  check_keys(j, {"warning", "note", "exclude"}, at);
  const std::array<std::tuple<const char*, bool, std::string*>, 3> texts{
      {{"warning", !e.warning.empty(), &e.warning_zh},
       {"note", !e.note.empty(), &e.note_zh},
       {"exclude", e.exclude.has_value(), &e.exclude_zh}}};
  for (const auto& [key, has_english, field] : texts) {
    if (!j.contains(key)) continue;
    if (!has_english) fail(at + "." + key, "translates a text the rule does not have");
    *field = text_field(j, key, at);
    check_text(*field, at + "." + key);
  }
}

Effects parse_effects(const json& j, const std::string& at) {
  if (!j.is_object()) fail(at, "must be an object, got " + kind_of(j));
  check_keys(j, {"warning", "note", "score", "exclude", "zh-CN"}, at);
  if (j.empty() || (j.size() == 1 && j.contains("zh-CN")))
    fail(at, "needs at least one of warning, note, score, exclude");
  Effects e;
  for (auto [key, field] : {std::pair{"warning", &e.warning}, std::pair{"note", &e.note}}) {
    if (!j.contains(key)) continue;
    *field = text_field(j, key, at);
    check_text(*field, at + "." + key);
  }
  if (j.contains("exclude")) {
    e.exclude = text_field(j, "exclude", at);
    check_text(*e.exclude, at + ".exclude");
  }
  if (j.contains("score")) e.score = parse_score(j["score"], at + ".score");
  if (j.contains("zh-CN")) parse_zh(e, j["zh-CN"], at + ".zh-CN");
  return e;
}

bool valid_id(const std::string& id) {
  if (id.empty() || id.front() == '-' || id.back() == '-' || id.find("--") != id.npos) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return c == '-' || std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'z');
  });
}

void parse_rule_body(Rule& r, const json& j, const std::string& at) {
  for (const char* key : {"fact", "when", "effects"})
    if (!j.contains(key)) fail(at, std::string("missing '") + key + "'");
  r.fact = text_field(j, "fact", at);
  if (j.contains("knowledge")) r.knowledge = text_field(j, "knowledge", at);
  if (j.contains("source")) r.source = text_field(j, "source", at);
  r.when = parse_condition(j["when"], at + ".when");
  r.effects = parse_effects(j["effects"], at + ".effects");
}

Rule parse_rule(const json& j, const std::string& at, const std::string& origin) {
  if (!j.is_object()) fail(at, "a rule must be an object, got " + kind_of(j));
  check_keys(j, {"id", "fact", "knowledge", "source", "when", "effects", "disabled"}, at);
  if (!j.contains("id")) fail(at, "missing 'id'");
  Rule r;
  r.origin = origin;
  r.id = text_field(j, "id", at);
  if (!valid_id(r.id))
    fail(at + ".id", "'" + quote_input(r.id) + "' is not kebab-case ([a-z0-9] and '-')");
  if (j.contains("disabled")) {
    if (!j["disabled"].is_boolean()) fail(at + ".disabled", "must be true or false");
    r.disabled = j["disabled"].get<bool>();
  }
  // A switched-off rule needs nothing but its id: that is how a user silences a shipped one.
  if (!r.disabled || j.contains("when") || j.contains("effects")) parse_rule_body(r, j, at);
  return r;
}

}  // namespace

RuleSet parse_rules(const json& doc, const std::string& origin) {
  if (!doc.is_object() || !doc.contains("rules") || !doc["rules"].is_array())
    fail(origin, "not a rules file (expected an object with a 'rules' array)");
  check_keys(doc, {"$schema", "schema_version", "reviewed", "notes", "rules"}, origin);
  if (doc.contains("schema_version") && doc["schema_version"] != 1)
    fail(origin + ": schema_version",
         "unsupported version " + doc["schema_version"].dump() + " (this gpusel reads version 1)");
  RuleSet set;
  set.origin = origin;
  std::map<std::string, std::size_t> seen;
  const json& list = doc["rules"];
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = origin + ": rules[" + std::to_string(i) + "]";
    Rule r = parse_rule(list[i], at, origin);
    if (auto [it, fresh] = seen.emplace(r.id, i); !fresh)
      fail(at + ".id", "duplicate id '" + quote_input(r.id) + "' (first at rules[" +
                           std::to_string(it->second) + "])");
    set.rules.push_back(std::move(r));
  }
  return set;
}

RuleSet load_rules(const std::string& base_path, const std::vector<std::string>& extra_paths) {
  auto from = [](const std::string& path) {
    if (path.empty())  // the build's snapshot of the shipped rules (rules_snapshot.cpp)
      if (auto shipped = snapshot_rules(shipped_snapshot())) return std::move(*shipped);
    const std::string origin = path.empty() ? "embedded data/rules.json" : path;
    const std::string text = load_text(path, "data/rules.json");
    return parse_rules(parse_json_text(text, origin), origin);
  };
  RuleSet set = from(base_path);
  for (const auto& path : extra_paths) merge_rules(set, from(path));
  return set;
}

}  // namespace gpusel
