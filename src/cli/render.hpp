#pragma once
// The one formatting path: every command builds an Output (a table for people, JSON for
// programs, a raw table for spreadsheets) and `emit` writes it in the asked format, in one
// piece, with data from files made safe for the terminal (terminal.hpp).
#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/terminal.hpp"

namespace gpusel::cli {

// One --format vocabulary for every command: table (alias text), json, csv, github
// (workflow annotations, `catalog validate` only) and html (a whole page, `recommend` only).
enum class Format { table, json, csv, github, html };
// Usage error on a name outside `allowed`, naming the ones the command takes.
Format parse_format(const std::string& name, const std::vector<Format>& allowed = {
                                                 Format::table, Format::json, Format::csv});
// "table|json|csv (default table; text = table)": the --format help line for `allowed`.
std::string format_help(const std::vector<Format>& allowed = {Format::table, Format::json,
                                                              Format::csv});

struct Column {
  std::string header;
  bool right = false;  // numbers align right
  // 0: always shown. Otherwise the column may be dropped to fit the terminal's width,
  // the highest number first (--wide shows every column).
  int drop = 0;
  bool wrap = false;  // long text that may wrap onto more lines to fit the width
};

struct Table {
  std::vector<Column> columns;
  std::vector<std::vector<std::string>> rows;
  // Optional colour per cell, parallel to rows (missing entries are plain).
  std::vector<std::vector<Tone>> tones{};
};

struct Highlight {
  std::string text;  // coloured wherever it occurs in before/after (table format only)
  Tone tone;
};

struct Output {
  std::string before;  // text above the table (table format only)
  Table table;
  std::string after;  // text below the table (table format only)
  std::vector<Highlight> highlights;
  nlohmann::json json;
  std::string html;  // the page --format html writes ("" = the command has none)
  // What --format csv writes: one column per value, raw numbers, units in the headers.
  // Empty: the display table, its cells unformatted ("3,200 USD" -> "3200 USD").
  Table csv;
};

// Aligned columns fitted to the display width (terminal.hpp): low-priority columns dropped
// first, then wrap columns wrapped; a line under the table names what was dropped.
std::string render_table(const Table& t);
// The same, appended to `out`; with `flush`, handed `out` every thousand rows or so (it writes
// and clears it), so a long table is never held whole.
void render_table_to(std::string& out, const Table& t,
                     const std::function<void(std::string&)>& flush = {});
// RFC 4180; cells that a spreadsheet would run as a formula start with ' (OWASP).
std::string render_csv(const Table& t);
// The output in format `f`, as written; Error(usage) for html when the command has no page.
// The text of `o` in format `f`; colour only `to_terminal` (never in an -o file).
std::string render(const Output& o, Format f, bool to_terminal);
void emit(std::ostream& out, const Output& o, Format f);

// A CSV column read from each element of a JSON array: `pointer` inside the element,
// numbers multiplied by `scale`; arrays give their length.
struct CsvColumn {
  std::string header, pointer;
  double scale = 1;
};
Table json_rows(const nlohmann::json& rows, const std::vector<CsvColumn>& columns);
std::string raw_number(double v);  // shortest exact form, no grouping: "20659187712", "0.25"

// Number formatting shared by all commands: fixed decimals, "-" for missing values.
std::string fixed(double v, int decimals);
std::string gib(double bytes);  // bytes -> "12.34"

}  // namespace gpusel::cli
