#pragma once
// The shipped rules (data/rules.json) in the build's snapshot of typed records
// (gpusel/data/snapshot.hpp): make_snapshot adds them as parse_rules reads the JSON, and
// load_rules reads them back with no JSON tree. A --rules file is still read as JSON.
#include <optional>
#include <string>
#include <string_view>

#include "gpusel/rank/rules.hpp"

namespace gpusel {

// The embedded data/rules.json read as a user's rules file is (never from a snapshot).
RuleSet shipped_rules_from_json();

// Appends the rules' section to a snapshot (one encode_snapshot began).
void add_rules_section(std::string& snapshot, const RuleSet& rules);

// The shipped rules from a snapshot; nullopt when it has none (then load_rules reads the
// JSON); Error(data) for a malformed one.
std::optional<RuleSet> snapshot_rules(std::string_view snapshot);

}  // namespace gpusel
