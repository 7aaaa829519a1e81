#include "gpusel/rank/rules_snapshot.hpp"

#include <catch2/catch.hpp>

#include "gpusel/base/error.hpp"
#include "gpusel/data/snapshot.hpp"

using namespace gpusel;

TEST_CASE("the build's snapshot holds exactly the rules parse_rules reads from the JSON") {
  const RuleSet json = shipped_rules_from_json();
  const auto shipped = snapshot_rules(shipped_snapshot());
  REQUIRE(shipped);
  REQUIRE(shipped->rules.size() == json.rules.size());
  // Every field of every rule, conditions and translations included: a field the field list
  // misses reads back as its default and differs here.
  for (std::size_t i = 0; i < json.rules.size(); ++i) CHECK(shipped->rules[i] == json.rules[i]);
  CHECK(*shipped == json);
  CHECK(load_rules() == json);
  // The whole snapshot is the data sections, then the rules: a stale one differs.
  std::string expected = encode_snapshot(shipped_from_json());
  add_rules_section(expected, json);
  CHECK(expected == shipped_snapshot());
}

TEST_CASE("a snapshot without the rules, or a malformed one") {
  CHECK_FALSE(snapshot_rules({}));
  CHECK_FALSE(snapshot_rules(encode_snapshot(shipped_from_json())));  // no rules section
  const std::string snap(shipped_snapshot());
  CHECK_THROWS_AS(snapshot_rules(snap.substr(0, snap.size() - 3)), Error);
  // --rules files still merge over the shipped rules (two new ids appended).
  const RuleSet merged = load_rules("", {GPUSEL_FIXTURES "/rules/partly_translated.json"});
  CHECK(merged.rules.size() == load_rules().rules.size() + 2);
  CHECK(merged.find("big-cards-only") != nullptr);
}
