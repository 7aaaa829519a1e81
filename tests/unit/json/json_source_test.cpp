#include "gpusel/json/json_source.hpp"

#include <catch2/catch.hpp>
#include <random>

#include "gpusel/base/error.hpp"

using gpusel::parse_located;
using gpusel::SourcePos;

namespace {

// The error message parse_located throws for `text`, or "" when it parses.
std::string json_error_of(std::string_view text) {
  try {
    parse_located(text, "f.json");
  } catch (const gpusel::Error& e) {
    CHECK(e.code() == gpusel::ExitCode::data);
    return e.what();
  }
  return "";
}

bool same(SourcePos a, SourcePos b) { return a.line == b.line && a.column == b.column; }

const char* kSample = R"({
  "schema_version": 1,
  "gpus": [
    {"id": "a", "vram_gb": 24},
    {
      "id": "b",
      "vram_gb": 80.5,
      "tags": ["x", null, true]
    }
  ],
  "a/b": {"m~n": -1e3}
})";

}  // namespace

TEST_CASE("parse_located returns the same value nlohmann parses") {
  auto located = parse_located(kSample, "s.json");
  CHECK(located.doc == nlohmann::json::parse(kSample));
  CHECK(located.doc["gpus"][1]["vram_gb"].get<double>() == 80.5);
}

TEST_CASE("at() maps each value's JSON pointer to its first character") {
  auto located = parse_located(kSample, "s.json");
  CHECK(same(located.at(""), {1, 1}));
  CHECK(same(located.at("/schema_version"), {2, 21}));
  CHECK(same(located.at("/gpus"), {3, 11}));
  CHECK(same(located.at("/gpus/0"), {4, 5}));
  CHECK(same(located.at("/gpus/0/vram_gb"), {4, 28}));
  CHECK(same(located.at("/gpus/1/vram_gb"), {7, 18}));
  CHECK(same(located.at("/gpus/1/tags/2"), {8, 27}));
  // RFC 6901: '/' in a key is "~1", '~' is "~0".
  CHECK(same(located.at("/a~1b/m~0n"), {11, 18}));
}

TEST_CASE("at() falls back to the nearest ancestor") {
  auto located = parse_located(kSample, "s.json");
  CHECK(same(located.at("/gpus/1/vram_gb"), {7, 18}));
  CHECK(same(located.at("/gpus/1/price/0"), {5, 5}));
  CHECK(same(located.at("/nothing"), {1, 1}));
  CHECK(same(gpusel::LocatedJson{}.at("/x"), {0, 0}));
}

TEST_CASE("columns count characters, not bytes, and a byte order mark is skipped") {
  auto located = parse_located("\xEF\xBB\xBF[\"\xC3\xA9\xE2\x82\xAC\", 2]", "u.json");
  CHECK(same(located.at("/1"), {1, 8}));
  CHECK(located.doc[0] == "\xC3\xA9\xE2\x82\xAC");
  CHECK(json_error_of("\xEF\xBB\xBF[1 2]") ==
        "f.json:1:4: expected ',' or ']' after array element, "
        "got '2'");
}

TEST_CASE("escapes decode to the key used in the pointer") {
  auto located = parse_located(R"({"a\u002Fb": 1, "\ud83d\ude00": 2, "t\"\\\n": 3})", "e.json");
  CHECK(same(located.at("/a~1b"), {1, 14}));
  CHECK(same(located.at("/\xF0\x9F\x98\x80"), {1, 33}));
  CHECK(same(located.at("/t\"\\\n"), {1, 47}));
  CHECK(located.doc["\xF0\x9F\x98\x80"] == 2);
}

TEST_CASE("syntax errors name the place and the problem") {
  CHECK(json_error_of("") == "f.json:1:1: unexpected end of file (the document is empty)");
  CHECK(json_error_of("\n  ") == "f.json:2:3: unexpected end of file (the document is empty)");
  CHECK(json_error_of(R"({"a": 1)") ==
        "f.json:1:8: unexpected end of file (expected ',' or '}' after object member)");
  CHECK(json_error_of("{\n  \"a\": 1\n  \"b\": 2\n}") ==
        "f.json:3:3: expected ',' or '}' after object member, got '\"'");
  CHECK(json_error_of("{} x") == "f.json:1:4: unexpected 'x' after the end of the document");
  CHECK(json_error_of("[1, 2,\n]") == "f.json:1:6: trailing comma before ']'");
  CHECK(json_error_of(R"({"a": 1,})") == "f.json:1:8: trailing comma before '}'");
  CHECK(json_error_of(R"({"a" 1})") == "f.json:1:6: expected ':' after object key, got '1'");
  CHECK(json_error_of("{a: 1}") == "f.json:1:2: expected a string key or '}', got 'a'");
  CHECK(json_error_of("['a']") ==
        "f.json:1:2: expected a value, got a single quote (JSON strings "
        "use double quotes)");
  CHECK(json_error_of("[1, // two\n2]") ==
        "f.json:1:5: expected a value, got '/' (JSON has no comments)");
  CHECK(json_error_of("[ture]") == "f.json:1:2: expected a value, got 'ture'");
  CHECK(json_error_of("[nullx]") == "f.json:1:2: expected a value, got 'nullx'");
}

TEST_CASE("number syntax follows RFC 8259") {
  CHECK(json_error_of("[007]") == "f.json:1:2: leading zeros are not allowed in numbers");
  CHECK(json_error_of("[-Infinity]") == "f.json:1:3: expected a digit after '-', got 'Infinity'");
  CHECK(json_error_of("[1.]") == "f.json:1:4: expected a digit after '.', got ']'");
  CHECK(json_error_of("[1e+]") == "f.json:1:5: expected a digit in the exponent, got ']'");
  CHECK(json_error_of("[.5]") == "f.json:1:2: expected a value, got '.'");
  CHECK(json_error_of("[1e400]") == "f.json:1:2: number too large: 1e400");
  CHECK(json_error_of("[-0, 0.5e-3, 1E+2, 1e-400]").empty());
}

TEST_CASE("string errors") {
  CHECK(json_error_of("[\"abc") == "f.json:1:2: unterminated string");
  CHECK(json_error_of("[\"abc\n\"]") ==
        "f.json:1:6: line break inside a string (missing closing '\"'?)");
  CHECK(json_error_of("[\"a\tb\"]") == "f.json:1:4: control character inside a string (escape it)");
  CHECK(json_error_of(R"(["a\qb"])") == "f.json:1:4: invalid escape '\\q' in string");
  CHECK(json_error_of(R"(["\u12G4"])") == "f.json:1:3: expected 4 hex digits after \\u");
  CHECK(json_error_of(R"(["\ud800"])") == "f.json:1:3: unpaired surrogate in \\u escape");
  CHECK(json_error_of(R"(["\udc00\ud800"])") == "f.json:1:3: unpaired surrogate in \\u escape");
  CHECK(json_error_of("[\"\xFF\"]") == "f.json:1:3: invalid UTF-8 in string");
  CHECK(json_error_of("[\"\xC0\xAF\"]") == "f.json:1:3: invalid UTF-8 in string");      // overlong
  CHECK(json_error_of("[\"\xED\xA0\x80\"]") == "f.json:1:3: invalid UTF-8 in string");  // surrogate
  CHECK(json_error_of("[\"\xE2\x82\"]") == "f.json:1:3: invalid UTF-8 in string");      // truncated
  CHECK(json_error_of("[\xFF]") == "f.json:1:2: expected a value, got byte 0xFF");
}

TEST_CASE("a duplicate key is an error, not a silent overwrite") {
  CHECK(json_error_of("{\"a\": 1,\n \"a\": 2}") == "f.json:2:2: duplicate key 'a'");
  CHECK(json_error_of(R"({"a": 1, "\u0061": 2})") == "f.json:1:10: duplicate key 'a'");
  CHECK(json_error_of(R"([{"a": 1}, {"a": 2}])").empty());
}

TEST_CASE("nesting is limited to 256 levels without exhausting the stack") {
  auto nested = [](std::size_t n) { return std::string(n, '[') + std::string(n, ']'); };
  CHECK(json_error_of(nested(256)).empty());
  CHECK(json_error_of(nested(257)) == "f.json:1:257: nesting deeper than 256 levels");
  CHECK(json_error_of(std::string(1000000, '[')) == "f.json:1:257: nesting deeper than 256 levels");
  std::string objects;
  for (int i = 0; i < 300; ++i) objects += "{\"k\":";
  CHECK(json_error_of(objects) == "f.json:1:1281: nesting deeper than 256 levels");
}

TEST_CASE("random corruption either parses like nlohmann or throws gpusel::Error") {
  std::mt19937 rng(12345);
  const std::string base = kSample;
  const std::string alphabet = "{}[],:\"\\/-+.0e1tfnu \n\x80\xC3";
  for (int trial = 0; trial < 3000; ++trial) {
    std::string text = base;
    for (int edits = 1 + static_cast<int>(rng() % 3); edits > 0; --edits) {
      std::size_t at = rng() % text.size();
      char c = alphabet[rng() % alphabet.size()];
      if (rng() % 2) {
        text[at] = c;
      } else {
        text.erase(at, 1);
      }
    }
    std::string error = json_error_of(text);
    if (error.find("duplicate key") != std::string::npos) continue;
    INFO(text << "\n" << error);
    REQUIRE(error.empty() == nlohmann::json::accept(text));
    if (error.empty()) CHECK(parse_located(text, "m").doc == nlohmann::json::parse(text));
  }
}

TEST_CASE("at_all locates many pointers in one pass, in the order asked") {
  auto located = parse_located(kSample, "s.json");
  auto got = located.at_all({"/gpus/1/tags/2", "/schema_version", "/gpus/9", "/gpus/1/tags/2"});
  REQUIRE(got.size() == 4);
  CHECK(same(got[0], {8, 27}));
  CHECK(same(got[1], {2, 21}));
  CHECK(same(got[2], {3, 11}));  // no such element: its array
  CHECK(same(got[3], {8, 27}));
  CHECK(got[1].offset == std::string_view(kSample).find("1,"));
}

TEST_CASE("positions on one long minified line count every character once") {
  std::string text = "[";
  for (int i = 0; i < 100000; ++i) text += (i ? ",\"\xC3\xA9\"" : "\"\xC3\xA9\"");
  text += "]";
  auto located = parse_located(text, "m.json");
  // Each element is 4 characters ("é" plus quotes) and a comma: element i starts at 2 + 4 i.
  CHECK(same(located.at("/99999"), {1, 2 + 4 * 99999}));
  CHECK(same(located.at("/0"), {1, 2}));
}

TEST_CASE("a syntax error carries its position and reason apart") {
  try {
    parse_located("{\n  \"a\": tru\n}", "p.json");
    FAIL("accepted");
  } catch (const gpusel::JsonSyntaxError& e) {
    CHECK(e.pos.line == 2);
    CHECK(e.pos.column == 8);
    CHECK(e.reason == "expected a value, got 'tru'");
    CHECK(std::string(e.what()) == "p.json:2:8: expected a value, got 'tru'");
  }
}
