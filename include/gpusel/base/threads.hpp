#pragma once
// Splitting a long job over threads: reading a 100,000-record data file and ranking its cards
// do the same work for each record or card, independent of the others.
#include <cstddef>
#include <functional>

namespace gpusel {

// Threads a long job is split over: GPUSEL_THREADS (1-64) when set, else the CPUs this process
// may run on (its affinity: taskset, a container's cpuset), at most 8. Read at each call, so
// that a test can set it. Error(usage) naming the variable when it is set to anything else.
unsigned worker_threads();

// Calls job(t, begin, end) for chunks of `chunk` indices of [0, n) (the last may be shorter),
// each claimed by whichever of `threads` threads is free (t: the thread, 0 the caller's), so a
// thread held up does not hold the others. The caller's thread first runs `first` (its own work,
// done while the others start on the chunks), then claims chunks too. Once all are done, the
// exception `first` threw, if any, is thrown here, else that of the lowest chunk that threw:
// what one thread running `first` and then the chunks in order meets first.
void for_chunks(std::size_t n, std::size_t chunk, unsigned threads,
                const std::function<void(unsigned t, std::size_t begin, std::size_t end)>& job,
                const std::function<void()>& first = {});

}  // namespace gpusel
