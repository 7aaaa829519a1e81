// data/schema/gpus.schema.json against the fixtures in tests/fixtures/schema/: one valid
// catalog, and copies of it that each break exactly one rule.
#include <catch2/catch.hpp>

#include "gpusel/base/text.hpp"
#include "gpusel/json/json_schema.hpp"

using nlohmann::json;

namespace {

json load(const std::string& path) { return json::parse(gpusel::read_file(path)); }

const json& gpus_schema() {
  static const json schema = load(GPUSEL_SOURCE_DIR "/data/schema/gpus.schema.json");
  return schema;
}

json gpus_fixture(const std::string& name) { return load(GPUSEL_FIXTURES "/schema/" + name); }

std::vector<gpusel::SchemaIssue> issues_of(const json& doc) {
  return gpusel::check_schema(gpus_schema(), doc);
}

// The only issue of `doc`, which must have exactly one.
gpusel::SchemaIssue only_issue(const json& doc) {
  auto issues = issues_of(doc);
  for (const auto& i : issues) INFO(i.pointer << ": " << i.message);
  REQUIRE(issues.size() == 1);
  return issues.front();
}

}  // namespace

TEST_CASE("the GPU schema accepts the valid sample catalog") {
  auto issues = issues_of(gpus_fixture("valid_catalog.json"));
  for (const auto& i : issues) FAIL_CHECK(i.pointer << ": " << i.message);
  CHECK(issues.empty());
}

TEST_CASE("the shipped catalog conforms to its schema") {
  auto issues = issues_of(load(GPUSEL_SOURCE_DIR "/data/gpus.json"));
  for (const auto& i : issues) FAIL_CHECK(i.pointer << ": " << i.message);
}

TEST_CASE("the GPU schema rejects each broken fixture with the rule it breaks") {
  struct Case {
    const char* file;
    const char* pointer;
    const char* message;
    bool unknown_field;
  };
  const Case cases[] = {
      {"invalid_wrong_type.json", "/gpus/0/vram_gb", "must be a number (got string '24')", false},
      {"invalid_negative_bandwidth.json", "/gpus/0/bandwidth_gbs", "must be > 0 (got -1008)",
       false},
      {"invalid_bad_vendor.json", "/gpus/0/vendor",
       "must be one of nvidia, amd, intel, huawei, apple (got 'nvdia')", false},
      {"invalid_bad_date.json", "/gpus/0/prices/0/as_of",
       "must be a date YYYY-MM-DD (got '2022-02-30')", false},
      {"invalid_unknown_field.json", "/gpus/0/vram_gib", "unknown field 'vram_gib'", true},
  };
  for (const auto& c : cases) {
    INFO(c.file);
    auto issue = only_issue(gpus_fixture(c.file));
    CHECK(issue.pointer == c.pointer);
    CHECK(issue.message == c.message);
    CHECK(issue.unknown_field == c.unknown_field);
  }
}

TEST_CASE("GPU schema rules beyond the fixtures") {
  const json valid = gpus_fixture("valid_catalog.json");
  auto with = [&valid](const std::string& pointer, const json& value) {
    json doc = valid;
    doc[json::json_pointer(pointer)] = value;
    return only_issue(doc);
  };
  CHECK(with("/gpus/0/id", "RTX 4090").message ==
        "must match pattern ^[a-z0-9]+(-[a-z0-9]+)*$ (got 'RTX 4090')");
  CHECK(with("/gpus/0/memory_type", "HBM3E").message.rfind("must be one of GDDR5,", 0) == 0);
  CHECK(with("/gpus/0/launch_year", 2022.5).message ==
        "must be integer or null (got number 2022.5)");
  CHECK(with("/gpus/0/interconnect/bandwidth_gbs", 112.5).message ==
        "matches none of 2 allowed forms (closest: bandwidth_gbs: must be 0 (got 112.5))");
  CHECK(with("/gpus/1/interconnect/max_gpus", 1).message ==
        "matches none of 2 allowed forms (closest: max_gpus: must be >= 2 (got 1))");
  CHECK(with("/gpus/0/pcie/lanes", 12).message == "must be one of 1, 2, 4, 8, 16 (got 12)");
  CHECK(with("/gpus/0/prices/0/currency", "usd").message ==
        "must match pattern ^[A-Z]{3}$ (got 'usd')");
  CHECK(with("/gpus/0/sources/0", "nvidia whitepaper").message ==
        "must be a URI like https://... (got 'nvidia whitepaper')");
  CHECK(with("/schema_version", 2).message == "must be 1 (got 2)");

  json doc = valid;
  doc["gpus"][0].erase("bandwidth_gbs");
  CHECK(only_issue(doc).message == "missing required field 'bandwidth_gbs'");
}

TEST_CASE("GPU schema: nullable fields take null, required ones do not") {
  json doc = gpus_fixture("valid_catalog.json");
  for (const char* field :
       {"launch_year", "fp32_tflops", "bf16_tflops_dense", "fp16_tflops_dense", "int8_tops_dense",
        "fp8_tflops_dense", "fp4_tflops_dense", "tdp_w", "pcie"})
    doc["gpus"][0][field] = nullptr;
  CHECK(issues_of(doc).empty());
  doc["gpus"][0]["bandwidth_gbs"] = nullptr;
  CHECK(only_issue(doc).message == "must be a number (got null)");
}
