#include "gpusel/data/cloud.hpp"

#include <catch2/catch.hpp>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/data/validate.hpp"

using namespace gpusel;

namespace {

std::string fixture_path(const std::string& name) { return GPUSEL_FIXTURES "/" + name; }

Cloud cloud_fixture(const std::string& name, bool overlay = false) {
  const std::string path = fixture_path("cloud/" + name);
  return parse_cloud(parse_json_text(read_file(path), path), path, overlay);
}

Catalog cloud_small_catalog() {
  const std::string path = fixture_path("catalog/small.json");
  return parse_catalog(parse_json_text(read_file(path), path), path);
}

// The message of the Error(data) that loading `name` throws ("" if none).
std::string load_error(const std::string& name) {
  try {
    check_offer_gpus(cloud_fixture(name), cloud_small_catalog());
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::data);
    return e.what();
  }
  return "";
}

// `catalog validate` on small.json with the offers of the overlay `name` appended.
ValidationReport with_offers_of(const std::string& name) {
  auto doc = parse_json_text(read_file(fixture_path("cloud/small.json")), "small.json");
  const auto extra = parse_json_text(read_file(fixture_path("cloud/" + name)), name);
  for (const auto& o : extra["offers"]) doc["offers"].push_back(o);
  const Catalog cat = cloud_small_catalog();
  return validate_document(doc.dump(2), name, {"2026-12-02", &cat});
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("the fixture offers parse into typed records") {
  const Cloud c = cloud_fixture("small.json");
  REQUIRE(c.offers.size() == 5);
  CHECK(c.reviewed == "2026-11-01");
  CHECK(c.defaults.spot_ratio.value == Approx(0.4));
  CHECK(c.defaults.spot_ratio.low == Approx(0.2));
  CHECK(c.defaults.commit_3y_discount.high == Approx(0.65));
  const Offer* big = c.find("tc-a100-8x");
  REQUIRE(big);
  CHECK(big->gpus_per_instance == 8);
  CHECK(big->spot_per_hour == Approx(6.0));
  CHECK_FALSE(big->monthly);
  CHECK(c.for_gpu("a100-80gb-sxm").size() == 2);
  CHECK(c.for_gpu("rtx-4090").size() == 2);
  CHECK(c.for_gpu("mi300x").empty());
  CHECK(c.find("cn-4090-1x")->currency == "CNY");
  CHECK(c.find("tc-4090-1x")->marketplace);
}

TEST_CASE("effective prices: published where present, else on-demand x the default") {
  const Cloud c = cloud_fixture("small.json");
  const Offer& one = *c.find("tc-a100-1x");
  auto spot = effective_price(one, RentKind::spot, c.defaults);
  REQUIRE(spot);
  CHECK(spot->per_hour == Approx(2.0 * 0.4));
  CHECK_FALSE(spot->published);
  CHECK(contains(spot->basis, "default"));
  CHECK(effective_price(one, RentKind::commit_1y, c.defaults)->per_hour == Approx(2.0 * 0.63));
  CHECK(effective_price(one, RentKind::commit_3y, c.defaults)->per_hour == Approx(2.0 * 0.44));
  CHECK_FALSE(effective_price(one, RentKind::monthly, c.defaults));  // no default for monthly

  const Offer& h100 = *c.find("tc-h100-1x");
  for (auto [kind, price] : {std::pair{RentKind::spot, 1.6},
                             {RentKind::commit_1y, 2.6},
                             {RentKind::commit_3y, 1.8},
                             {RentKind::on_demand, 4.0}}) {
    auto p = effective_price(h100, kind, c.defaults);
    REQUIRE(p);
    CHECK(p->per_hour == Approx(price));
    CHECK(p->published);
  }
  auto monthly = effective_price(*c.find("cn-4090-1x"), RentKind::monthly, c.defaults);
  REQUIRE(monthly);
  CHECK(monthly->per_hour == Approx(1800.0 / 730));
}

TEST_CASE("bad cloud data is a data error naming the file and the offer") {
  const std::string unknown = load_error("unknown_gpu.json");
  CHECK(contains(unknown, "unknown_gpu.json"));
  CHECK(contains(unknown, "tc-x"));
  CHECK(contains(unknown, "unknown GPU id 'rtx-9999'"));
  CHECK(contains(unknown, "did you mean rtx-4090"));

  const std::string negative = load_error("negative_price.json");
  CHECK(contains(negative, "negative_price.json"));
  CHECK(contains(negative, "tc-neg"));
  CHECK(contains(negative, "'spot_per_hour' must be >= 0"));

  const std::string undated = load_error("missing_date.json");
  CHECK(contains(undated, "missing_date.json"));
  CHECK(contains(undated, "tc-nodate"));
  CHECK(contains(undated, "missing field 'as_of'"));

  const std::string range = load_error("default_out_of_range.json");
  CHECK(contains(range, "defaults.spot_ratio"));
  CHECK(contains(range, "outside its range"));

  CHECK(load_error("small.json").empty());
}

TEST_CASE("a malformed date or a zero on-demand price is refused too") {
  auto doc = parse_json_text(read_file(fixture_path("cloud/small.json")), "x");
  auto bad_date = doc;
  bad_date["offers"][0]["as_of"] = "2026-13-45";
  CHECK_THROWS_WITH(parse_cloud(bad_date, "x"), Catch::Contains("not a date"));
  auto zero = doc;
  zero["offers"][1]["on_demand_per_hour"] = 0;
  CHECK_THROWS_WITH(parse_cloud(zero, "x"), Catch::Contains("tc-a100-8x"));
  auto dup = doc;
  dup["offers"].push_back(dup["offers"][0]);
  CHECK_THROWS_WITH(parse_cloud(dup, "x"), Catch::Contains("duplicate offer id"));
  CHECK_THROWS_AS(parse_cloud(nlohmann::json::object(), "x"), Error);
}

TEST_CASE("validate reports the same bad cloud data with its check names") {
  const Catalog cat = cloud_small_catalog();
  struct Case {
    const char* file;
    const char* check;
  };
  for (const Case& c : {Case{"unknown_gpu.json", "gpu-ref"},
                        {"negative_price.json", "schema"},
                        {"missing_date.json", "schema"},
                        {"default_out_of_range.json", "default-range"}}) {
    INFO(c.file);
    const auto r = validate_document(read_file(fixture_path(std::string("cloud/") + c.file)),
                                     c.file, {"2026-12-02", &cat});
    CHECK_FALSE(r.passed(false));
    bool found = false;
    for (const auto& d : r.diagnostics)
      found |= d.check == c.check && d.severity == Severity::error;
    CHECK(found);
  }
  const auto good = validate_document(read_file(fixture_path("cloud/small.json")), "small.json",
                                      {"2026-12-02", &cat});
  CHECK(good.passed(false));
}

TEST_CASE("an overlay replaces offers by id, appends new ones and keeps the defaults") {
  Cloud base = cloud_fixture("small.json");
  const Cloud overlay = cloud_fixture("overlay.json", true);
  CHECK_FALSE(overlay.has_defaults);
  merge_cloud(base, overlay);
  CHECK(base.offers.size() == 6);
  CHECK(*base.find("tc-a100-1x")->on_demand_per_hour == Approx(1.5));
  CHECK(base.offers[0].id == "tc-a100-1x");  // replaced in place
  CHECK(base.find("tc-3090-1x"));
  CHECK(base.defaults.spot_ratio.value == Approx(0.4));
}

TEST_CASE("a file given with --cloud must carry defaults, an overlay need not") {
  const std::string path = fixture_path("cloud/overlay.json");
  // Refused at its first error (schema_version); validate lists the missing defaults too.
  CHECK_THROWS_AS(load_cloud({path, {}}), Error);
  const auto r = validate_document(read_file(path), "overlay.json", {"2026-12-02", nullptr});
  bool defaults = false;
  for (const auto& d : r.diagnostics)
    defaults |= d.severity == Severity::error && d.message.find("'defaults'") != std::string::npos;
  CHECK(defaults);
  const Cloud c = load_cloud({fixture_path("cloud/small.json"), {path}});
  CHECK(c.offers.size() == 6);
}

TEST_CASE("the embedded offers load and each names a catalog GPU") {
  const Cloud c = load_cloud({});
  CHECK(c.offers.size() > 40);
  CHECK_NOTHROW(check_offer_gpus(c, load_catalog({})));
  for (const auto& o : c.offers) {
    INFO(o.id);
    CHECK((o.spot_only() ? *o.spot_per_hour : *o.on_demand_per_hour) > 0);
    CHECK(is_date(o.as_of));
  }
}

TEST_CASE("the embedded offers are trimmed to a user's smaller catalog") {
  Cloud c = load_cloud({});
  const Catalog small = cloud_small_catalog();
  CHECK_THROWS_AS(check_offer_gpus(c, small), Error);
  const std::size_t before = c.offers.size();
  const std::size_t dropped = drop_offers_without_gpu(c, small);
  CHECK(dropped > 0);
  CHECK(c.offers.size() == before - dropped);
  CHECK_FALSE(c.offers.empty());
  CHECK_NOTHROW(check_offer_gpus(c, small));
}

TEST_CASE("a spot-only offer carries a spot price and no on-demand one") {
  Cloud c = cloud_fixture("small.json");
  merge_cloud(c, cloud_fixture("spot_only.json", true));
  const Offer& mi = *c.find("tc-mi300x-spot");
  CHECK(mi.spot_only());
  CHECK_FALSE(c.find("tc-h100-1x")->spot_only());
  const auto spot = effective_price(mi, RentKind::spot, c.defaults);
  REQUIRE(spot);
  CHECK(spot->per_hour == Approx(1.0));
  CHECK(spot->published);
  // Nothing to derive on-demand or a commitment from.
  for (RentKind k :
       {RentKind::on_demand, RentKind::commit_1y, RentKind::commit_3y, RentKind::monthly})
    CHECK_FALSE(effective_price(mi, k, c.defaults));
  const auto r = with_offers_of("spot_only.json");
  CHECK(r.passed(false));
  CHECK(r.count(Severity::warning) == 1);  // small.json's old marketplace offer only
}

TEST_CASE("an offer with neither an on-demand nor a spot price is refused") {
  CHECK_THROWS_WITH(cloud_fixture("no_price.json", true),
                    Catch::Contains("tc-noprice") && Catch::Contains("spot-only"));
  const auto r = with_offers_of("no_price.json");
  bool found = false;
  for (const auto& d : r.diagnostics)
    found |= d.check == "price-missing" && d.severity == Severity::error;
  CHECK(found);
}
