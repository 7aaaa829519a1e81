// The last pass before any output: nothing from data that a terminal or a CI runner acts on.
#include <catch2/catch.hpp>

#include "gpusel/base/output_guard.hpp"

using namespace gpusel;

TEST_CASE("guard: an Azure logging command is disarmed anywhere, in every format") {
  CHECK(guard_output("x ##vso[task.complete]y", OutputKind::text) == "x ##vso\\x5btask.complete]y");
  CHECK(guard_output("\"##vso[a]\"", OutputKind::json) == "\"##vso\\u005ba]\"");
  CHECK(guard_output("<t>##vso[a]</t>", OutputKind::markup) == "<t>##vso&#91;a]</t>");
  CHECK(guard_output("##vso[", OutputKind::text, false) == "##vso\\x5b");  // even for github
}

TEST_CASE("guard: a line that starts a workflow or formatting command is disarmed") {
  CHECK(guard_output("a\n  ::error::x\n", OutputKind::text) == "a\n  \\x3a:error::x\n");
  CHECK(guard_output("a\n##[error]x", OutputKind::markup) == "a\n&#35;#[error]x");
  CHECK(guard_output("a ::b ##[c]", OutputKind::text) == "a ::b ##[c]");  // mid-line: inert
  // validate --format github issues its own commands: they stay.
  CHECK(guard_output("::warning file=f::m\n", OutputKind::text, false) == "::warning file=f::m\n");
}

TEST_CASE("guard: C1 controls, bidi overrides and DEL never reach the output") {
  const std::string c1 = "a\xC2\x9B"
                         "31m",
                    bidi =
                        "b\xE2\x80\xAE"
                        "c\xE2\x81\xA6",
                    del = "d\x7F";
  CHECK(guard_output(c1, OutputKind::text) ==
        "a\xEF\xBF\xBD"
        "31m");
  CHECK(guard_output(c1, OutputKind::json) == "a\\u009b31m");
  CHECK(guard_output(bidi, OutputKind::json) == "b\\u202ec\\u2066");
  CHECK(guard_output(bidi, OutputKind::markup) ==
        "b\xEF\xBF\xBD"
        "c\xEF\xBF\xBD");
  CHECK(guard_output(del, OutputKind::text) == "d\xEF\xBF\xBD");
  CHECK(guard_output("e\x01\x1B"
                     "f\n",
                     OutputKind::markup) ==
        "e\xEF\xBF\xBD\xEF\xBF\xBD"
        "f\n");
  // Other text, Chinese included, passes untouched.
  CHECK(guard_output("显存 24 GB\t\u00e9\n", OutputKind::text) == "显存 24 GB\t\u00e9\n");
}
