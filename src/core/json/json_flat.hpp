#pragma once
// A record's JSON as one flat vector of nodes (not a public header): what the loaders read a
// clean record of a user's file through instead of nlohmann's tree. Strings are views of the
// record's text (decoded into the tree's own buffer only when they hold an escape); a node's
// children follow it, each subtree ending where its `end` says. The tree is reused record
// after record: clearing it frees nothing, so a file of 100,000 records allocates a few times,
// not a few hundred times per record.
//
// FlatValue offers the part of nlohmann::json's reading interface the record readers use
// (json_fields.hpp, the semantic checks), so that they are written once for both trees.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace gpusel::json_detail {

enum class FlatType : std::uint8_t {
  null,
  boolean,
  number_integer,
  number_unsigned,
  number_float,
  string,
  object,
  array
};

// A key's first eight bytes (zero-padded, big-endian: numbers compare as the text does) and
// length: most keys are told apart and ordered by these two numbers alone.
struct FlatKey {
  std::uint64_t prefix = 0;
  std::uint32_t size = 0;
  std::uint32_t node = 0;  // the member's node (in an object's key list)
};
inline FlatKey flat_key(std::string_view key) {
  FlatKey k;
  if (key.size() >= 8) {
    std::memcpy(&k.prefix, key.data(), 8);  // one load, not a call
  } else if constexpr (std::endian::native == std::endian::little) {
    // Up to three loads (4, 2, 1 bytes) instead of a loop over the bytes: most keys are short.
    const char* p = key.data();
    std::size_t at = 0;
    if (key.size() & 4) {
      std::uint32_t w;
      std::memcpy(&w, p, 4);
      k.prefix = w, at = 4;
    }
    if (key.size() & 2) {
      std::uint16_t w;
      std::memcpy(&w, p + at, 2);
      k.prefix |= std::uint64_t{w} << (8 * at), at += 2;
    }
    if (key.size() & 1) k.prefix |= std::uint64_t{static_cast<unsigned char>(p[at])} << (8 * at);
  } else {
    for (std::size_t i = 0; i < key.size(); ++i)
      k.prefix |= std::uint64_t{static_cast<unsigned char>(key[i])} << (8 * i);
  }
  if constexpr (std::endian::native == std::endian::little) k.prefix = __builtin_bswap64(k.prefix);
  k.size = static_cast<std::uint32_t>(key.size());
  return k;
}
// The keys' order (byte by byte, as std::string orders them): <0, 0 or >0.
inline int compare_keys(const FlatKey& a, std::string_view at, const FlatKey& b,
                        std::string_view bt) {
  if (a.prefix != b.prefix) return a.prefix < b.prefix ? -1 : 1;
  if (a.size <= 8 || b.size <= 8) return a.size == b.size ? 0 : a.size < b.size ? -1 : 1;
  return at.substr(8).compare(bt.substr(8));
}
// Whether `k` (from flat_key(text)) and `probe` (from flat_key(name)) are the same key.
// The tail past eight bytes is compared in line: keys are short, and a call to memcmp cost
// more than the comparison (the readers look up about 60 fields per record).
inline bool same_key(const FlatKey& k, std::string_view text, const FlatKey& probe,
                     std::string_view name) {
  if (k.prefix != probe.prefix || k.size != probe.size) return false;
  for (std::uint32_t i = 8; i < k.size; ++i)
    if (text[i] != name[i]) return false;
  return true;
}

struct FlatNode {
  FlatType type = FlatType::null;
  bool key_decoded = false, str_decoded = false;  // the view is in the tree's decoded buffer
  std::uint32_t end = 0;                          // one past this subtree's last node
  std::uint32_t count = 0;                        // members or elements
  std::uint32_t key_at = 0, key_size = 0;         // an object member's key
  std::uint32_t str_at = 0, str_size = 0;         // a string's bytes; an object's key list
  union {
    bool b;
    std::int64_t i;
    std::uint64_t u;
    double d;
  };
  FlatNode() : u(0) {}
};

class FlatValue;

class FlatTree {
 public:
  // Reads `text` (one JSON value that the scanner has accepted: no syntax is checked again;
  // Error(data) "<origin>: malformed JSON at byte N" on text it cannot read). `text` must
  // outlive every value read from the tree; the previous record's nodes are dropped.
  void build(std::string_view text, const std::string& origin);
  // The same, checking the syntax as the scanner does (json_scan.cpp): true exactly when the
  // tree is built, and then the scanner accepts `text` as a value nested `outer` levels deep
  // (a false may still be text the scanner accepts; it words the error). What lets a clean
  // record skip the scan of the whole file (data/document.cpp).
  bool build_checked(std::string_view text, int outer);
  FlatValue root() const;

  const FlatNode& node(std::uint32_t i) const { return nodes_[i]; }
  std::string_view key(const FlatNode& n) const {
    return {(n.key_decoded ? decoded_.data() : text_.data()) + n.key_at, n.key_size};
  }
  std::string_view str(const FlatNode& n) const {
    return {(n.str_decoded ? decoded_.data() : text_.data()) + n.str_at, n.str_size};
  }
  // An object's members' keys, in key order (n.count of them).
  const FlatKey* keys(const FlatNode& n) const { return keys_.data() + n.str_at; }

 private:
  friend class FlatBuilder;
  std::string_view text_;
  std::string decoded_;
  std::vector<FlatNode> nodes_;
  std::vector<FlatKey> keys_;                  // every object's key list, one after another
  std::vector<std::vector<FlatKey>> pending_;  // per depth: the keys of an object being read
};

// A value of a FlatTree, or none: what find() gives for an absent key and end() is. It is its
// own iterator for lookups (`it == rec.end()`, `it->is_string()`, `*it`), as nlohmann's
// find() is used.
class FlatValue {
 public:
  FlatValue() = default;
  FlatValue(const FlatTree* t, std::uint32_t i) : t_(t), i_(i) {}
  const FlatTree* tree() const { return t_; }
  const FlatNode& node() const { return t_->node(i_); }

  FlatType type() const { return n().type; }
  bool is_null() const { return type() == FlatType::null; }
  bool is_boolean() const { return type() == FlatType::boolean; }
  bool is_string() const { return type() == FlatType::string; }
  bool is_object() const { return type() == FlatType::object; }
  bool is_array() const { return type() == FlatType::array; }
  bool is_structured() const { return is_object() || is_array(); }
  bool is_number_float() const { return type() == FlatType::number_float; }
  bool is_number_unsigned() const { return type() == FlatType::number_unsigned; }
  bool is_number_integer() const {
    return type() == FlatType::number_integer || type() == FlatType::number_unsigned;
  }
  bool is_number() const { return is_number_integer() || is_number_float(); }

  std::size_t size() const;  // members or elements; 1 for a scalar, 0 for null (as nlohmann)
  bool empty() const { return size() == 0; }
  std::string_view str() const { return t_->str(n()); }  // a string's text
  std::string_view key() const { return t_->key(n()); }  // an object member's key

  template <typename T>
  T get() const;

  FlatValue find(std::string_view key) const;  // none when absent (or not an object)
  FlatValue end() const { return {}; }
  bool contains(std::string_view key) const { return static_cast<bool>(find(key)); }
  FlatValue operator[](std::string_view key) const { return find(key); }
  FlatValue operator[](std::size_t index) const;  // an array's element (none past its end)
  template <typename T>
  T value(std::string_view key, T fallback) const {
    const FlatValue v = find(key);
    return v && !v.is_null() ? v.get<T>() : fallback;
  }

  explicit operator bool() const { return t_ != nullptr; }
  const FlatValue& operator*() const { return *this; }
  const FlatValue* operator->() const { return this; }
  bool operator==(const FlatValue& o) const { return t_ == o.t_ && (!t_ || i_ == o.i_); }

  // The children of an object or array, in text order.
  class Iterator {
   public:
    Iterator(const FlatTree* t, std::uint32_t i, std::uint32_t stop) : t_(t), i_(i), stop_(stop) {}
    FlatValue operator*() const { return {t_, i_}; }
    Iterator& operator++() {
      i_ = t_->node(i_).end;
      return *this;
    }
    bool operator!=(const FlatValue&) const { return i_ != stop_; }

   private:
    const FlatTree* t_;
    std::uint32_t i_, stop_;
  };
  Iterator begin() const { return {t_, i_ + 1, is_structured() ? n().end : i_ + 1}; }

  // The same value as nlohmann's tree (tests, fuzzing, messages that dump a value).
  nlohmann::json to_json() const;
  std::string dump() const { return to_json().dump(); }

 private:
  const FlatTree* t_ = nullptr;
  std::uint32_t i_ = 0;
  const FlatNode& n() const { return t_->node(i_); }
};

inline FlatValue FlatTree::root() const { return {this, 0}; }

template <typename T>
T FlatValue::get() const {
  const FlatNode& x = n();
  if constexpr (std::is_same_v<T, bool>) {
    return x.b;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return std::string(str());
  } else if constexpr (std::is_arithmetic_v<T>) {  // nlohmann's casts between number types
    switch (x.type) {
      case FlatType::number_integer:
        return static_cast<T>(x.i);
      case FlatType::number_unsigned:
        return static_cast<T>(x.u);
      default:
        return static_cast<T>(x.d);
    }
  } else {
    static_assert(std::is_same_v<T, FlatValue>, "no such reading");
    return *this;
  }
}

// A string's text from either tree: the reader templates' one spelling of it.
inline const std::string& text_of(const nlohmann::json& v) {
  return v.get_ref<const std::string&>();
}
inline std::string_view text_of(const FlatValue& v) { return v.str(); }

}  // namespace gpusel::json_detail
