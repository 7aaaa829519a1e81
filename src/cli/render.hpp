#pragma once
// The one formatting path: every command builds an Output (a table for people, JSON for
// programs) and `emit` writes it in the asked format, in one piece.
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace gpusel::cli {

// html: a whole page, only where a command builds one (recommend); others refuse it.
enum class Format { table, json, csv, html };
Format parse_format(const std::string& name);  // usage error on anything else

struct Column {
  std::string header;
  bool right = false;  // numbers align right
};

struct Table {
  std::vector<Column> columns;
  std::vector<std::vector<std::string>> rows;
};

struct Output {
  std::string before;  // text above the table (table format only)
  Table table;
  std::string after;  // text below the table (table format only)
  nlohmann::json json;
  std::string html;  // the page --format html writes ("" = the command has none)
};

std::string render_table(const Table& t);
std::string render_csv(const Table& t);
// The output in format `f`, as written; Error(usage) for html when the command has no page.
std::string render(const Output& o, Format f);
void emit(std::ostream& out, const Output& o, Format f);

// Number formatting shared by all commands: fixed decimals, "-" for missing values.
std::string fixed(double v, int decimals);
std::string gib(double bytes);  // bytes -> "12.34"

// Whether stdout may carry ANSI colour: a terminal, and NO_COLOR unset.
bool colour_enabled();

}  // namespace gpusel::cli
