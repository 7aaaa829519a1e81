// Build-time tool: reads the shipped data/*.json embedded in it through the loaders, with
// every check a user's file gets, and writes a C++ source holding the records' snapshot
// (gpusel/data/snapshot.hpp) for the binary to embed. A file that fails a check fails the
// build with the loader's message.   make_snapshot <output.cpp>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "gpusel/data/snapshot.hpp"

namespace {

std::string source_for(const std::string& bytes) {
  std::string out =
      "// Generated at build time by make_snapshot from data/*.json; do not edit.\n"
      "#include \"gpusel/data/snapshot.hpp\"\n\nnamespace gpusel {\nnamespace {\n"
      "const unsigned char bytes[] = {";
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i % 24 == 0) out += "\n";
    out += std::to_string(static_cast<unsigned char>(bytes[i])) + ",";
  }
  out +=
      "\n};\n}  // namespace\n\nstd::string_view shipped_snapshot() {\n"
      "  return {reinterpret_cast<const char*>(bytes), sizeof bytes};\n}\n\n"
      "}  // namespace gpusel\n";
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
    write_if_changed(argv[1], source_for(gpusel::encode_snapshot(gpusel::shipped_from_json())));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_snapshot: %s\n", e.what());
    return 1;
  }
  return 0;
}
