#include "gpusel/json/json_schema.hpp"

#include <catch2/catch.hpp>

#include "gpusel/base/error.hpp"

using nlohmann::json;

namespace {

// Issues as "pointer: message" lines ("" when the document conforms); unknown fields
// are marked with a leading '?'.
std::string json_check(const std::string& schema, const std::string& doc) {
  std::string out;
  for (const auto& issue : gpusel::check_schema(json::parse(schema), json::parse(doc)))
    out += (out.empty() ? "" : "\n") + std::string(issue.unknown_field ? "?" : "") + issue.pointer +
           ": " + issue.message;
  return out;
}

// The message of the Error a broken schema throws.
std::string schema_error(const std::string& schema, const std::string& doc = "null") {
  try {
    gpusel::check_schema(json::parse(schema), json::parse(doc));
  } catch (const gpusel::Error& e) {
    CHECK(e.code() == gpusel::ExitCode::data);
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("type: names, arrays of names, and integer as a number with no fraction") {
  CHECK(json_check(R"({"type": "number"})", "3").empty());
  CHECK(json_check(R"({"type": "number"})", "\"3\"") == ": must be a number (got string '3')");
  CHECK(json_check(R"({"type": "integer"})", "3.0").empty());
  CHECK(json_check(R"({"type": "integer"})", "-7").empty());
  CHECK(json_check(R"({"type": "integer"})", "3.5") == ": must be an integer (got number 3.5)");
  CHECK(json_check(R"({"type": ["number", "null"]})", "null").empty());
  CHECK(json_check(R"({"type": ["number", "null"]})", "true") ==
        ": must be number or null (got boolean true)");
  CHECK(json_check(R"({"type": "object"})", "[1]") == ": must be an object (got an array)");
  CHECK(json_check(R"({"type": "null"})", "{}") == ": must be null (got an object)");
}

TEST_CASE("a type mismatch hides the checks that assume the type") {
  CHECK(json_check(R"({"type": "string", "enum": ["a"], "minLength": 3})", "5") ==
        ": must be a string (got number 5)");
}

TEST_CASE("objects: required, properties, additionalProperties") {
  const std::string schema = R"({
    "type": "object", "required": ["id", "vram_gb"], "additionalProperties": false,
    "properties": {"id": {"type": "string"}, "vram_gb": {"type": "number"}, "a/b": {"const": 1}}
  })";
  CHECK(json_check(schema, R"({"id": "x", "vram_gb": 24})").empty());
  CHECK(json_check(schema, R"({"id": "x"})") == ": missing required field 'vram_gb'");
  CHECK(json_check(schema, R"({"id": 1, "vram_gb": 24, "vram": 1, "a/b": 2})") ==
        "/a~1b: must be 1 (got 2)\n/id: must be a string (got number 1)\n"
        "?/vram: unknown field 'vram'");
  CHECK(json_check(R"({"additionalProperties": {"type": "integer"}})", R"({"n": 1, "m": 1.5})") ==
        "/m: must be an integer (got number 1.5)");
  CHECK(json_check(R"({"properties": {"x": false}})", R"({"x": 1})") == "/x: is not allowed here");
}

TEST_CASE("arrays: items, minItems, maxItems, uniqueItems") {
  const std::string schema =
      R"({"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3,
          "uniqueItems": true})";
  CHECK(json_check(schema, "[1, 2, 3]").empty());
  CHECK(json_check(schema, "[]") == ": must have at least 1 items (got 0)");
  CHECK(json_check(schema, "[1, 2, 3, 4]") == ": must have at most 3 items (got 4)");
  CHECK(json_check(schema, R"([1, "2"])") == "/1: must be an integer (got string '2')");
  CHECK(json_check(schema, "[1, 2, 1.0]") == "/2: duplicates item 0 (items must be unique)");
}

TEST_CASE("enum and const name the allowed values") {
  CHECK(json_check(R"({"enum": ["nvidia", "amd", 3, null]})", "\"nvdia\"") ==
        ": must be one of nvidia, amd, 3, null (got 'nvdia')");
  CHECK(json_check(R"({"enum": ["nvidia", "amd", 3, null]})", "null").empty());
  CHECK(json_check(R"({"const": 1})", "1.0").empty());
  CHECK(json_check(R"({"const": "x"})", "\"y\"") == ": must be 'x' (got 'y')");
}

TEST_CASE("numeric bounds say which rule and which value") {
  CHECK(json_check(R"({"minimum": 0})", "-3") == ": must be >= 0 (got -3)");
  CHECK(json_check(R"({"minimum": 0})", "0").empty());
  CHECK(json_check(R"({"maximum": 2.5})", "2.75") == ": must be <= 2.5 (got 2.75)");
  CHECK(json_check(R"({"exclusiveMinimum": 0})", "0") == ": must be > 0 (got 0)");
  CHECK(json_check(R"({"exclusiveMinimum": 0})", "0.001").empty());
  CHECK(json_check(R"({"exclusiveMaximum": 10})", "10") == ": must be < 10 (got 10)");
  CHECK(json_check(R"({"minimum": 0})", "\"-3\"").empty());  // bounds apply to numbers only
}

TEST_CASE("strings: lengths in characters, unanchored patterns") {
  CHECK(json_check(R"({"minLength": 1})", "\"\"") == ": must not be empty");
  CHECK(json_check(R"({"minLength": 3})", "\"ab\"") ==
        ": must be at least 3 characters long (got 2)");
  CHECK(json_check(R"({"maxLength": 2})", "\"\u00e9\u00e9\"").empty());
  CHECK(json_check(R"({"maxLength": 1})", "\"ab\"") ==
        ": must be at most 1 characters long (got 2)");
  const std::string id = R"({"pattern": "^[a-z0-9]+(-[a-z0-9]+)*$"})";
  CHECK(json_check(id, "\"rtx-4090\"").empty());
  CHECK(json_check(id, "\"RTX_4090\"") ==
        ": must match pattern ^[a-z0-9]+(-[a-z0-9]+)*$ (got "
        "'RTX_4090')");
  CHECK(json_check(R"({"pattern": "b"})", "\"abc\"").empty());
  // std::regex would overflow the stack on this; it is reported instead.
  CHECK(json_check(id, "\"" + std::string(100000, 'a') + "\"") ==
        ": is too long to check against pattern ^[a-z0-9]+(-[a-z0-9]+)*$ (100000 bytes)");
}

// Patterns run as an automaton built from the VM's program (a long count falls back to the
// VM): anchors inside groups and alternatives, unanchored searches, empty text.
TEST_CASE("patterns: anchors, alternatives and counts match as ECMAScript says") {
  const auto matches = [](const std::string& pattern, const std::string& text) {
    return json_check(R"({"pattern": ")" + pattern + R"("})", json(text).dump()).empty();
  };
  CHECK(matches("(a|^b)c", "bc"));
  CHECK_FALSE(matches("(a|^b)c", "xbc"));
  CHECK(matches("(a|^b)c", "xac"));
  CHECK(matches("a|b$", "xb"));
  CHECK_FALSE(matches("a|b$", "bx"));
  CHECK(matches("a|b$", "ax"));
  CHECK(matches("x*$", ""));
  CHECK(matches("x*$", "abc"));
  CHECK(matches("^$", ""));
  CHECK_FALSE(matches("^$", "a"));
  CHECK(matches("[^a]+a$", "ba"));
  CHECK_FALSE(matches("[^a]+a$", "aa"));
  CHECK(matches("(ab|a)(c|bcd)?$", "abcd"));
  CHECK_FALSE(matches("(ab|a)(c|bcd)?$", "abce"));
  CHECK(matches("a{2,4}b", "xaaaaab"));
  CHECK_FALSE(matches("a{2,4}b", "ab"));
  CHECK(matches("^https?://\\\\S+", "http://x"));
  CHECK_FALSE(matches("^https?://\\\\S+", "https:// x"));
  // Too many states for the automaton: the VM answers.
  std::string ab;
  for (int i = 0; i < 100; ++i) ab += "ab";
  CHECK(matches("^[ab]{0,600}c$", ab + "c"));
  CHECK_FALSE(matches("^[ab]{0,600}c$", ab + "x"));
  CHECK_FALSE(matches("^[ab]{0,600}c$", std::string(601, 'a') + "c"));
}

TEST_CASE("format date is a real calendar date") {
  const std::string date = R"({"format": "date"})";
  for (const char* ok : {"2026-12-02", "2024-02-29", "2000-02-29", "1999-12-31"})
    CHECK(json_check(date, std::string("\"") + ok + "\"").empty());
  for (const char* bad : {"2023-02-29", "1900-02-29", "2026-13-01", "2026-04-31", "2026-00-10",
                          "2026-1-01", "2026/01/01", "2026-01-01T00:00", "20260101", ""})
    CHECK(json_check(date, std::string("\"") + bad + "\"") ==
          std::string(": must be a date YYYY-MM-DD (got '") + bad + "')");
}

TEST_CASE("format uri requires scheme://...") {
  const std::string uri = R"({"format": "uri"})";
  CHECK(json_check(uri, "\"https://www.nvidia.com/en-us/data-center/h100/\"").empty());
  CHECK(json_check(uri, "\"s3://bucket/key\"").empty());
  for (const char* bad : {"www.nvidia.com", "https://", "https://a b", "1http://x", ""})
    CHECK(json_check(uri, std::string("\"") + bad + "\"") ==
          std::string(": must be a URI like https://... (got '") + bad + "')");
}

TEST_CASE("$ref to $defs, including recursive schemas") {
  const std::string tree = R"({
    "$defs": {"node": {"type": "object", "required": ["v"],
              "properties": {"v": {"type": "integer"},
                             "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
    "$ref": "#/$defs/node"})";
  CHECK(json_check(tree, R"({"v": 1, "kids": [{"v": 2, "kids": [{"v": 3}]}]})").empty());
  CHECK(json_check(tree, R"({"v": 1, "kids": [{"v": 2, "kids": [{"w": 3}]}]})") ==
        "/kids/0/kids/0: missing required field 'v'");
}

TEST_CASE("$ref cycles and runaway recursion throw instead of overflowing the stack") {
  CHECK(schema_error(R"({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
                         "$ref": "#/$defs/a"})") ==
        "schema #: $ref cycle through #/$defs/a (document at '')");
  json deep = json::array();
  for (int i = 0; i < 5000; ++i) deep = json::array({std::move(deep)});
  json schema = json::parse(R"({"$defs": {"n": {"items": {"$ref": "#/$defs/n"}}},
                                "$ref": "#/$defs/n"})");
  CHECK_THROWS_AS(gpusel::check_schema(schema, deep), gpusel::Error);
}

TEST_CASE("anyOf, oneOf, allOf") {
  const std::string any = R"({"anyOf": [{"type": "string", "minLength": 2}, {"type": "integer"}]})";
  CHECK(json_check(any, "7").empty());
  CHECK(json_check(any, "\"ab\"").empty());
  CHECK(json_check(any, "\"a\"") ==
        ": matches none of 2 allowed forms (closest: must be at least 2 characters long (got 1))");
  CHECK(json_check(R"({"anyOf": [{"required": ["a", "b"]}, {"properties": {"c": {"const": 1}}}]})",
                   R"({"c": 2})") ==
        ": matches none of 2 allowed forms (closest: c: must be 1 (got 2))");
  const std::string one = R"({"oneOf": [{"type": "number"}, {"type": "integer"}]})";
  CHECK(json_check(one, "1.5").empty());
  CHECK(json_check(one, "1") == ": must match exactly one of 2 allowed forms (matches 2)");
  CHECK(json_check(R"({"allOf": [{"minimum": 0}, {"maximum": 1}]})", "2") ==
        ": must be <= 1 (got 2)");
}

TEST_CASE("anything the validator cannot check makes the schema an error") {
  CHECK(schema_error(R"({"patternProperties": {}})") ==
        "schema #/patternProperties: unsupported keyword 'patternProperties'");
  // Found even where the document never leads.
  CHECK(schema_error(R"({"anyOf": [true, {"properties": {"x": {"minimun": 0}}}]})") ==
        "schema #/anyOf/1/properties/x/minimun: unsupported keyword 'minimun'");
  CHECK(schema_error(R"({"format": "email"})") == "schema #/format: unsupported format \"email\"");
  CHECK(schema_error(R"({"$ref": "other.json#/x"})") ==
        "schema #/$ref: unsupported $ref \"other.json#/x\" (only \"#/$defs/<name>\")");
  CHECK(schema_error(R"({"$ref": "#/$defs/missing"})") ==
        "schema #/$ref: $ref #/$defs/missing does not resolve");
  CHECK(schema_error(R"({"type": "float"})") == "schema #/type: unknown type \"float\"");
  CHECK(schema_error(R"({"minLength": -1})") ==
        "schema #/minLength: must be a non-negative integer");
  CHECK(schema_error(R"({"required": "id"})") == "schema #/required: must be an array of names");
  CHECK(schema_error(R"({"anyOf": []})") == "schema #/anyOf: must be a non-empty array");
  CHECK(schema_error(R"({"items": 3})") ==
        "schema #/items: a schema must be an object or true/false");
  CHECK(schema_error(R"({"pattern": "(["})").rfind("schema #/pattern: invalid pattern \"([\"", 0) ==
        0);
}

TEST_CASE("annotations are ignored") {
  CHECK(json_check(R"({"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "x",
                  "title": "t", "description": "d", "$comment": "c", "examples": [1],
                  "default": 2, "type": "integer"})",
                   "5")
            .empty());
}

// The checker writes a value's pointer only when it reports an issue there (a chain of frames
// until then): the pointers must read exactly as JSON pointers, escaped, at any depth, under
// check_item's /list/index and in a oneOf's closest hint.
TEST_CASE("issue pointers: escaped, nested through arrays, under a list, in hints") {
  CHECK(json_check(
            R"({"properties": {"a~b": {"items": {"properties": {"c/d": {"type": "integer"}}}}}})",
            R"({"a~b": [{"c/d": 1}, {"c/d": "x"}]})") ==
        "/a~0b/1/c~1d: must be an integer (got string 'x')");
  CHECK(json_check(R"({"properties": {"x": {"oneOf": [
                   {"type": "object", "properties": {"y": {"type": "integer"}}},
                   {"type": "string"}]}}})",
                   R"({"x": {"y": "z"}})") ==
        "/x: matches none of 2 allowed forms (closest: y: must be an integer (got string 'z'))");
  const gpusel::Schema s(json::parse(R"({"properties": {"gpus": {"minItems": 2, "uniqueItems": true,
      "items": {"properties": {"price": {"properties": {"usd": {"minimum": 0}}}}}}}})"));
  const auto item = s.check_item(json::parse(R"({"price": {"usd": -5}})"), "gpus", 3);
  REQUIRE(item.size() == 1);
  CHECK(item[0].pointer == "/gpus/3/price/usd");
  CHECK(item[0].message == "must be >= 0 (got -5)");
  const auto outline = s.check_outline(json::parse(R"({"gpus": []})"), "gpus", 1);
  REQUIRE(outline.size() == 1);
  CHECK(outline[0].pointer == "/gpus");
  CHECK(outline[0].message == "must have at least 2 items (got 1)");
  CHECK(json_check(R"({"items": {"items": {"uniqueItems": true}}})", "[[], [[1, 1]]]") ==
        "/1/0/1: duplicates item 0 (items must be unique)");
}
