#include "gpusel/base/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "gpusel/base/error.hpp"

namespace gpusel {
namespace {

Error write_error(const std::string& path, int err) {
  return usage_error("cannot write '" + path + "': " + std::strerror(err));
}

bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// The process umask, read without changing it for good (umask has no read-only form).
mode_t current_umask() {
  const mode_t m = ::umask(0);
  ::umask(m);
  return m;
}

// A device or FIFO named as the output (/dev/stdout, /dev/null, a pipe) is written in place:
// renaming a temporary file over it would replace the device node with a plain file.
// O_NONBLOCK makes a FIFO without a reader an error (ENXIO) instead of a hang.
void write_special(const std::string& path, std::string_view text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw write_error(path, errno);
  int err = 0;
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 || !write_all(fd, text))
    err = errno ? errno : EIO;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) throw write_error(path, err);
}

}  // namespace

void write_file_atomic(const std::string& path, std::string_view text) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path.empty()) throw usage_error("the output file name is empty");
  const fs::file_status st = fs::status(path, ec);
  if (fs::is_directory(st)) throw usage_error("cannot write '" + path + "': it is a folder");
  if (fs::exists(st) && !fs::is_regular_file(st)) return write_special(path, text);
  // Through a symbolic link, the file it points to is replaced, not the link.
  fs::path target(path);
  if (fs::exists(st) && fs::is_symlink(fs::symlink_status(path, ec))) {
    fs::path resolved = fs::canonical(path, ec);
    if (!ec) target = std::move(resolved);
  }
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // The temporary name starts with a dot so a half-written file is hidden while it exists.
  std::string tmpl = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) throw write_error(path, errno);
  const std::string tmp(name.data());
  int err = 0;
  if (::fchmod(fd, 0666 & ~current_umask()) != 0 || !write_all(fd, text) || ::fsync(fd) != 0)
    err = errno ? errno : EIO;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(tmp.c_str(), target.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    throw write_error(path, err);
  }
}

}  // namespace gpusel
