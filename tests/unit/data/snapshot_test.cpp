#include "gpusel/data/snapshot.hpp"

#include <catch2/catch.hpp>

#include "gpusel/base/error.hpp"
#include "gpusel/data/cloud.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/data/platforms.hpp"
#include "gpusel/data/quantization.hpp"
#include "gpusel/json/embedded.hpp"

using namespace gpusel;

namespace {

// The shipped JSON through the loaders with every check, once: what the snapshot must equal.
const ShippedData& from_json() {
  static const ShippedData d = shipped_from_json();
  return d;
}

}  // namespace

TEST_CASE("the build's snapshot holds exactly the records the loaders build from the JSON") {
  const std::string_view snap = shipped_snapshot();
  REQUIRE_FALSE(snap.empty());
  const auto catalog = snapshot_catalog(snap);
  const auto cloud = snapshot_cloud(snap);
  const auto models = snapshot_models(snap);
  const auto platforms = snapshot_platforms(snap);
  const auto quantizations = snapshot_quantizations(snap);
  REQUIRE(catalog);
  REQUIRE(cloud);
  REQUIRE(models);
  REQUIRE(platforms);
  REQUIRE(quantizations);
  // Every field (operator== of each record), each GPU's raw record text included: a field the
  // field lists miss reads back as its default and differs here.
  CHECK(catalog->gpus.size() == from_json().catalog.gpus.size());
  CHECK(*catalog == from_json().catalog);
  CHECK(*cloud == from_json().cloud);
  CHECK(*models == from_json().models);
  CHECK(*platforms == from_json().platforms);
  CHECK(*quantizations == from_json().quantizations);
  // A snapshot made from other data (a stale one) differs byte for byte (rank/'s rules
  // section follows: tests/unit/rank/rules_snapshot_test.cpp).
  CHECK(snap.starts_with(encode_snapshot(from_json())));
}

TEST_CASE("the loaders read the shipped data from the snapshot, and overlays still merge") {
  const Catalog c = load_catalog({});
  CHECK(c == from_json().catalog);
  CHECK(c.find("rtx-4090") != nullptr);
  CHECK(load_cloud({}) == from_json().cloud);
  CHECK(load_models("") == from_json().models);
  CHECK(default_platforms() == from_json().platforms);
  CHECK(default_quantizations() == from_json().quantizations);
  CHECK_FALSE(from_json().platforms.platforms.empty());
  CHECK_FALSE(from_json().quantizations.gguf.empty());
  // `catalog show` reads the record as written in data/gpus.json.
  const nlohmann::json doc = nlohmann::json::parse(embedded_text("data/gpus.json"));
  for (std::size_t i = 0; i < c.gpus.size(); ++i) CHECK(c.gpus[i].raw() == doc["gpus"][i]);
  const std::string overlay = GPUSEL_FIXTURES "/catalog/overlay_prices.json";
  const Catalog merged = load_catalog({"", {overlay}});
  CHECK(merged.origin == "embedded data/gpus.json");
  CHECK(merged.gpus.size() >= c.gpus.size());
  CHECK_FALSE(merged == c);
}

TEST_CASE("a snapshot that is empty, from other data or malformed") {
  // Empty (the tool that makes it): the loaders read the JSON.
  CHECK_FALSE(snapshot_catalog({}));
  CHECK_FALSE(snapshot_models({}));
  const std::string snap(shipped_snapshot());
  // Made from a gpus.json of another size: its raw records would point elsewhere.
  std::string other = snap;
  // The first section: the magic line, the file name's length and the name, then the size.
  const std::size_t size_at = std::string_view("gpusel snapshot 2\n").size() + 8 +
                              std::string_view("data/gpus.json").size();
  other[size_at] = static_cast<char>(other[size_at] + 1);
  CHECK_FALSE(snapshot_catalog(other));
  CHECK(snapshot_cloud(other));
  CHECK_THROWS_AS(snapshot_catalog("not a snapshot"), Error);
  // The storage formats' section, the last of data/'s, cut short by a byte.
  const std::size_t data_end = encode_snapshot(from_json()).size();
  CHECK_THROWS_AS(snapshot_quantizations(snap.substr(0, data_end - 1)), Error);
  CHECK(snapshot_models(snap.substr(0, data_end - 1)));  // the sections before it are whole
  CHECK_THROWS_AS(snapshot_cloud(snap.substr(0, 200)), Error);
}
