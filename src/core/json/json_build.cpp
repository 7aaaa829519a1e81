#include "json/json_build.hpp"

#include <algorithm>
#include <charconv>
#include <clocale>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "gpusel/base/error.hpp"
#include "json/json_scan.hpp"
#include "json/json_scan_parts.hpp"

// Builds nlohmann's tree from text the scanner has already accepted, in one pass: nlohmann's
// own lexer copies every character into a token buffer one push_back at a time and tracks
// positions nobody reads, which made it most of the cost of loading a file. This builder
// copies plain runs whole and converts numbers with from_chars. It repeats none of the
// scanner's messages: on text it cannot read (never the case after a clean scan; embedded
// data is checked by the tests) it throws one Error(data) naming the file.
namespace gpusel::json_detail {
namespace {

using nlohmann::json;

class Builder {
 public:
  Builder(std::string_view text, const std::string& origin, Outline* outline)
      : text_(text), origin_(origin), outline_(outline) {}

  json document() {
    json out = value(0);
    skip_ws();
    if (pos_ != text_.size()) malformed();
    return out;
  }

 private:
  std::string_view text_;
  const std::string& origin_;
  Outline* outline_;
  Outline::List* collecting_ = nullptr;  // the top-level list whose elements are being spanned
  std::size_t pos_ = 0;

  [[noreturn]] void malformed() const {
    throw data_error(origin_ + ": malformed JSON at byte " + std::to_string(pos_));
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_ws() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r' || text_[pos_] == '\t'))
      ++pos_;
  }
  void expect(char c) {
    skip_ws();
    if (peek() != c) malformed();
    ++pos_;
  }

  json value(int depth) {
    skip_ws();
    if (depth > kMaxDepth) malformed();
    switch (peek()) {
      case '{':
        return object(depth + 1);
      case '[':
        return array(depth + 1);
      case '"': {
        json s(json::value_t::string);
        string_token(s.get_ref<std::string&>());
        return s;
      }
      case 't':
        return literal("true", json(true));
      case 'f':
        return literal("false", json(false));
      case 'n':
        return literal("null", json(nullptr));
      default:
        return number();
    }
  }

  json object(int depth) {
    ++pos_;
    json out(json::value_t::object);
    auto& members = out.get_ref<json::object_t&>();
    skip_ws();
    if (peek() == '}') {
      ++pos_;
      return out;  // not `return ++pos_, out`: that copies the tree
    }
    std::string key;
    while (true) {
      skip_ws();
      if (peek() != '"') malformed();
      string_token(key);
      expect(':');
      if (outline_ && depth == 1) outline_member(key);
      json v = value(depth);
      // Keys written in order (as gpusel's own files are) go in at the end without a search.
      if (members.empty() || members.rbegin()->first < key)
        members.emplace_hint(members.end(), std::move(key), std::move(v));
      else
        members.insert_or_assign(std::move(key), std::move(v));  // the last of duplicates
      key.clear();  // moved from: empty again for the next key
      collecting_ = nullptr;
      skip_ws();
      if (peek() == '}') {
        ++pos_;
        return out;
      }
      if (peek() != ',') malformed();
      ++pos_;
    }
  }

  // A member of the root object, noted as the scanner notes it: its key, and where the
  // elements of a list of interest lie.
  void outline_member(const std::string& key) {
    outline_->root_is_object = true;
    outline_->keys.push_back(key);
    const auto& c = outline_->candidates;
    skip_ws();
    if (peek() != '[' || std::find(c.begin(), c.end(), key) == c.end()) return;
    outline_->lists.push_back({key, pos_, 0, {}});
    collecting_ = &outline_->lists.back();
  }

  json array(int depth) {
    Outline::List* spans = depth == 2 ? collecting_ : nullptr;
    collecting_ = nullptr;  // arrays nested in the elements are not spanned
    ++pos_;
    json out(json::value_t::array);
    auto& elements = out.get_ref<json::array_t&>();
    skip_ws();
    if (peek() == ']') {
      ++pos_;
      if (spans) spans->end = pos_;
      return out;
    }
    while (true) {
      skip_ws();
      const std::size_t begin = pos_;
      elements.push_back(value(depth));
      if (spans) spans->items.emplace_back(begin, pos_);
      skip_ws();
      if (peek() == ']') {
        ++pos_;
        if (spans) spans->end = pos_;
        return out;
      }
      if (peek() != ',') malformed();
      ++pos_;
    }
  }

  json literal(std::string_view word, json v) {
    if (text_.substr(pos_, word.size()) != word) malformed();
    pos_ += word.size();
    return v;
  }

  // pos_ at the opening quote; the scanner has checked escapes and UTF-8. Most strings have
  // no escape: one pass (sixteen bytes at a time) finds the closing quote and the string is
  // copied whole.
  void string_token(std::string& out) {
    ++pos_;
    const char* end = text_.data() + text_.size();
    while (true) {
      const char* from = text_.data() + pos_;
      const char* stop = skip_to_quote(from, end);
      if (stop == end) malformed();
      out.append(from, stop);
      pos_ += static_cast<std::size_t>(stop - from) + 1;
      if (*stop == '"') return;
      escape(out);
    }
  }

  // pos_ after the backslash.
  void escape(std::string& out) {
    const char* p = text_.data() + pos_;
    if (!decode_escape(p, text_.data() + text_.size(), out)) malformed();
    pos_ = static_cast<std::size_t>(p - text_.data());
  }

  json number() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && is_number_byte(text_[pos_])) ++pos_;
    NumberToken t;
    if (!read_number(text_.data() + start, text_.data() + pos_, t)) malformed();
    switch (t.kind) {
      case NumberToken::unsigned_integer:
        return json(t.u);
      case NumberToken::signed_integer:
        return json(t.i);
      default:
        return json(t.d);
    }
  }
};

// strtod in the C locale's terms: the token's '.' becomes the locale's decimal point, as
// nlohmann's lexer does, so that a tiny number becomes what nlohmann makes of it.
double strtod_c(const char* first, const char* last) {
  std::string token(first, last);
  for (char& c : token)
    if (c == '.') c = *std::localeconv()->decimal_point;
  return std::strtod(token.c_str(), nullptr);
}

}  // namespace

bool read_number(const char* first, const char* last, NumberToken& out) {
  if (first == last) return false;
  const bool integral =
      std::none_of(first, last, [](char c) { return c == '.' || c == 'e' || c == 'E'; });
  if (integral) {
    if (*first == '-') {
      if (auto r = std::from_chars(first, last, out.i); r.ec == std::errc() && r.ptr == last) {
        out.kind = NumberToken::signed_integer;
        return true;
      }
    } else if (auto r = std::from_chars(first, last, out.u); r.ec == std::errc() && r.ptr == last) {
      out.kind = NumberToken::unsigned_integer;
      return true;
    }
  }
  out.kind = NumberToken::floating;
  auto r = std::from_chars(first, last, out.d);
  if (r.ec == std::errc::result_out_of_range)
    out.d = strtod_c(first, last);  // underflow: as strtod
  else if (r.ec != std::errc() || r.ptr != last)
    return false;
  return true;
}

void dispose(nlohmann::json& tree) {
  if (tree.is_object()) {
    auto& members = tree.get_ref<json::object_t&>();
    for (auto& member : members)
      if (member.second.is_structured()) dispose(member.second);
    members.clear();  // each member a scalar or an empty container now: freed without a stack
  } else if (tree.is_array()) {
    auto& elements = tree.get_ref<json::array_t&>();
    for (auto& element : elements)
      if (element.is_structured()) dispose(element);
    elements.clear();
  }
}

nlohmann::json build(std::string_view text, const std::string& origin, Outline* outline) {
  return Builder(text, origin, outline).document();
}

}  // namespace gpusel::json_detail
