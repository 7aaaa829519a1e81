#include "gpusel/base/heap.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <vector>

namespace gpusel {
namespace {

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;  // x86-64 and arm64 (4 KiB base)

}  // namespace

void advise_huge_pages(const void* p, std::size_t bytes) {
#if defined(MADV_HUGEPAGE)
  const auto begin = reinterpret_cast<std::uintptr_t>(p);  // NOLINT
  const std::uintptr_t first = (begin + kHugePage - 1) / kHugePage * kHugePage;
  const std::uintptr_t last = (begin + bytes) / kHugePage * kHugePage;
  // Errors are ignored: THP off or absent (EINVAL) leaves 4 KiB pages, as before.
  if (last > first)
    (void)::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);  // NOLINT
#else
  (void)p, (void)bytes;
#endif
}

void expect_heap_growth(std::size_t bytes) {
#if defined(M_TOP_PAD) && defined(__GLIBC__)
  constexpr std::size_t kMost = std::size_t{1} << 30;
  const int pad = static_cast<int>(std::min(bytes, kMost));
  // Freed memory stays for the rest of the run (a command, not a server): given back and
  // taken again it would be faulted again.
  ::mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  // The next growth of the heap maps `pad` more at once; a block larger than the free top of
  // the heap (a few hundred KiB after start-up) makes it now, so that it can be advised.
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
  ::mallopt(M_TOP_PAD, pad);
  char* const before = static_cast<char*>(::sbrk(0));
  void* volatile probe = std::malloc(std::size_t{4} << 20);  // volatile: not elided with its free
  char* const after = static_cast<char*>(::sbrk(0));
  ::mallopt(M_TOP_PAD, 128 << 10);  // glibc's default, for any growth beyond
  if (after > before) advise_huge_pages(before, static_cast<std::size_t>(after - before));
  std::free(probe);
#else
  (void)bytes;
#endif
}

void keep_until_exit(const void* p) {
  static std::mutex lock;
  static auto* const kept = new std::vector<const void*>();  // never freed: reachable to the end
  const std::lock_guard<std::mutex> hold(lock);
  kept->push_back(p);
}

}  // namespace gpusel
