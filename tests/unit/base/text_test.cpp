#include "gpusel/base/text.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "gpusel/base/error.hpp"

using namespace gpusel;

TEST_CASE("edit distance counts single-character edits") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("rtx-4090", "rtx-4090") == 0);
  CHECK(edit_distance("rtx-4009", "rtx-4090") == 2);
  CHECK(edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("nearest suggests close ids, best first, and nothing for garbage") {
  std::vector<std::string> ids{"rtx-4090", "rtx-4080-super", "rtx-3090", "a100-80gb-sxm"};
  auto got = nearest("rtx-4909", ids);
  REQUIRE_FALSE(got.empty());
  CHECK(got.front() == "rtx-4090");
  CHECK(nearest("4090", ids).front() == "rtx-4090");
  CHECK(nearest("completely-unrelated-words", ids).empty());
}

TEST_CASE("read_file names the path when it cannot read") {
  try {
    read_file("/nonexistent/gpus.json");
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::data);
    CHECK(std::string(e.what()).find("/nonexistent/gpus.json") != std::string::npos);
  }
  CHECK_THROWS_AS(read_file("/tmp"), Error);
}

TEST_CASE("read_file takes a file above the old 64 MiB cap whole, without doubling") {
  // 100,000 cards are about 147 MB; the text is held once (reserved from fstat's size), so a
  // large file's peak is its size, not twice it. Sparse files: nothing is written to disk.
  const auto dir = std::filesystem::temp_directory_path();
  const auto big = dir / ("gpusel-read-" + std::to_string(::getpid()) + ".json");
  std::ofstream(big).close();
  std::filesystem::resize_file(big, (std::size_t{64} << 20) + 1);
  const std::string text = read_file(big.string());
  CHECK(text.size() == (std::size_t{64} << 20) + 1);
  CHECK(text.capacity() < text.size() + 4096);
  // One byte over the cap: refused from its size, before a byte is read.
  std::filesystem::resize_file(big, kMaxInputBytes + 1);
  try {
    read_file(big.string());
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::data);
    CHECK(std::string(e.what()).find("larger than the 256 MiB") != std::string::npos);
  }
  std::filesystem::remove(big);
}

TEST_CASE("terminal_safe: control characters from data cannot drive the terminal") {
  // ESC sequences that clear the screen, set the window title (OSC ... BEL), a bare CR that
  // overwrites the line, DEL and a C1 CSI (U+009B) all become U+FFFD.
  const std::string bad =
      "A\x1b[2J\x1b]0;owned\x07 B\rC\x7f D\xc2\x9b"
      "E";
  const std::string got = terminal_safe(bad);
  CHECK(got.find('\x1b') == std::string::npos);
  CHECK(got.find('\x07') == std::string::npos);
  CHECK(got.find('\r') == std::string::npos);
  CHECK(got.find('\x7f') == std::string::npos);
  CHECK(got.find("\xc2\x9b") == std::string::npos);
  CHECK(got ==
        "A\xEF\xBF\xBD[2J\xEF\xBF\xBD]0;owned\xEF\xBF\xBD B\xEF\xBF\xBD"
        "C\xEF\xBF\xBD"
        " D\xEF\xBF\xBD"
        "E");
  // Newlines, tabs, UTF-8 text and gpusel's own colour codes stay as they are.
  const std::string fine = "\x1b[32m\xe2\x96\x88\x1b[0m 3,200 \xc2\xa5\tok\n";
  CHECK(terminal_safe(fine) == fine);
  // A lone ESC at the end, or an unterminated CSI, is not a colour code.
  CHECK(terminal_safe("x\x1b") == "x\xEF\xBF\xBD");
  CHECK(terminal_safe("x\x1b[31") == "x\xEF\xBF\xBD[31");
}

TEST_CASE("clip_words: a long value inside a message is cut, the message kept") {
  const std::string digits(30000, '9');
  const std::string msg = "Could not convert: --count = " + digits;
  const std::string clipped = clip_words(msg, 64);
  CHECK(clipped == "Could not convert: --count = " + std::string(64, '9') + "...");
  CHECK(clip_words("short words stay as they are", 64) == "short words stay as they are");
  CHECK(clip_words("abcdef ghi", 3) == "abc... ghi");
  // A cut never ends inside a UTF-8 character: "é" is two bytes, the cut drops both.
  CHECK(clip_words("ab\xC3\xA9xyz", 3) == "ab...");
}
