#pragma once
// The properties the fuzz targets check, one function per target. Each takes any bytes and
// must end in a value or a gpusel::Error (never a crash, a hang, another exception or a
// sanitizer report); anything else throws Finding. Shared by the libFuzzer targets
// (fuzz_*.cpp) and by the unit test that replays every seed and every past finding
// (tests/fuzz/corpus/<target>/), so a finding stays a regression test in every build.
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace gpusel::fuzz {

struct Finding : std::logic_error {
  using std::logic_error::logic_error;
};

// parse_param_count and the typical architecture it implies.
void check_param_count(std::string_view input);
// --budget, --weights, --reserve, --currency, the locale variables, dates.
void check_text_parsers(std::string_view input);
// The JSON scanner against nlohmann: same acceptance (but for the stricter rules), same value,
// and every value's position pointing at its first character; on accepted text, the loaders'
// flat tree has the same value, finds every member, and its schema check of catalog and
// offers records agrees with the full check.
void check_json_source(std::string_view input);
// A data file (catalog, offers or models): catalog validate and the loader agree, and what
// loads goes through recommend, rent or estimate.
void check_data_file(std::string_view input);
// A --rules file: loads or is refused, and loaded rules rank the embedded catalog.
void check_rules(std::string_view input);
// The command line: newline-separated arguments run through gpusel's own entry point.
void check_cli(std::string_view input);

// The check a target name stands for ("param_count", "text", "json", "data", "rules", "cli").
// Equal value for value and type for type: nlohmann's == calls 1 and 1.0 (or -0.0 and 0.0)
// equal, and gpusel builds its own trees (json_build) that must match nlohmann's exactly.
bool same_tree(const nlohmann::json& a, const nlohmann::json& b);

using Check = void (*)(std::string_view);
Check check_named(std::string_view target);

}  // namespace gpusel::fuzz
