#include "gpusel/rank/rules_snapshot.hpp"

#include "data/snapshot_io.hpp"
#include "gpusel/data/catalog.hpp"
#include "gpusel/json/embedded.hpp"

namespace gpusel {
namespace snapshot {

// One field list per rules record, walked by the snapshot's writer and reader alike (see
// data/snapshot_fields.hpp); the unit test compares every field with parse_rules' records.
template <typename A, either<ScoreDelta> T>
void fields(A& a, T& d) {
  a(d.budget, d.ecosystem);
}

template <typename A, either<Effects> T>
void fields(A& a, T& e) {
  a(e.warning, e.note, e.score, e.exclude, e.warning_zh, e.note_zh, e.exclude_zh);
}

template <typename A, either<Condition> T>
void fields(A& a, T& c) {
  a(c.kind, c.fact, c.fact_index, c.op, c.values, c.operands);
}

template <typename A, either<Rule> T>
void fields(A& a, T& r) {
  a(r.id, r.fact, r.knowledge, r.source, r.when, r.effects, r.disabled, r.origin);
}

template <typename A, either<RuleSet> T>
void fields(A& a, T& s) {
  a(s.origin, s.rules);
}

}  // namespace snapshot

namespace {
constexpr const char* kFile = "data/rules.json";
}  // namespace

RuleSet shipped_rules_from_json() {
  const std::string origin = std::string("embedded ") + kFile;
  return parse_rules(parse_json_text(std::string(embedded_text(kFile)), origin), origin);
}

void add_rules_section(std::string& snapshot, const RuleSet& rules) {
  snapshot::add_section(snapshot, kFile, rules);
}

std::optional<RuleSet> snapshot_rules(std::string_view snapshot) {
  RuleSet set;
  if (!snapshot::read_section(snapshot, kFile, set)) return std::nullopt;
  return set;
}

}  // namespace gpusel
