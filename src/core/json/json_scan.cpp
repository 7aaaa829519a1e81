#include "json/json_scan.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <clocale>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <forward_list>
#include <functional>
#include <optional>
#include <vector>

#include "gpusel/base/text.hpp"
#include "json/json_scan_parts.hpp"

// nlohmann's parser reports no position per value, so this scanner walks the text first: it
// validates the syntax with human messages and, only where positions are asked for, records
// where values start. Line and column advance with the scan (never recounted from a line's
// start), so a minified file of one long line costs what a pretty-printed one does.
namespace gpusel::json_detail {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_word_char(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

class Scanner {
 public:
  Scanner(std::string_view text, PositionQuery* query, Outline* outline)
      : text_(text), query_(query), outline_(outline), cursor_(text) {}

  void document() {
    skip_ws();
    if (at_end()) fail(pos_, "unexpected end of file (the document is empty)");
    value(0, query_ != nullptr);
    if (found_all()) return;
    skip_ws();
    if (!at_end()) fail(pos_, "unexpected " + describe() + " after the end of the document");
  }

 private:
  std::string_view text_;
  PositionQuery* query_;
  Outline* outline_;
  Outline::List* collecting_ = nullptr;  // the top-level list whose elements are being spanned
  Cursor cursor_;
  std::string ptr_;  // the JSON pointer of the value being scanned, kept only while tracking
  std::size_t pos_ = 0;
  std::size_t key_at_ = 0;  // where the last object key read starts

  bool at_end() const { return pos_ >= text_.size(); }
  // Every wanted position is found: the scan stops (PositionQuery).
  bool found_all() const { return query_ && query_->found.size() == query_->wanted.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  void skip_ws() {
    const char* p = json_detail::skip_ws(text_.data() + pos_, text_.data() + text_.size());
    pos_ = static_cast<std::size_t>(p - text_.data());
  }

  [[noreturn]] static void fail(std::size_t offset, const std::string& reason) {
    throw ScanError{offset, reason};
  }

  // The token at pos_, for "got ..." in messages.
  std::string describe() const {
    if (at_end()) return "end of file";
    auto c = static_cast<unsigned char>(peek());
    if (is_word_char(peek())) {
      std::size_t end = pos_;
      while (end < text_.size() && end - pos_ < 20 && is_word_char(text_[end])) ++end;
      return "'" + std::string(text_.substr(pos_, end - pos_)) + "'";
    }
    if (c == '\'') return "a single quote";
    if (c >= 0x20 && c < 0x7F) return std::string("'") + peek() + "'";
    char hex[16];
    std::snprintf(hex, sizeof hex, "byte 0x%02X", c);
    return hex;
  }

  [[noreturn]] void fail_expected(const std::string& expected) const {
    if (at_end()) fail(pos_, "unexpected end of file (" + expected + ")");
    std::string hint;
    if (peek() == '/') hint = " (JSON has no comments)";
    if (peek() == '\'') hint = " (JSON strings use double quotes)";
    fail(pos_, expected + ", got " + describe() + hint);
  }

  // `track`: the current pointer (ptr_) is an ancestor of a wanted one, so keep following.
  void value(int depth, bool track) {
    skip_ws();
    if (track) {
      if (query_->wanted.count(ptr_)) {
        query_->found.emplace(ptr_, cursor_.at(pos_));
      } else {
        track = false;  // nothing below an unwanted pointer is wanted
      }
    }
    char c = peek();
    if (c == '{') return object(depth + 1, track);
    if (c == '[') return array(depth + 1, track);
    if (c == '"') return void(string_token(nullptr));
    if (c == '-' || is_digit(c)) return number();
    if (c == 't' || c == 'f' || c == 'n') return literal();
    fail_expected("expected a value");
  }

  void check_depth(int depth) const {
    if (depth > kMaxDepth)
      fail(pos_, "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
  }

  // After a ',' (or the opening bracket): the next member, or the closing bracket.
  bool closes(char close, std::size_t comma) {
    skip_ws();
    if (peek() != close) return false;
    if (comma != std::string_view::npos)
      fail(comma, std::string("trailing comma before '") + close + "'");
    ++pos_;
    return true;
  }

  // After a member: true at the closing bracket, false after a ',' (pos_ past it).
  bool next_or_close(char close, std::size_t& comma, const char* after) {
    skip_ws();
    if (peek() == close) return ++pos_, true;
    if (peek() != ',') fail_expected(std::string("expected ',' or '") + close + "' after " + after);
    comma = pos_++;
    return false;
  }

  void object(int depth, bool track) {
    check_depth(depth);
    ++pos_;
    KeySet keys;
    std::forward_list<std::string> decoded;  // the keys written with escapes, decoded
    std::size_t comma = std::string_view::npos;
    do {
      if (closes('}', comma)) return;
      if (peek() != '"')
        fail_expected(keys.empty() ? "expected a string key or '}'" : "expected a string key");
      const std::string_view key = key_token(decoded);
      if (!keys.insert(key)) fail(key_at_, "duplicate key '" + quote_input(key) + "'");
      skip_ws();
      if (peek() != ':') fail_expected("expected ':' after object key");
      ++pos_;
      if (outline_ && depth == 1) {
        top_member(key, depth, track);
      } else {
        member(key, depth, track);
      }
      if (found_all()) return;
    } while (!next_or_close('}', comma, "object member"));
  }

  // An object key, as a view of the text: no copy unless it has an escape, which is decoded
  // into `decoded` (whose strings outlive the object's scan). Sets key_at_.
  std::string_view key_token(std::forward_list<std::string>& decoded) {
    key_at_ = pos_;
    if (!string_token(nullptr)) return text_.substr(key_at_ + 1, pos_ - key_at_ - 2);
    pos_ = key_at_;
    string_token(&decoded.emplace_front());
    return decoded.front();
  }

  // A member of the root object: noted in the outline, its elements spanned if it is a list
  // of interest.
  void top_member(std::string_view key, int depth, bool track) {
    outline_->root_is_object = true;
    outline_->keys.emplace_back(key);
    const auto& c = outline_->candidates;
    skip_ws();
    if (peek() != '[' || std::find(c.begin(), c.end(), key) == c.end())
      return member(key, depth, track);
    outline_->lists.push_back({std::string(key), pos_, 0, {}});
    collecting_ = &outline_->lists.back();
    member(key, depth, track);
    outline_->lists.back().end = pos_;
    collecting_ = nullptr;
  }

  void member(std::string_view token, int depth, bool track) {
    if (!track) return value(depth, false);
    const std::size_t mark = ptr_.size();
    ptr_ += '/';
    ptr_ += pointer_escape(token);
    value(depth, true);
    ptr_.resize(mark);
  }

  void array(int depth, bool track) {
    check_depth(depth);
    ++pos_;
    std::size_t comma = std::string_view::npos;
    std::size_t index = 0;
    Outline::List* spans = depth == 2 ? collecting_ : nullptr;
    collecting_ = nullptr;  // arrays nested in the elements are not spanned
    do {
      if (closes(']', comma)) return;
      const std::size_t begin = pos_;
      member(track ? std::to_string(index) : std::string(), depth, track);
      if (spans) spans->items.emplace_back(begin, pos_);
      if (found_all()) return;
      ++index;
    } while (!next_or_close(']', comma, "array element"));
  }

  // A string token; its decoded text goes to `out` when one is given. True when it has an
  // escape (its text is not the token's bytes).
  bool string_token(std::string* out) {
    std::size_t start = pos_++;
    for (bool escaped = false;;) {
      // The plain run up to the next quote, backslash, control or non-ASCII byte.
      const auto run = static_cast<std::size_t>(
          skip_plain(text_.data() + pos_, text_.data() + text_.size()) - text_.data());
      if (out) out->append(text_.substr(pos_, run - pos_));
      pos_ = run;
      if (at_end()) fail(start, "unterminated string");
      auto c = static_cast<unsigned char>(peek());
      if (c == '"') return ++pos_, escaped;
      if (c == '\n') fail(pos_, "line break inside a string (missing closing '\"'?)");
      if (c < 0x20) fail(pos_, "control character inside a string (escape it)");
      if (c == '\\') {
        escape(out);
        escaped = true;
      } else {
        utf8_char(out);
      }
    }
  }

  void escape(std::string* out) {
    std::size_t at = pos_++;
    static const std::string_view kFrom = "\"\\/bfnrt", kTo = "\"\\/\b\f\n\r\t";
    if (at_end()) fail(at, "unterminated string");
    if (auto i = kFrom.find(peek()); i != std::string_view::npos) {
      if (out) out->push_back(kTo[i]);
      ++pos_;
      return;
    }
    if (peek() != 'u')
      fail(at, "invalid escape '\\" + quote_input(text_.substr(pos_, 1)) + "' in string");
    std::uint32_t cp = hex4(at);
    if (cp >= 0xDC00 && cp <= 0xDFFF) fail(at, "unpaired surrogate in \\u escape");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (text_.substr(pos_, 2) != "\\u") fail(at, "unpaired surrogate in \\u escape");
      ++pos_;
      std::uint32_t low = hex4(at);
      if (low < 0xDC00 || low > 0xDFFF) fail(at, "unpaired surrogate in \\u escape");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    if (out) append_utf8(*out, cp);
  }

  // pos_ at the 'u' of "\uXXXX"; leaves pos_ after the digits.
  std::uint32_t hex4(std::size_t escape_at) {
    ++pos_;
    std::uint32_t cp = 0;
    for (int i = 0; i < 4; ++i, ++pos_) {
      char c = peek();
      int d = is_digit(c)              ? c - '0'
              : (c >= 'a' && c <= 'f') ? c - 'a' + 10
              : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                       : -1;
      if (d < 0) fail(escape_at, "expected 4 hex digits after \\u");
      cp = cp * 16 + static_cast<std::uint32_t>(d);
    }
    return cp;
  }

  // One multi-byte UTF-8 sequence, checked per RFC 3629 (no overlongs, no surrogates).
  void utf8_char(std::string* out) {
    auto c = static_cast<unsigned char>(peek());
    std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    unsigned lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
    unsigned hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
    bool ok = c >= 0xC2 && c <= 0xF4 && pos_ + len <= text_.size();
    for (std::size_t i = 1; ok && i < len; ++i) {
      auto b = static_cast<unsigned char>(text_[pos_ + i]);
      ok = b >= (i == 1 ? lo : 0x80) && b <= (i == 1 ? hi : 0xBF);
    }
    if (!ok) fail(pos_, "invalid UTF-8 in string");
    if (out) out->append(text_.substr(pos_, len));
    pos_ += len;
  }

  void digits(const char* expected) {
    if (!is_digit(peek())) fail_expected(expected);
    while (is_digit(peek())) ++pos_;
  }

  void number() {
    std::size_t start = pos_;
    if (peek() == '-') ++pos_;
    if (peek() == '0' && pos_ + 1 < text_.size() && is_digit(text_[pos_ + 1]))
      fail(start, "leading zeros are not allowed in numbers");
    digits("expected a digit after '-'");
    bool exponent = false;
    if (peek() == '.') ++pos_, digits("expected a digit after '.'");
    if (peek() == 'e' || peek() == 'E') {
      ++pos_, exponent = true;
      if (peek() == '+' || peek() == '-') ++pos_;
      digits("expected a digit in the exponent");
    }
    // Only an exponent or over 300 characters can leave a double's range (1.8e308).
    if (exponent || pos_ - start > 300) check_range(start);
  }

  // nlohmann refuses numbers that overflow a double; say where, as for any other error.
  void check_range(std::size_t start) const {
    std::string token(text_.substr(start, pos_ - start));
    std::replace(token.begin(), token.end(), '.', *std::localeconv()->decimal_point);
    if (!std::isfinite(std::strtod(token.c_str(), nullptr)))
      fail(start, "number too large: " + quote_input(text_.substr(start, pos_ - start)));
  }

  void literal() {
    std::size_t end = pos_;
    while (end < text_.size() && is_word_char(text_[end])) ++end;
    auto word = text_.substr(pos_, end - pos_);
    if (word != "true" && word != "false" && word != "null") fail_expected("expected a value");
    pos_ = end;
  }
};

}  // namespace

void append_utf8(std::string& out, std::uint32_t cp) {
  auto byte = [&out](std::uint32_t b) { out.push_back(static_cast<char>(b)); };
  if (cp < 0x80) {
    byte(cp);
  } else if (cp < 0x800) {
    byte(0xC0 | (cp >> 6)), byte(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    byte(0xE0 | (cp >> 12)), byte(0x80 | ((cp >> 6) & 0x3F)), byte(0x80 | (cp & 0x3F));
  } else {
    byte(0xF0 | (cp >> 18)), byte(0x80 | ((cp >> 12) & 0x3F));
    byte(0x80 | ((cp >> 6) & 0x3F)), byte(0x80 | (cp & 0x3F));
  }
}

namespace {

// `p` at the 'u' of "\uXXXX": the four hex digits' value, `p` after them; nullopt if malformed.
std::optional<std::uint32_t> hex4(const char*& p, const char* end) {
  ++p;
  std::uint32_t cp = 0;
  if (end - p < 4 || std::from_chars(p, p + 4, cp, 16).ptr != p + 4) return std::nullopt;
  p += 4;
  return cp;
}

}  // namespace

bool decode_escape(const char*& p, const char* end, std::string& out) {
  static constexpr std::string_view kFrom = "\"\\/bfnrt", kTo = "\"\\/\b\f\n\r\t";
  if (p == end) return false;
  if (auto i = kFrom.find(*p); i != std::string_view::npos) {
    out.push_back(kTo[i]);
    ++p;
    return true;
  }
  if (*p != 'u') return false;
  std::optional<std::uint32_t> cp = hex4(p, end);
  if (!cp || (*cp >= 0xDC00 && *cp <= 0xDFFF)) return false;
  if (*cp >= 0xD800 && *cp <= 0xDBFF) {
    if (end - p < 2 || p[0] != '\\' || p[1] != 'u') return false;
    ++p;
    const std::optional<std::uint32_t> low = hex4(p, end);
    if (!low || *low < 0xDC00 || *low > 0xDFFF) return false;
    *cp = 0x10000 + ((*cp - 0xD800) << 10) + (*low - 0xDC00);
  }
  append_utf8(out, *cp);
  return true;
}

bool scan(std::string_view text, PositionQuery* query, ScanError& error, Outline* outline) {
  try {
    Scanner(text, query, outline).document();
    return true;
  } catch (const ScanError& e) {
    error = e;
    return false;
  }
}

SourcePos position_of(std::string_view text, std::size_t offset) {
  return Cursor(text).at(std::min(offset, text.size()));
}

std::vector<SourcePos> positions_of(std::string_view text,
                                    const std::vector<std::size_t>& offsets) {
  Cursor cursor(text);
  std::vector<SourcePos> out;
  out.reserve(offsets.size());
  for (std::size_t offset : offsets) out.push_back(cursor.at(std::min(offset, text.size())));
  return out;
}

}  // namespace gpusel::json_detail
