#include "gpusel/base/threads.hpp"

#include <sched.h>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace gpusel {

unsigned worker_threads() {
  if (const char* env = std::getenv("GPUSEL_THREADS"); env && *env) {
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(env, &end, 10);
    if (*end != '\0' || errno || v < 1 || v > 64)
      throw usage_error("GPUSEL_THREADS='" + quote_input(env) +
                        "' is not a number of threads (1-64; unset it for the CPUs gpusel may "
                        "run on)");
    return static_cast<unsigned>(v);
  }
  // The CPUs this process may run on (taskset, a container's cpuset), not the machine's.
  cpu_set_t set;
  CPU_ZERO(&set);
  const int usable = ::sched_getaffinity(0, sizeof set, &set) == 0
                         ? CPU_COUNT(&set)
                         : static_cast<int>(std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::clamp(usable, 1, 8));
}

void for_chunks(std::size_t n, std::size_t chunk, unsigned threads,
                const std::function<void(unsigned, std::size_t, std::size_t)>& job,
                const std::function<void()>& first) {
  chunk = std::max<std::size_t>(chunk, 1);
  const std::size_t chunks = (n + chunk - 1) / chunk;
  std::vector<std::exception_ptr> failures(chunks);
  std::atomic<std::size_t> next{0};
  const auto claim = [&](unsigned t) {
    for (std::size_t c; (c = next.fetch_add(1, std::memory_order_relaxed)) < chunks;) {
      try {
        job(t, c * chunk, std::min(n, (c + 1) * chunk));
      } catch (...) {
        failures[c] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> workers;
  for (unsigned t = 1; t < std::max(threads, 1U); ++t) {
    try {
      workers.emplace_back(claim, t);
    } catch (const std::system_error&) {
      break;  // no thread to be had: the others and the caller claim its chunks
    }
  }
  std::exception_ptr own;
  try {
    if (first) first();
  } catch (...) {
    own = std::current_exception();
  }
  claim(0);
  for (auto& w : workers) w.join();
  if (own) std::rethrow_exception(own);
  for (const auto& f : failures)
    if (f) std::rethrow_exception(f);
}

}  // namespace gpusel
