// What reaches a terminal, a spreadsheet or a CI log (src/cli/render, terminal).
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <sstream>

#include "cli/render.hpp"

using namespace gpusel::cli;

namespace {

std::string emitted(const Output& o, Format f) {
  std::ostringstream out;
  emit(out, o, f);
  return out.str();
}

struct DisplayGuard {
  explicit DisplayGuard(Display d) { set_display(d); }
  ~DisplayGuard() { set_display({}); }
};

}  // namespace

TEST_CASE("control characters from data are shown, never sent") {
  CHECK(safe_text("a\x1b]0;pwned\x07z") == "a\\x1b]0;pwned\\x07z");
  CHECK(safe_text("line\nnext\ttab") == "line\nnext\ttab");
  CHECK(safe_cell("line\nnext\ttab\r") == "line\\nnext\\ttab\\r");
  CHECK(safe_text("\x7f") == "\\x7f");
  CHECK(safe_text("\xc2\x9b"
                  "31m") == "\\u009b31m");  // C1 CSI
  CHECK(safe_text("abc\xe2\x80\xae"
                  "def") == "abc\\u202edef");  // right-to-left override
  CHECK(safe_text("\x9b"
                  "2J") == "\\x9b2J");                     // a lone 8-bit CSI byte is not UTF-8
  CHECK(safe_text("¥15000 µs 4090") == "¥15000 µs 4090");  // text stays text
}

TEST_CASE("CSV cells a spreadsheet would evaluate start with an apostrophe") {
  Table t{{{"a"}, {"b"}}, {{"=HYPERLINK(\"x\")", "-5"}, {"+1+cmd", "@SUM(A1)"}, {"-", "-2+3"}}};
  CHECK(render_csv(t) == "a,b\n\"'=HYPERLINK(\"\"x\"\")\",-5\n'+1+cmd,'@SUM(A1)\n-,'-2+3\n");
  Table quoted{{{"x"}}, {{"a,b"}, {"multi\nline"}}};
  CHECK(render_csv(quoted) == "x\n\"a,b\"\nmulti\\nline\n");
}

TEST_CASE("JSON rows give raw numbers, scaled where asked, and array lengths") {
  const auto rows = nlohmann::json::parse(
      R"([{"n": 20659187712, "f": 0.25, "h": 0.331, "w": [1, 2], "s": "x", "z": null}])");
  const Table t = json_rows(rows, {{"n", "/n"},
                                   {"f", "/f"},
                                   {"h_pct", "/h", 100},
                                   {"w", "/w"},
                                   {"s", "/s"},
                                   {"z", "/z"},
                                   {"missing", "/nope"}});
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0] == std::vector<std::string>{"20659187712", "0.25", "33.1", "2", "x", "", ""});
}

TEST_CASE("a line from data cannot become a GitHub workflow command") {
  Output o;
  o.before = "ok\nhot card\n::error::forged\n  ::add-mask::x\n";
  CHECK(emitted(o, Format::table) == "ok\nhot card\n\\x3a:error::forged\n  \\x3a:add-mask::x\n");
}

TEST_CASE("tables fit the width by dropping low-priority columns first and then wrapping text") {
  Table t{{{"id"}, {"note", false, 0, true}, {"extra", true, 1}},
          {{"a", "one two three four five six seven", "12345"}}};
  {
    DisplayGuard g({false, 0});
    CHECK(render_table(t) ==
          "id  note                               extra\n"
          "--  ---------------------------------  -----\n"
          "a   one two three four five six seven  12345\n");
  }
  DisplayGuard g({false, 24});
  CHECK(render_table(t) ==
        "id  note\n"
        "--  --------------------\n"
        "a   one two three four\n"
        "    five six seven\n"
        "(extra hidden to fit 24\n"
        "columns; --wide shows\n"
        "all)\n");
}

TEST_CASE("colour marks tones only when on, and never shifts alignment") {
  Table t{{{"h", true}}, {{"9%"}, {"33%"}}, {{Tone::warn}, {Tone::good}}};
  DisplayGuard g({true, 0});
  CHECK(render_table(t) == "  h\n---\n \x1b[33m9%\x1b[0m\n\x1b[32m33%\x1b[0m\n");
  CHECK(display_width("\x1b[32m33%\x1b[0m") == 3);
}

TEST_CASE("the format option speaks one vocabulary") {
  CHECK(parse_format("text") == Format::table);
  CHECK(parse_format("table", {Format::table, Format::github}) == Format::table);
  CHECK(parse_format("github", {Format::table, Format::json, Format::github}) == Format::github);
  CHECK_THROWS_WITH(parse_format("github"), Catch::Contains("not available here"));
  CHECK_THROWS_WITH(parse_format("xml"), Catch::Contains("use table (or text), json or csv"));
}

TEST_CASE("GitHub annotation values are escaped as the runner reads them") {
  CHECK(github_data("100%\r\n::error::x") == "100%25%0D%0A::error::x");
  CHECK(github_property("a:b,c\nd") == "a%3Ab%2Cc%0Ad");
}

TEST_CASE("CJK text takes two columns a character and tables align on it") {
  CHECK(display_width("显存") == 4);
  CHECK(display_width("需要/可用 GiB") == 13);
  CHECK(display_width("（K25）") == 7);         // fullwidth brackets
  CHECK(display_width("█████░░░░░ 50") == 13);  // the score bar stays narrow
  CHECK(display_width("e\xcc\x81") == 1);       // a combining accent takes none
  Table t{{{"配置"}, {"GiB", true}}, {{"1x rtx-4090", "21.60"}, {"显卡", "8.00"}}};
  CHECK(render_table(t) ==
        "配置           GiB\n"
        "-----------  -----\n"
        "1x rtx-4090  21.60\n"
        "显卡          8.00\n");
}

TEST_CASE("wrapping CJK text cuts by columns not by bytes or code points") {
  Table t{{{"h"}, {"text", false, 0, true}}, {{"a", "一二三四五六七八九十一二三四五六七八九十"}}};
  DisplayGuard g({false, 24});
  const std::string out = render_table(t);
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    INFO(line);
    CHECK(display_width(line) <= 24);
  }
  CHECK(out.find("一二三四五六七八") != std::string::npos);
}

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST_CASE("fixed() writes what fmt's {:.Nf} writes, ties, zeros and non-finite values included") {
  const double values[] = {0.0,   -0.0,  0.5,         1.5,     2.5,      0.125,
                           0.005, 0.015, 0.025,       1e300,   -1e-300,  123456789.125,
                           80.0,  3.35,  1979.0,      1.0 / 3, 4.9e-324, 1.7976931348623157e308,
                           kInf,  -kInf, std::nan("")};
  for (const double v : values)
    for (int d = 0; d <= 6; ++d) {
      CAPTURE(v, d);
      CHECK(fixed(v, d) == fmt::format("{:.{}f}", v, d));
    }
  CHECK(fixed(2.5, 0) == "2");  // ties to even, as printf
  CHECK(fixed(0.125, 2) == "0.12");
  CHECK(fixed(-0.0, 1) == "-0.0");
}
