// Splitting a long job over threads (gpusel/base/threads.hpp).
#include "gpusel/base/threads.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "gpusel/base/error.hpp"

using namespace gpusel;

TEST_CASE("GPUSEL_THREADS sets the threads, anything but 1-64 is a usage error naming it") {
  ::setenv("GPUSEL_THREADS", "3", 1);
  CHECK(worker_threads() == 3);
  for (const char* bad : {"0", "65", "-2", "two", "4x", "99999999999999999999999"}) {
    INFO(bad);
    ::setenv("GPUSEL_THREADS", bad, 1);
    try {
      worker_threads();
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.code() == ExitCode::usage);
      CHECK(std::string(e.what()).find("GPUSEL_THREADS") != std::string::npos);
    }
  }
  ::unsetenv("GPUSEL_THREADS");
  const unsigned n = worker_threads();
  CHECK(n >= 1);
  CHECK(n <= 8);
}

TEST_CASE("for_slices covers 0 to n once in contiguous slices and rethrows the first slice's") {
  std::vector<std::atomic<int>> seen(1000);
  for_slices(seen.size(), 3, [&](unsigned, std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) ++seen[i];
  });
  for (const auto& s : seen) CHECK(s == 1);
  const auto fails = [](unsigned t, std::size_t, std::size_t) {
    if (t >= 1) throw std::runtime_error("slice " + std::to_string(t));
  };
  CHECK_THROWS_WITH(for_slices(100, 4, fails), "slice 1");
}
