// The JSON scanner (json_source) checked against nlohmann on arbitrary bytes.
#include <bit>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "checks.hpp"
#include "core/json/json_flat.hpp"
#include "core/json/json_scan.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_schema.hpp"
#include "gpusel/json/json_source.hpp"

namespace gpusel::fuzz {
namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw Finding(what);
}

// Pointers of (up to `max`) values of `v`, depth first, as RFC 6901 writes them.
void pointers(const nlohmann::json& v, const std::string& at, std::vector<std::string>& out,
              std::size_t max) {
  if (out.size() >= max) return;
  out.push_back(at);
  if (v.is_object())
    for (auto& [k, child] : v.items()) pointers(child, at + "/" + pointer_escape(k), out, max);
  if (v.is_array())
    for (std::size_t i = 0; i < v.size(); ++i)
      pointers(v[i], at + "/" + std::to_string(i), out, max);
}

// The first character a value of this type starts with.
bool starts_like(const nlohmann::json& v, char c) {
  switch (v.type()) {
    case nlohmann::json::value_t::object:
      return c == '{';
    case nlohmann::json::value_t::array:
      return c == '[';
    case nlohmann::json::value_t::string:
      return c == '"';
    case nlohmann::json::value_t::boolean:
      return c == (v.get<bool>() ? 't' : 'f');
    case nlohmann::json::value_t::null:
      return c == 'n';
    default:
      return c == '-' || (c >= '0' && c <= '9');
  }
}

// Line and column of `offset`, counted plainly from the start.
SourcePos naive_position(std::string_view text, std::size_t offset) {
  SourcePos p{1, 1, offset};
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++p.line, p.column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      ++p.column;
    }
  }
  return p;
}

void check_positions(const LocatedJson& src) {
  std::vector<std::string> ptrs;
  pointers(src.doc, "", ptrs, 300);
  const auto pos = src.at_all(ptrs);
  require(pos.size() == ptrs.size(), "at_all lost pointers");
  for (std::size_t i = 0; i < ptrs.size(); ++i) {
    const auto& v = src.doc.at(nlohmann::json::json_pointer(ptrs[i]));
    require(pos[i].offset < src.text.size(), "position past the end: " + ptrs[i]);
    require(starts_like(v, src.text[pos[i].offset]), "position not at the value: " + ptrs[i]);
    const SourcePos n = naive_position(src.text, pos[i].offset);
    require(n.line == pos[i].line && n.column == pos[i].column, "line/column off: " + ptrs[i]);
  }
}

// Every member of every object found by the flat tree's find(), as nlohmann has it.
void check_flat_lookups(const json_detail::FlatValue& v, const nlohmann::json& doc, int budget) {
  if (budget <= 0 || !v.is_structured()) return;
  require(v.size() == doc.size(), "flat size differs");
  std::size_t i = 0;
  for (auto it = v.begin(); it != v.end(); ++it, ++i) {
    const json_detail::FlatValue child = *it;
    const nlohmann::json& theirs = v.is_object() ? doc.at(std::string(child.key())) : doc.at(i);
    require(!v.is_object() || v.find(child.key()) == child, "find() misses a member");
    require(!v.is_array() || (i > 64 || v[i] == child), "operator[] misses an element");
    check_flat_lookups(child, theirs, budget - 1);
  }
  require(!v.is_object() || !v.find("\x01no such key"), "find() found an absent key");
}

// The records of a catalog or offers document: the flat schema check (the loaders' fast path)
// accepts exactly the records the full check finds nothing in.
void check_flat_schema(const json_detail::FlatValue& root, const nlohmann::json& doc) {
  static const Schema gpus(embedded_json("data/schema/gpus.schema.json"));
  static const Schema offers(embedded_json("data/schema/cloud.schema.json"));
  for (const auto& [list, schema] : {std::pair<const char*, const Schema*>{"gpus", &gpus},
                                     std::pair<const char*, const Schema*>{"offers", &offers}}) {
    const json_detail::FlatValue records = root.find(list);
    if (!records || !records.is_array()) continue;
    std::size_t i = 0;
    for (auto it = records.begin(); it != records.end(); ++it, ++i) {
      bool clean = false;
      try {
        clean = schema->check_item(doc.at(list).at(i), list, i).empty();
      } catch (const Error&) {  // too deep to check: the fast path leaves it to the full one
        clean = false;
      }
      require(
          schema->accepts_item(*it, list) == clean,
          "flat schema check disagrees on " + std::string(list) + "[" + std::to_string(i) + "]");
    }
  }
}

// The flat tree of accepted text: the same value as nlohmann's, type for type.
void check_flat(std::string_view text, const nlohmann::json& doc) {
  json_detail::FlatTree tree;
  tree.build(text, "f.json");
  require(same_tree(tree.root().to_json(), doc), "flat tree differs");
  check_flat_lookups(tree.root(), doc, 8);
  check_flat_schema(tree.root(), doc);
}

// A record the strict flat build accepts is one the scanner accepts, and the same tree.
void check_strict(std::string_view input) {
  json_detail::FlatTree strict;
  if (!strict.build_checked(input, 0)) return;
  json_detail::ScanError e;
  require(json_detail::scan(input, nullptr, e), "strict flat build accepted: " + e.reason);
  json_detail::FlatTree loose;
  loose.build(input, "f.json");
  require(same_tree(strict.root().to_json(), loose.root().to_json()), "strict flat tree differs");
}

// A skimmed outline whose elements all pass the strict build: the scanner accepts the whole
// text and outlines it the same (what lets the loaders skip the scan, data/document.cpp).
void check_skim(std::string_view input) {
  const std::vector<std::string> lists = {"gpus", "offers", "models", "platforms"};
  json_detail::Outline skimmed, scanned;
  skimmed.candidates = scanned.candidates = lists;
  if (!json_detail::skim_outline(input, skimmed)) return;
  json_detail::FlatTree tree;
  for (const auto& [b, e] : skimmed.lists.at(0).items)
    if (!tree.build_checked(input.substr(b, e - b), 2)) return;
  json_detail::ScanError error;
  require(json_detail::scan(input, nullptr, error, &scanned),
          "skimmed text refused: " + error.reason);
  require(scanned.keys == skimmed.keys && scanned.lists.size() == 1, "skimmed outline differs");
  const auto &a = scanned.lists[0], &b = skimmed.lists[0];
  require(a.key == b.key && a.begin == b.begin && a.end == b.end && a.items == b.items,
          "skimmed list differs");
}

}  // namespace

bool same_tree(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.type() != b.type() || a.size() != b.size()) return false;
  if (a.is_object()) {
    for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j)
      if (i.key() != j.key() || !same_tree(*i, *j)) return false;
    return true;
  }
  if (a.is_array()) {
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!same_tree(a[i], b[i])) return false;
    return true;
  }
  if (a.is_number_float())
    return std::bit_cast<std::uint64_t>(a.get<double>()) ==
           std::bit_cast<std::uint64_t>(b.get<double>());
  return a == b;
}

void check_json_source(std::string_view input) {
  check_strict(input);
  check_skim(input);
  const bool theirs = nlohmann::json::accept(input.begin(), input.end());
  LocatedJson src;
  try {
    src = parse_located(input, "f.json");
  } catch (const JsonSyntaxError& e) {
    require(e.pos.line >= 1 && e.pos.column >= 1, "syntax error without a position");
    // Stricter than nlohmann by design: duplicate keys, nesting, numbers beyond a double, and
    // a NUL byte, where nlohmann's lexer stops as if the input ended (it accepts `""\0junk`).
    const bool stricter = e.reason.rfind("duplicate key", 0) == 0 ||
                          e.reason.rfind("nesting deeper", 0) == 0 ||
                          e.reason.rfind("number too large", 0) == 0 ||
                          e.reason.find("byte 0x00") != std::string::npos;
    require(!theirs || stricter, "refused what nlohmann accepts: " + e.reason);
    return;
  }
  require(theirs, "accepted what nlohmann refuses");
  require(same_tree(src.doc, nlohmann::json::parse(input.begin(), input.end())), "value differs");
  check_positions(src);
  check_flat(src.text, src.doc);
}

}  // namespace gpusel::fuzz
