#include "gpusel/base/text.hpp"

#include <catch2/catch.hpp>

#include "gpusel/base/error.hpp"

using namespace gpusel;

TEST_CASE("edit distance counts single-character edits") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("rtx-4090", "rtx-4090") == 0);
  CHECK(edit_distance("rtx-4009", "rtx-4090") == 2);
  CHECK(edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("nearest suggests close ids, best first, and nothing for garbage") {
  std::vector<std::string> ids{"rtx-4090", "rtx-4080-super", "rtx-3090", "a100-80gb-sxm"};
  auto got = nearest("rtx-4909", ids);
  REQUIRE_FALSE(got.empty());
  CHECK(got.front() == "rtx-4090");
  CHECK(nearest("4090", ids).front() == "rtx-4090");
  CHECK(nearest("completely-unrelated-words", ids).empty());
}

TEST_CASE("read_file names the path when it cannot read") {
  try {
    read_file("/nonexistent/gpus.json");
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::data);
    CHECK(std::string(e.what()).find("/nonexistent/gpus.json") != std::string::npos);
  }
  CHECK_THROWS_AS(read_file("/tmp"), Error);
}
