#pragma once
// Shared by the rules sources only: the placeholder syntax, used both to check texts at load
// time and to fill them at apply time, so the two can never disagree.
#include <functional>
#include <string>
#include <string_view>

#include "gpusel/rank/rules.hpp"

namespace gpusel::rules_detail {

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
Judgement judge_rules(const RuleSet& rules, const FactTable& facts);

}  // namespace gpusel::rules_detail
