// A long list is read a wave of records at a time across threads (src/core/data/
// document_waves.hpp): every answer must be the one a single thread gives, findings,
// their order and places included, for clean files and for each kind of finding.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <sstream>

#include "gpusel/base/text.hpp"
#include "gpusel/data/cloud.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/data/validate.hpp"

using namespace gpusel;

namespace {

constexpr int kRecords = 9000;  // two whole waves of 4096 and part of a third

// The fixture's records repeated under new ids, `n` in all.
nlohmann::json long_list(const std::string& fixture, const char* list, int n) {
  auto doc = nlohmann::json::parse(read_file(GPUSEL_FIXTURES + fixture));
  const auto base = doc[list];
  doc[list] = nlohmann::json::array();
  for (int i = 0; i < n; ++i) {
    auto rec = base[static_cast<std::size_t>(i) % base.size()];
    rec["id"] = rec["id"].get<std::string>() + "-" + std::to_string(i);
    doc[list].push_back(rec);
  }
  return doc;
}

std::string describe(const ValidationReport& r) {
  std::ostringstream out;
  for (const auto& d : r.diagnostics)
    out << int(d.severity) << ' ' << d.pos.line << ':' << d.pos.column << '@' << d.pos.offset
        << ' ' << d.pointer << ' ' << d.check << ' ' << d.message << '\n';
  return out.str();
}

struct Threads {  // GPUSEL_THREADS for one reading
  explicit Threads(const char* n) { ::setenv("GPUSEL_THREADS", n, 1); }
  ~Threads() { ::unsetenv("GPUSEL_THREADS"); }
};

std::string validated(const std::string& text, const char* threads) {
  Threads t(threads);
  return describe(validate_document(text, "t.json", {"2026-12-02", nullptr}));
}

}  // namespace

TEST_CASE("a long list validates the same on one thread and on several") {
  auto doc = long_list("/catalog/small.json", "gpus", kRecords);
  SECTION("clean") {}
  SECTION("a duplicate id in a later wave") {
    doc["gpus"][5000]["id"] = doc["gpus"][10]["id"];
  }
  SECTION("schema findings in two waves, an unknown field") {
    doc["gpus"][4097]["bogus"] = 1;
    doc["gpus"][8999]["vram_gb"] = -1;
    doc["gpus"][100]["vram_gb"] = "lots";
  }
  for (const int indent : {-1, 1}) {
    const std::string text = doc.dump(indent);
    const std::string one = validated(text, "1");
    CHECK(validated(text, "2") == one);
    CHECK(validated(text, "5") == one);
  }
}

TEST_CASE("a syntax error in a later wave is worded and placed as one thread places it") {
  const std::string good = long_list("/catalog/small.json", "gpus", kRecords).dump(1);
  // Record 8200's first colon gone: the strict build refuses it, the scanner words it.
  std::size_t at = 0;
  for (int i = 0; i <= 8200; ++i) at = good.find("\"id\"", at + 1);
  std::string bad = good;
  bad.erase(bad.find(':', at), 1);
  const std::string one = validated(bad, "1");
  REQUIRE(one.find(" syntax ") != std::string::npos);
  CHECK(validated(bad, "4") == one);
  CHECK(one.find('\n') == one.size() - 1);  // the one finding: the pass stops there
}

TEST_CASE("a long catalog and offers file load the same records in order on several threads") {
  const std::string cards = long_list("/catalog/small.json", "gpus", kRecords).dump();
  Catalog one, many;
  {
    Threads t("1");
    one = catalog_from_text(cards, "c.json");
  }
  {
    Threads t("3");
    many = catalog_from_text(cards, "c.json");
  }
  REQUIRE(many.gpus.size() == static_cast<std::size_t>(kRecords));
  for (std::size_t i = 0; i < one.gpus.size(); ++i) {
    INFO(i);
    REQUIRE(many.gpus[i].id == one.gpus[i].id);
    CHECK(many.gpus[i].vram_gb == one.gpus[i].vram_gb);
    CHECK(many.gpus[i].raw_record().offset() == one.gpus[i].raw_record().offset());
    // The index each reading hands the catalog (the pass's id table) finds every card.
    CHECK(many.find(many.gpus[i].id) == &many.gpus[i]);
    CHECK(one.find(one.gpus[i].id) == &one.gpus[i]);
  }
  CHECK(many.find("no-such-card") == nullptr);
  const std::string offers = long_list("/cloud/small.json", "offers", kRecords).dump();
  Cloud single, several;
  {
    Threads t("1");
    single = cloud_from_text(offers, "o.json", false, nullptr);
  }
  {
    Threads t("4");
    several = cloud_from_text(offers, "o.json", false, nullptr);
  }
  REQUIRE(several.offers.size() == static_cast<std::size_t>(kRecords));
  for (std::size_t i = 0; i < single.offers.size(); ++i) {
    INFO(i);
    REQUIRE(several.offers[i].id == single.offers[i].id);
    CHECK(several.offers[i].on_demand_per_hour == single.offers[i].on_demand_per_hour);
  }
}

TEST_CASE("a long catalog with an error is refused as on one thread") {
  auto doc = long_list("/catalog/small.json", "gpus", kRecords);
  doc["gpus"][6000]["vram_gb"] = -3;
  const std::string text = doc.dump();
  std::string one, many;
  try {
    Threads t("1");
    catalog_from_text(text, "c.json");
  } catch (const Error& e) {
    one = e.what();
  }
  try {
    Threads t("4");
    catalog_from_text(text, "c.json");
  } catch (const Error& e) {
    many = e.what();
  }
  REQUIRE(!one.empty());
  CHECK(many == one);
}

TEST_CASE("a long offers file validates against a catalog with a repeated id on several threads") {
  // Catalog::find rebuilt its index on every call while the index and the list differed in
  // size (a repeated id keeps them so): each wave's threads then rebuilt it at once.
  Catalog cat =
      catalog_from_text(read_file(GPUSEL_FIXTURES + std::string("/catalog/small.json")), "c.json");
  cat.gpus.push_back(cat.gpus.front());
  const std::string text = long_list("/cloud/small.json", "offers", kRecords).dump();
  const auto with = [&](const char* threads) {
    Threads t(threads);
    return describe(validate_document(text, "o.json", {"2026-12-02", &cat}));
  };
  const std::string one = with("1");
  CHECK(with("4") == one);
  CHECK(cat.find("rtx-4090") == &cat.gpus.front());
}
