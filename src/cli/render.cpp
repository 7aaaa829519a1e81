#include "cli/render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "gpusel/base/error.hpp"
#include "gpusel/base/output_guard.hpp"
#include "gpusel/base/text.hpp"

namespace gpusel::cli {
namespace {

const char* format_name(Format f) {
  switch (f) {
    case Format::table:
      return "table";
    case Format::json:
      return "json";
    case Format::csv:
      return "csv";
    case Format::html:
      return "html";
    case Format::github:
      return "github";
  }
  return "";
}

bool starts_with(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// A display cell for a program: without the score bar ("███░░ 75" -> "75") and without
// thousands separators in a leading number ("3,200 USD" -> "3200 USD"). Read by hand, no
// regex: cells carry text from user files.
std::string plain(std::string s) {
  for (bool more = true; more;) {
    more = false;
    for (std::string_view bar : {"\u2588", "\u2591"})
      if (starts_with(s, bar)) s.erase(0, bar.size()), more = true;
  }
  if (!s.empty() && s.front() == ' ') s.erase(0, 1);
  const std::size_t end = std::min(s.find(' '), s.size());
  bool grouped = end > 0 && s.find(',') < end;
  for (std::size_t i = 0; i < end && grouped; ++i)
    grouped = std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == ',' || s[i] == '.';
  if (grouped)
    s.erase(std::remove(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(end), ','),
            s.begin() + static_cast<std::ptrdiff_t>(end));
  return s;
}

bool is_number(const std::string& s) {
  if (s.empty() || s.size() > 64 || std::isspace(static_cast<unsigned char>(s.front())))
    return false;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(v);
}

// OWASP CSV injection: a cell a spreadsheet would evaluate (= + - @, tab, CR first) gets a
// leading ' so it stays text; numbers such as -5 and a lone "-" are left alone. Then RFC 4180
// quoting.
std::string csv_cell(const std::string& raw) {
  std::string s = safe_cell(raw);
  if (s.size() > 1 && std::string_view("=+-@\t\r").find(s.front()) != std::string_view::npos &&
      !is_number(s))
    s.insert(0, "'");
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string highlighted(std::string text, const std::vector<Highlight>& hs) {
  if (!display().colour) return text;
  for (const auto& h : hs) {
    const std::string what = safe_text(h.text);
    if (what.empty()) continue;
    const std::string coloured = paint(what, h.tone);
    for (std::size_t at = text.find(what); at != std::string::npos;
         at = text.find(what, at + coloured.size()))
      text.replace(at, what.size(), coloured);
  }
  return text;
}

std::string csv_value(const nlohmann::json& v, double scale) {
  if (v.is_null()) return "";
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) {
    const double x = v.get<double>() * scale;
    return scale == 1 ? raw_number(x) : fmt::format("{:.12g}", x);
  }
  // "-" is a view's placeholder for a missing value (a single card's link): empty in CSV.
  if (v.is_string()) return v.get<std::string>() == "-" ? std::string() : v.get<std::string>();
  if (v.is_array()) return std::to_string(v.size());
  return v.dump();
}

}  // namespace

namespace {

// "table (or text), json or csv": the names a command takes, for error messages.
std::string format_names(const std::vector<Format>& allowed) {
  std::string s;
  for (std::size_t i = 0; i < allowed.size(); ++i) {
    s += i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ";
    s += format_name(allowed[i]);
    if (allowed[i] == Format::table) s += " (or text)";
  }
  return s;
}

}  // namespace

Format parse_format(const std::string& name, const std::vector<Format>& allowed) {
  Format f;
  if (name == "table" || name == "text")
    f = Format::table;
  else if (name == "json")
    f = Format::json;
  else if (name == "csv")
    f = Format::csv;
  else if (name == "github")
    f = Format::github;
  else if (name == "html")
    f = Format::html;
  else
    throw usage_error("unknown format '" + quote_input(name) + "' (use " + format_names(allowed) +
                      ")");
  if (std::find(allowed.begin(), allowed.end(), f) == allowed.end())
    throw usage_error("--format " + name + " is not available here (use " + format_names(allowed) +
                      ")");
  return f;
}

std::string format_help(const std::vector<Format>& allowed) {
  std::string s;
  for (Format f : allowed) s += (s.empty() ? "" : "|") + std::string(format_name(f));
  return s + " (default table; text = table)";
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

Table json_rows(const nlohmann::json& rows, const std::vector<CsvColumn>& columns) {
  Table t;
  for (const auto& c : columns) t.columns.push_back({c.header});
  if (!rows.is_array()) return t;
  for (const auto& e : rows) {
    std::vector<std::string> row;
    for (const auto& c : columns) {
      const nlohmann::json::json_pointer p(c.pointer);
      row.push_back(e.contains(p) ? csv_value(e.at(p), c.scale) : "");
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string raw_number(double v) {
  if (!std::isfinite(v)) return "";
  if (v == 0) return "0";  // -0 too: a spreadsheet reads "-0" as text in some locales
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{:.0f}", v);
  return fmt::format("{}", v);
}

std::string render(const Output& o, Format f, bool to_terminal) {
  std::string text;
  if (f == Format::json) {
    text = guard_output(o.json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
                        OutputKind::json);
  } else if (f == Format::csv && !o.csv.columns.empty()) {
    text = guard_output(render_csv(o.csv), OutputKind::text);
  } else if (f == Format::csv) {
    Table t = o.table;
    // A table's "-" stands for a missing value; in CSV a missing value is empty (README).
    for (auto& row : t.rows)
      for (auto& cell : row) cell = cell == "-" ? std::string() : plain(cell);
    text = guard_output(render_csv(t), OutputKind::text);
  } else if (f == Format::html) {
    text = guard_output(o.html, OutputKind::markup);  // report/html escaped data's texts
  } else {
    text = safe_text(o.before);  // the table appended in place: it may be tens of megabytes
    if (!o.table.columns.empty()) render_table_to(text, o.table);
    text += safe_text(o.after);
    text = guard_output(text, OutputKind::text);
    if (to_terminal) text = highlighted(std::move(text), o.highlights);
  }
  return text;
}

namespace {

// A table without highlights is written as it is rendered, a thousand rows at a time: the
// same text render() makes (guard_output works line by line and every part starts a line),
// without a 100,000-row table held whole in memory.
bool emit_streamed(std::ostream& out, const Output& o) {
  if (o.table.columns.empty() || (display().colour && !o.highlights.empty())) return false;
  std::string text = safe_text(o.before);
  if (!text.empty() && text.back() != '\n') return false;
  render_table_to(text, o.table, [&out](std::string& part) {
    out << guard_output(part, OutputKind::text);
    part.clear();
  });
  text += safe_text(o.after);
  out << guard_output(text, OutputKind::text);
  return true;
}

}  // namespace

void emit(std::ostream& out, const Output& o, Format f) {
  if (f != Format::table || !emit_streamed(out, o)) out << render(o, f, true);
  out.flush();
}

// std::to_chars writes the same bytes as fmt's "{:.Nf}" (both the exact decimal value, ties to
// even; inf and nan alike: 3 M values compared, round 10) without fmt's format-string parse,
// which a 100,000-row table paid a few times per row. Fmt stays for what the buffer cannot hold.
std::string fixed(double v, int decimals) {
  char buf[512];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  if (r.ec != std::errc()) return fmt::format("{:.{}f}", v, decimals);
  return std::string(buf, r.ptr);
}

std::string gib(double bytes) { return fixed(bytes / (1024.0 * 1024.0 * 1024.0), 2); }

}  // namespace gpusel::cli
