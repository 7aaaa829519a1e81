#include "gpusel/base/text.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "gpusel/base/error.hpp"

namespace gpusel {
namespace {

constexpr std::size_t kMaxSuggestFrom = 128;

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + cost});
      diag = up;
    }
  }
  return row[b.size()];
}

std::vector<std::string> nearest(std::string_view word, const std::vector<std::string>& candidates,
                                 std::size_t max) {
  // No id is this long: a suggestion for such a word would be noise, and the edit distance
  // costs its length times each candidate's.
  if (word.empty() || word.size() > kMaxSuggestFrom) return {};
  const std::string w = to_lower(word);
  const std::size_t limit = std::max<std::size_t>(3, w.size() / 3);
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& c : candidates) {
    const std::string lc = to_lower(c);
    // A typed prefix or a contained word ("4090" for "rtx-4090") is a strong hint.
    if (lc.find(w) != std::string::npos) {
      scored.emplace_back(0, c);
      continue;
    }
    // The distance is at least the difference in length: skip what cannot be near.
    if (lc.size() > w.size() + limit || w.size() > lc.size() + limit) continue;
    if (std::size_t d = edit_distance(w, lc); d <= limit) scored.emplace_back(d, c);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < max; ++i) out.push_back(scored[i].second);
  return out;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const auto near = nearest(word, candidates);
  if (near.empty()) return "";
  std::string out = " (did you mean ";
  for (std::size_t i = 0; i < near.size(); ++i) out += (i ? ", " : "") + near[i];
  return out + "?)";
}

std::string quote_input(std::string_view s, std::size_t max) {
  // Most input (every id of a large file) needs neither an escape nor a cut: one check, one copy.
  if (s.size() <= max && std::none_of(s.begin(), s.end(), [](char ch) {
        const auto c = static_cast<unsigned char>(ch);
        return c < 0x20 || c == 0x7F;
      }))
    return std::string(s);
  std::string out;
  std::size_t i = 0;
  for (; i < s.size() && out.size() < max; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    // The same escapes as the CLI's safe_cell (cli/terminal.cpp), so one error line reads
    // alike whichever layer quoted the value.
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  // Never end inside a UTF-8 sequence: drop the continuation bytes of a cut character.
  if (i < s.size()) {
    while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();
    if (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0xC0) out.pop_back();
    out += "...";
  }
  return out;
}

std::string clip_words(std::string_view s, std::size_t max) {
  std::string out;
  out.reserve(std::min(s.size(), std::size_t{4096}));
  std::size_t run = 0;  // bytes of the current word copied so far
  bool cut = false;     // the current word was cut: skip the rest of it
  for (char ch : s) {
    if (ch == ' ') {
      run = 0;
      cut = false;
      out.push_back(ch);
    } else if (!cut && run == max) {
      // Never end inside a UTF-8 sequence: drop the continuation bytes of a cut character.
      while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80)
        out.pop_back();
      if (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0xC0) out.pop_back();
      out += "...";
      cut = true;
    } else if (!cut) {
      ++run;
      out.push_back(ch);
    }
  }
  return out;
}

std::string_view trim(std::string_view s) {
  auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

std::optional<double> parse_decimal(std::string_view s) {
  std::size_t digits = 0, dots = 0;
  for (char c : s) {
    if (c >= '0' && c <= '9') {
      ++digits;
    } else if (c == '.') {
      ++dots;
    } else {
      return std::nullopt;
    }
  }
  if (digits == 0 || dots > 1) return std::nullopt;
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (auto& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

namespace {

// The length of an SGR colour sequence (ESC [ digits and semicolons m) at `i`, or 0.
std::size_t sgr_length(std::string_view t, std::size_t i) {
  if (i + 2 >= t.size() || t[i + 1] != '[') return 0;
  std::size_t j = i + 2;
  while (j < t.size() && (std::isdigit(static_cast<unsigned char>(t[j])) || t[j] == ';')) ++j;
  return j < t.size() && t[j] == 'm' ? j + 1 - i : 0;
}

}  // namespace

std::string terminal_safe(std::string_view text) {
  static const std::string replacement = "\xEF\xBF\xBD";  // U+FFFD
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool c1 = c == 0xC2 && i + 1 < text.size() &&
                    static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(text[i + 1]) <= 0x9F;
    if (c == 0x1B) {
      if (const std::size_t n = sgr_length(text, i)) {
        out.append(text.substr(i, n));
        i += n - 1;
        continue;
      }
    }
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F || c == 0x1B) {
      out += replacement;
    } else if (c1) {
      out += replacement;
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string today_iso() {
  const auto now = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
  const std::chrono::year_month_day ymd{now};
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", int(ymd.year()), unsigned(ymd.month()),
                unsigned(ymd.day()));
  return buf;
}

}  // namespace gpusel
