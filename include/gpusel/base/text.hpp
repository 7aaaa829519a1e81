#pragma once
// Small text helpers shared by the core modules.
#include <string>
#include <string_view>
#include <vector>

namespace gpusel {

// Whole file as a string; Error(data) naming the path when it cannot be read
// (missing, a directory, no permission).
std::string read_file(const std::string& path);

// Levenshtein distance, for "did you mean" suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b);

// Up to `max` candidates closest to `word` (prefix matches first), nearest first.
std::vector<std::string> nearest(std::string_view word, const std::vector<std::string>& candidates,
                                 std::size_t max = 3);

// " (did you mean a, b?)" for the nearest candidates, or "" when none is near.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

std::string to_lower(std::string_view s);

// Today's date in UTC as YYYY-MM-DD: what prices are aged against unless --as-of says.
std::string today_iso();

}  // namespace gpusel
