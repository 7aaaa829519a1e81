#pragma once
// JSON parsing that remembers where each value came from, so that errors found later (schema
// violations, bad cross references) can point at "gpus.json:41:17" instead of just a path.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusel/base/error.hpp"

namespace gpusel {

struct SourcePos {
  int line = 0;            // 1-based; 0 = unknown
  int column = 0;          // 1-based, in characters (UTF-8 code points), a tab counts as one
  std::size_t offset = 0;  // byte offset in the text (after a byte order mark)
};

// A syntax error: Error(data) "<origin>:<line>:<col>: <reason>", with the parts kept apart
// for reports that place the message themselves (catalog validate).
class JsonSyntaxError : public Error {
 public:
  JsonSyntaxError(const std::string& origin, SourcePos pos, std::string reason);
  SourcePos pos;
  std::string reason;
};

struct LocatedJson {
  nlohmann::json doc;
  std::string_view text;  // the source text (without a byte order mark); must outlive at()

  // Position of `pointer` (RFC 6901; "" = root, "/gpus/3/vram_gb"), else of its nearest
  // ancestor that exists, else {0, 0}. Each call scans the text once, linearly: positions
  // cost nothing until an error needs one.
  SourcePos at(const std::string& pointer) const;
  // The positions of many pointers in one scan, in the order given.
  std::vector<SourcePos> at_all(const std::vector<std::string>& pointers) const;
};

// Parses one JSON document (RFC 8259; a leading UTF-8 byte order mark is skipped).
// Throws JsonSyntaxError on a syntax error (empty input, truncation, trailing content,
// invalid UTF-8 in a string...), on a duplicate key in one object, on a number too large for
// a double, and on nesting deeper than 256 levels. Linear in the text; `text` must outlive
// the result's at().
LocatedJson parse_located(std::string_view text, const std::string& origin);

// The keys of the document's root object, in order, from one scan that builds no tree (a
// leading byte order mark is skipped); empty when the root is not an object, nullopt when
// parse_located would refuse the text.
std::optional<std::vector<std::string>> top_level_keys(std::string_view text);

// One reference token escaped for a JSON pointer: "~" -> "~0", "/" -> "~1".
std::string pointer_escape(std::string_view token);

}  // namespace gpusel
