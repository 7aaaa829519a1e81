// The skim that outlines a data file without scanning its records (src/core/json/json_skim.cpp)
// against the scanner, on documents whose records put strings, escapes and brackets at every
// offset of the skim's 64-byte blocks, and on the same documents broken a byte at a time.
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "core/json/json_flat.hpp"
#include "core/json/json_scan.hpp"

using namespace gpusel;

namespace {

// A JSON value of about `budget` bytes: objects, arrays, numbers and strings holding quotes,
// backslashes and brackets, escaped or not.
std::string value(std::mt19937& rng, int budget, int depth = 0) {
  static const std::vector<std::string> pieces = {"a", "{", "}", "[", "]", "\\\"", "\\\\", "\\n",
                                                  "\\u00e9", " ", "x\\\\\\\"y", "\xC3\xA9"};
  const auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  if (depth > 4 || budget < 8 || pick(3) == 0) {
    if (pick(3) == 0) return std::to_string(pick(100000));
    std::string s = "\"";
    for (int left = pick(budget + 1); left > 0; left -= 2)
      s += pieces[static_cast<std::size_t>(pick(static_cast<int>(pieces.size())))];
    return s + "\"";
  }
  const bool object = pick(2) == 0;
  std::string s = object ? "{" : "[";
  for (int k = 0, n = pick(5); k < n; ++k) {
    if (k) s += pick(2) ? "," : ",\n  ";
    if (object) s += "\"k" + std::to_string(k) + (pick(4) ? "\": " : "\\\"q\": ");
    s += value(rng, budget / 2, depth + 1);
  }
  return s + (object ? "}" : "]");
}

std::string document(std::mt19937& rng, int records) {
  std::string doc = "{\"note\": \"[{\", \"gpus\": [";
  for (int r = 0; r < records; ++r) {
    if (r) doc += ",\n    ";
    doc += "{\"id\": \"g" + std::to_string(r) + "\", \"v\": " + value(rng, 40 + r * 37 % 300) + "}";
  }
  return doc + "], \"tail\": {\"x\": [1, \"]\"]}}";
}

json_detail::Outline outline_of() {
  json_detail::Outline o;
  o.candidates = {"gpus"};
  return o;
}

}  // namespace

TEST_CASE("the skim outlines every record the scanner outlines, at every block offset") {
  std::mt19937 rng(20261204);
  for (int trial = 0; trial < 400; ++trial) {
    const std::string doc = document(rng, 1 + trial % 9);
    json_detail::Outline scanned = outline_of(), skimmed = outline_of();
    json_detail::ScanError error;
    INFO(doc);
    REQUIRE(json_detail::scan(doc, nullptr, error, &scanned));
    REQUIRE(json_detail::skim_outline(doc, skimmed));
    REQUIRE(skimmed.lists.size() == 1);
    CHECK(skimmed.lists[0].items == scanned.lists.at(0).items);
    CHECK(skimmed.lists[0].end == scanned.lists.at(0).end);
  }
}

TEST_CASE("a broken document the skim outlines is one the scanner outlines the same") {
  std::mt19937 rng(7);
  int outlined = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string doc = document(rng, 3);
    const std::size_t at = rng() % doc.size();
    static const std::string breakers = "\"\\{}[],";
    if (rng() % 2)
      doc.erase(at, 1);
    else
      doc.insert(at, 1, breakers[rng() % breakers.size()]);
    json_detail::Outline scanned = outline_of(), skimmed = outline_of();
    if (!json_detail::skim_outline(doc, skimmed)) continue;
    // The loaders build each record strictly before trusting the skim (document.cpp).
    json_detail::FlatTree tree;
    bool records_ok = true;
    for (const auto& [b, e] : skimmed.lists.at(0).items)
      records_ok = records_ok && tree.build_checked(std::string_view(doc).substr(b, e - b), 2);
    if (!records_ok) continue;
    ++outlined;
    json_detail::ScanError error;
    INFO(doc);
    REQUIRE(json_detail::scan(doc, nullptr, error, &scanned));
    CHECK(skimmed.lists.at(0).items == scanned.lists.at(0).items);
  }
  CHECK(outlined > 100);  // the property was tested, not skipped
}
