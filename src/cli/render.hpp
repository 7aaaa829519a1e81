#pragma once
// The one formatting path: every command builds an Output (a table for people, JSON for
// programs) and `emit` writes it in the asked format, in one piece.
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace gpusel::cli {

enum class Format { table, json, csv };
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
};

std::string render_table(const Table& t);
std::string render_csv(const Table& t);
void emit(std::ostream& out, const Output& o, Format f);

// Text for a terminal or log: control characters from input (ESC, CR, BEL, DEL, C1) shown as
// \xNN, so a name or rule text cannot set a title, clear the screen or rewrite a line; only
// the colour sequences ESC [ ... m (score bars) and newlines pass.
std::string terminal_safe(std::string_view s);

// Number formatting shared by all commands: fixed decimals, "-" for missing values.
std::string fixed(double v, int decimals);
std::string gib(double bytes);  // bytes -> "12.34"

// Whether stdout may carry ANSI colour: a terminal, and NO_COLOR unset.
bool colour_enabled();

}  // namespace gpusel::cli
