#include "gpusel/json/json_schema.hpp"

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>

#include "gpusel/base/error.hpp"
#include "gpusel/json/json_source.hpp"
#include "json_schema_internal.hpp"

namespace gpusel {
namespace {

using json = nlohmann::json;
using schema_detail::regex_for;
using schema_detail::resolve;
using schema_detail::schema_error;

// libstdc++'s std::regex recurses per character and overflows the stack on long inputs
// (~30k characters); no field a pattern guards is anywhere near this long.
constexpr std::size_t kMaxPatternInput = 1000;
// Bounds check() recursion: a recursive $ref descending a pathologically deep document.
constexpr int kMaxDepth = 1000;

// ---- Rendering values in messages --------------------------------------------------------

std::string brief(const json& v) {
  if (v.is_string()) {
    auto s = v.get<std::string>();
    return "'" + (s.size() > 40 ? s.substr(0, 37) + "..." : s) + "'";
  }
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  return v.dump();
}

// "string '24'", "number 2.5", "null": what a value is, for type mismatches.
std::string what_is(const json& v) {
  if (v.is_null() || v.is_object() || v.is_array()) return v.is_null() ? "null" : brief(v);
  return std::string(v.type_name()) + " " + brief(v);
}

std::string with_article(const std::string& type) {
  if (type == "null") return "null";
  bool vowel = type[0] == 'a' || type[0] == 'i' || type[0] == 'o';
  return (vowel ? "an " : "a ") + type;
}

std::string plain(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// ---- Value predicates --------------------------------------------------------------------

bool has_type(const std::string& type, const json& v) {
  if (type == "integer") {
    if (v.is_number_integer()) return true;
    if (!v.is_number_float()) return false;
    double d = v.get<double>();
    return std::isfinite(d) && std::trunc(d) == d;
  }
  return type == "null"      ? v.is_null()
         : type == "boolean" ? v.is_boolean()
         : type == "object"  ? v.is_object()
         : type == "array"   ? v.is_array()
         : type == "number"  ? v.is_number()
                             : v.is_string();
}

bool is_date(const std::string& s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (s[i] < '0' || s[i] > '9') return false;
  int y = std::stoi(s.substr(0, 4)), m = std::stoi(s.substr(5, 2)), d = std::stoi(s.substr(8));
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  const int days[] = {31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m >= 1 && m <= 12 && d >= 1 && d <= days[m - 1];
}

bool is_uri(const std::string& s) {
  static const std::regex kUri(R"(^[A-Za-z][A-Za-z0-9+.-]*://[^\s]+$)");
  return s.size() <= kMaxPatternInput && std::regex_search(s, kUri) &&
         std::none_of(s.begin(), s.end(), [](char c) { return c >= 0 && c < 0x20; });
}

std::size_t code_points(const std::string& s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// ---- Checking a document -----------------------------------------------------------------

class Checker {
 public:
  Checker(const json& root, std::vector<SchemaIssue>& out) : root_(root), out_(&out) {}

  void check(const json& s, const json& v, const std::string& ptr) {
    if (s.is_boolean()) {
      if (!s.get<bool>()) issue(ptr, "is not allowed here");
      return;
    }
    if (++depth_ > kMaxDepth) too_deep(ptr);
    if (auto ref = s.find("$ref"); ref != s.end()) check_ref(*ref, v, ptr);
    if (type_matches(s, v, ptr)) {
      check_leaf(s, v, ptr);
      if (v.is_object()) check_object(s, v, ptr);
      if (v.is_array()) check_array(s, v, ptr);
      check_combinators(s, v, ptr);
    }
    --depth_;
  }

 private:
  const json& root_;
  std::vector<SchemaIssue>* out_;
  std::set<std::pair<std::string, std::string>> active_refs_;
  int depth_ = 0;

  // Each step of the recursion (check, check_object, check_array, check_ref, ...) is its own
  // lean frame and builds messages out of line: inlined, their temporaries multiplied every
  // level's stack use (sanitizer builds overflowed at ~300 levels of nesting).
  [[gnu::noinline]] void issue(const std::string& ptr, const std::string& message,
                               bool unknown = false) {
    out_->push_back({ptr, message, unknown});
  }

  [[noreturn, gnu::noinline]] static void too_deep(const std::string& ptr) {
    throw data_error("document nested too deeply to validate (at '" + ptr.substr(0, 80) + "...')");
  }

  // Re-entering a $ref at the same place in the document can only loop forever.
  [[gnu::noinline]] void check_ref(const json& ref, const json& v, const std::string& ptr) {
    auto key = std::make_pair(ref.get<std::string>(), ptr);
    if (!active_refs_.insert(key).second) ref_cycle(key.first, ptr);
    check(resolve(root_, ref, ""), v, ptr);
    active_refs_.erase(key);
  }

  [[noreturn, gnu::noinline]] static void ref_cycle(const std::string& ref,
                                                    const std::string& ptr) {
    schema_error("", "$ref cycle through " + ref + " (document at '" + ptr + "')");
  }

  [[gnu::noinline]] bool type_matches(const json& s, const json& v, const std::string& ptr) {
    auto t = s.find("type");
    if (t == s.end()) return true;
    json types = t->is_array() ? *t : json::array({*t});
    for (auto& type : types)
      if (has_type(type.get<std::string>(), v)) return true;
    std::string want = types.size() == 1 ? with_article(types[0].get<std::string>()) : "";
    for (std::size_t i = 0; types.size() > 1 && i < types.size(); ++i)
      want += (i == 0 ? "" : " or ") + types[i].get<std::string>();
    issue(ptr, "must be " + want + " (got " + what_is(v) + ")");
    return false;
  }

  // Everything that does not descend into the value.
  [[gnu::noinline]] void check_leaf(const json& s, const json& v, const std::string& ptr) {
    check_enum_const(s, v, ptr);
    if (v.is_number()) check_number(s, v, ptr);
    if (v.is_string()) check_string(s, v, ptr);
    if (v.is_object()) check_required(s, v, ptr);
    if (v.is_array()) check_counts(s, v, ptr);
    if (v.is_array() && s.value("uniqueItems", false)) check_unique(v, ptr);
  }

  void check_enum_const(const json& s, const json& v, const std::string& ptr) {
    if (auto c = s.find("const"); c != s.end() && *c != v)
      issue(ptr, "must be " + brief(*c) + " (got " + brief(v) + ")");
    auto e = s.find("enum");
    if (e == s.end() || std::find(e->begin(), e->end(), v) != e->end()) return;
    std::string list;
    for (auto& option : *e) list += (list.empty() ? "" : ", ") + plain(option);
    issue(ptr, "must be one of " + list + " (got " + brief(v) + ")");
  }

  void check_required(const json& s, const json& v, const std::string& ptr) {
    if (auto r = s.find("required"); r != s.end())
      for (auto& name : *r)
        if (!v.contains(name)) issue(ptr, "missing required field '" + plain(name) + "'");
  }

  [[gnu::noinline]] void check_object(const json& s, const json& v, const std::string& ptr) {
    auto props = s.find("properties");
    auto extra = s.find("additionalProperties");
    for (auto& [k, child] : v.items()) {
      std::string p = ptr + "/" + pointer_escape(k);
      if (props != s.end() && props->contains(k)) {
        check(props->at(k), child, p);
      } else if (extra != s.end() && *extra == false) {
        unknown_field(p, k);
      } else if (extra != s.end()) {
        check(*extra, child, p);
      }
    }
  }

  [[gnu::noinline]] void unknown_field(const std::string& ptr, const std::string& name) {
    issue(ptr, "unknown field '" + name + "'", true);
  }

  void check_counts(const json& s, const json& v, const std::string& ptr) {
    auto n = v.size();
    if (auto m = s.find("minItems"); m != s.end() && n < m->get<std::size_t>())
      issue(ptr, "must have at least " + m->dump() + " items (got " + std::to_string(n) + ")");
    if (auto m = s.find("maxItems"); m != s.end() && n > m->get<std::size_t>())
      issue(ptr, "must have at most " + m->dump() + " items (got " + std::to_string(n) + ")");
  }

  [[gnu::noinline]] void check_array(const json& s, const json& v, const std::string& ptr) {
    auto items = s.find("items");
    if (items == s.end()) return;
    for (std::size_t i = 0; i < v.size(); ++i) check(*items, v[i], ptr + "/" + std::to_string(i));
  }

  void check_unique(const json& v, const std::string& ptr) {
    for (std::size_t j = 1; j < v.size(); ++j) {
      auto first = std::find(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(j), v[j]);
      if (first != v.begin() + static_cast<std::ptrdiff_t>(j))
        issue(ptr + "/" + std::to_string(j),
              "duplicates item " + std::to_string(first - v.begin()) + " (items must be unique)");
    }
  }

  void check_number(const json& s, const json& v, const std::string& ptr) {
    struct Bound {
      const char* keyword;
      const char* op;
      bool (*ok)(double, double);
    };
    static const Bound kBounds[] = {
        {"minimum", ">=", [](double x, double b) { return x >= b; }},
        {"maximum", "<=", [](double x, double b) { return x <= b; }},
        {"exclusiveMinimum", ">", [](double x, double b) { return x > b; }},
        {"exclusiveMaximum", "<", [](double x, double b) { return x < b; }}};
    for (const auto& bound : kBounds) {
      auto b = s.find(bound.keyword);
      if (b != s.end() && !bound.ok(v.get<double>(), b->get<double>()))
        issue(ptr,
              std::string("must be ") + bound.op + " " + b->dump() + " (got " + v.dump() + ")");
    }
  }

  void check_string(const json& s, const json& v, const std::string& ptr) {
    const auto& str = v.get_ref<const std::string&>();
    auto n = code_points(str);
    if (auto m = s.find("minLength"); m != s.end() && n < m->get<std::size_t>())
      issue(ptr, *m == 1 ? "must not be empty"
                         : "must be at least " + m->dump() + " characters long (got " +
                               std::to_string(n) + ")");
    if (auto m = s.find("maxLength"); m != s.end() && n > m->get<std::size_t>())
      issue(ptr,
            "must be at most " + m->dump() + " characters long (got " + std::to_string(n) + ")");
    if (auto p = s.find("pattern"); p != s.end()) check_pattern(p->get<std::string>(), str, ptr);
    if (auto f = s.find("format"); f != s.end()) check_format(*f, str, ptr);
  }

  void check_pattern(const std::string& pattern, const std::string& str, const std::string& ptr) {
    if (str.size() > kMaxPatternInput)
      issue(ptr, "is too long to check against pattern " + pattern + " (" +
                     std::to_string(str.size()) + " bytes)");
    else if (!std::regex_search(str, regex_for(pattern)))
      issue(ptr, "must match pattern " + pattern + " (got " + brief(json(str)) + ")");
  }

  void check_format(const json& format, const std::string& str, const std::string& ptr) {
    if (format == "date" && !is_date(str))
      issue(ptr, "must be a date YYYY-MM-DD (got " + brief(json(str)) + ")");
    if (format == "uri" && !is_uri(str))
      issue(ptr, "must be a URI like https://... (got " + brief(json(str)) + ")");
  }

  // Issues `s` finds in `v`, kept apart from the main list.
  [[gnu::noinline]] std::vector<SchemaIssue> trial(const json& s, const json& v,
                                                   const std::string& ptr) {
    std::vector<SchemaIssue> local;
    auto* saved = out_;
    out_ = &local;
    check(s, v, ptr);
    out_ = saved;
    return local;
  }

  [[gnu::noinline]] void check_combinators(const json& s, const json& v, const std::string& ptr) {
    if (auto all = s.find("allOf"); all != s.end())
      for (auto& sub : *all) check(sub, v, ptr);
    if (auto any = s.find("anyOf"); any != s.end()) check_alternatives(*any, v, ptr, false);
    if (auto one = s.find("oneOf"); one != s.end()) check_alternatives(*one, v, ptr, true);
  }

  void check_alternatives(const json& subs, const json& v, const std::string& ptr, bool one) {
    std::size_t matched = 0;
    std::vector<SchemaIssue> closest;
    for (auto& sub : subs) {
      auto found = trial(sub, v, ptr);
      if (found.empty()) {
        ++matched;
        if (!one) return;
      } else if (closest.empty() || found.size() < closest.size()) {
        closest = std::move(found);
      }
    }
    if (matched != 1) report_alternatives(subs.size(), matched, closest, ptr);
  }

  [[gnu::noinline]] void report_alternatives(std::size_t forms, std::size_t matched,
                                             const std::vector<SchemaIssue>& closest,
                                             const std::string& ptr) {
    auto n = std::to_string(forms);
    if (matched > 1)
      return issue(ptr, "must match exactly one of " + n + " allowed forms (matches " +
                            std::to_string(matched) + ")");
    const auto& hint = closest.front();
    std::string where = hint.pointer == ptr ? "" : hint.pointer.substr(ptr.size() + 1) + ": ";
    issue(ptr, "matches none of " + n + " allowed forms (closest: " + where + hint.message + ")");
  }
};

}  // namespace

std::vector<SchemaIssue> check_schema(const json& schema, const json& doc) {
  schema_detail::lint(schema, schema, "");
  std::vector<SchemaIssue> issues;
  Checker(schema, issues).check(schema, doc, "");
  return issues;
}

void require_schema(const nlohmann::json& schema, const nlohmann::json& doc,
                    const std::string& origin) {
  const auto issues = check_schema(schema, doc);
  if (issues.empty()) return;
  const auto& first = issues.front();
  std::string more =
      issues.size() > 1 ? " (and " + std::to_string(issues.size() - 1) + " more problem(s))" : "";
  throw data_error(origin + ": " + (first.pointer.empty() ? "/" : first.pointer) + ": " +
                   first.message + more);
}

}  // namespace gpusel
