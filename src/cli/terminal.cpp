#include "cli/terminal.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"

namespace gpusel::cli {
namespace {

Display g_display;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// COLUMNS as a positive number of columns, 0 when unset or not a number (read by hand:
// a 30k-digit value must not reach a regex or overflow).
std::size_t columns_env() {
  const std::string v = env("COLUMNS");
  if (v.empty() || v.size() > 5) return 0;
  std::size_t n = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return 0;
    n = n * 10 + static_cast<std::size_t>(c - '0');
  }
  return n;
}

std::size_t terminal_width() {
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 0;
}

// The length of the UTF-8 sequence starting at s[i] and its code point; 0 when invalid.
std::size_t decode(std::string_view s, std::size_t i, char32_t& cp) {
  const auto b = static_cast<unsigned char>(s[i]);
  std::size_t n = b >= 0xF0 && b < 0xF5 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 && b < 0xE0 ? 2 : 0;
  if (b >= 0xF5 || n == 0 || i + n > s.size()) return 0;
  cp = b & (0x7F >> n);
  for (std::size_t k = 1; k < n; ++k) {
    const auto c = static_cast<unsigned char>(s[i + k]);
    if ((c & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (c & 0x3F);
  }
  const char32_t min = n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

// C1 controls and the invisible characters that reorder or hide text (Trojan Source).
bool hidden_code_point(char32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

std::string escape_ascii(char c) {
  switch (c) {
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    default:
      return fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
  }
}

std::string make_safe(std::string_view s, bool keep_layout) {
  // Most text is printable ASCII, which stays as it is: one check, one copy.
  if (printable_ascii(s)) return std::string(s);
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      const bool control = b < 0x20 || b == 0x7F;
      const bool layout = b == '\n' || b == '\t';
      if (control && !(keep_layout && layout))
        out += escape_ascii(s[i]);
      else
        out.push_back(s[i]);
      ++i;
      continue;
    }
    char32_t cp = 0;
    const std::size_t n = decode(s, i, cp);
    if (n == 0) {
      out += fmt::format("\\x{:02x}", b);
      ++i;
    } else {
      if (hidden_code_point(cp))
        out += fmt::format("\\u{:04x}", static_cast<unsigned>(cp));
      else
        out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string github_escape(std::string_view s, bool property) {
  std::string out;
  for (char c : s) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else if (property && c == ':')
      out += "%3A";
    else if (property && c == ',')
      out += "%2C";
    else
      out += c;
  }
  return out;
}

}  // namespace

Display detect_display(const std::string& color_mode, bool wide) {
  if (color_mode != "auto" && color_mode != "always" && color_mode != "never")
    throw usage_error("--color '" + quote_input(color_mode) + "' must be auto, always or never");
  Display d;
  const bool tty = isatty(STDOUT_FILENO) == 1;
  // no-color.org: NO_COLOR set and not empty turns colour off; a flag on the command line wins.
  d.colour = color_mode == "always" ||
             (color_mode == "auto" && tty && env("NO_COLOR").empty() && env("TERM") != "dumb");
  if (!wide) d.width = columns_env();
  if (!wide && d.width == 0 && tty) d.width = terminal_width();
  return d;
}

void set_display(const Display& d) { g_display = d; }

const Display& display() { return g_display; }

std::string paint(const std::string& s, Tone t) {
  if (!g_display.colour || t == Tone::plain || s.empty()) return s;
  const char* code = t == Tone::good ? "32" : t == Tone::warn ? "33" : "1;31";
  return std::string("\x1b[") + code + "m" + s + "\x1b[0m";
}

std::string safe_text(std::string_view s) { return make_safe(s, true); }

std::string safe_cell(std::string_view s) { return make_safe(s, false); }

bool printable_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7F; });
}

std::string github_data(std::string_view s) { return github_escape(s, false); }

std::string github_property(std::string_view s) { return github_escape(s, true); }

// Columns a code point takes: 2 for the East Asian Wide and Fullwidth blocks (CJK
// ideographs and punctuation, kana, Hangul, fullwidth forms), 0 for combining marks and
// zero-width characters, 1 otherwise (the block and box characters of the score bars are
// narrow). Ranges from Unicode's EastAsianWidth.txt, W and F classes, summarised by block.
std::size_t code_point_width(char32_t cp) {
  if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F) || cp == 0xFEFF ||
      (cp >= 0xFE00 && cp <= 0xFE0F))
    return 0;
  const bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0x303E) ||
                    (cp >= 0x3041 && cp <= 0x33FF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
                    (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xA000 && cp <= 0xA4CF) ||
                    (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
                    (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                    (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
                    (cp >= 0x20000 && cp <= 0x3FFFD);
  return wide ? 2 : 1;
}

std::size_t display_width(std::string_view s) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (static_cast<unsigned char>(s[i]) < 0x80 && s[i] != '\x1b') {
      ++w;  // ASCII: one column, as decode and code_point_width would say
      continue;
    }
    if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      i += 2;  // skip a colour sequence: ESC [ digits ; ... m
      while (i < s.size() && s[i] != 'm') ++i;
      continue;
    }
    char32_t cp = 0;
    const std::size_t n = decode(s, i, cp);
    if (n == 0) {
      ++w;  // an invalid byte: shown escaped elsewhere, one column here
      continue;
    }
    w += code_point_width(cp);
    i += n - 1;
  }
  return w;
}

}  // namespace gpusel::cli
