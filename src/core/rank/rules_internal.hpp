#pragma once
// Shared by the rules sources only: the placeholder syntax, used both to check texts at load
// time and to fill them at apply time, so the two can never disagree.
#include <functional>
#include <string>
#include <string_view>

namespace gpusel::rules_detail {

// Calls `value(name, pct)` for each {name} / {name:pct} of `text` and splices in what it
// returns; "{{" and "}}" become single braces. Throws std::invalid_argument describing a
// malformed placeholder (unclosed, empty, unknown format suffix, stray '}').
std::string expand_placeholders(std::string_view text,
                                const std::function<std::string(std::string_view, bool)>& value);

}  // namespace gpusel::rules_detail
