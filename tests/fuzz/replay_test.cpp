// Every seed and every past fuzzer finding (tests/fuzz/corpus/<target>/<file>) through its
// target's check, in every build: a finding fixed once stays fixed.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "checks.hpp"
#include "gpusel/base/error.hpp"

namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("every fuzz seed and past finding passes its check") {
  namespace fs = std::filesystem;
  // A command-line seed may read "-": never from the terminal running the tests.
  REQUIRE(std::freopen("/dev/null", "r", stdin));
  std::size_t replayed = 0;
  for (const auto& dir : fs::directory_iterator(GPUSEL_FUZZ_CORPUS)) {
    if (!dir.is_directory()) continue;
    const std::string target = dir.path().filename().string();
    const auto check = gpusel::fuzz::check_named(target);
    INFO("target " << target);
    REQUIRE(check);
    for (const auto& file : fs::directory_iterator(dir.path())) {
      INFO("input " << file.path().string());
      const std::string input = slurp(file.path());
      const auto start = std::chrono::steady_clock::now();
      try {
        check(input);
      } catch (const gpusel::Error&) {
        // a clean refusal
      } catch (const std::exception& e) {
        FAIL(e.what());
      }
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      // "Within a second" (issue 12), with room for sanitizer builds.
      CHECK(took.count() < 10);
      ++replayed;
    }
  }
  CHECK(replayed > 20);
}
