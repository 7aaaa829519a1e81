// -o files: written whole through a temporary file in the same folder, or not at all.
#include "gpusel/base/output_file.hpp"

#include <sys/resource.h>
#include <sys/stat.h>

#include <csignal>

#include <catch2/catch.hpp>
#include <filesystem>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"

using namespace gpusel;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path dir;
  TempDir() {
    char tmpl[] = "/tmp/gpusel-out-XXXXXX";
    dir = ::mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(dir); }
  std::size_t entries() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), {}));
  }
};

}  // namespace

TEST_CASE("the file holds exactly the text, replaces an older one, leaves no temporary") {
  TempDir t;
  const std::string path = (t.dir / "chart.svg").string();
  write_file_atomic(path, "first");
  write_file_atomic(path, "<svg>second</svg>\n");
  CHECK(read_file(path) == "<svg>second</svg>\n");
  CHECK(t.entries() == 1);
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == (0666 & ~[] {
          const mode_t m = ::umask(0);
          ::umask(m);
          return m;
        }()));
}

TEST_CASE("a missing folder or a folder as the name is a usage error, leaving nothing behind") {
  TempDir t;
  try {
    write_file_atomic((t.dir / "no-such" / "x.svg").string(), "x");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::usage);
    CHECK_THAT(e.what(), Catch::Contains("no-such/x.svg") && Catch::Contains("No such file"));
  }
  CHECK_THROWS_AS(write_file_atomic(t.dir.string(), "x"), Error);
  CHECK(t.entries() == 0);
}

TEST_CASE("a write that fails part way (the disk full) keeps the earlier file whole") {
  TempDir t;
  const std::string path = (t.dir / "report.html").string();
  write_file_atomic(path, "the earlier report");
  // A file size limit makes write() fail with EFBIG after 16 bytes, as a full disk would
  // fail it part way; SIGXFSZ is ignored so the failure is an error, not a kill.
  rlimit old{};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = 16;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  std::string error;
  try {
    write_file_atomic(path, std::string(4096, 'x'));
  } catch (const Error& e) {
    error = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  CHECK_THAT(error, Catch::Contains("report.html") && Catch::Contains("too large"));
  CHECK(read_file(path) == "the earlier report");
  CHECK(t.entries() == 1);  // no temporary left
}

TEST_CASE("a device or FIFO named as the output is written in place, never replaced") {
  TempDir t;
  // /dev/full takes the open and fails the write: an error, and the node stays a device.
  try {
    write_file_atomic("/dev/full", "x");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("/dev/full") && Catch::Contains("No space"));
  }
  CHECK(fs::is_character_file("/dev/full"));
  write_file_atomic("/dev/null", "discarded");
  CHECK(fs::is_character_file("/dev/null"));
  // A FIFO nobody reads is an error at once (no hang) and stays a FIFO.
  const std::string fifo = (t.dir / "pipe").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_AS(write_file_atomic(fifo, "x"), Error);
  CHECK(fs::is_fifo(fifo));
  CHECK(t.entries() == 1);
}

TEST_CASE("through a symbolic link the file it points to is replaced and the link kept") {
  TempDir t;
  const fs::path real = t.dir / "real.svg";
  const fs::path link = t.dir / "link.svg";
  write_file_atomic(real.string(), "old");
  fs::create_symlink(real, link);
  write_file_atomic(link.string(), "new");
  CHECK(fs::is_symlink(link));
  CHECK(read_file(real.string()) == "new");
  CHECK(t.entries() == 2);
}
