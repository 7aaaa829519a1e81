#pragma once
// Files from data/ compiled into the binary (see src/embed_data.cmake).
#include <nlohmann/json.hpp>
#include <span>
#include <string_view>

namespace gpusel {

struct EmbeddedFile {
  std::string_view path;  // relative to the repository root, e.g. "data/gpus.json"
  std::string_view text;
};

std::span<const EmbeddedFile> embedded_files();

// The text of an embedded file; throws Error(data) when the build did not embed it.
std::string_view embedded_text(std::string_view path);

// The JSON tree of an embedded file, built on first use and kept for the process. Shipped
// data is not re-checked at run time: no positions, no schema walk. Its syntax, schema and
// semantic checks run in the test suite instead (tests/unit/json/embedded_data_test.cpp and
// the `data/*` ctest cases, ARCHITECTURE.md "Shipped data"); a broken file fails the build's
// tests, and at run time gives only Error(data) "embedded <path>: malformed JSON at byte N".
const nlohmann::json& embedded_json(std::string_view path);

}  // namespace gpusel
