// Reading a user's data file: a regular file or stdin ("-"), never more than the size cap.
// A FIFO would block forever and /dev/zero never ends, so neither is opened for reading.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"

namespace gpusel {
namespace {

[[noreturn]] void cannot(const std::string& path, const std::string& why) {
  throw data_error("cannot read '" + quote_input(path, 200) + "': " + why);
}

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "it is a directory";
  if (S_ISFIFO(mode)) return "it is a FIFO (named pipe); pass its content with '-' on stdin";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "it is a device, not a file";
  if (S_ISSOCK(mode)) return "it is a socket, not a file";
  return "it is not a regular file";
}

std::string too_big(const std::string& path) {
  return "cannot read '" + quote_input(path, 200) + "': larger than the " +
         std::to_string(kMaxInputBytes >> 20) + " MiB a data file may have";
}

// Reads fd to its end, failing once more than kMaxInputBytes arrive. `expected`: the size
// fstat gave, reserved up front so that a large file is not copied while the string doubles
// (which would hold up to twice the file at the peak).
std::string read_all(int fd, const std::string& path, std::size_t expected = 0) {
  std::string out;
  out.reserve(expected);
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) return out;
    if (n < 0) {
      if (errno == EINTR) continue;
      cannot(path, std::string("read error (") + std::strerror(errno) + ")");
    }
    if (out.size() + static_cast<std::size_t>(n) > kMaxInputBytes) throw data_error(too_big(path));
    out.append(buf, static_cast<std::size_t>(n));
  }
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

bool g_stdin_used = false;

}  // namespace

std::string read_file(const std::string& path) {
  if (path.empty()) cannot(path, "empty file name");
  if (path == "-") {
    // stdin is whatever the caller piped in; it can be read only once per run.
    if (g_stdin_used) throw data_error("cannot read '-' twice: stdin holds one file");
    g_stdin_used = true;
    return read_all(STDIN_FILENO, "-");
  }
  // O_NONBLOCK: opening a FIFO with no writer must not block before we can look at it.
  Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) {
    const int err = errno;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) cannot(path, kind_of(st.st_mode));
    if (err == ENOENT || err == ENOTDIR) cannot(path, "no such file");
    if (err == EACCES || err == EPERM) cannot(path, "permission denied");
    cannot(path, std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) cannot(path, std::strerror(errno));
  if (!S_ISREG(st.st_mode)) cannot(path, kind_of(st.st_mode));
  if (static_cast<unsigned long long>(st.st_size) > kMaxInputBytes) throw data_error(too_big(path));
  // A regular file never blocks; clear the flag so reads behave as usual.
  ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  return read_all(fd.get(), path, static_cast<std::size_t>(st.st_size));
}

}  // namespace gpusel
