#pragma once
// nlohmann's tree of a JSON text, built without nlohmann's lexer (not a public header).
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "json/json_scan.hpp"

namespace gpusel::json_detail {

// The value of `text` (no byte order mark), the same tree nlohmann::json::parse makes,
// value for value and type for type (unsigned, signed, double). For text the scanner has
// accepted, or embedded data the tests check: it gives no human syntax messages, only
// Error(data) "<origin>: malformed JSON at byte N" on text it cannot read.
// `outline` (if given) gets the document's top level as scan() records it: trusted text (the
// embedded data) is read in this one pass, without the scan.
nlohmann::json build(std::string_view text, const std::string& origin, Outline* outline = nullptr);

// Frees `tree` (left an empty value of its type) in a fraction of its destructor's time:
// nlohmann's destructor moves every value of a tree through a heap stack of its own, so that
// no tree is too deep to free; one that build() made is at most kMaxDepth deep, so its
// containers are emptied here depth first, then freed leaves first.
void dispose(nlohmann::json& tree);

}  // namespace gpusel::json_detail
