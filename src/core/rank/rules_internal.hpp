#pragma once
// Shared by the rules sources only: the placeholder syntax, used both to check texts at load
// time and to fill them at apply time, so the two can never disagree.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusel/rank/rules.hpp"

namespace gpusel::rules_detail {

// The type of a fact's value (number, boolean or text).
FactType type_of(const FactValue& v);

// Calls `value(name, pct)` for each {name} / {name:pct} of `text` and splices in what it
// returns; "{{" and "}}" become single braces. Throws std::invalid_argument describing a
// malformed placeholder (unclosed, empty, unknown format suffix, stray '}').
std::string expand_placeholders(std::string_view text,
                                const std::function<std::string(std::string_view, bool)>& value);

// What apply_rules decides for the ranker's configurations that are counted, not shown: the
// same rules fire on the same facts, without their ids, messages or texts.
struct Judgement {
  ScoreDelta delta;
  const Rule* excluded_by = nullptr;  // the first exclusion, in rule order
};
// Per rule of a RuleSet: its condition's value where part of the facts decide it, else nullopt.
using Decisions = std::vector<std::optional<bool>>;

// `decided`: from decide_rules on part of the same facts (null: none); the rules it decides
// are not evaluated again.
Judgement judge_rules(const RuleSet& rules, const FactTable& facts,
                      const Decisions* decided = nullptr);

// What decisions leave of a RuleSet, in rule order: each rule known to fire or still to be
// evaluated; rules known not to fire and disabled ones are left out.
struct OpenRule {
  const Rule* rule = nullptr;
  bool fires = false;  // known to fire; else evaluated on the configuration's facts
};
std::vector<OpenRule> open_rules(const RuleSet& rules, const Decisions& decided);
// judge_rules over what open_rules left, on the full facts it was decided from a part of.
Judgement judge_rules(const std::vector<OpenRule>& open, const FactTable& facts);

// Each rule's condition on a table where only some of a configuration's facts are known (the
// workload's, shared by every card of a GPU count): true or false where those decide it,
// nullopt where it needs the rest. Kleene logic is monotone, so a condition known true or
// false stays so whatever the unknown facts turn out to be.
// `known`: decisions on fewer of the same facts (null: none), taken as they are.
Decisions decide_rules(const RuleSet& rules, const FactTable& partial,
                       const Decisions* known = nullptr);

}  // namespace gpusel::rules_detail
