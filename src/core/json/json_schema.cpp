#include "gpusel/json/json_schema.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/json/json_source.hpp"
#include "json_schema_internal.hpp"

namespace gpusel {

// At namespace scope, as json_schema_api.cpp's: a unity unit holding both sees one alias.
using json = nlohmann::json;

namespace {

using schema_detail::KeywordIndex;
using schema_detail::Keywords;
using schema_detail::schema_error;

using schema_detail::kMaxPatternInput;
// Bounds check() recursion: a recursive $ref descending a pathologically deep document.
constexpr int kMaxDepth = 1000;

using schema_detail::brief;
using schema_detail::code_points;
using schema_detail::in_enum;
using schema_detail::is_date;
using schema_detail::is_uri;
using schema_detail::plain;
using schema_detail::types_of;
using schema_detail::what_is;
using schema_detail::with_article;

using schema_detail::Elided;

const Keywords& no_keywords() {
  static const Keywords none;
  return none;
}

// ---- Checking a document -----------------------------------------------------------------

// Where a value sits, as a chain of frames on the checker's stack: the JSON pointer string is
// written only when an issue needs it. Building "/gpus/3/price/usd" for every value checked
// cost more than the checks themselves on a large catalog.
struct Path {
  const Path* parent = nullptr;
  const std::string* base = nullptr;  // the pointer the check started at (root frame only)
  std::string_view key;               // an object member's name, else
  std::size_t index = 0;              // an array element's index
  bool is_index = false;

  std::string str() const {
    if (!parent) return *base;
    std::string out = parent->str();
    out += '/';
    out += is_index ? std::to_string(index) : pointer_escape(key);
    return out;
  }
};

class Checker {
 public:
  Checker(const KeywordIndex& index, std::vector<SchemaIssue>& out, const Elided* elided)
      : index_(index), out_(&out), elided_(elided) {}

  void check(const json& s, const json& v, const Path& ptr) {
    if (s.is_boolean()) {
      if (!s.get<bool>() && !counted()) issue(ptr, "is not allowed here");
      return;
    }
    if (++depth_ > kMaxDepth) too_deep(ptr);
    const Keywords& kw = keywords(s);
    if (kw.ref) check_ref(kw, v, ptr);
    if (type_matches(kw, v, ptr)) {
      check_leaf(kw, v, ptr);
      if (v.is_object()) check_object(kw, v, ptr);
      if (v.is_array()) check_array(kw, v, ptr);
      check_combinators(kw, v, ptr);
    }
    --depth_;
  }

 private:
  const KeywordIndex& index_;
  std::vector<SchemaIssue>* out_;
  const Elided* elided_;
  std::vector<std::pair<const json*, const json*>> refs_;  // $refs entered: (schema, value)
  int depth_ = 0;
  // Inside a quiet trial (accepts()), an issue is only counted: no message or pointer is built.
  int quiet_ = 0;
  std::size_t quiet_issues_ = 0;

  // True (and the issue counted) in a quiet trial: the caller then builds no message.
  bool counted() {
    if (!quiet_) return false;
    ++quiet_issues_;
    return true;
  }

  const Keywords& keywords(const json& s) const {
    auto it = index_.find(&s);
    return it == index_.end() ? no_keywords() : it->second;
  }

  // Each step of the recursion (check, check_object, check_array, check_ref, ...) is its own
  // lean frame and builds messages out of line: inlined, their temporaries multiplied every
  // level's stack use (sanitizer builds overflowed at ~300 levels of nesting).
  [[gnu::noinline]] void issue(const Path& ptr, const std::string& message, bool unknown = false) {
    issue_at(ptr.str(), message, unknown);
  }
  [[gnu::noinline]] void issue_at(std::string ptr, const std::string& message,
                                  bool unknown = false) {
    out_->push_back({std::move(ptr), message, unknown});
  }

  [[noreturn, gnu::noinline]] static void too_deep(const Path& ptr) {
    throw data_error("document nested too deeply to validate (at '" + quote_input(ptr.str(), 80) +
                     "')");
  }

  // Re-entering a $ref on the same document value can only loop forever.
  [[gnu::noinline]] void check_ref(const Keywords& kw, const json& v, const Path& ptr) {
    const auto key = std::make_pair(kw.ref, &v);
    if (std::find(refs_.begin(), refs_.end(), key) != refs_.end()) ref_cycle(kw.ref_name, ptr);
    refs_.push_back(key);
    check(*kw.ref, v, ptr);
    refs_.pop_back();
  }

  [[noreturn, gnu::noinline]] static void ref_cycle(const std::string& ref, const Path& ptr) {
    schema_error(
        "", "$ref cycle through " + ref + " (document at '" + quote_input(ptr.str(), 80) + "')");
  }

  [[gnu::noinline]] bool type_matches(const Keywords& kw, const json& v, const Path& ptr) {
    if (!kw.type || (kw.type_mask & types_of(v))) return true;
    if (counted()) return false;
    const json& t = *kw.type;
    std::string want = t.is_string() ? with_article(t.get<std::string>()) : "";
    for (std::size_t i = 0; t.is_array() && i < t.size(); ++i)
      want += (i == 0 ? "" : " or ") + t[i].get<std::string>();
    issue(ptr, "must be " + want + " (got " + what_is(v) + ")");
    return false;
  }

  // Everything that does not descend into the value.
  [[gnu::noinline]] void check_leaf(const Keywords& kw, const json& v, const Path& ptr) {
    check_enum_const(kw, v, ptr);
    if (v.is_number()) check_number(kw, v, ptr);
    if (v.is_string()) check_string(kw, v, ptr);
    if (v.is_object() && kw.required && !all_required(kw, v)) check_required(*kw.required, v, ptr);
    if (v.is_array()) check_counts(kw, elided(ptr) ? elided_->count : v.size(), ptr);
    if (v.is_array() && kw.unique_items && !elided(ptr)) check_unique(v, ptr);
  }

  // Only arrays ask, so the pointer is written for arrays only.
  bool elided(const Path& ptr) const { return elided_ && ptr.str() == elided_->pointer; }

  void check_enum_const(const Keywords& kw, const json& v, const Path& ptr) {
    if (kw.const_value && *kw.const_value != v && !counted())
      issue(ptr, "must be " + brief(*kw.const_value) + " (got " + brief(v) + ")");
    const json* e = kw.enum_values;
    if (!e || in_enum(*e, v) || counted()) return;
    std::string list;
    for (auto& option : *e) list += (list.empty() ? "" : ", ") + plain(option);
    issue(ptr, "must be one of " + list + " (got " + brief(v) + ")");
  }

  // One merge of two sorted lists (the object's members, the required names) instead of a
  // map search per required name or a hash per member; a list with repeated or non-string
  // names is left to check_required.
  static bool all_required(const Keywords& kw, const json& v) {
    if (kw.required_names.size() != kw.required->size()) return false;
    const auto& names = kw.required_sorted;
    std::size_t found = 0;
    for (const auto& member : v.get_ref<const json::object_t&>()) {
      if (found == names.size()) break;
      const int order = std::string_view(member.first).compare(names[found]);
      if (order > 0) return false;  // names[found] is not a member
      found += order == 0;
    }
    return found == names.size();
  }

  void check_required(const json& required, const json& v, const Path& ptr) {
    // By reference: contains(json) converts each name to a new std::string, per record.
    for (auto& name : required)
      if (!(name.is_string() ? v.contains(name.get_ref<const std::string&>()) : v.contains(name)) &&
          !counted())
        issue(ptr, "missing required field '" + plain(name) + "'");
  }

  [[gnu::noinline]] void check_object(const Keywords& kw, const json& v, const Path& ptr) {
    // The map itself, not items(): its iterator proxies cost more than the lookups below.
    for (const auto& [k, child] : v.get_ref<const json::object_t&>()) {
      const Path p{&ptr, nullptr, k, 0, false};
      const json* prop = nullptr;
      if (auto it = kw.property.find(k); it != kw.property.end()) prop = it->second;
      if (prop) {
        check(*prop, child, p);
      } else if (kw.additional && *kw.additional == false) {
        unknown_field(p, k);
      } else if (kw.additional) {
        check(*kw.additional, child, p);
      }
    }
  }

  [[gnu::noinline]] void unknown_field(const Path& ptr, const std::string& name) {
    if (!counted()) issue(ptr, "unknown field '" + quote_input(name) + "'", true);
  }

  void check_counts(const Keywords& kw, std::size_t n, const Path& ptr) {
    if (kw.min_items && n < kw.min_items->get<std::size_t>() && !counted())
      issue(ptr, "must have at least " + kw.min_items->dump() + " items (got " + std::to_string(n) +
                     ")");
    if (kw.max_items && n > kw.max_items->get<std::size_t>() && !counted())
      issue(ptr,
            "must have at most " + kw.max_items->dump() + " items (got " + std::to_string(n) + ")");
  }

  [[gnu::noinline]] void check_array(const Keywords& kw, const json& v, const Path& ptr) {
    if (!kw.items || elided(ptr)) return;  // an elided list's items are checked one by one
    for (std::size_t i = 0; i < v.size(); ++i)
      check(*kw.items, v[i], Path{&ptr, nullptr, {}, i, true});
  }

  // Sorted copies find duplicates in n log n, where comparing every pair would be quadratic.
  void check_unique(const json& v, const Path& path) {
    if (v.empty()) return;  // order[0] below needs an element (UBSan: null reference)
    std::vector<std::size_t> order(v.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&v](std::size_t a, std::size_t b) { return v[a] < v[b]; });
    std::vector<std::pair<std::size_t, std::size_t>> dups;  // (later, first)
    for (std::size_t k = 1, first = order[0]; k < order.size(); ++k) {
      if (v[order[k]] == v[order[k - 1]]) {
        dups.emplace_back(order[k], first);
      } else {
        first = order[k];
      }
    }
    std::sort(dups.begin(), dups.end());
    const std::string ptr = dups.empty() ? std::string() : path.str();
    for (const auto& [j, first] : dups)
      if (!counted())
        issue_at(ptr + "/" + std::to_string(j),
                 "duplicates item " + std::to_string(first) + " (items must be unique)");
  }

  void check_number(const Keywords& kw, const json& v, const Path& ptr) {
    const double x = v.get<double>();
    auto bound = [&](const json* b, const char* op, bool ok) {
      if (b && !ok && !counted())
        issue(ptr, std::string("must be ") + op + " " + b->dump() + " (got " + v.dump() + ")");
    };
    bound(kw.minimum, ">=", !kw.minimum || x >= kw.minimum->get<double>());
    bound(kw.maximum, "<=", !kw.maximum || x <= kw.maximum->get<double>());
    bound(kw.exclusive_minimum, ">",
          !kw.exclusive_minimum || x > kw.exclusive_minimum->get<double>());
    bound(kw.exclusive_maximum, "<",
          !kw.exclusive_maximum || x < kw.exclusive_maximum->get<double>());
  }

  void check_string(const Keywords& kw, const json& v, const Path& ptr) {
    const auto& str = v.get_ref<const std::string&>();
    if (kw.min_length || kw.max_length) {
      const auto n = code_points(str);
      if (kw.min_length && n < kw.min_length->get<std::size_t>() && !counted())
        issue(ptr, *kw.min_length == 1 ? "must not be empty"
                                       : "must be at least " + kw.min_length->dump() +
                                             " characters long (got " + std::to_string(n) + ")");
      if (kw.max_length && n > kw.max_length->get<std::size_t>() && !counted())
        issue(ptr, "must be at most " + kw.max_length->dump() + " characters long (got " +
                       std::to_string(n) + ")");
    }
    if (kw.pattern) check_pattern(kw, str, ptr);
    if (kw.format) check_format(*kw.format, str, ptr);
  }

  void check_pattern(const Keywords& kw, const std::string& str, const Path& ptr) {
    if (str.size() <= kMaxPatternInput && kw.pattern->search(str)) return;
    if (counted()) return;
    if (str.size() > kMaxPatternInput)
      issue(ptr, "is too long to check against pattern " + kw.pattern_source + " (" +
                     std::to_string(str.size()) + " bytes)");
    else if (!kw.pattern->search(str))
      issue(ptr, "must match pattern " + kw.pattern_source + " (got " + brief(json(str)) + ")");
  }

  void check_format(const json& format, const std::string& str, const Path& ptr) {
    const std::string& name = format.get_ref<const std::string&>();  // lint: a string
    if (name == "date" && !is_date(str) && !counted())
      issue(ptr, "must be a date YYYY-MM-DD (got " + brief(json(str)) + ")");
    if (name == "uri" && !is_uri(str) && !counted())
      issue(ptr, "must be a URI like https://... (got " + brief(json(str)) + ")");
  }

  // Issues `s` finds in `v`, kept apart from the main list.
  [[gnu::noinline]] std::vector<SchemaIssue> trial(const json& s, const json& v, const Path& ptr) {
    std::vector<SchemaIssue> local;
    auto* saved = out_;
    out_ = &local;
    check(s, v, ptr);
    out_ = saved;
    return local;
  }

  [[gnu::noinline]] void check_combinators(const Keywords& kw, const json& v, const Path& ptr) {
    if (kw.all_of)
      for (auto& sub : *kw.all_of) check(sub, v, ptr);
    if (kw.any_of) check_alternatives(*kw.any_of, v, ptr, false);
    if (kw.one_of) check_alternatives(*kw.one_of, v, ptr, true);
  }

  // Whether `s` (through its $refs) accepts the type of `v`: an alternative for another type
  // is a poor "closest" even when it has fewer findings.
  bool type_fits(const json& s, const json& v, int hops = 0) const {
    if (s.is_boolean()) return s.get<bool>();
    const Keywords& kw = keywords(s);
    if (kw.type && !(kw.type_mask & types_of(v))) return false;
    return !kw.ref || hops > 16 || type_fits(*kw.ref, v, hops + 1);
  }

  // Whether `s` accepts `v`, found without writing a message: an alternative of anyOf/oneOf
  // that fails (a card's link checked against the "none" form) cost its messages before.
  [[gnu::noinline]] bool accepts(const json& s, const json& v, const Path& ptr) {
    const std::size_t before = quiet_issues_;
    ++quiet_;
    check(s, v, ptr);
    --quiet_;
    return quiet_issues_ == before;
  }

  // Quietly first; only when the value breaks the rule are the trials run again with their
  // messages, to report the closest form as before.
  void check_alternatives(const json& subs, const json& v, const Path& ptr, bool one) {
    std::size_t matched = 0;
    for (auto& sub : subs)
      if (accepts(sub, v, ptr) && ++matched && !one) return;
    if (matched == 1 || counted()) return;
    matched = 0;
    std::vector<SchemaIssue> closest;
    bool closest_fits = false;
    for (auto& sub : subs) {
      auto found = trial(sub, v, ptr);
      const bool fits = type_fits(sub, v);
      if (found.empty()) {
        ++matched;
        if (!one) return;
      } else if (closest.empty() || (fits && !closest_fits) ||
                 (fits == closest_fits && found.size() < closest.size())) {
        closest = std::move(found);
        closest_fits = fits;
      }
    }
    if (matched != 1) report_alternatives(subs.size(), matched, closest, ptr);
  }

  [[gnu::noinline]] void report_alternatives(std::size_t forms, std::size_t matched,
                                             const std::vector<SchemaIssue>& closest,
                                             const Path& path) {
    auto n = std::to_string(forms);
    const std::string ptr = path.str();
    if (matched > 1)
      return issue_at(ptr, "must match exactly one of " + n + " allowed forms (matches " +
                               std::to_string(matched) + ")");
    const auto& hint = closest.front();
    std::string where = hint.pointer == ptr ? "" : hint.pointer.substr(ptr.size() + 1) + ": ";
    issue_at(ptr,
             "matches none of " + n + " allowed forms (closest: " + where + hint.message + ")");
  }
};

}  // namespace

namespace schema_detail {

void run_check(const KeywordIndex& index, const json& s, const json& v, const std::string& ptr,
               const Elided* elided, std::vector<SchemaIssue>& out) {
  const Path top{nullptr, &ptr, {}, 0, false};
  Checker(index, out, elided).check(s, v, top);
}

}  // namespace schema_detail
}  // namespace gpusel
