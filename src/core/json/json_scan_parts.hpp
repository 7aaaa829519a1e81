#pragma once
// Parts of the JSON scanner (json_scan.cpp), not a public header: the line/column cursor and
// the duplicate-key set of one object.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string_view>
#include <unordered_set>
#include <utility>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "gpusel/json/json_source.hpp"

namespace gpusel::json_detail {

// Not a UTF-8 continuation byte: each such byte starts a code point (a column).
inline bool is_lead_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }

// Bytes a string token copies as they are: not a quote, backslash, control or non-ASCII byte.
constexpr std::array<bool, 256> kPlain = [] {
  std::array<bool, 256> t{};
  for (int c = 0x20; c < 0x80; ++c) t[static_cast<std::size_t>(c)] = c != '"' && c != '\\';
  return t;
}();

inline bool is_ws(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

// The first byte at or after `p` that is not JSON whitespace (`end` if none). Pretty-printed
// data is mostly indentation: sixteen bytes are tested at once where SSE2 is there.
inline const char* skip_ws(const char* p, const char* end) {
  if (p == end || !is_ws(*p)) return p;
#if defined(__SSE2__)
  const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n'), tab = _mm_set1_epi8('\t'),
                cr = _mm_set1_epi8('\r');
  for (; end - p >= 16; p += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, nl)),
                                    _mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(v, cr)));
    const unsigned other = ~static_cast<unsigned>(_mm_movemask_epi8(ws)) & 0xFFFFu;
    if (other) return p + __builtin_ctz(other);
  }
#endif
  while (p != end && is_ws(*p)) ++p;
  return p;
}

// The first byte at or after `p` that is not plain (kPlain), `end` if none: sixteen at a time
// where SSE2 is there (a signed compare below 0x20 catches control and non-ASCII bytes both).
inline const char* skip_plain(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\'), low = _mm_set1_epi8(0x20);
  for (; end - p >= 16; p += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i stop = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, slash)), _mm_cmplt_epi8(v, low));
    if (const auto mask = static_cast<unsigned>(_mm_movemask_epi8(stop)))
      return p + __builtin_ctz(mask);
  }
#endif
  while (p != end && kPlain[static_cast<unsigned char>(*p)]) ++p;
  return p;
}

// The length of the UTF-8 sequence at `p` (a byte of 0x80 or more), 0 when it is not one the
// scanner accepts (RFC 3629: no overlongs, no surrogates, nothing past U+10FFFF).
inline std::size_t utf8_sequence(const char* p, const char* end) {
  const auto c = static_cast<unsigned char>(*p);
  const std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
  const unsigned lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
  const unsigned hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
  if (c < 0xC2 || c > 0xF4 || static_cast<std::size_t>(end - p) < len) return 0;
  for (std::size_t i = 1; i < len; ++i) {
    const auto b = static_cast<unsigned char>(p[i]);
    if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xBF)) return 0;
  }
  return len;
}

// Whether [first, last) is a JSON number as the scanner reads one: -?(0|[1-9][0-9]*), an
// optional fraction and exponent, each with at least one digit.
inline bool is_json_number(const char* p, const char* last) {
  const auto digits = [&p, last] {
    const char* from = p;
    while (p != last && *p >= '0' && *p <= '9') ++p;
    return p != from;
  };
  if (p != last && *p == '-') ++p;
  if (p != last && *p == '0') {
    ++p;
  } else if (!digits()) {
    return false;
  }
  if (p != last && *p == '.' && (++p, !digits())) return false;
  if (p != last && (*p == 'e' || *p == 'E')) {
    ++p;
    if (p != last && (*p == '+' || *p == '-')) ++p;
    if (!digits()) return false;
  }
  return p == last;
}

// The first '"' or '\\' at or after `p`, `end` if none (the tree builder's string runs: text
// the scanner has accepted, whatever other bytes it holds).
inline const char* skip_to_quote(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\');
  for (; end - p >= 16; p += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i stop = _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, slash));
    if (const auto mask = static_cast<unsigned>(_mm_movemask_epi8(stop)))
      return p + __builtin_ctz(mask);
  }
#endif
  while (p != end && *p != '"' && *p != '\\') ++p;
  return p;
}

// Line and column of offsets asked for in increasing order, in total time linear in the text:
// memchr finds the line breaks, and only the part of the last line before the offset has its
// code points counted.
// '\n' bytes in [from, end).
inline std::size_t count_newlines(const char* from, const char* end) {
  std::size_t n = 0;
#if defined(__SSE2__)
  const __m128i nl = _mm_set1_epi8('\n');
  for (; end - from >= 16; from += 16) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from));  // NOLINT
    n += static_cast<std::size_t>(
        __builtin_popcount(static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(block, nl)))));
  }
#endif
  for (; from < end; ++from) n += *from == '\n';
  return n;
}

class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}
  SourcePos at(std::size_t offset) {
    const std::size_t to = std::min(offset, text_.size());
    if (to > done_) {
      // Newlines counted 16 bytes at a time (a memchr per line cost 10 % of reading a
      // pretty-printed 100,000-card catalog), the column from the last one.
      const char* from = text_.data() + done_;
      const char* const end = text_.data() + to;
      if (const auto lines = count_newlines(from, end)) {
        line_ += static_cast<int>(lines), column_ = 1;
        from =
            static_cast<const char*>(::memrchr(from, '\n', static_cast<std::size_t>(end - from))) +
            1;
      }
      for (; from < end; ++from) column_ += is_lead_byte(*from);
      done_ = to;
    }
    return {line_, column_, offset};
  }

 private:
  std::string_view text_;
  std::size_t done_ = 0;
  int line_ = 1, column_ = 1;
};

// The keys of one object, for the duplicate check: views of the text. Records have a few
// dozen keys, where a linear search beats a hash set; a 256-bit filter of the keys'
// fingerprints (length, first, middle and last byte) skips the search for almost every new
// key. A huge object switches to a hash set so it stays linear.
class KeySet {
 public:
  bool empty() const { return size_ == 0 && large_.empty(); }
  bool insert(std::string_view key) {
    if (large_.empty()) {
      const unsigned fp = fingerprint(key);
      const std::uint64_t bit = std::uint64_t{1} << (fp & 63);
      std::uint64_t& word = seen_[(fp >> 6) & 3];
      if (word & bit)
        for (std::size_t i = 0; i < size_; ++i)
          if (small_[i].view() == key) return false;
      word |= bit;
      if (size_ < kSmall) return small_[size_++] = {key.data(), key.size()}, true;
      for (const Entry& old : small_) large_.insert(old.view());
    }
    return large_.insert(key).second;
  }

 private:
  static constexpr std::size_t kSmall = 32;
  struct Entry {  // trivial: the array below is not zeroed for every object scanned
    const char* data;
    std::size_t size;
    std::string_view view() const { return {data, size}; }
  };
  static unsigned fingerprint(std::string_view key) {
    if (key.empty()) return 0;
    const auto byte = [&key](std::size_t i) { return static_cast<unsigned char>(key[i]); };
    return (static_cast<unsigned>(key.size()) * 2654435761u) ^ (byte(0) * 40503u) ^
           (byte(key.size() / 2) * 131u) ^ byte(key.size() - 1);
  }
  std::array<Entry, kSmall> small_;  // NOLINT(cppcoreguidelines-pro-type-member-init)
  std::size_t size_ = 0;
  std::array<std::uint64_t, 4> seen_{};  // the filter: bit fp % 256 of each key's fingerprint
  std::unordered_set<std::string_view> large_;
};

}  // namespace gpusel::json_detail
