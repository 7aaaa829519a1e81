#pragma once
// JSON parsing that remembers where each value came from, so that errors found later (schema
// violations, bad cross references) can point at "gpus.json:41:17" instead of just a path.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace gpusel {

struct SourcePos {
  int line = 0;    // 1-based; 0 = unknown
  int column = 0;  // 1-based, in characters (UTF-8 code points), a tab counts as one
};

struct LocatedJson {
  nlohmann::json doc;
  // JSON pointer (RFC 6901; "" = root, "/gpus/3/vram_gb") -> where that value starts.
  std::map<std::string, SourcePos> positions;

  // Position of `pointer`, else of its nearest ancestor that has one, else {0, 0}.
  SourcePos at(const std::string& pointer) const;
};

// Parses one JSON document (RFC 8259; a leading UTF-8 byte order mark is skipped).
// Throws Error(ExitCode::data) "<origin>:<line>:<col>: <reason>" on a syntax error (empty
// input, truncation, trailing content, invalid UTF-8 in a string...), on a duplicate key in
// one object, on a number too large for a double, and on nesting deeper than 256 levels.
LocatedJson parse_located(std::string_view text, const std::string& origin);

// One reference token escaped for a JSON pointer: "~" -> "~0", "/" -> "~1".
std::string pointer_escape(std::string_view token);

}  // namespace gpusel
