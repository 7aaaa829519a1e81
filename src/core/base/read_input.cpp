// Reading a user's data file: a regular file or stdin ("-"), never more than the size cap.
// A FIFO would block forever and /dev/zero never ends, so neither is opened for reading.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>

#include "gpusel/base/error.hpp"
#include "gpusel/base/heap.hpp"
#include "gpusel/base/input_text.hpp"
#include "gpusel/base/text.hpp"

namespace gpusel {
namespace {

[[noreturn]] void cannot(const std::string& path, const std::string& why) {
  throw data_error("cannot read '" + quote_input(path, 200) + "': " + why);
}

// Why a path could not be opened or looked at, as reading and check_input_file both say it.
[[noreturn]] void cannot_open(const std::string& path, int err) {
  if (err == ENOENT || err == ENOTDIR) cannot(path, "no such file");
  if (err == EACCES || err == EPERM) cannot(path, "permission denied");
  cannot(path, std::strerror(err));
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

constexpr std::size_t kMapFrom = std::size_t{1} << 20;  // smaller files: read into a string

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

// The regular file at `path`, open, and its size: Error(data) naming why not.
std::pair<std::unique_ptr<Fd>, std::size_t> open_regular(const std::string& path) {
  if (path.empty()) cannot(path, "empty file name");
  // O_NONBLOCK: opening a FIFO with no writer must not block before we can look at it.
  auto fd =
      std::make_unique<Fd>(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd->get() < 0) {
    const int err = errno;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) cannot(path, kind_of(st.st_mode));
    cannot_open(path, err);
  }
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) cannot(path, std::strerror(errno));
  if (!S_ISREG(st.st_mode)) cannot(path, kind_of(st.st_mode));
  if (static_cast<unsigned long long>(st.st_size) > kMaxInputBytes) throw data_error(too_big(path));
  // A regular file never blocks; clear the flag so reads behave as usual.
  ::fcntl(fd->get(), F_SETFL, ::fcntl(fd->get(), F_GETFL) & ~O_NONBLOCK);
  return {std::move(fd), static_cast<std::size_t>(st.st_size)};
}

}  // namespace

void check_input_file(const std::string& path) {
  if (path == "-") return;
  if (path.empty()) cannot(path, "empty file name");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) cannot_open(path, errno);
  if (!S_ISREG(st.st_mode)) cannot(path, kind_of(st.st_mode));
  if (::access(path.c_str(), R_OK) != 0) cannot(path, "permission denied");
}

namespace {

std::string read_stdin() {
  // stdin is whatever the caller piped in; it can be read only once per run.
  if (g_stdin_used) throw usage_error("cannot read '-' twice: stdin holds one file");
  g_stdin_used = true;
  return read_all(STDIN_FILENO, "-");
}

// A mapped file that another program truncates while it is read would end the run with
// SIGBUS at the first byte past its new end: it ends with one line naming that file and exit 3
// instead, as a file that cannot be read does. The files mapped now, by address, so that the
// handler names the one the fault is in (a catalog and an offers file can both be mapped).
// Only async-signal-safe calls in the handler; a SIGBUS elsewhere keeps its default action.
struct MappedFile {
  volatile std::uintptr_t begin = 0, end = 0;  // begin 0: a free slot
  char name[256] = {};                         // quoted and cut (quote_input)
};
MappedFile g_mapped[8];

void on_sigbus(int, siginfo_t* info, void*) {
  const auto at = reinterpret_cast<std::uintptr_t>(info->si_addr);  // NOLINT
  for (const MappedFile& m : g_mapped) {
    if (m.begin == 0 || at < m.begin || at >= m.end) continue;
    constexpr char head[] = "gpusel: error: cannot read '";
    constexpr char tail[] = "': the file changed while it was read\n";
    (void)!::write(STDERR_FILENO, head, sizeof head - 1);
    (void)!::write(STDERR_FILENO, m.name, std::strlen(m.name));
    (void)!::write(STDERR_FILENO, tail, sizeof tail - 1);
    ::_exit(3);
  }
  // Not a mapped file's (or sent by kill): the default action, as without this handler.
  ::signal(SIGBUS, SIG_DFL);
  ::raise(SIGBUS);  // pending while the handler runs, delivered as it returns
}

void watch_for_truncation(const std::string& path, const void* map, std::size_t size) {
  MappedFile* slot = &g_mapped[0];  // all taken (not seen): the oldest name gives way
  for (MappedFile& m : g_mapped)
    if (m.begin == 0) {
      slot = &m;
      break;
    }
  const std::string name = quote_input(path, 200);
  slot->begin = 0;
  const std::size_t n = std::min(name.size(), sizeof slot->name - 1);
  std::memcpy(slot->name, name.data(), n);
  slot->name[n] = '\0';
  slot->end = reinterpret_cast<std::uintptr_t>(map) + size;  // NOLINT
  slot->begin = reinterpret_cast<std::uintptr_t>(map);       // NOLINT: last, the slot is whole
  struct sigaction act {};
  act.sa_sigaction = on_sigbus;
  act.sa_flags = SA_SIGINFO;
  ::sigemptyset(&act.sa_mask);
  ::sigaction(SIGBUS, &act, nullptr);
}

void stop_watching(const void* map) {
  for (MappedFile& m : g_mapped)
    if (m.begin == reinterpret_cast<std::uintptr_t>(map)) m.begin = 0;  // NOLINT
}

}  // namespace

InputText::~InputText() {
  if (!map_) return;
  stop_watching(map_);
  ::munmap(map_, map_size_);
}

std::shared_ptr<const InputText> InputText::read(const std::string& path) {
  if (path == "-") return std::make_shared<const InputText>(read_stdin());
  const auto [fd, size] = open_regular(path);
  if (size < kMapFrom) return std::make_shared<const InputText>(read_all(fd->get(), path, size));
  // Mapped, read-only and private: the page cache's own pages, no copy and no zeroed memory;
  // a page given back (release) is read again from the file if touched.
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd->get(), 0);
  if (map == MAP_FAILED) return std::make_shared<const InputText>(read_all(fd->get(), path, size));
  watch_for_truncation(path, map, size);
  expect_heap_growth(size);  // its records take about as much memory as its text
  std::shared_ptr<InputText> t(new InputText());
  t->map_ = map, t->map_size_ = size;
  t->view_ = std::string_view(static_cast<const char*>(map), size);
  return t;
}

void InputText::release(std::size_t begin, std::size_t end) const {
#ifdef MADV_DONTNEED
  static const long page_size = ::sysconf(_SC_PAGESIZE);
  if (page_size <= 0 || begin >= end || end > view_.size()) return;
  // Only pages strictly inside the text, where no allocator keeps data of its own.
  const auto page = static_cast<std::uintptr_t>(page_size);
  const auto base = reinterpret_cast<std::uintptr_t>(view_.data());  // NOLINT
  const std::uintptr_t first = (base + begin + page - 1) / page * page;
  const std::uintptr_t last = (base + end) / page * page;
  if (last > first)
    ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);  // NOLINT
#else
  (void)begin, (void)end;
#endif
}

std::string read_file(const std::string& path) {
  if (path == "-") return read_stdin();
  const auto [fd, size] = open_regular(path);
  return read_all(fd->get(), path, size);
}

}  // namespace gpusel
