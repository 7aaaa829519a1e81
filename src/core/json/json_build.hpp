#pragma once
// nlohmann's tree of a JSON text, built without nlohmann's lexer (not a public header).
#include <cstdint>
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

// A number token as nlohmann reads it: unsigned, or signed when it starts with '-', as long as
// it fits 64 bits; anything else (a fraction, an exponent, a wider integer) a double. False
// when [first, last) is not a number from_chars or strtod reads whole.
struct NumberToken {
  enum Kind { unsigned_integer, signed_integer, floating } kind = floating;
  std::uint64_t u = 0;
  std::int64_t i = 0;
  double d = 0;
};
bool read_number(const char* first, const char* last, NumberToken& out);
// The bytes a number token is made of, as the builders find its end.
inline bool is_number_byte(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

}  // namespace gpusel::json_detail
