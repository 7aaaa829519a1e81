// The outline of a document without the scan of its records (json_scan.hpp: skim_outline).
// The skim only follows strings and brackets to find the top-level lists and their elements;
// everything else is checked by the scanner on the document without those lists, and each
// element by the flat tree's strict builder (json_flat.hpp: build_checked) as it is read.
#include <algorithm>
#include <cstdint>

#include "json/json_scan.hpp"
#include "json/json_scan_parts.hpp"

namespace gpusel::json_detail {
namespace {

#if defined(__SSE2__)
// The first quote, backslash or bracket at or after `p` (`end` if none), sixteen bytes at once.
const char* skip_to_structure(const char* p, const char* end) {
  const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\');
  const __m128i open = _mm_set1_epi8('['), close = _mm_set1_epi8(']');
  const __m128i brace = _mm_set1_epi8(0x20);  // '{' and '}' are '[' and ']' with bit 5 set
  for (; end - p >= 16; p += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i folded = _mm_andnot_si128(brace, v);
    const __m128i hit =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, slash)),
                     _mm_or_si128(_mm_cmpeq_epi8(folded, open), _mm_cmpeq_epi8(folded, close)));
    if (const auto mask = static_cast<unsigned>(_mm_movemask_epi8(hit)))
      return p + __builtin_ctz(mask);
  }
  while (p != end && *p != '"' && *p != '\\' && (*p | 0x20) != '{' && (*p | 0x20) != '}') ++p;
  return p;
}
#else
const char* skip_to_structure(const char* p, const char* end) {
  while (p != end && *p != '"' && *p != '\\' && (*p | 0x20) != '{' && (*p | 0x20) != '}') ++p;
  return p;
}
#endif

// Bit i of each mask: byte i of a 64-byte block is a quote, a backslash, an opening or a
// closing bracket ('[' '{', ']' '}').
struct Block64 {
  std::uint64_t quote = 0, backslash = 0, open = 0, close = 0;
};

#if defined(__SSE2__)
Block64 classify64(const char* p) {
  const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\');
  const __m128i open = _mm_set1_epi8('['), close = _mm_set1_epi8(']');
  const __m128i brace = _mm_set1_epi8(0x20);  // '{' and '}' are '[' and ']' with bit 5 set
  Block64 b;
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    const __m128i folded = _mm_andnot_si128(brace, v);
    const auto bits = [&](__m128i eq) {
      return std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(eq))} << (16 * k);
    };
    b.quote |= bits(_mm_cmpeq_epi8(v, quote));
    b.backslash |= bits(_mm_cmpeq_epi8(v, slash));
    b.open |= bits(_mm_cmpeq_epi8(folded, open));
    b.close |= bits(_mm_cmpeq_epi8(folded, close));
  }
  return b;
}
#else
Block64 classify64(const char* p) {
  Block64 b;
  for (int i = 0; i < 64; ++i) {
    const std::uint64_t bit = std::uint64_t{1} << i;
    const char c = p[i];
    if (c == '"') b.quote |= bit;
    if (c == '\\') b.backslash |= bit;
    if ((c | 0x20) == '{') b.open |= bit;
    if ((c | 0x20) == '}') b.close |= bit;
  }
  return b;
}
#endif

// Bit i: the parity of the quotes at or before byte i, i.e. whether byte i is inside a string
// (counting an opening quote as inside and a closing one as outside) when the block starts
// outside one.
std::uint64_t prefix_xor(std::uint64_t x) {
  for (int shift = 1; shift < 64; shift *= 2) x ^= x << shift;
  return x;
}

// Follows strings and brackets only: on text the scanner accepts it finds what the scanner
// finds; on any other text whatever it finds is checked again (see the file's comment).
class Skimmer {
 public:
  Skimmer(std::string_view text, Outline& outline)
      : p_(text.data()), begin_(text.data()), end_(text.data() + text.size()), out_(outline) {}

  // The root object's members; false where the skim cannot tell (not an object, a key with
  // an escape, a member not followed by ',' or '}').
  bool root() {
    if (ws() != '{') return false;
    ++p_;
    if (ws() == '}') return true;
    while (true) {
      if (ws() != '"') return false;
      const char* key = ++p_;
      p_ = skip_to_quote(p_, end_);
      if (p_ == end_ || *p_ != '"') return false;
      const std::string_view name(key, static_cast<std::size_t>(p_ - key));
      ++p_;
      if (ws() != ':') return false;
      ++p_;
      const auto& c = out_.candidates;
      if (ws() == '[' && std::find(c.begin(), c.end(), name) != c.end()) {
        if (!list(name)) return false;
      } else if (!value()) {
        return false;
      }
      const char next = ws();
      if (next == '}') return true;
      if (next != ',') return false;
      ++p_;
    }
  }

 private:
  const char* p_;
  const char* begin_;
  const char* end_;
  Outline& out_;

  char ws() {
    p_ = skip_ws(p_, end_);
    return p_ == end_ ? '\0' : *p_;
  }
  std::size_t at(const char* p) const { return static_cast<std::size_t>(p - begin_); }

  // A list of interest, p_ at its '[': its elements and the commas between them.
  bool list(std::string_view name) {
    out_.lists.push_back({std::string(name), at(p_), 0, {}});
    auto& items = out_.lists.back().items;
    ++p_;
    if (ws() != ']') {
      while (true) {
        const char* first = p_;
        if (!value()) return false;
        items.emplace_back(at(first), at(p_));
        const char next = ws();
        if (next == ']') break;
        if (next != ',') return false;
        ++p_;
        ws();
      }
    }
    ++p_;
    out_.lists.back().end = at(p_);
    return true;
  }

  // Past one value at p_: a string, a bracketed value (strings and brackets followed), or a
  // scalar up to the next whitespace or separator.
  bool value() {
    if (p_ == end_) return false;
    if (*p_ == '"') return string();
    if (*p_ != '{' && *p_ != '[') {
      while (p_ != end_ && !is_ws(*p_) && *p_ != ',' && *p_ != '}' && *p_ != ']') ++p_;
      return true;
    }
    return balanced();
  }

  // Past a bracketed value at p_ ('[' or '{'): 64 bytes at a time while no backslash is near
  // (bytes_at_once), then one structure at a time.
  bool balanced() {
    long depth = 0;
    bool in_string = false;
    if (!bytes_at_once(depth, in_string)) return true;
    if (in_string && !string_body()) return false;
    while (true) {
      p_ = skip_to_structure(p_, end_);
      if (p_ == end_ || *p_ == '\\') return false;
      if (*p_ == '"') {
        if (!string()) return false;
        continue;
      }
      depth += (*p_ | 0x20) == '{' ? 1 : -1;  // '[' and '{' open, ']' and '}' close
      ++p_;
      if (depth == 0) return true;
    }
  }

  // A record is mostly short strings: a structure every few bytes, each a call of
  // skip_to_structure. Here 64 bytes are classified at once (quotes, brackets), strings
  // masked by the running parity of quotes, and only brackets outside them counted. False,
  // p_ past the value, when its end is found; true, p_ at the first block holding a backslash
  // (escapes are followed one at a time) or with fewer than 64 bytes left, with the depth and
  // whether that block starts inside a string.
  bool bytes_at_once(long& depth, bool& in_string) {
    for (; end_ - p_ >= 64; p_ += 64) {
      const Block64 b = classify64(p_);
      if (b.backslash) return true;
      const std::uint64_t inside = prefix_xor(b.quote) ^ (in_string ? ~std::uint64_t{0} : 0);
      for (std::uint64_t hits = (b.open | b.close) & ~inside; hits; hits &= hits - 1) {
        const int at = __builtin_ctzll(hits);
        depth += (b.open >> at) & 1 ? 1 : -1;
        if (depth == 0) return p_ += at + 1, false;
      }
      in_string = (inside >> 63) & 1;
    }
    return true;
  }

  // Past a string at its opening quote (an escaped quote does not end it).
  bool string() {
    ++p_;
    return string_body();
  }

  // Past the rest of a string p_ is inside.
  bool string_body() {
    while (true) {
      p_ = skip_to_quote(p_, end_);
      if (p_ == end_) return false;
      if (*p_ == '"') return ++p_, true;
      if (end_ - p_ < 2) return false;
      p_ += 2;
    }
  }
};

}  // namespace

bool skim_outline(std::string_view text, Outline& outline) {
  Outline skimmed;
  skimmed.candidates = outline.candidates;
  if (!Skimmer(text, skimmed).root() || skimmed.lists.size() != 1 || skimmed.lists[0].items.empty())
    return false;
  const Outline::List& list = skimmed.lists[0];
  std::string skeleton(text.substr(0, list.begin));
  skeleton += "[]";
  skeleton += text.substr(list.end);
  ScanError error;
  Outline scanned;
  scanned.candidates = outline.candidates;
  if (!scan(skeleton, nullptr, error, &scanned) || scanned.lists.size() != 1 ||
      scanned.lists[0].key != list.key || scanned.lists[0].begin != list.begin ||
      scanned.lists[0].end != list.begin + 2)
    return false;
  scanned.lists[0] = list;
  outline = std::move(scanned);
  return true;
}

bool scan_after(std::string_view prefix, std::string_view rest, ScanError& error) {
  std::string text(prefix);
  text += rest;
  if (scan(text, nullptr, error)) return true;
  error.offset = error.offset - std::min(error.offset, prefix.size());
  return false;
}

}  // namespace gpusel::json_detail
