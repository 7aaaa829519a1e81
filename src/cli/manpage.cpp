#include "cli/manpage.hpp"

#include <fmt/format.h>

#include "cli/cli_tree.hpp"
#include "cli/help_text.hpp"

namespace gpusel::cli {
namespace {

// Text safe inside roff: backslashes escaped, no line read as a request, and non-ASCII
// characters as \[uXXXX] so the page needs no preconv ("¥15000").
std::string roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    line_start = c == '\n';
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else if (c == '|')
      out += "|\\:";  // a break point: long value lists (the GGUF types) fill a line otherwise
    else if (c < 0x80)
      out += static_cast<char>(c);
    else if ((c & 0xC0) == 0xC0) {
      const std::size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
      unsigned cp = c & (0x7Fu >> n);
      for (std::size_t k = 1; k < n && i + 1 < text.size(); ++k)
        cp = (cp << 6) | (static_cast<unsigned char>(text[++i]) & 0x3Fu);
      out += fmt::format("\\[u{:04X}]", cp);
    }
  }
  return out;
}

std::string option_items(const std::vector<OptionInfo>& opts) {
  std::string s;
  for (const auto& o : opts) {
    std::string head;
    if (o.positional)
      head = "\\fI" + roff(o.name) + "\\fR";
    else
      for (const auto& n : o.names)
        head += (head.empty() ? "" : ", ") + ("\\fB" + roff(n) + "\\fR");
    if (o.takes_value && !o.positional && !o.type_name.empty())
      head += " \\fI" + roff(o.type_name) + "\\fR";
    s += ".TP\n" + head + "\n" + roff(o.description.empty() ? "-" : o.description) + "\n";
  }
  return s;
}

std::string example_block(const std::vector<std::string>& ex) {
  if (ex.empty()) return "";
  std::string s = ".PP\nExamples:\n.PP\n.RS 4\n.nf\n";
  for (const auto& e : ex) s += roff(e) + "\n";
  return s + ".fi\n.RE\n";
}

std::string commands_section(const CLI::App& root) {
  std::string s = ".SH COMMANDS\n";
  for (const auto& n : command_tree(root)) {
    s += ".SS \"" + roff(command_name(*n.app)) + "\"\n" + roff(n.app->get_description()) + "\n";
    const auto opts = command_options(*n.app);
    if (opts.size() > 1) s += ".PP\nOptions:\n" + option_items(opts);
    s += example_block(examples(n.path));
  }
  return s;
}

constexpr const char* description =
    R"(gpusel answers which GPU configuration, bought or rented, one card or several, runs a
deep-learning workload (a model, a mode such as inference, LoRA or full fine-tuning, a
precision, a batch and sequence length), how fast, with how much pain, and for how much money.
It estimates the memory each GPU needs component by component, the throughput from the
card's compute and bandwidth, applies sourced expert rules, and ranks configurations from a
sourced catalog of GPUs and cloud offers compiled into the binary (replaceable with
--catalog, --cloud, --rules, --models).
)";

constexpr const char* formats =
    R"(Every command takes --format: table (the default; text is the same), json (carrying
schema_version; stable), and csv where the output is a table (one column per value, raw
numbers, units in the headers). catalog validate also takes github (workflow annotations).
Text from data files is shown with control characters escaped; CSV cells that a spreadsheet
would run as a formula start with an apostrophe.
)";

}  // namespace

std::string man_page(const CLI::App& root) {
  std::string s =
      fmt::format(".TH GPUSEL 1 \"\" \"gpusel {}\" \"User Commands\"\n.ad l\n", GPUSEL_VERSION);
  s += ".SH NAME\ngpusel \\- " +
       roff(root.get_description().substr(root.get_description().find(':') + 2)) + "\n";
  s += ".SH SYNOPSIS\n.B gpusel\n[\\fIGLOBAL OPTIONS\\fR] \\fICOMMAND\\fR [\\fIOPTIONS\\fR]\n";
  s += ".SH DESCRIPTION\n" + roff(description) + ".PP\n" + roff(formats);
  s += ".SH GLOBAL OPTIONS\nThese go before or after the command.\n" +
       option_items(command_options(root));
  s += commands_section(root);
  s += ".SH ENVIRONMENT\n";
  for (const auto& e : environment_variables())
    s += ".TP\n.B " + roff(e.name) + "\n" + roff(e.meaning) + "\n";
  s += ".SH EXIT STATUS\n";
  for (const auto& x : exit_statuses())
    s += ".TP\n.B " + std::to_string(x.code) + "\n" + roff(x.meaning) + "\n";
  s += ".SH SEE ALSO\nThe README and ARCHITECTURE.md of the gpusel sources; "
       "\\fBgpusel help environment\\fR.\n";
  return s;
}

}  // namespace gpusel::cli
