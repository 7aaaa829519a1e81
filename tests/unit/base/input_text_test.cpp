// A data file as read for the loaders: small files in a string, large ones mapped read-only,
// given back page by page and read again, a truncation while read ending in exit 3.
#include "gpusel/base/input_text.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "gpusel/base/error.hpp"

using namespace gpusel;
namespace fs = std::filesystem;

namespace {

// A file of `n` bytes of a repeating text, removed with the object.
struct TempFile {
  fs::path path;
  std::string text;
  explicit TempFile(std::size_t n) {
    path = fs::temp_directory_path() / ("gpusel-input-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(n) + ".json");
    for (std::size_t i = 0; text.size() < n; ++i) text += "line " + std::to_string(i) + "\n";
    text.resize(n);
    std::ofstream(path, std::ios::binary) << text;
  }
  ~TempFile() { fs::remove(path); }
};

}  // namespace

TEST_CASE("a small file is held in a string, a large one mapped, both read as written") {
  const TempFile small(4096), large(3 << 20);
  const auto s = InputText::read(small.path.string());
  CHECK(s->view() == small.text);
  CHECK_FALSE(s->rereadable());
  const auto l = InputText::read(large.path.string());
  CHECK(l->view() == large.text);
  CHECK(l->rereadable());
}

TEST_CASE("a mapped file's pages given back read again as they were") {
  const TempFile large(3 << 20);
  const auto t = InputText::read(large.path.string());
  t->release(0, t->view().size());
  CHECK(t->view() == large.text);
  t->release(12345, 2 << 20);  // a range that starts and ends inside pages
  CHECK(t->view().substr(10000, 10000) == std::string_view(large.text).substr(10000, 10000));
}

TEST_CASE("reading a large file keeps read_file's refusals") {
  CHECK_THROWS_AS(InputText::read("/nonexistent/gpus.json"), Error);
  CHECK_THROWS_WITH(InputText::read(fs::temp_directory_path().string()),
                    Catch::Contains("it is a directory"));
}

// Another program truncating a mapped file: the next read past its new end is SIGBUS, which
// must end the run with one line and the data exit code, not a crash (a child process here).
TEST_CASE("a mapped file truncated while it is read ends the run with exit 3") {
  const TempFile large(3 << 20);
  std::fflush(nullptr);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    (void)!::freopen("/dev/null", "w", stderr);  // the message is not this test's output
    const auto t = InputText::read(large.path.string());
    fs::resize_file(large.path, 0);
    volatile char c = t->view()[t->view().size() - 1];  // past the new end: SIGBUS
    (void)c;
    ::_exit(0);  // not reached
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 3);
}
