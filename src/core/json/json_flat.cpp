#include "json/json_flat.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "gpusel/base/error.hpp"
#include "json/json_build.hpp"
#include "json/json_scan.hpp"
#include "json/json_scan_parts.hpp"

// The flat tree is read from text the scanner has accepted (as json_build.cpp reads nlohmann's
// tree): values are told apart by their first byte, strings are found sixteen bytes at a time
// and only strings with an escape are copied (decoded) out of the text.
namespace gpusel::json_detail {

class FlatBuilder {
 public:
  // `outer`: in strict mode, the levels of nesting around the text (the scanner's depth limit
  // counts them); strict mode checks every byte as the scanner would (json_scan.cpp).
  FlatBuilder(FlatTree& t, const std::string& origin, bool strict = false, int outer = 0)
      : t_(t), origin_(origin), strict_(strict), outer_(outer) {}

  void document(std::string_view text) {
    if (text.size() >= std::numeric_limits<std::uint32_t>::max()) malformed();
    t_.text_ = text;
    t_.nodes_.clear();
    t_.keys_.clear();
    t_.decoded_.clear();
    p_ = text.data();
    end_ = p_ + text.size();
    value(0);
    if (skip_ws(p_, end_) != end_) malformed();
  }

 private:
  FlatTree& t_;
  const std::string& origin_;
  bool strict_;
  int outer_;
  const char* p_ = nullptr;
  const char* end_ = nullptr;

  [[noreturn]] void malformed() const {
    throw data_error(origin_ + ": malformed JSON at byte " + std::to_string(p_ - t_.text_.data()));
  }
  char peek() {
    p_ = skip_ws(p_, end_);
    return p_ == end_ ? '\0' : *p_;
  }
  std::uint32_t offset(const char* at) const {
    return static_cast<std::uint32_t>(at - t_.text_.data());
  }

  // Appends the value at p_ (and its children); returns its index.
  std::uint32_t value(int depth) {
    if (!strict_ && depth > kMaxDepth) malformed();
    const auto at = static_cast<std::uint32_t>(t_.nodes_.size());
    t_.nodes_.emplace_back();
    switch (peek()) {
      case '{':
        children(at, depth, '}');
        break;
      case '[':
        children(at, depth, ']');
        break;
      case '"': {
        FlatNode& n = t_.nodes_[at];
        n.type = FlatType::string;
        string_token(n.str_at, n.str_size, n.str_decoded);
        break;
      }
      case 't':
        literal("true", at, FlatType::boolean, true);
        break;
      case 'f':
        literal("false", at, FlatType::boolean, false);
        break;
      case 'n':
        literal("null", at, FlatType::null, false);
        break;
      default:
        number(at);
    }
    t_.nodes_[at].end = static_cast<std::uint32_t>(t_.nodes_.size());
    return at;
  }

  // An object's members or an array's elements, p_ at the opening bracket. An object's keys
  // are gathered apart (nested objects gather theirs meanwhile) and then listed together.
  void children(std::uint32_t at, int depth, char close) {
    const bool object = close == '}';
    // The scanner's limit, exactly: a container `outer_` levels below the text's top one is
    // at its depth + outer_ + 1 (a refusal the scanner would not make costs it a scan of the
    // rest of the file).
    if (strict_ && depth + outer_ + 1 > kMaxDepth) malformed();
    t_.nodes_[at].type = object ? FlatType::object : FlatType::array;
    ++p_;
    std::uint32_t count = 0;
    if (t_.pending_.size() <= static_cast<std::size_t>(depth)) t_.pending_.resize(depth + 1);
    t_.pending_[depth].clear();
    if (peek() == close)
      ++p_;
    else
      while (true) {
        std::uint32_t key_at = 0, key_size = 0;
        bool key_decoded = false;
        if (object) {
          if (peek() != '"') malformed();
          string_token(key_at, key_size, key_decoded);
          if (peek() != ':') malformed();
          ++p_;
        }
        const std::uint32_t child = value(depth + 1);
        FlatNode& c = t_.nodes_[child];  // after value(): the vector may have moved
        c.key_at = key_at, c.key_size = key_size, c.key_decoded = key_decoded;
        if (object) {
          FlatKey k = flat_key(t_.key(c));
          k.node = child;
          t_.pending_[depth].push_back(k);
        }
        ++count;
        const char next = peek();
        ++p_;
        if (next == close) break;
        if (next != ',') malformed();
      }
    FlatNode& n = t_.nodes_[at];
    n.count = count;
    if (!object) return;
    n.str_at = static_cast<std::uint32_t>(t_.keys_.size());
    auto& keys = t_.pending_[depth];
    const auto less = [this](const FlatKey& a, const FlatKey& b) {
      return compare_keys(a, t_.key(t_.node(a.node)), b, t_.key(t_.node(b.node))) < 0;
    };
    const auto not_less = [&less](const FlatKey& a, const FlatKey& b) { return !less(a, b); };
    if (std::adjacent_find(keys.begin(), keys.end(), not_less) != keys.end()) {
      std::sort(keys.begin(), keys.end(), less);  // gpusel's files: sorted already
      if (strict_ && std::adjacent_find(keys.begin(), keys.end(), not_less) != keys.end())
        malformed();  // a duplicate key
    }
    t_.keys_.insert(t_.keys_.end(), keys.begin(), keys.end());
  }

  void literal(std::string_view word, std::uint32_t at, FlatType type, bool b) {
    if (static_cast<std::size_t>(end_ - p_) < word.size() ||
        std::memcmp(p_, word.data(), word.size()) != 0)
      malformed();
    p_ += word.size();
    t_.nodes_[at].type = type;
    t_.nodes_[at].b = b;
  }

  void number(std::uint32_t at) {
    const char* first = p_;
    while (p_ != end_ && is_number_byte(*p_)) ++p_;
    NumberToken tok;
    if (!read_number(first, p_, tok)) malformed();
    // A finite double is what the scanner's range check (strtod) accepts.
    if (strict_ && (!is_json_number(first, p_) ||
                    (tok.kind == NumberToken::floating && !std::isfinite(tok.d))))
      malformed();
    FlatNode& n = t_.nodes_[at];
    if (tok.kind == NumberToken::unsigned_integer) {
      n.type = FlatType::number_unsigned, n.u = tok.u;
    } else if (tok.kind == NumberToken::signed_integer) {
      n.type = FlatType::number_integer, n.i = tok.i;
    } else {
      n.type = FlatType::number_float, n.d = tok.d;
    }
  }

  // p_ at the opening quote. A string without escapes is a view of the text; one with an
  // escape is decoded (as json_build.cpp decodes it) to the end of the tree's buffer.
  void string_token(std::uint32_t& at, std::uint32_t& size, bool& decoded) {
    const char* from = ++p_;
    const char* stop = string_run(from);
    if (stop == end_) malformed();
    if (*stop == '"') {
      at = offset(from), size = static_cast<std::uint32_t>(stop - from), decoded = false;
      p_ = stop + 1;
      return;
    }
    std::string& out = t_.decoded_;
    const std::size_t start = out.size();
    while (true) {
      out.append(from, stop);
      p_ = stop + 1;
      if (*stop == '"') break;
      escape(out);
      from = p_;
      stop = string_run(from);
      if (stop == end_) malformed();
    }
    at = static_cast<std::uint32_t>(start), size = static_cast<std::uint32_t>(out.size() - start);
    decoded = true;
  }

  // The next '"' or '\\' at or after `p`; in strict mode the bytes before it are checked as the
  // scanner checks them (no control byte, UTF-8 as RFC 3629 has it).
  const char* string_run(const char* p) const {
    if (!strict_) return skip_to_quote(p, end_);
    while (true) {
      p = skip_plain(p, end_);
      if (p == end_ || *p == '"' || *p == '\\') return p;
      const std::size_t n = static_cast<unsigned char>(*p) < 0x20 ? 0 : utf8_sequence(p, end_);
      if (n == 0) malformed();
      p += n;
    }
  }

  // p_ after the backslash.
  void escape(std::string& out) {
    if (!decode_escape(p_, end_, out)) malformed();
  }
};

void FlatTree::build(std::string_view text, const std::string& origin) {
  FlatBuilder(*this, origin).document(text);
}

bool FlatTree::build_checked(std::string_view text, int outer) {
  static const std::string kOrigin;
  try {
    FlatBuilder(*this, kOrigin, true, outer).document(text);
    return true;
  } catch (const Error&) {
    return false;
  }
}

std::size_t FlatValue::size() const {
  if (is_structured()) return n().count;
  return is_null() ? 0 : 1;
}

// The key list is ordered by the keys' first eight bytes first, so a search of those numbers
// alone (no branch to mispredict) lands on the run of keys sharing them; the run (almost always
// one key) is then compared in full. The readers look a record's fields up about 60 times.
FlatValue FlatValue::find(std::string_view key) const {
  if (!is_object()) return {};
  const std::uint32_t count = n().count;
  if (count == 0) return {};
  const FlatKey probe = flat_key(key);
  const FlatKey* first = t_->keys(n());
  const FlatKey* const stop = first + count;
  for (std::uint32_t size = count; size > 1;) {  // down to one key: the answer or the one before
    const std::uint32_t half = size / 2;
    first = first[half].prefix < probe.prefix ? first + half : first;
    size -= half;
  }
  if (first->prefix < probe.prefix) ++first;  // now the first whose prefix is not below
  for (; first != stop && first->prefix == probe.prefix; ++first)
    if (same_key(*first, t_->key(t_->node(first->node)), probe, key)) return {t_, first->node};
  return {};
}

FlatValue FlatValue::operator[](std::size_t index) const {
  if (!is_array()) return {};
  std::size_t k = 0;
  for (std::uint32_t i = i_ + 1, stop = n().end; i != stop; i = t_->node(i).end, ++k)
    if (k == index) return {t_, i};
  return {};
}

nlohmann::json FlatValue::to_json() const {
  const FlatNode& x = n();
  switch (x.type) {
    case FlatType::null:
      return nullptr;
    case FlatType::boolean:
      return x.b;
    case FlatType::number_integer:
      return x.i;
    case FlatType::number_unsigned:
      return x.u;
    case FlatType::number_float:
      return x.d;
    case FlatType::string:
      return std::string(str());
    case FlatType::object: {
      nlohmann::json out = nlohmann::json::object();
      for (auto it = begin(); it != end(); ++it) out[std::string((*it).key())] = (*it).to_json();
      return out;
    }
    case FlatType::array: {
      nlohmann::json out = nlohmann::json::array();
      for (auto it = begin(); it != end(); ++it) out.push_back((*it).to_json());
      return out;
    }
  }
  return nullptr;
}

}  // namespace gpusel::json_detail
