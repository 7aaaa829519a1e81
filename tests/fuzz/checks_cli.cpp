// The command line, through gpusel's own entry point, with stdout and stderr captured.
#include <iostream>
#include <sstream>
#include <vector>

#include "checks.hpp"
#include "cli/app.hpp"

namespace gpusel::fuzz {
namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw Finding(what);
}

// Swaps a stream's buffer for a string's while alive.
class Capture {
 public:
  explicit Capture(std::ostream& s) : stream_(s), saved_(s.rdbuf(buffer_.rdbuf())) {}
  ~Capture() { stream_.rdbuf(saved_); }
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;
  std::string text() const { return buffer_.str(); }

 private:
  std::ostream& stream_;
  std::ostringstream buffer_;
  std::streambuf* saved_;
};

constexpr std::size_t kMaxArgs = 24;

// An internal error is the error line's own marker right after its prefix (English or
// zh-CN); "internal:" elsewhere in the line is input echoed back by a usage error.
bool internal_error(const std::string& err) {
  for (const char* prefix : {"gpusel: error: internal: ", "gpusel: 错误：internal: "}) {
    if (err.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

}  // namespace

void check_cli(std::string_view input) {
  std::vector<std::string> args{"gpusel"};
  std::size_t start = 0;
  while (start <= input.size() && args.size() < kMaxArgs) {
    const std::size_t end = std::min(input.find('\n', start), input.size());
    args.emplace_back(input.substr(start, end - start));
    start = end + 1;
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int rc = 0;
  std::string err;
  {
    Capture out(std::cout), errs(std::cerr);
    rc = cli::run(static_cast<int>(args.size()), argv.data());
    err = errs.text();
  }
  require(rc >= 0 && rc <= 3, "exit code " + std::to_string(rc));
  require(!internal_error(err), "internal error: " + err.substr(0, 300));
  if (rc >= 2) {
    require(!err.empty() && err.back() == '\n',
            "no error line for exit code " + std::to_string(rc));
    require(err.find('\n') == err.size() - 1, "error is not one line: " + err.substr(0, 300));
  }
}

}  // namespace gpusel::fuzz
