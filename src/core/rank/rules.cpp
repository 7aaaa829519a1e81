// Evaluating and merging rules (parsing is in rules_parse.cpp, the vocabulary in
// rules_facts.cpp).
#include "gpusel/rank/rules.hpp"

#include <algorithm>
#include <stdexcept>

#include "gpusel/i18n/i18n.hpp"

namespace gpusel {
namespace {

using Truth = std::optional<bool>;

bool same(const FactValue& a, const FactValue& b) { return a == b; }

bool ordered(Op op, double a, double b) {
  switch (op) {
    case Op::lt:
      return a < b;
    case Op::le:
      return a <= b;
    case Op::gt:
      return a > b;
    case Op::ge:
      return a >= b;
    default:
      return false;
  }
}

Truth compare(const Condition& c, const Facts& facts) {
  auto it = facts.find(c.fact);
  if (it == facts.end()) return std::nullopt;  // unknown, not false: see rules.hpp
  const FactValue& v = it->second;
  // Values were typed from the vocabulary at load time, so a mismatch is a bad Facts map.
  if (v.index() != c.values.front().index())
    throw std::invalid_argument("rules: fact '" + c.fact + "' has the wrong type");
  const auto in_list = [&] {
    return std::any_of(c.values.begin(), c.values.end(),
                       [&](const FactValue& x) { return same(v, x); });
  };
  switch (c.op) {
    case Op::eq:
      return same(v, c.values.front());
    case Op::ne:
      return !same(v, c.values.front());
    case Op::in:
      return in_list();
    case Op::not_in:
      return !in_list();
    default:
      return ordered(c.op, std::get<double>(v), std::get<double>(c.values.front()));
  }
}

// Kleene logic: a known false decides `all`, a known true decides `any`.
Truth combine(const Condition& c, const Facts& facts, bool is_all) {
  bool unknown = false;
  for (const auto& operand : c.operands) {
    const Truth t = evaluate(operand, facts);
    if (!t)
      unknown = true;
    else if (*t != is_all)
      return !is_all;
  }
  if (unknown) return std::nullopt;
  return is_all;
}

// The text in the session's language: the zh-CN one where the rule has it.
const std::string& localised(const std::string& en, const std::string& zh) {
  return language() == Lang::zh_cn && !zh.empty() ? zh : en;
}

// render false: the ranker's configurations that are not shown need no text.
void fire(const Rule& r, const Facts& facts, RuleOutcome& out, bool render) {
  out.fired.push_back(r.id);
  const Effects& e = r.effects;
  auto text = [&](const std::string& en, const std::string& zh) {
    return render ? render_text(localised(en, zh), facts) : std::string();
  };
  if (!e.warning.empty()) out.warnings.push_back({r.id, text(e.warning, e.warning_zh), r.source});
  if (!e.note.empty()) out.notes.push_back({r.id, text(e.note, e.note_zh), r.source});
  out.delta += e.score;
  if (e.exclude && !out.excluded) {
    out.excluded = true;
    out.exclude_reason = text(*e.exclude, e.exclude_zh);
    out.exclude_rule = r.id;
  }
}

}  // namespace

std::vector<std::string> untranslated_texts(const RuleSet& set) {
  std::vector<std::string> out;
  for (const auto& r : set.rules) {
    if (r.disabled) continue;
    const Effects& e = r.effects;
    if (!e.warning.empty() && e.warning_zh.empty()) out.push_back(r.id + ".warning");
    if (!e.note.empty() && e.note_zh.empty()) out.push_back(r.id + ".note");
    if (e.exclude && e.exclude_zh.empty()) out.push_back(r.id + ".exclude");
  }
  return out;
}

ScoreDelta& ScoreDelta::operator+=(const ScoreDelta& o) {
  budget += o.budget;
  ecosystem += o.ecosystem;
  return *this;
}

std::string to_string(Op op) {
  switch (op) {
    case Op::eq:
      return "==";
    case Op::ne:
      return "!=";
    case Op::lt:
      return "<";
    case Op::le:
      return "<=";
    case Op::gt:
      return ">";
    case Op::ge:
      return ">=";
    case Op::in:
      return "in";
    case Op::not_in:
      return "not-in";
  }
  return "?";
}

const Rule* RuleSet::find(std::string_view id) const {
  auto it = std::find_if(rules.begin(), rules.end(), [&](const Rule& r) { return r.id == id; });
  return it == rules.end() ? nullptr : &*it;
}

void merge_rules(RuleSet& base, const RuleSet& extra) {
  for (const Rule& r : extra.rules) {
    auto it = std::find_if(base.rules.begin(), base.rules.end(),
                           [&](const Rule& b) { return b.id == r.id; });
    if (it != base.rules.end())
      *it = r;
    else
      base.rules.push_back(r);
  }
}

std::optional<bool> evaluate(const Condition& c, const Facts& facts) {
  switch (c.kind) {
    case Condition::Kind::compare:
      return compare(c, facts);
    case Condition::Kind::all:
      return combine(c, facts, true);
    case Condition::Kind::any:
      return combine(c, facts, false);
    case Condition::Kind::negate: {
      const Truth t = evaluate(c.operands.front(), facts);
      return t ? Truth(!*t) : std::nullopt;
    }
  }
  return std::nullopt;
}

RuleOutcome apply_rules(const RuleSet& rules, const Facts& facts, bool render) {
  check_facts(facts);
  RuleOutcome out;
  for (const Rule& r : rules.rules)
    if (!r.disabled && evaluate(r.when, facts) == true) fire(r, facts, out, render);
  return out;
}

}  // namespace gpusel
