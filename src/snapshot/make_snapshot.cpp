// Build-time tool: reads the shipped data/*.json embedded in it (catalog, cloud offers,
// models, platforms, storage formats, rules) through the loaders, with every check a user's file
// gets, and writes a C++ source holding the records' snapshot (gpusel/data/snapshot.hpp) for the
// binary to embed. A file that fails a check fails the build with the loader's message.
//   make_snapshot <output.cpp>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "gpusel/data/snapshot.hpp"
#include "gpusel/rank/rules_snapshot.hpp"

namespace {

// The bytes as one string literal: printable characters as they are, the others (and '"',
// '\\') as three-digit octal escapes, which cannot run into a following digit as hex ones
// would. A literal compiles several times faster than an array of numbers.
std::string source_for(const std::string& bytes) {
  std::string out =
      "// Generated at build time by make_snapshot from data/*.json; do not edit.\n"
      "#include \"gpusel/data/shipped_snapshot.hpp\"\n\nnamespace gpusel {\nnamespace {\n"
      "const char bytes[] =\n\"";
  std::size_t line = 0;
  for (const char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out += ch;
      ++line;
    } else {
      char esc[5];
      std::snprintf(esc, sizeof esc, "\\%03o", c);
      out += esc;
      line += 4;
    }
    if (line >= 96) out += "\"\n\"", line = 0;
  }
  out +=
      "\";\n}  // namespace\n\nstd::string_view shipped_snapshot() {\n"
      "  return {bytes, sizeof bytes - 1};\n}\n\n}  // namespace gpusel\n";
  return out;
}

// Rewritten only when it changed, so that an unchanged snapshot compiles nothing again.
void write_if_changed(const std::string& path, const std::string& text) {
  std::ifstream in(path, std::ios::binary);
  const std::string old((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in && old == text) return;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fputs("usage: make_snapshot <output.cpp>\n", stderr);
    return 2;
  }
  try {
    std::string snapshot = gpusel::encode_snapshot(gpusel::shipped_from_json());
    gpusel::add_rules_section(snapshot, gpusel::shipped_rules_from_json());
    write_if_changed(argv[1], source_for(snapshot));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_snapshot: %s\n", e.what());
    return 1;
  }
  return 0;
}
