// The last guard between text that may carry data and any output stream or file. Escaping
// where data enters text does the real work; this pass makes sure that nothing a terminal or a
// CI runner acts on survives, whatever the format.
#include "gpusel/base/output_guard.hpp"

#include <cstdio>

namespace gpusel {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool starts(std::string_view s, std::size_t at, std::string_view with) {
  return s.compare(at, with.size(), with) == 0;
}

// Bytes of a C1 control (U+0080-U+009F: the 8-bit CSI, OSC and DCS) or a bidirectional
// embedding, override or isolate (U+202A-U+202E, U+2066-U+2069) at `at`, else 0; `cp` its
// code point.
std::size_t invisible_control(std::string_view s, std::size_t at, unsigned& cp) {
  const auto b = [&](std::size_t k) {
    return at + k < s.size() ? static_cast<unsigned char>(s[at + k]) : 0u;
  };
  if (b(0) == 0xC2 && b(1) >= 0x80 && b(1) <= 0x9F) return cp = b(1), 2;
  if (b(0) == 0xE2 && b(1) == 0x80 && b(2) >= 0xAA && b(2) <= 0xAE)
    return cp = 0x2000 + b(2) - 0x80, 3;
  if (b(0) == 0xE2 && b(1) == 0x81 && b(2) >= 0xA6 && b(2) <= 0xA9)
    return cp = 0x2040 + b(2) - 0x80, 3;
  return 0;
}

// `c` written so that the format reads it as the character and no program as a command.
std::string escaped(unsigned cp, OutputKind kind) {
  char buf[16];
  if (kind == OutputKind::json) {
    std::snprintf(buf, sizeof buf, "\\u%04x", cp);
    return buf;
  }
  if (kind == OutputKind::markup) {
    std::snprintf(buf, sizeof buf, "&#%u;", cp);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "\\x%02x", cp);
  return buf;
}

bool control_byte(unsigned char c, OutputKind kind) {
  // JSON escapes C0 itself; text keeps the SGR its own colouring adds later (terminal_safe
  // handled data's); markup may carry none but newline, tab and carriage return.
  return c == 0x7F ||
         (kind == OutputKind::markup && c < 0x20 && c != '\n' && c != '\t' && c != '\r');
}

}  // namespace

std::string guard_output(std::string_view text, OutputKind kind, bool line_commands) {
  std::string out;
  out.reserve(text.size());
  bool line_start = true;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    const auto c = static_cast<unsigned char>(ch);
    unsigned cp = 0;
    if (line_start && ch != ' ' && ch != '\t') {
      line_start = false;
      // GitHub Actions reads a line starting with "::" as a workflow command, Azure Pipelines
      // one starting with "##[" as a formatting command.
      if (line_commands && (starts(text, i, "::") || starts(text, i, "##["))) {
        out += escaped(static_cast<unsigned char>(ch), kind);
        continue;
      }
    }
    if (ch == '\n') line_start = true;
    if (starts(text, i, "##vso[")) {  // Azure Pipelines runs a logging command anywhere in a line
      out += "##vso" + escaped('[', kind);
      i += 5;
    } else if (const std::size_t n = invisible_control(text, i, cp)) {
      out += kind == OutputKind::json ? escaped(cp, kind) : std::string(kReplacement);
      i += n - 1;
    } else if (control_byte(c, kind)) {
      out += kind == OutputKind::json ? escaped(c, kind) : std::string(kReplacement);
    } else {
      out.push_back(ch);
    }
  }
  return out;
}

}  // namespace gpusel
