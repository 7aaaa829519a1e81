#pragma once
// Small text helpers shared by the core modules.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpusel {

// The most a data file may hold (256 MiB): the largest shipped file is 0.2 MB; a catalog of
// 100,000 cards written like the shipped ones (one source each) is about 147 MB and 100,000
// cloud offers about 56 MB, so the cap takes 100,000-170,000 cards or 450,000 offers. It
// exists so that an endless stream or a mistyped path to a huge file ends in one line
// instead of exhausting memory (reading holds the text once: no doubling, see read_file).
constexpr std::size_t kMaxInputBytes = std::size_t{256} << 20;

// Whole file as a string; "-" reads stdin (once per run). Error(data) naming the path when
// it cannot be read: missing, no permission, a directory, a FIFO, a device or a socket (only
// regular files are opened: a FIFO would block and /dev/zero never ends), over kMaxInputBytes.
std::string read_file(const std::string& path);

// `s` for an error message: cut to `max` bytes (on a UTF-8 boundary, "..." appended) and
// with control characters shown as \xnn (\n, \r, \t), so a 200 KB token or an escape sequence in a
// user's input can neither flood nor drive the terminal.
std::string quote_input(std::string_view s, std::size_t max = 64);

// `s` with every run of non-space bytes longer than `max` cut to `max` (on a UTF-8 boundary,
// "..." appended): for messages that quote input inside text of their own (CLI11's "Could not
// convert: --count = <value>"), so a 30,000-digit value cannot flood the terminal or a log.
std::string clip_words(std::string_view s, std::size_t max = 64);

// `s` without leading and trailing ASCII whitespace (space, \t, \n, \v, \f, \r).
std::string_view trim(std::string_view s);

// A plain decimal: digits, optionally '.' and digits (".5" and "5." too), nothing else: no
// sign, exponent, hex, inf or nan. nullopt for anything else or a value that is not finite.
std::optional<double> parse_decimal(std::string_view s);

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
