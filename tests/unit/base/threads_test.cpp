// Splitting a long job over threads (gpusel/base/threads.hpp).
#include "gpusel/base/threads.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <stdexcept>
#include <thread>
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

TEST_CASE("for_chunks covers 0 to n once in chunks, the caller's work first on its own thread") {
  for (const unsigned threads : {1U, 2U, 5U}) {
    for (const std::size_t n :
         {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{1000}}) {
      INFO(threads << " threads, n " << n);
      std::vector<std::atomic<int>> seen(n);
      std::atomic<int> wrong_size{0};
      const auto caller = std::this_thread::get_id();
      bool first_here = false;
      for_chunks(
          n, 64, threads,
          [&](unsigned, std::size_t b, std::size_t e) {
            if (e - b > 64 || (e - b < 64 && e != n) || b % 64 != 0) ++wrong_size;
            for (std::size_t i = b; i < e; ++i) ++seen[i];
          },
          [&] { first_here = std::this_thread::get_id() == caller; });
      CHECK(first_here);
      CHECK(wrong_size == 0);
      for (const auto& s : seen) CHECK(s == 1);
    }
  }
}

TEST_CASE("for_chunks throws the caller's exception first, else the lowest chunk's") {
  const auto from_chunk = [](unsigned, std::size_t b, std::size_t) {
    if (b >= 300) throw std::runtime_error("chunk " + std::to_string(b / 100));
  };
  for (const unsigned threads : {1U, 4U}) {
    CHECK_THROWS_WITH(for_chunks(1000, 100, threads, from_chunk), "chunk 3");
    CHECK_THROWS_WITH(
        for_chunks(1000, 100, threads, from_chunk, [] { throw std::runtime_error("caller"); }),
        "caller");
  }
  // Chunks after the one that threw still run (their work is dropped by the caller).
  std::atomic<int> ran{0};
  CHECK_THROWS(for_chunks(1000, 100, 3, [&](unsigned, std::size_t b, std::size_t) {
    ++ran;
    if (b == 0) throw std::runtime_error("first");
  }));
  CHECK(ran == 10);
}
