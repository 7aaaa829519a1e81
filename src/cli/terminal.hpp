#pragma once
// What reaches a terminal, a spreadsheet or a CI log: text from data files made inert
// (control characters and escape sequences shown, never sent), colour only where asked
// for, and the width tables fit into.
#include <cstddef>
#include <string>
#include <string_view>

namespace gpusel::cli {

enum class Tone { plain, good, warn, bad };

struct Display {
  bool colour = false;    // ANSI colour on stdout
  std::size_t width = 0;  // columns a table may use; 0 = no limit
};

// --color auto|always|never and --wide resolved against the environment: colour on a
// terminal unless NO_COLOR is set (always/never override it), the width from COLUMNS, else
// the terminal's, else none (pipes and files get whole lines). Usage error on a bad mode.
Display detect_display(const std::string& color_mode, bool wide);
void set_display(const Display& d);  // once, before any output
const Display& display();

// `s` in the tone's colour when colour is on; unchanged otherwise.
std::string paint(const std::string& s, Tone t);

// Text lines for people: every control character but newline and tab, DEL, C1 controls,
// bidirectional overrides and invalid UTF-8 bytes shown as escapes (\x1b, \u202e), so no
// file can move the cursor, set the title or reorder what is read.
std::string safe_text(std::string_view s);
// A table or CSV cell: as safe_text, and newline, tab and CR escaped too (\n, \t, \r).
std::string safe_cell(std::string_view s);
// Only bytes 0x20-0x7E: what safe_cell and safe_text leave as it is.
bool printable_ascii(std::string_view s);

// GitHub Actions workflow-command escaping: a message (% CR LF) and a property value
// (also : and ,), so a value cannot end its annotation or start another command.
std::string github_data(std::string_view s);
std::string github_property(std::string_view s);

// Columns `s` takes on a terminal: two per CJK (East Asian Wide) character, none for
// combining marks and ANSI colour sequences, one for the rest.
std::size_t display_width(std::string_view s);
std::size_t code_point_width(char32_t cp);

}  // namespace gpusel::cli
