// -o files: written whole through a temporary file in the same folder, or not at all.
#include "gpusel/base/output_file.hpp"

#include <sys/stat.h>

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
