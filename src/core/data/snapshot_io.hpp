#pragma once
// The snapshot's byte format (not a public header): a Writer and a Reader that take the same
// field lists (snapshot_fields.hpp), so what is written and what is read back cannot drift.
// Numbers are their bytes as this machine holds them: the snapshot is made at build time on
// the machine that builds the binary, and a cross-compiled build embeds none (CMakeLists.txt).
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "gpusel/base/error.hpp"
#include "gpusel/json/embedded.hpp"

namespace gpusel::snapshot {

// T is U, or a const U: one field list serves the writer (const) and the reader.
template <typename T, typename U>
concept either = std::is_same_v<std::remove_const_t<T>, U>;

// A struct with a field list: `fields(archive, value)` found by argument-dependent lookup.
template <typename T, typename A>
concept listed = requires(A& a, T& v) {
  fields(a, v);
};

class Writer {
 public:
  template <typename... T>
  void operator()(const T&... values) {
    (put(values), ...);
  }
  // A GPU's record in the document: its place, not its text (the reader views the document).
  void raw(std::size_t offset, std::size_t size) {
    put(std::uint64_t{offset}), put(std::uint64_t{size});
  }
  std::string take() { return std::move(out_); }

 private:
  template <typename T>
  requires std::is_arithmetic_v<T> || std::is_enum_v<T>
  void put(T v) {
    char bytes[sizeof v];
    std::memcpy(bytes, &v, sizeof v);
    out_.append(bytes, sizeof v);
  }
  void put(const std::string& s) {
    put(std::uint64_t{s.size()});
    out_ += s;
  }
  template <typename T>
  void put(const std::optional<T>& o) {
    put(o.has_value());
    if (o) put(*o);
  }
  template <typename T>
  void put(const std::vector<T>& v) {
    put(std::uint64_t{v.size()});
    for (const auto& x : v) put(x);
  }
  template <typename... T>
  void put(const std::variant<T...>& v) {
    put(static_cast<std::uint8_t>(v.index()));
    std::visit([this](const auto& x) { this->put(x); }, v);
  }
  template <typename T>
  requires listed<const T, Writer>
  void put(const T& v) { fields(*this, v); }

  std::string out_;
};

class Reader {
 public:
  // `document`: the text the records were read from (a GPU's raw record views it).
  Reader(std::string_view bytes, std::string_view document) : in_(bytes), document_(document) {}
  template <typename... T>
  void operator()(T&... values) {
    (get(values), ...);
  }
  std::string_view document() const { return document_; }
  // The place a Writer::raw wrote, checked to lie inside the document.
  std::pair<std::size_t, std::size_t> raw() {
    std::uint64_t offset = 0, size = 0;
    get(offset), get(size);
    if (offset > document_.size() || size > document_.size() - offset) corrupt();
    return {offset, size};
  }
  bool done() const { return pos_ == in_.size(); }
  // The next n bytes, as they are.
  std::string_view take(std::uint64_t n) {
    if (n > in_.size() - pos_) corrupt();
    const std::string_view bytes = in_.substr(pos_, n);
    pos_ += n;
    return bytes;
  }

 private:
  [[noreturn]] static void corrupt() {
    throw data_error("the embedded data snapshot is malformed; rebuild gpusel");
  }
  template <typename T>
  requires std::is_arithmetic_v<T> || std::is_enum_v<T>
  void get(T& v) { std::memcpy(&v, take(sizeof v).data(), sizeof v); }
  void get(bool& v) {
    const char c = take(1)[0];
    if (c != 0 && c != 1) corrupt();
    v = c == 1;
  }
  void get(std::string& s) {
    std::uint64_t n = 0;
    get(n);
    s.assign(take(n));
  }
  template <typename T>
  void get(std::optional<T>& o) {
    bool has = false;
    get(has);
    if (!has) return o.reset();
    get(o.emplace());
  }
  template <typename T>
  void get(std::vector<T>& v) {
    std::uint64_t n = 0;
    get(n);
    if (n > in_.size() - pos_) corrupt();  // every element takes at least a byte
    v.resize(n);
    for (auto& x : v) get(x);
  }
  template <typename... T>
  void get(std::variant<T...>& v) {
    std::uint8_t index = 0;
    get(index);
    if (index >= sizeof...(T)) corrupt();
    get_alternative<0>(v, index);
  }
  template <std::size_t I, typename... T>
  void get_alternative(std::variant<T...>& v, std::size_t index) {
    if constexpr (I < sizeof...(T)) {
      if (index == I) return get(v.template emplace<I>());
      get_alternative<I + 1>(v, index);
    }
  }
  template <typename T>
  requires listed<T, Reader>
  void get(T& v) { fields(*this, v); }

  std::string_view in_, document_;
  std::size_t pos_ = 0;
};

// A snapshot: this line, then one section per shipped file, each the file's name, the size
// of the JSON text it was made from (a GPU's raw record is a place in that text), the size of
// its records' bytes, and those bytes. Stages add their own files' sections (rank/: rules).
inline constexpr std::string_view kMagic = "gpusel snapshot 2\n";

// Appends the section of the embedded `file`, holding `records`, to a snapshot.
template <typename T>
void add_section(std::string& out, const std::string& file, const T& records) {
  Writer body;
  body(records);
  std::string bytes = body.take();
  Writer head;
  head(file, std::uint64_t{embedded_text(file).size()}, std::uint64_t{bytes.size()});
  out += head.take();
  out += bytes;
}

// A Reader over the records of `file`'s section; nullopt when the snapshot is empty, has no
// such section, or was made from a text of another size than this build embeds. Error(data)
// for a malformed snapshot.
std::optional<Reader> find_section(std::string_view snapshot, std::string_view file);

// The records of `file`'s section read into `records`; false where find_section finds none.
template <typename T>
bool read_section(std::string_view snapshot, std::string_view file, T& records) {
  std::optional<Reader> in = find_section(snapshot, file);
  if (!in) return false;
  (*in)(records);
  if (!in->done()) throw data_error("the embedded data snapshot is malformed; rebuild gpusel");
  return true;
}

}  // namespace gpusel::snapshot
