// Evaluating and merging rules (parsing is in rules_parse.cpp, the vocabulary in
// rules_facts.cpp).
#include "gpusel/rank/rules.hpp"

#include <algorithm>
#include <stdexcept>

#include "gpusel/i18n/i18n.hpp"
#include "rules_internal.hpp"

namespace gpusel {
namespace {

using Truth = std::optional<bool>;

bool same(const FactTable::Slot& s, const FactValue& x) {
  switch (s.type) {
    case FactType::number:
      return std::get<double>(x) == s.number;
    case FactType::boolean:
      return std::get<bool>(x) == s.flag;
    case FactType::text:
      break;
  }
  return std::get<std::string>(x) == s.text;
}

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

// The condition's fact in the table: by the position parse_rules resolved, else by name.
const FactTable::Slot* slot_of(const Condition& c, const FactTable& facts) {
  if (c.fact_index >= 0) return &facts[static_cast<std::size_t>(c.fact_index)];
  const FactInfo* info = find_fact(c.fact);
  return info ? &facts[fact_index(*info)] : nullptr;
}

Truth compare(const Condition& c, const FactTable& facts) {
  const FactTable::Slot* s = slot_of(c, facts);
  if (!s || !s->known) return std::nullopt;  // unknown, not false: see rules.hpp
  // Values were typed from the vocabulary at load time, so a mismatch is a bad fact table.
  if (s->type != rules_detail::type_of(c.values.front()))
    throw std::invalid_argument("rules: fact '" + c.fact + "' has the wrong type");
  const auto in_list = [&] {
    return std::any_of(c.values.begin(), c.values.end(),
                       [&](const FactValue& x) { return same(*s, x); });
  };
  switch (c.op) {
    case Op::eq:
      return same(*s, c.values.front());
    case Op::ne:
      return !same(*s, c.values.front());
    case Op::in:
      return in_list();
    case Op::not_in:
      return !in_list();
    default:
      return ordered(c.op, s->number, std::get<double>(c.values.front()));
  }
}

// Kleene logic: a known false decides `all`, a known true decides `any`.
Truth combine(const Condition& c, const FactTable& facts, bool is_all) {
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
void fire(const Rule& r, const FactTable& facts, RuleOutcome& out, bool render) {
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
  return evaluate(c, to_table(facts));
}

std::optional<bool> evaluate(const Condition& c, const FactTable& facts) {
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
  return apply_rules(rules, to_table(facts), render);  // to_table checks the facts
}

RuleOutcome apply_rules(const RuleSet& rules, const FactTable& facts, bool render) {
  RuleOutcome out;
  for (const Rule& r : rules.rules)
    if (!r.disabled && evaluate(r.when, facts) == true) fire(r, facts, out, render);
  return out;
}

}  // namespace gpusel

namespace gpusel::rules_detail {

FactType type_of(const FactValue& v) {
  if (std::holds_alternative<double>(v)) return FactType::number;
  if (std::holds_alternative<bool>(v)) return FactType::boolean;
  return FactType::text;
}

Judgement judge_rules(const RuleSet& rules, const FactTable& facts, const Decisions* decided) {
  Judgement out;
  for (std::size_t i = 0; i < rules.rules.size(); ++i) {
    const Rule& r = rules.rules[i];
    if (r.disabled) continue;
    const std::optional<bool> early = decided ? (*decided)[i] : std::nullopt;
    const bool fires = early ? *early : evaluate(r.when, facts) == true;
    if (!fires) continue;
    out.delta += r.effects.score;  // as fire() adds them
    if (r.effects.exclude && !out.excluded_by) out.excluded_by = &r;
  }
  return out;
}

std::vector<OpenRule> open_rules(const RuleSet& rules, const Decisions& decided) {
  std::vector<OpenRule> out;
  for (std::size_t i = 0; i < rules.rules.size(); ++i)
    if (!rules.rules[i].disabled && decided[i] != false)
      out.push_back({&rules.rules[i], decided[i].has_value()});
  return out;
}

Judgement judge_rules(const std::vector<OpenRule>& open, const FactTable& facts) {
  Judgement out;
  for (const OpenRule& o : open) {
    const Rule& r = *o.rule;
    if (!o.fires && evaluate(r.when, facts) != true) continue;
    out.delta += r.effects.score;  // in rule order, as judge_rules adds them
    if (r.effects.exclude && !out.excluded_by) out.excluded_by = &r;
  }
  return out;
}

Decisions decide_rules(const RuleSet& rules, const FactTable& partial, const Decisions* known) {
  Decisions out = known ? *known : Decisions(rules.rules.size());
  for (std::size_t i = 0; i < rules.rules.size(); ++i)
    if (!out[i] && !rules.rules[i].disabled) out[i] = evaluate(rules.rules[i].when, partial);
  return out;
}

}  // namespace gpusel::rules_detail
