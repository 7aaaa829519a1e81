// Memory for a long data file's records (gpusel/base/heap.hpp): advised regions are faulted as
// transparent huge pages where the kernel has them. What the kernel records is read back from
// /proc/self/smaps (VmFlags "hg": MADV_HUGEPAGE).
#include "gpusel/base/heap.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

using namespace gpusel;

namespace {

bool kernel_has_thp() {
  return std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").good();
}

// The VmFlags line of the mapping that holds `p`, "" when none does.
std::string vm_flags_at(const void* p) {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t b = 0, e = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> b >> dash >> e && dash == '-' && line.find(' ') > line.find('-'))
      inside = b <= at && at < e;
    else if (inside && line.rfind("VmFlags:", 0) == 0)
      return line;
  }
  return "";
}

bool advised(const void* p) { return vm_flags_at(p).find(" hg") != std::string::npos; }

// The test code itself may be uninstrumented while the runner links a sanitizer's runtime (the
// fuzz preset: tests/CMakeLists.txt defines GPUSEL_SANITIZER_RUNTIME there).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || \
    defined(GPUSEL_SANITIZER_RUNTIME)
constexpr bool kOwnMalloc = true;  // the sanitizer's allocator: no glibc heap to grow
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kOwnMalloc = true;
#else
constexpr bool kOwnMalloc = false;
#endif
#else
constexpr bool kOwnMalloc = false;
#endif

}  // namespace

TEST_CASE("advise_huge_pages marks the whole 2 MiB pages of a block, and only those") {
  if (!kernel_has_thp()) return;  // no transparent huge pages here: nothing to mark
  constexpr std::size_t kSize = std::size_t{16} << 20;
  void* map = ::mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(map != MAP_FAILED);
  auto* bytes = static_cast<char*>(map);
  // From 1 MiB in: the first whole 2 MiB page starts at most 2 MiB further.
  advise_huge_pages(bytes + (1 << 20), kSize - (1 << 20));
  const auto first =
      (reinterpret_cast<std::uintptr_t>(bytes) + (3 << 20)) & ~std::uintptr_t{(2 << 20) - 1};
  CHECK(advised(reinterpret_cast<void*>(first)));
  CHECK_FALSE(advised(bytes));   // before the block advised
  std::memset(bytes, 7, kSize);  // still ordinary memory
  CHECK(bytes[kSize - 1] == 7);
  ::munmap(map, kSize);
}

TEST_CASE("advise_huge_pages leaves a block smaller than a huge page as it is") {
  if (!kernel_has_thp()) return;
  constexpr std::size_t kSize = std::size_t{4} << 20;
  void* map = ::mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(map != MAP_FAILED);
  auto* bytes = static_cast<char*>(map);
  const auto aligned =
      (reinterpret_cast<std::uintptr_t>(bytes) + (2 << 20) - 1) & ~std::uintptr_t{(2 << 20) - 1};
  // 1 MiB around a 2 MiB boundary holds no whole huge page.
  advise_huge_pages(reinterpret_cast<char*>(aligned) - (512 << 10), 1 << 20);
  CHECK_FALSE(advised(reinterpret_cast<void*>(aligned)));
  ::munmap(map, kSize);
}

TEST_CASE("expect_heap_growth grows the heap by what is expected, advised, and it is used") {
  if (kOwnMalloc || !kernel_has_thp()) return;
  constexpr std::size_t kExpect = std::size_t{64} << 20;
  char* const before = static_cast<char*>(::sbrk(0));
  expect_heap_growth(kExpect);
  char* const after = static_cast<char*>(::sbrk(0));
  CHECK(static_cast<std::size_t>(after - before) >= kExpect);  // the probe was not elided
  CHECK(advised(after - (4 << 20)));
  // Blocks a loader makes come from that memory, and are ordinary memory.
  void* blocks[64];
  for (auto& b : blocks) b = std::malloc(512 << 10);
  CHECK(static_cast<char*>(::sbrk(0)) == after);  // 32 MiB taken without growing it again
  for (auto* b : blocks) {
    REQUIRE(b != nullptr);
    CHECK(static_cast<char*>(b) < after);
    std::memset(b, 1, 512 << 10);
  }
  for (auto* b : blocks) std::free(b);
  CHECK(static_cast<char*>(::sbrk(0)) == after);  // what was freed is kept
}

TEST_CASE("keep_until_exit keeps an object without destroying it, reachable to the end") {
  struct Marker {
    bool* destroyed;
    std::string payload = std::string(1000, 'x');  // memory a leak checker would see
    ~Marker() { *destroyed = true; }
  };
  bool destroyed = false;
  auto kept = std::make_unique<Marker>(Marker{&destroyed});
  destroyed = false;  // the temporary moved from above was destroyed
  const Marker* raw = kept.get();
  keep_until_exit(std::move(kept));
  CHECK(kept == nullptr);
  CHECK_FALSE(destroyed);
  CHECK(raw->payload.size() == 1000);  // still there (a sanitizer build checks no leak at exit)
}
