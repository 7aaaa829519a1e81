#include "gpusel/data/validate.hpp"

#include <catch2/catch.hpp>

#include "gpusel/base/text.hpp"
#include "gpusel/json/json_source.hpp"

using namespace gpusel;

namespace {

ValidationReport check(const std::string& name, const std::string& as_of = "2026-12-02") {
  const std::string path = GPUSEL_FIXTURES "/catalog/" + name;
  return validate_document(read_file(path), name, {as_of, nullptr});
}

bool has(const ValidationReport& r, const std::string& check, Severity s) {
  for (const auto& d : r.diagnostics)
    if (d.check == check && d.severity == s) return true;
  return false;
}

}  // namespace

TEST_CASE("a good catalog passes strictly") {
  const auto r = check("small.json");
  CHECK(r.passed(true));
  CHECK(r.count(Severity::error) == 0);
}

TEST_CASE("each bad fixture fails with the check that catches it") {
  struct Case {
    const char* file;
    const char* check;
    Severity severity;
  };
  const Case cases[] = {{"empty.json", "syntax", Severity::error},
                        {"truncated.json", "syntax", Severity::error},
                        {"deep.json", "syntax", Severity::error},
                        {"wrong_types.json", "schema", Severity::error},
                        {"negative.json", "schema", Severity::error},
                        {"no_sources.json", "schema", Severity::error},
                        {"not_a_catalog.json", "schema", Severity::error},
                        {"duplicate_ids.json", "unique-ids", Severity::error},
                        {"sparse_as_dense.json", "dense-plausible", Severity::error},
                        {"bad_ecosystem.json", "ecosystem-vendor", Severity::error},
                        {"unknown_field.json", "unknown-field", Severity::warning},
                        {"stale_price.json", "price-age", Severity::warning}};
  for (const auto& c : cases) {
    INFO(c.file);
    const auto r = check(c.file);
    CHECK(has(r, c.check, c.severity));
    CHECK_FALSE(r.passed(true));
    CHECK(r.passed(false) == (c.severity != Severity::error));
  }
}

TEST_CASE("findings are located by line and JSON pointer") {
  const auto r = check("negative.json");
  REQUIRE_FALSE(r.diagnostics.empty());
  const auto& d = r.diagnostics.front();
  CHECK(d.pointer == "/gpus/0/bandwidth_gbs");
  CHECK(d.pos.line == 17);
  CHECK(d.file == "negative.json");
}

TEST_CASE("a launch MSRP past two years is flagged only when it is the card's only price") {
  // old_msrp_only.json: stale_price.json's card with its 2022-09-20 MSRP alone.
  const auto r = check("old_msrp_only.json", "2026-12-02");
  CHECK(has(r, "price-age", Severity::warning));
  CHECK(r.passed(false));
  CHECK_FALSE(has(check("old_msrp_only.json", "2024-06-01"), "price-age", Severity::warning));
}

TEST_CASE("price age is measured against the as-of date") {
  CHECK(has(check("stale_price.json", "2026-12-02"), "price-age", Severity::warning));
  CHECK_FALSE(has(check("stale_price.json", "2024-06-01"), "price-age", Severity::warning));
  CHECK(days_between("2026-01-01", "2026-12-02") == 335);
  CHECK(is_date("2024-02-29"));
  CHECK_FALSE(is_date("2023-02-29"));
  CHECK_FALSE(is_date("2026-13-01"));
}

TEST_CASE("the shipped data validates") {
  for (const char* f : {"gpus.json", "cloud.json", "models.json"}) {
    INFO(f);
    const std::string path = GPUSEL_SOURCE_DIR "/data/" + std::string(f);
    const auto r = validate_document(read_file(path), f, {"reviewed", nullptr});
    CHECK(r.count(Severity::error) == 0);
  }
}

// Findings inside a record are located by scanning that record alone: each must land where a
// scan of the whole document puts its pointer, on one long line (columns) and on many.
TEST_CASE("findings in records are located as a whole-document scan locates them") {
  auto doc = nlohmann::json::parse(read_file(GPUSEL_FIXTURES "/catalog/small.json"));
  auto& gpus = doc["gpus"];
  gpus[0]["vram_gb"] = -1;                     // schema, record 0
  gpus[0]["name"] = "\xC3\xA9t\xC3\xA9 card";  // multi-byte text before later columns
  gpus[2]["bogus"] = 1;                        // unknown field: a pointer with no value of ours
  gpus[gpus.size() - 1]["vram_gb"] = -2;       // the last record
  for (const int indent : {-1, 1}) {
    INFO("indent " << indent);
    const std::string text = doc.dump(indent);
    const auto r = validate_document(text, "t.json", {"2026-12-02", nullptr});
    REQUIRE(r.count(Severity::error) >= 2);
    LocatedJson whole;
    whole.text = text;
    for (const auto& d : r.diagnostics) {
      INFO(d.pointer);
      const SourcePos want = whole.at(d.pointer);
      CHECK(d.pos.line == want.line);
      CHECK(d.pos.column == want.column);
      CHECK(d.pos.offset == want.offset);
    }
  }
}
