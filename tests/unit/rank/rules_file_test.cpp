// The shipped rules file as data: every rule cites a source, the embedded copy is the file,
// the schema's fact names are the vocabulary. What each rule does: rules_shipped_test.cpp.
#include <catch2/catch.hpp>
#include <regex>
#include <string>
#include <vector>

#include "gpusel/base/text.hpp"
#include "gpusel/data/catalog.hpp"
#include "gpusel/rank/rules.hpp"

using namespace gpusel;

namespace {

const RuleSet& shipped_file() {
  static const RuleSet set = load_rules(GPUSEL_SOURCE_DIR "/data/rules.json");
  return set;
}

}  // namespace

TEST_CASE("every shipped rule cites a readable source and its KNOWLEDGE id", "[rules]") {
  REQUIRE(shipped_file().rules.size() >= 25);
  const std::regex url("https://[^ ]+"), kid("K[0-9]+");
  for (const Rule& r : shipped_file().rules) {
    INFO(r.id);
    CHECK(std::regex_match(r.source, url));
    CHECK(r.fact.size() > 20);
    CHECK(!r.disabled);
    if (!r.knowledge.empty()) CHECK(std::regex_match(r.knowledge, kid));
  }
  for (const char* k : {"K5", "K17", "K18", "K21", "K22", "K23", "K27", "K30", "K31", "K34"}) {
    const auto& rules = shipped_file().rules;
    CHECK(std::any_of(rules.begin(), rules.end(), [&](const Rule& r) { return r.knowledge == k; }));
  }
}

TEST_CASE("the embedded rules are the shipped file", "[rules]") {
  std::vector<std::string> embedded, file;
  for (const Rule& r : load_rules().rules) embedded.push_back(r.id);
  for (const Rule& r : shipped_file().rules) file.push_back(r.id);
  CHECK(embedded == file);
}

TEST_CASE("the schema's fact list is the vocabulary", "[rules]") {
  const auto schema = parse_json_text(read_file(GPUSEL_SOURCE_DIR "/data/schema/rules.schema.json"),
                                      "rules.schema.json");
  std::vector<std::string> in_schema =
      schema["$defs"]["fact"]["enum"].get<std::vector<std::string>>();
  std::vector<std::string> vocab;
  for (const auto& f : fact_vocabulary()) vocab.push_back(f.name);
  CHECK(in_schema == vocab);
}
