// The loaders' flat record tree (src/core/json/json_flat.hpp) and the schema check on it.
#include "core/json/json_flat.hpp"

#include <catch2/catch.hpp>
#include <functional>

#include "core/json/json_scan.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_schema.hpp"

using gpusel::json_detail::FlatTree;
using gpusel::json_detail::FlatValue;
using nlohmann::json;

TEST_CASE("the flat tree holds what nlohmann reads, type for type") {
  const std::string text =
      R"({"s": "plain", "e": "tab\there \u00e9 \ud83d\ude00", "k\"q": 1, "u": 18446744073709551615,)"
      R"( "i": -9223372036854775808, "f": 2.50, "x": 1e2, "t": true, "n": null,)"
      R"( "a": [1, [], {}, "two"], "o": {"deep": {"er": [false]}}})";
  FlatTree t;
  t.build(text, "t.json");
  const json theirs = json::parse(text);
  CHECK(t.root().to_json() == theirs);
  const FlatValue r = t.root();
  CHECK(r.size() == theirs.size());
  CHECK(r.find("e")->str() == theirs["e"].get<std::string>());
  CHECK(r.find("k\"q")->get<int>() == 1);
  CHECK(r["u"].is_number_unsigned());
  CHECK(r["u"].get<std::uint64_t>() == 18446744073709551615ULL);
  CHECK(r["i"].is_number_integer());
  CHECK_FALSE(r["i"].is_number_unsigned());
  CHECK(r["f"].is_number_float());
  CHECK(r["x"].is_number_float());
  CHECK(r["x"].get<double>() == 100.0);
  CHECK(r.value("t", false));
  CHECK(r.value("missing", 7) == 7);
  CHECK(r["n"].is_null());
  CHECK(r["n"].size() == 0);
  CHECK(r["a"].size() == 4);
  CHECK(r["a"][3].str() == "two");
  CHECK_FALSE(r["a"][4]);
  CHECK(r["o"]["deep"]["er"][0].is_boolean());
  CHECK_FALSE(r.contains("absent"));
  CHECK(r.find("absent") == r.end());
  CHECK_FALSE(r["a"].find("s"));  // not an object
  std::size_t n = 0;
  for (const auto& member : r) n += member.key().empty() ? 0 : 1;
  CHECK(n == theirs.size());
}

TEST_CASE("the flat tree is reused record after record") {
  FlatTree t;
  t.build(R"({"id": "a\u0041", "v": [1, 2, 3]})", "t.json");
  CHECK(t.root()["id"].str() == "aA");
  t.build(R"({"id": "b"})", "t.json");
  CHECK(t.root().size() == 1);
  CHECK(t.root()["id"].str() == "b");
  CHECK_FALSE(t.root().contains("v"));
  CHECK(t.root().dump() == R"({"id":"b"})");
}

TEST_CASE("the flat tree refuses text it cannot read, naming the file") {
  FlatTree t;
  CHECK_THROWS_AS(t.build(R"({"a": })", "t.json"), gpusel::Error);
  CHECK_THROWS_AS(t.build(R"([1, 2)", "t.json"), gpusel::Error);
  CHECK_THROWS_AS(t.build(R"("\ud800")", "t.json"), gpusel::Error);
}

TEST_CASE("the strict flat build accepts only what the scanner accepts") {
  // Each refused by the scanner: the strict build must refuse it too (the loose one need not).
  const std::vector<std::string> refused = {R"({"a": 1, "a": 2})",
                                            R"({"b": [01]})",
                                            R"([-])",
                                            R"([1.])",
                                            R"([.5])",
                                            R"([1e])",
                                            R"([+1])",
                                            R"([1e999])",
                                            "[\"a\tb\"]",
                                            "[\"\xC3\"]",
                                            "[\"\xC0\xAF\"]",
                                            "[\"\xED\xA0\x80\"]",
                                            R"(["\x"])",
                                            R"(["\ud800"])",
                                            R"([1,])",
                                            R"({"a": 1,})",
                                            R"([tru])",
                                            R"([nulls])",
                                            "[\"a\nb\"]",
                                            std::string(300, '[')};
  for (const std::string& text : refused) {
    INFO(text);
    gpusel::json_detail::ScanError e;
    REQUIRE_FALSE(gpusel::json_detail::scan(text, nullptr, e));
    FlatTree t;
    CHECK_FALSE(t.build_checked(text, 0));
  }
  const std::vector<std::string> accepted = {R"({"a": [0, -0.5e+3, 1E2, "\u00e9\ud83d\ude00", "caf)"
                                             "\xC3\xA9"
                                             R"("], "b": null})",
                                             R"({"k": {"b": 1, "a": 2}, "kk": [[], {}]})"};
  // The depth limit is the scanner's, exactly: a refusal it would not make costs a scan.
  const auto nested = [](int n) { return std::string(n, '[') + std::string(n, ']'); };
  gpusel::json_detail::ScanError e;
  FlatTree t;
  CHECK(gpusel::json_detail::scan(nested(256), nullptr, e));
  CHECK(t.build_checked(nested(256), 0));
  CHECK(t.build_checked(nested(254), 2));
  CHECK_FALSE(t.build_checked(nested(255), 2));
  CHECK_FALSE(t.build_checked(nested(257), 0));
  for (const std::string& text : accepted) {
    FlatTree strict, loose;
    REQUIRE(strict.build_checked(text, 2));
    loose.build(text, "t.json");
    CHECK(strict.root().to_json() == loose.root().to_json());
  }
}

namespace {

// Whether the flat check and the full check agree on `rec` as record 0 of `list`.
bool flat_accepts(const gpusel::Schema& schema, const json& rec, const std::string& list) {
  FlatTree t;
  const std::string text = rec.dump(1);
  t.build(text, "t.json");
  const bool flat = schema.accepts_item(t.root(), list);
  CHECK(flat == schema.check_item(rec, list, 0).empty());
  return flat;
}

}  // namespace

TEST_CASE("the flat schema check accepts exactly what the full check finds nothing in") {
  const gpusel::Schema gpus(gpusel::embedded_json("data/schema/gpus.schema.json"));
  const gpusel::Schema offers(gpusel::embedded_json("data/schema/cloud.schema.json"));
  const json catalog = gpusel::embedded_json("data/gpus.json");
  const json cloud = gpusel::embedded_json("data/cloud.json");
  for (const auto& g : catalog["gpus"]) CHECK(flat_accepts(gpus, g, "gpus"));
  for (const auto& o : cloud["offers"]) CHECK(flat_accepts(offers, o, "offers"));

  json g = catalog["gpus"][0];
  auto broken = [&](const std::function<void(json&)>& edit) {
    json r = g;
    edit(r);
    return !flat_accepts(gpus, r, "gpus");
  };
  CHECK(broken([](json& r) { r.erase("vram_gb"); }));                       // required
  CHECK(broken([](json& r) { r["vram_gb"] = -1; }));                        // exclusiveMinimum
  CHECK(broken([](json& r) { r["vram_gb"] = "24"; }));                      // type
  CHECK(broken([](json& r) { r["surprise"] = 1; }));                        // unknown field
  CHECK(broken([](json& r) { r["vendor"] = "acme"; }));                     // enum
  CHECK(broken([](json& r) { r["id"] = "Not An Id"; }));                    // pattern
  CHECK(broken([](json& r) { r["prices"][0]["as_of"] = "2026-02-30"; }));   // format date
  CHECK(broken([](json& r) { r["interconnect"] = {{"kind", "none"}}; }));   // anyOf/oneOf
  CHECK(broken([](json& r) { r["sources"].push_back(r["sources"][0]); }));  // uniqueItems
  CHECK(broken([](json& r) { r = json::array(); }));                        // not an object

  json o = cloud["offers"][0];
  o["gpus_per_instance"] = 0;
  CHECK_FALSE(flat_accepts(offers, o, "offers"));
}
