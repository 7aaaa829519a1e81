#include "gpusel/json/json_source.hpp"

#include <algorithm>
#include <clocale>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <vector>

#include "gpusel/base/error.hpp"

// nlohmann's parser reports no position per value, so a small scanner walks the text first:
// it validates the syntax with human messages and records where each value starts. Only a
// text the scanner accepted is handed to nlohmann, which builds the value itself.
namespace gpusel {
namespace {

constexpr int kMaxDepth = 256;

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_word_char(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

// Byte offset -> line:column, columns in code points so that they match what editors show.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text) : text_(text) {
    starts_.push_back(0);
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') starts_.push_back(i + 1);
  }

  SourcePos at(std::size_t offset) const {
    offset = std::min(offset, text_.size());
    auto it = std::upper_bound(starts_.begin(), starts_.end(), offset) - 1;
    int column = 1;
    for (std::size_t i = *it; i < offset; ++i)
      if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) ++column;
    return {static_cast<int>(it - starts_.begin()) + 1, column};
  }

 private:
  std::string_view text_;
  std::vector<std::size_t> starts_;
};

[[noreturn]] void fail_at(const std::string& origin, SourcePos pos, const std::string& reason) {
  throw data_error(origin + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column) +
                   ": " + reason);
}

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

class Scanner {
 public:
  Scanner(std::string_view text, const std::string& origin, std::map<std::string, SourcePos>& out)
      : text_(text), origin_(origin), out_(out), lines_(text) {}

  void document() {
    skip_ws();
    if (at_end()) fail(pos_, "unexpected end of file (the document is empty)");
    value("", 0);
    skip_ws();
    if (!at_end()) fail(pos_, "unexpected " + describe() + " after the end of the document");
  }

 private:
  std::string_view text_;
  const std::string& origin_;
  std::map<std::string, SourcePos>& out_;
  LineIndex lines_;
  std::size_t pos_ = 0;

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  void skip_ws() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
      ++pos_;
  }

  [[noreturn]] void fail(std::size_t offset, const std::string& reason) const {
    fail_at(origin_, lines_.at(offset), reason);
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

  void value(const std::string& ptr, int depth) {
    skip_ws();
    out_[ptr] = lines_.at(pos_);
    char c = peek();
    if (c == '{') return object(ptr, depth + 1);
    if (c == '[') return array(ptr, depth + 1);
    if (c == '"') return void(string_token());
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

  void object(const std::string& ptr, int depth) {
    check_depth(depth);
    ++pos_;
    std::set<std::string> keys;
    std::size_t comma = std::string_view::npos;
    do {
      if (closes('}', comma)) return;
      if (peek() != '"')
        fail_expected(keys.empty() ? "expected a string key or '}'" : "expected a string key");
      std::size_t key_at = pos_;
      std::string key = string_token();
      if (!keys.insert(key).second) fail(key_at, "duplicate key '" + key + "'");
      skip_ws();
      if (peek() != ':') fail_expected("expected ':' after object key");
      ++pos_;
      value(ptr + "/" + pointer_escape(key), depth);
    } while (!next_or_close('}', comma, "object member"));
  }

  void array(const std::string& ptr, int depth) {
    check_depth(depth);
    ++pos_;
    std::size_t comma = std::string_view::npos;
    std::size_t index = 0;
    do {
      if (closes(']', comma)) return;
      value(ptr + "/" + std::to_string(index++), depth);
    } while (!next_or_close(']', comma, "array element"));
  }

  std::string string_token() {
    std::size_t start = pos_++;
    std::string out;
    while (true) {
      if (at_end()) fail(start, "unterminated string");
      auto c = static_cast<unsigned char>(peek());
      if (c == '"') return ++pos_, out;
      if (c == '\n') fail(pos_, "line break inside a string (missing closing '\"'?)");
      if (c < 0x20) fail(pos_, "control character inside a string (escape it)");
      if (c == '\\') {
        escape(out);
      } else if (c >= 0x80) {
        utf8_char(out);
      } else {
        out.push_back(static_cast<char>(c)), ++pos_;
      }
    }
  }

  void escape(std::string& out) {
    std::size_t at = pos_++;
    static const std::string_view kFrom = "\"\\/bfnrt", kTo = "\"\\/\b\f\n\r\t";
    if (at_end()) fail(at, "unterminated string");
    if (auto i = kFrom.find(peek()); i != std::string_view::npos) {
      out.push_back(kTo[i]), ++pos_;
      return;
    }
    if (peek() != 'u') fail(at, "invalid escape '\\" + std::string(1, peek()) + "' in string");
    std::uint32_t cp = hex4(at);
    if (cp >= 0xDC00 && cp <= 0xDFFF) fail(at, "unpaired surrogate in \\u escape");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (text_.substr(pos_, 2) != "\\u") fail(at, "unpaired surrogate in \\u escape");
      ++pos_;
      std::uint32_t low = hex4(at);
      if (low < 0xDC00 || low > 0xDFFF) fail(at, "unpaired surrogate in \\u escape");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    append_utf8(out, cp);
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
  void utf8_char(std::string& out) {
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
    out.append(text_.substr(pos_, len));
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
    if (peek() == '.') ++pos_, digits("expected a digit after '.'");
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      digits("expected a digit in the exponent");
    }
    check_range(start);
  }

  // nlohmann refuses numbers that overflow a double; say where, as for any other error.
  void check_range(std::size_t start) const {
    std::string token(text_.substr(start, pos_ - start));
    std::replace(token.begin(), token.end(), '.', *std::localeconv()->decimal_point);
    if (!std::isfinite(std::strtod(token.c_str(), nullptr)))
      fail(start, "number too large: " + std::string(text_.substr(start, pos_ - start)));
  }

  void literal() {
    std::size_t end = pos_;
    while (end < text_.size() && is_word_char(text_[end])) ++end;
    auto word = text_.substr(pos_, end - pos_);
    if (word != "true" && word != "false" && word != "null") fail_expected("expected a value");
    pos_ = end;
  }
};

// Only reached if nlohmann rejects something the scanner accepted; keep its position.
[[noreturn]] void rethrow_nlohmann(const nlohmann::json::parse_error& e, std::string_view text,
                                   const std::string& origin) {
  std::string reason = e.what();
  if (auto dash = reason.find(" - "); dash != std::string::npos) reason.erase(0, dash + 3);
  if (auto last = reason.find("; last read"); last != std::string::npos) reason.erase(last);
  fail_at(origin, LineIndex(text).at(e.byte > 0 ? e.byte - 1 : 0), reason);
}

}  // namespace

std::string pointer_escape(std::string_view token) {
  std::string out;
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

SourcePos LocatedJson::at(const std::string& pointer) const {
  std::string p = pointer;
  while (true) {
    if (auto it = positions.find(p); it != positions.end()) return it->second;
    if (p.empty()) return {};
    auto slash = p.rfind('/');
    p.erase(slash == std::string::npos ? 0 : slash);
  }
}

LocatedJson parse_located(std::string_view text, const std::string& origin) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  LocatedJson out;
  Scanner(text, origin, out.positions).document();
  try {
    out.doc = nlohmann::json::parse(text.data(), text.data() + text.size());
  } catch (const nlohmann::json::parse_error& e) {
    rethrow_nlohmann(e, text, origin);
  } catch (const nlohmann::json::exception& e) {
    throw data_error(origin + ": " + e.what());
  }
  return out;
}

}  // namespace gpusel
