#pragma once
// Parts of the JSON scanner (json_scan.cpp), not a public header: the line/column cursor and
// the duplicate-key set of one object.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <functional>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "gpusel/json/json_source.hpp"

namespace gpusel::json_detail {

// Not a UTF-8 continuation byte: each such byte starts a code point (a column).
inline bool is_lead_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }

// Line and column of offsets asked for in increasing order, in total time linear in the text:
// memchr finds the line breaks, and only the part of the last line before the offset has its
// code points counted.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}
  SourcePos at(std::size_t offset) {
    const std::size_t to = std::min(offset, text_.size());
    if (to > done_) {
      std::size_t from = done_;
      for (const char* nl;
           (nl = static_cast<const char*>(std::memchr(text_.data() + from, '\n', to - from)));) {
        ++line_, column_ = 1;
        from = static_cast<std::size_t>(nl - text_.data()) + 1;
      }
      for (; from < to; ++from) column_ += is_lead_byte(text_[from]);
      done_ = to;
    }
    return {line_, column_, offset};
  }

 private:
  std::string_view text_;
  std::size_t done_ = 0;
  int line_ = 1, column_ = 1;
};

// The keys of one object, for the duplicate check: views of the text, compared by hash
// first. Records have a few dozen keys, where a linear search beats a hash set; a huge
// object switches to one so it stays linear.
class KeySet {
 public:
  bool empty() const { return size_ == 0 && large_.empty(); }
  bool insert(std::string_view key) {
    const std::size_t h = std::hash<std::string_view>{}(key);
    if (large_.empty()) {
      for (std::size_t i = 0; i < size_; ++i)
        if (small_[i].first == h && small_[i].second == key) return false;
      if (size_ < small_.size()) return small_[size_++] = {h, key}, true;
      for (const auto& entry : small_) large_.insert(entry.second);
    }
    return large_.insert(key).second;
  }

 private:
  // In place: no allocation for an ordinary record's object.
  std::array<std::pair<std::size_t, std::string_view>, 32> small_;
  std::size_t size_ = 0;
  std::unordered_set<std::string_view> large_;
};

}  // namespace gpusel::json_detail
