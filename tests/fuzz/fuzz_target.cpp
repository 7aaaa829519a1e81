// One libFuzzer target per check (tests/fuzz/checks.hpp), chosen at build time by
// GPUSEL_FUZZ_CHECK. Any gpusel::Error is an accepted answer; a Finding or any other
// exception aborts, so libFuzzer saves the input.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "checks.hpp"
#include "gpusel/base/error.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Nothing may wait on the fuzzer's terminal: "-" (stdin) reads an empty file.
  if (!std::freopen("/dev/null", "r", stdin)) std::abort();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto check = gpusel::fuzz::check_named(GPUSEL_FUZZ_CHECK);
  if (!check) std::abort();
  try {
    check(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const gpusel::fuzz::Finding& f) {
    std::fprintf(stderr, "FINDING: %s\n", f.what());
    std::abort();
  } catch (const gpusel::Error&) {
    // a clean refusal
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FINDING: unexpected exception: %s\n", e.what());
    std::abort();
  }
  return 0;
}
