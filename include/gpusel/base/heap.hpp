#pragma once
// Memory for a long data file's records. Reading 100,000 cards writes ~200 MB of new memory;
// faulted in 4 KiB at a time that is ~50,000 page faults, a quarter of `catalog list`'s time on
// a virtual machine. Where transparent huge pages are on "madvise" (Debian's default), memory
// advised MADV_HUGEPAGE is faulted 2 MiB at a time. Best effort: where the kernel or allocator
// does not do it, nothing changes but the time.
#include <cstddef>

namespace gpusel {

// Advises [p, p + bytes) (a block of its own, e.g. a reserved vector's storage): its whole
// 2 MiB pages are faulted as huge pages.
void advise_huge_pages(const void* p, std::size_t bytes);

// The heap is about to grow by about `bytes` (records read from a file of that size): grows it
// once by that much, advised as above, and keeps what is freed for the rest of the run.
void expect_heap_growth(std::size_t bytes);

}  // namespace gpusel
