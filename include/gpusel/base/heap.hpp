#pragma once
// Memory for a long data file's records. Reading 100,000 cards writes ~200 MB of new memory;
// faulted in 4 KiB at a time that is ~50,000 page faults, a quarter of `catalog list`'s time on
// a virtual machine. Where transparent huge pages are on "madvise" (Debian's default), memory
// advised MADV_HUGEPAGE is faulted 2 MiB at a time. Best effort: where the kernel or allocator
// does not do it, nothing changes but the time.
#include <cstddef>
#include <memory>

namespace gpusel {

// Advises [p, p + bytes) (a block of its own, e.g. a reserved vector's storage): its whole
// 2 MiB pages are faulted as huge pages.
void advise_huge_pages(const void* p, std::size_t bytes);

// The heap is about to grow by about `bytes` (records read from a file of that size): grows it
// once by that much, advised as above, and keeps what is freed for the rest of the run.
void expect_heap_growth(std::size_t bytes);

// Keeps what `p` owns until the process ends, without destroying it: at exit, freeing a
// 100,000-card catalog's strings one by one took 5 % of `recommend`'s time, and the system
// takes the whole heap back at once (as LLVM's BuryPointer does). Held from a list that is
// never freed, so leak checkers count it as reachable. For data a run holds to its end only.
void keep_until_exit(const void* p);
template <typename T>
void keep_until_exit(std::unique_ptr<T> p) {
  keep_until_exit(static_cast<const void*>(p.release()));
}

}  // namespace gpusel
