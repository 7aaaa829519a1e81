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

// Text for a terminal: names from a user's catalog or a device's tool may carry control
// characters (ESC sequences that move the cursor, retitle the window or clear the screen,
// BEL, CR that overwrites a line). Each C0 control other than newline and tab, DEL and each
// C1 control (U+0080-U+009F) becomes U+FFFD; gpusel's own colour codes (ESC [ digits ; m)
// are kept, as is the rest of the UTF-8 text.
std::string terminal_safe(std::string_view text);

// Today's date in UTC as YYYY-MM-DD: what prices are aged against unless --as-of says.
std::string today_iso();

}  // namespace gpusel
