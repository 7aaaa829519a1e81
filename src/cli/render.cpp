#include "cli/render.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <regex>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"

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

// What a person reads and a program parses differ: a CSV cell drops the score bars and
// colour of the terminal table, and "3,200 USD" becomes "3200 USD".
std::string plain(const std::string& cell) {
  static const std::regex bar("^(\x1b\\[[0-9;]*m|\u2588|\u2591)+ ?"), ansi("\x1b\\[[0-9;]*m");
  static const std::regex grouped("^[0-9]{1,3}(,[0-9]{3})+(\\.[0-9]+)?( .*)?$");
  std::string s = std::regex_replace(std::regex_replace(cell, bar, ""), ansi, "");
  if (!std::regex_match(s, grouped)) return s;
  const std::size_t end = std::min(s.find(' '), s.size());
  s.erase(std::remove(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(end), ','),
          s.begin() + static_cast<std::ptrdiff_t>(end));
  return s;
}

std::string csv_cell(const std::string& raw) {
  const std::string s = plain(raw);
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

Format parse_format(const std::string& name) {
  if (name == "table") return Format::table;
  if (name == "json") return Format::json;
  if (name == "csv") return Format::csv;
  if (name == "html") return Format::html;
  throw usage_error("unknown format '" + name + "' (use table, json or csv)");
}

std::string render_table(const Table& t) {
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

std::string render(const Output& o, Format f) {
  if (f == Format::json) return o.json.dump(2) + "\n";
  // Table and CSV are read in terminals: names from data or a device's tool must not carry
  // control sequences there (JSON escapes them itself, HTML is escaped by report/html).
  if (f == Format::csv) return terminal_safe(render_csv(o.table));
  if (f == Format::html) {
    if (o.html.empty()) throw usage_error("--format html is for recommend only");
    return o.html;
  }
  return terminal_safe(o.before + (o.table.columns.empty() ? "" : render_table(o.table)) + o.after);
}

void emit(std::ostream& out, const Output& o, Format f) {
  out << render(o, f);
  out.flush();
}

std::string fixed(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }

std::string gib(double bytes) { return fixed(bytes / (1024.0 * 1024.0 * 1024.0), 2); }

bool colour_enabled() {
  const char* no = std::getenv("NO_COLOR");
  return isatty(STDOUT_FILENO) && !(no && *no);
}

}  // namespace gpusel::cli
