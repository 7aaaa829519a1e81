#pragma once
// The JSON scanner behind parse_located and LocatedJson::at (not a public header). One pass,
// linear in the text: it checks RFC 8259 syntax with human messages and, when asked, records
// where the values at a set of JSON pointers start, counting lines and columns as it goes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "gpusel/json/json_source.hpp"

namespace gpusel::json_detail {

constexpr int kMaxDepth = 256;

// A syntax error: the byte offset where it was found and what is wrong.
struct ScanError {
  std::size_t offset = 0;
  std::string reason;
};

// Positions wanted: every pointer asked for and each of its ancestors (so that a pointer
// that does not exist falls back to its nearest existing ancestor). The scan stops once all
// are found: what follows is not checked (LocatedJson::at_all reads text already scanned, and
// placing a note near a record's start no longer costs a scan of the whole record).
struct PositionQuery {
  std::unordered_set<std::string> wanted;
  std::unordered_map<std::string, SourcePos> found;
};

// The top level of a document, for reading it record by record: whether the root is an
// object, its keys in order, and for each top-level array whose key is a candidate, where
// the array and each of its elements lie in the text ([begin, end) byte ranges).
struct Outline {
  std::vector<std::string> candidates;  // in: the list names of interest ("gpus", ...)
  bool root_is_object = false;
  std::vector<std::string> keys;
  struct List {
    std::string key;
    std::size_t begin = 0, end = 0;
    std::vector<std::pair<std::size_t, std::size_t>> items;
  };
  std::vector<List> lists;
};

// Scans `text` (without a byte order mark). Returns false and fills `error` on a syntax
// error; records into `query` (if given) the position of every value it wants and into
// `outline` (if given) the document's top level.
bool scan(std::string_view text, PositionQuery* query, ScanError& error,
          Outline* outline = nullptr);

// The outline of `text` as scan() would give it, found without scanning the elements of its
// list (json_skim.cpp): false when the skim cannot tell, or the text has not exactly one
// candidate list or has an empty one, or the text without that list's elements fails the scan.
// True promises nothing about the elements: `text` is what scan() accepts exactly when each
// element is too (FlatTree::build_checked with outer 2). The caller scans the whole text on false.
bool skim_outline(std::string_view text, Outline& outline);
// Scans `prefix` followed by `rest` (an element's syntax error, worded as a scan of the whole
// text words it: `prefix` brings the scanner to the state it has where `rest` starts). On an
// error, its offset is counted from the start of `rest` (0 if it lies in `prefix`).
bool scan_after(std::string_view prefix, std::string_view rest, ScanError& error);

// Line and column of byte `offset`: columns count UTF-8 code points, as editors do.
SourcePos position_of(std::string_view text, std::size_t offset);
// The same for many offsets, given in increasing order, in one pass over the text.
std::vector<SourcePos> positions_of(std::string_view text, const std::vector<std::size_t>& offsets);

// Appends code point `cp` to `out` as UTF-8 (the scanner and the tree builder decode \u escapes).
void append_utf8(std::string& out, std::uint32_t cp);

// Decodes one escape of a string the scanner has already accepted: `p` just after the
// backslash, left after the escape; appends its UTF-8 to `out`. False for a malformed
// escape (the tree builders' "should not happen" path; the scanner words the error).
bool decode_escape(const char*& p, const char* end, std::string& out);

}  // namespace gpusel::json_detail
