#include "cli/render.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "gpusel/base/error.hpp"

namespace gpusel::cli {
namespace {

// Display width, counting each UTF-8 code point once (units like "µ" or "¥").
std::size_t width(const std::string& s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string pad(const std::string& s, std::size_t w, bool right) {
  std::string fill(w > width(s) ? w - width(s) : 0, ' ');
  return right ? fill + s : s + fill;
}

// An SGR colour sequence "\x1b[...m" starting at s[i]: its length, else 0. The only escape
// sequence gpusel writes itself (score bars); every other one comes from input.
std::size_t sgr_length(std::string_view s, std::size_t i) {
  if (s.compare(i, 2, "\x1b[") != 0) return 0;
  std::size_t j = i + 2;
  while (j < s.size() && ((s[j] >= '0' && s[j] <= '9') || s[j] == ';')) ++j;
  return j < s.size() && s[j] == 'm' ? j + 1 - i : 0;
}

bool starts_with(std::string_view s, std::size_t i, std::string_view p) {
  return s.compare(i, p.size(), p) == 0;
}

// "3,200 USD" -> "3200 USD": digits in groups of three before an optional fraction and an
// optional " unit"; anything else unchanged. Hand-written: cells hold user text of any length.
std::string ungroup(std::string s) {
  const std::size_t end = std::min(s.find(' '), s.size());
  const std::size_t dot = std::min(s.find('.'), end);
  std::size_t first = 0;
  while (first < dot && s[first] != ',') ++first;
  if (first == dot || first == 0 || first > 3) return s;
  for (std::size_t i = 0; i < dot; ++i) {
    const bool comma_place = i >= first && (i - first) % 4 == 0;
    if (comma_place ? s[i] != ',' : !(s[i] >= '0' && s[i] <= '9')) return s;
  }
  if ((dot - first) % 4 != 0) return s;
  if (dot < end && (dot + 1 == end || !std::all_of(s.begin() + std::ptrdiff_t(dot + 1),
                                                   s.begin() + std::ptrdiff_t(end),
                                                   [](char c) { return c >= '0' && c <= '9'; })))
    return s;
  s.erase(std::remove(s.begin(), s.begin() + std::ptrdiff_t(dot), ','),
          s.begin() + std::ptrdiff_t(dot));
  return s;
}

// What a person reads and a program parses differ: a CSV cell drops the score bars and
// colour of the terminal table, and "3,200 USD" becomes "3200 USD".
std::string plain(std::string_view cell) {
  std::size_t i = 0;  // a leading score bar: colour codes, full and empty blocks, one space
  for (std::size_t n = 1; n;) {
    n = sgr_length(cell, i);
    if (!n && starts_with(cell, i, "\u2588")) n = 3;
    if (!n && starts_with(cell, i, "\u2591")) n = 3;
    i += n;
  }
  if (i > 0 && i < cell.size() && cell[i] == ' ') ++i;
  std::string s;
  while (i < cell.size()) {
    const std::size_t n = sgr_length(cell, i);
    if (n) {
      i += n;
      continue;
    }
    s += cell[i++];
  }
  return ungroup(std::move(s));
}

// A number (possibly negative, with a unit or percent after it) is data, not a formula.
bool numeric(std::string_view s) {
  std::size_t i = s[0] == '-' || s[0] == '+' ? 1 : 0;
  return i < s.size() && s[i] >= '0' && s[i] <= '9';
}

std::string csv_cell(const std::string& raw) {
  std::string s = terminal_safe(plain(raw));
  // OWASP CSV injection: a cell a spreadsheet would run as a formula starts with a quote.
  if (s.size() > 1 && std::string_view("=+-@\t\r").find(s[0]) != std::string_view::npos &&
      !numeric(s))
    s.insert(0, 1, '\'');
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;  // RFC 4180 quoting
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

std::string terminal_safe(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (const std::size_t n = sgr_length(s, i)) {
      out.append(s.substr(i, n));
      i += n;
    } else if ((c < 0x20 && c != '\n') || c == 0x7f) {
      out += fmt::format("\\x{:02X}", c);
      ++i;
    } else if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(s[i + 1]) <= 0x9f) {  // C1 controls (CSI, OSC...)
      out += fmt::format("\\u{:04X}", static_cast<unsigned char>(s[i + 1]));
      i += 2;
    } else {
      out += s[i++];
    }
  }
  return out;
}

Format parse_format(const std::string& name) {
  if (name == "table") return Format::table;
  if (name == "json") return Format::json;
  if (name == "csv") return Format::csv;
  throw usage_error("unknown format '" + name + "' (use table, json or csv)");
}

std::string render_table(const Table& input) {
  Table t = input;  // cells as they will show, so widths count the escaped text
  for (auto& row : t.rows)
    for (auto& cell : row) cell = terminal_safe(cell);
  std::vector<std::size_t> w(t.columns.size());
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    w[c] = width(t.columns[c].header);
    for (const auto& row : t.rows) w[c] = std::max(w[c], width(row.at(c)));
  }
  auto line = [&](auto cell) {
    std::string s;
    for (std::size_t c = 0; c < t.columns.size(); ++c)
      s += (c ? "  " : "") + pad(cell(c), w[c], t.columns[c].right);
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  std::string out = line([&](std::size_t c) { return t.columns[c].header; });
  out += line([&](std::size_t c) { return std::string(w[c], '-'); });
  for (const auto& row : t.rows) out += line([&](std::size_t c) { return row[c]; });
  return out;
}

std::string render_csv(const Table& t) {
  std::string out;
  for (std::size_t c = 0; c < t.columns.size(); ++c)
    out += (c ? "," : "") + csv_cell(t.columns[c].header);
  out += "\n";
  for (const auto& row : t.rows) {
    for (std::size_t c = 0; c < row.size(); ++c) out += (c ? "," : "") + csv_cell(row[c]);
    out += "\n";
  }
  return out;
}

void emit(std::ostream& out, const Output& o, Format f) {
  std::string text;
  if (f == Format::json)
    text = o.json.dump(2) + "\n";
  else if (f == Format::csv)
    text = render_csv(o.table);
  else
    text =
        terminal_safe(o.before + (o.table.columns.empty() ? "" : render_table(o.table)) + o.after);
  out << text;
  out.flush();
}

std::string fixed(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }

std::string gib(double bytes) { return fixed(bytes / (1024.0 * 1024.0 * 1024.0), 2); }

bool colour_enabled() {
  const char* no = std::getenv("NO_COLOR");
  return isatty(STDOUT_FILENO) && !(no && *no);
}

}  // namespace gpusel::cli
