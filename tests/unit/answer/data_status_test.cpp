// cloud list and catalog status: filters honoured, ages exact, limits applied as documented.
#include "gpusel/answer/data_status.hpp"

#include <catch2/catch.hpp>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/data/validate.hpp"
#include "gpusel/json/json_source.hpp"

using namespace gpusel;

namespace {

std::string fixture(const std::string& name) {
  return read_file(std::string(GPUSEL_FIXTURES) + "/" + name);
}

const Catalog& small_catalog() {
  static const Catalog c =
      parse_catalog(parse_located(fixture("catalog/small.json"), "c").doc, "c");
  return c;
}

const Cloud& small_cloud() {
  static const Cloud c = parse_cloud(parse_located(fixture("cloud/small.json"), "o").doc, "o");
  return c;
}

}  // namespace

TEST_CASE("cloud list: every row honours the filters, ages count days to the as-of date") {
  const CloudListAnswer all = list_cloud(small_cloud(), small_catalog(), {"", "", "2026-12-01"});
  CHECK(all.offers.size() == small_cloud().offers.size());
  CHECK(all.total == small_cloud().offers.size());
  for (const auto& r : all.offers) {
    CHECK(r.age_days == days_between(r.offer->as_of, "2026-12-01"));
    CHECK(r.past_limit == (r.age_days > kOfferMaxAgeDays));
    REQUIRE(r.per_gpu_hour);
    CHECK(*r.per_gpu_hour == Approx(*r.offer->on_demand_per_hour / r.offer->gpus_per_instance));
  }
  CHECK(all.past_limit == 1);  // the 2026-01-01 marketplace offer: 334 days
  const CloudListAnswer a100 =
      list_cloud(small_cloud(), small_catalog(), {"A100-80GB-SXM", "", "2026-12-01"});
  REQUIRE(a100.offers.size() == 2);
  for (const auto& r : a100.offers) CHECK(r.offer->gpu == "a100-80gb-sxm");
  CHECK(*a100.offers[0].per_gpu_hour <= *a100.offers[1].per_gpu_hour);  // 1.75 (8x) before 2.00
  const CloudListAnswer market =
      list_cloud(small_cloud(), small_catalog(), {"rtx-4090", "market", "2026-12-01"});
  REQUIRE(market.offers.size() == 1);
  CHECK(market.offers[0].offer->id == "tc-4090-1x");
  // A known card without offers is an empty answer, not an error.
  CHECK(list_cloud(small_cloud(), small_catalog(), {"mi300x", "", "2026-12-01"}).offers.empty());
}

TEST_CASE("cloud list: unknown GPU ids, providers and dates are usage errors") {
  CHECK_THROWS_WITH(list_cloud(small_cloud(), small_catalog(), {"h100-sxn", "", ""}),
                    Catch::Contains("unknown GPU id 'h100-sxn'") && Catch::Contains("h100-sxm"));
  CHECK_THROWS_WITH(
      list_cloud(small_cloud(), small_catalog(), {"", "testclod", ""}),
      Catch::Contains("no offers from provider 'testclod'") && Catch::Contains("testcloud"));
  CHECK_THROWS_AS(list_cloud(small_cloud(), small_catalog(), {"", "", "2026-13-01"}), Error);
}

TEST_CASE("catalog status counts prices past 12 months, never an msrp") {
  StatusInputs small;
  small.replaced["data/gpus.json"] = {"catalog/small.json", fixture("catalog/small.json")};
  small.replaced["data/cloud.json"] = {"cloud/small.json", fixture("cloud/small.json")};
  const CatalogStatusAnswer early = catalog_status("2026-06-01", small);
  const auto gpus = [](const CatalogStatusAnswer& a) {
    for (const auto& d : a.datasets)
      if (d.file == "data/gpus.json") return d;
    FAIL("no gpus dataset");
    return DatasetStatus{};
  };
  CHECK(gpus(early).stale.empty());  // msrps from 2020-2022 do not age; street/used are recent
  const DatasetStatus later = gpus(catalog_status("2027-06-01", small));
  REQUIRE(!later.stale.empty());
  for (const auto& s : later.stale) {
    CHECK(s.age_days > kPriceMaxAgeDays);
    CHECK(s.what.find("msrp") == std::string::npos);
  }
}

TEST_CASE("catalog status: the shipped datasets, each with its limits and where to refresh") {
  const CatalogStatusAnswer a = catalog_status("2026-12-03");
  int stale = 0, due = 0;
  for (const auto& d : a.datasets) {
    INFO(d.file);
    CHECK(!d.refresh.empty());
    CHECK(d.review_due == (d.review_age_days < 0 || d.review_age_days > kReviewMaxAgeDays));
    for (const auto& s : d.stale) CHECK(s.age_days > d.limit_days);
    if (d.limit_days == 0) CHECK(d.stale.empty());
    stale += int(d.stale.size());
    due += d.review_due;
  }
  CHECK(a.stale_entries == stale);
  CHECK(a.reviews_due == due);
  CHECK(a.fresh() == (stale == 0 && due == 0));
  for (const char* f :
       {"data/gpus.json", "data/cloud.json", "data/models.json", "data/rates.json"}) {
    bool listed = false;
    for (const auto& d : a.datasets) listed = listed || d.file == f;
    CHECK(listed);
  }
  CHECK_THROWS_AS(catalog_status("yesterday"), Error);
}

TEST_CASE("coverage: a current price is a market price within a year or an MSRP within two") {
  const auto doc = [](const char* text) { return nlohmann::json::parse(text); };
  const auto gpus = doc(R"({"gpus": [
    {"id": "street-new", "segment": "consumer", "prices": [{"kind": "street", "as_of": "2026-06-01"}]},
    {"id": "street-old", "segment": "consumer", "prices": [{"kind": "street", "as_of": "2025-11-01"}]},
    {"id": "msrp-2025", "segment": "workstation", "prices": [{"kind": "msrp", "as_of": "2025-01-01"}]},
    {"id": "msrp-2020", "segment": "consumer", "prices": [{"kind": "msrp", "as_of": "2020-09-01"}]},
    {"id": "quote", "segment": "datacenter", "prices": [{"kind": "quote", "as_of": "2026-10-01"}]},
    {"id": "none", "segment": "datacenter"},
    {"id": "rented", "segment": "datacenter", "prices": []}]})");
  const auto cloud = doc(R"({"offers": [{"gpu": "rented"}, {"gpu": "street-new"}]})");
  const Coverage c = data_coverage(gpus, cloud, "2026-12-03");
  CHECK(c.cards == 7);
  CHECK(c.priced == 3);
  CHECK(c.unpriced == std::vector<std::string>{"street-old", "msrp-2020", "none", "rented"});
  CHECK(c.datacenter == 3);
  CHECK(c.offered == 1);
  CHECK(c.no_offer == std::vector<std::string>{"quote", "none"});
  // A year later the 2026 street price has aged out as well.
  CHECK(data_coverage(gpus, cloud, "2027-06-02").priced == 1);
}

TEST_CASE("coverage of the shipped catalog agrees with the catalog itself") {
  const CatalogStatusAnswer a = catalog_status("2026-12-03");
  CHECK(a.coverage.cards == int(load_catalog({}).gpus.size()));
  CHECK(a.coverage.priced + int(a.coverage.unpriced.size()) == a.coverage.cards);
  CHECK(a.coverage.offered + int(a.coverage.no_offer.size()) == a.coverage.datacenter);
  CHECK(a.coverage.priced > 0);
  CHECK(a.coverage.offered > 0);
}

TEST_CASE("catalog status: overlays count, a broken replacement or overlay is named") {
  StatusInputs in;
  in.replaced["data/gpus.json"] = {"catalog/small.json", fixture("catalog/small.json")};
  const int cards = catalog_status("2026-12-03", in).coverage.cards;
  // An overlay card with a new id joins; one with a known id replaces.
  auto doc = nlohmann::json::parse(fixture("catalog/small.json"));
  doc["gpus"] = {doc["gpus"][0], doc["gpus"][0]};
  doc["gpus"][1]["id"] = "my-card";
  in.added["data/gpus.json"] = {{"mine.json", doc.dump()}};
  CHECK(catalog_status("2026-12-03", in).coverage.cards == cards + 1);
  in.added["data/gpus.json"] = {{"mine.json", "{\"gpus\": [1,"}};
  CHECK_THROWS_WITH(catalog_status("2026-12-03", in), Catch::StartsWith("mine.json:"));
  in.added.clear();
  in.replaced["data/gpus.json"] = {"broken.json", "{"};
  CHECK_THROWS_WITH(catalog_status("2026-12-03", in), Catch::StartsWith("broken.json:"));
}
