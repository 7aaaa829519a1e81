// A data file as read for the loaders: small files in a string, large ones mapped read-only,
// given back page by page and read again, a truncation while read ending in exit 3.
#include "gpusel/base/input_text.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"

using namespace gpusel;
namespace fs = std::filesystem;

namespace {

// A file of `n` bytes of a repeating text, removed with the object.
struct TempFile {
  fs::path path;
  std::string text;
  explicit TempFile(std::size_t n) {
    path = fs::temp_directory_path() /
           ("gpusel-input-" + std::to_string(::getpid()) + "-" + std::to_string(n) + ".json");
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

namespace {

// Runs `body` in a child process, its stderr into a file: the exit status and what it wrote.
std::pair<int, std::string> in_child(const std::function<void()>& body) {
  const fs::path err = fs::temp_directory_path() / ("gpusel-sigbus-" + std::to_string(::getpid()));
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child == 0) {
    (void)!::freopen(err.c_str(), "w", stderr);
    body();
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  std::string text = read_file(err.string());
  fs::remove(err);
  return {status, text};
}

}  // namespace

TEST_CASE("with two files mapped, the one truncated is the one named") {
  const TempFile first(2 << 20), second((2 << 20) + 1);
  const auto [status, text] = in_child([&] {
    const auto a = InputText::read(first.path.string());
    const auto b = InputText::read(second.path.string());  // mapped last
    fs::resize_file(first.path, 0);
    volatile char c = a->view()[a->view().size() - 1];
    (void)c;
  });
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 3);
  CHECK(text.find(first.path.filename().string()) != std::string::npos);
  CHECK(text.find(second.path.filename().string()) == std::string::npos);
  CHECK(std::count(text.begin(), text.end(), '\n') == 1);
}

TEST_CASE("a SIGBUS that is not a mapped file's keeps its default action") {
  const TempFile large(2 << 20);
  const auto [status, text] = in_child([&] {
    const auto t = InputText::read(large.path.string());  // the handler is installed
    ::raise(SIGBUS);
  });
  CHECK(WIFSIGNALED(status));
  CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS));
  CHECK(text.empty());
}
