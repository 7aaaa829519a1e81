// The shipped data files are read at run time without positions or schema (embedded_json):
// their validity is guaranteed here instead. A file that breaks its schema, repeats a key or
// is not JSON fails this test, so it never reaches a release (ARCHITECTURE.md "Shipped data").
#include <bit>
#include <catch2/catch.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "checks.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_schema.hpp"
#include "gpusel/json/json_source.hpp"

using nlohmann::json;

namespace {

// "data/gpus.json" -> "data/schema/gpus.schema.json"
std::string schema_of(std::string_view path) {
  const auto slash = path.rfind('/');
  std::string name(path.substr(slash + 1));
  return "data/schema/" + name.substr(0, name.size() - 5) + ".schema.json";
}

bool embedded(const std::string& path) {
  for (const auto& f : gpusel::embedded_files())
    if (f.path == path) return true;
  return false;
}

}  // namespace

TEST_CASE("every shipped data file with a schema passes it, and the scanner accepts it") {
  int checked = 0;
  for (const auto& f : gpusel::embedded_files()) {
    const std::string path(f.path);
    if (path.rfind("data/schema/", 0) == 0 || path.size() < 5 ||
        path.substr(path.size() - 5) != ".json")
      continue;
    INFO(path);
    // Syntax as a user's file is held to: duplicate keys, nesting, numbers beyond a double.
    const auto doc = gpusel::parse_located(f.text, path).doc;
    const std::string schema = schema_of(path);
    if (!embedded(schema)) continue;
    for (const auto& issue : gpusel::check_schema(gpusel::embedded_json(schema), doc))
      FAIL_CHECK(issue.pointer + ": " + issue.message);
    ++checked;
  }
  // gpus, cloud, models, platforms, frameworks, families, quantizations, throughput,
  // serving, ownership, rules, device_names at least.
  CHECK(checked >= 12);
}

TEST_CASE("embedded_json builds the tree nlohmann builds, type for type, for every file") {
  for (const auto& f : gpusel::embedded_files()) {
    INFO(std::string(f.path));
    const json& ours = gpusel::embedded_json(f.path);
    CHECK(gpusel::fuzz::same_tree(ours, json::parse(f.text)));
    CHECK(&ours == &gpusel::embedded_json(f.path));  // built once
  }
  CHECK_THROWS_AS(gpusel::embedded_json("data/none.json"), gpusel::Error);
}

TEST_CASE("parse_located's tree matches nlohmann's on numbers, escapes and nesting") {
  const char* cases[] = {
      "0",
      "-0",
      "1.5",
      "-2.25e-3",
      "1E2",
      "18446744073709551615",
      "18446744073709551616",
      "-9223372036854775808",
      "-9223372036854775809",
      "1e-400",
      "4.9e-324",
      "123456789012345678901234567890",
      R"("plain")",
      R"("esc \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 é")",
      "[]",
      "{}",
      R"({"a": [1, {"b": null, "c": true, "d": false}], "e": {"f": [[], {}]}, "": 0})",
      " \t\r\n[ 1 , 2 ]\n"};
  for (const char* text : cases) {
    INFO(text);
    CHECK(gpusel::fuzz::same_tree(gpusel::parse_located(text, "t.json").doc, json::parse(text)));
  }
}
