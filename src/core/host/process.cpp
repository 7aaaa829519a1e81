#include "gpusel/host/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <thread>

namespace gpusel {
namespace {

using Clock = std::chrono::steady_clock;

bool executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// Reads what is ready on `fd` into `buf` up to `cap`, dropping the rest. false at EOF/error.
bool drain(int fd, std::string& buf, std::size_t cap, bool& truncated) {
  std::array<char, 8192> chunk{};
  const ssize_t n = ::read(fd, chunk.data(), chunk.size());
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) return false;
  const auto got = static_cast<std::size_t>(n);
  const std::size_t room = buf.size() < cap ? cap - buf.size() : 0;
  buf.append(chunk.data(), std::min(room, got));
  if (got > room) truncated = true;
  return true;
}

// The child's side between fork and exec: only async-signal-safe calls.
[[noreturn]] void exec_child(const std::string& path, char* const* argv, int out_fd, int err_fd) {
  ::setpgid(0, 0);
  const int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
  ::dup2(out_fd, STDOUT_FILENO);
  ::dup2(err_fd, STDERR_FILENO);
  ::execv(path.c_str(), argv);
  ::_exit(127);
}

void kill_group(pid_t pid) {
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
}

// Reads both pipes until EOF or the deadline; true when the deadline passed first.
bool read_until(const std::array<int, 2>& fds, ToolResult& r, const ToolLimits& lim,
                Clock::time_point deadline) {
  std::array<pollfd, 2> p{{{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}}};
  std::array<std::string*, 2> bufs{&r.out, &r.err};
  int open = 2;
  while (open > 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return true;
    const int n = ::poll(p.data(), p.size(), static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    for (std::size_t i = 0; i < p.size(); ++i) {
      if (p[i].fd < 0 || p[i].revents == 0) continue;
      if (!drain(p[i].fd, *bufs[i], lim.max_bytes, r.truncated)) p[i].fd = -1, --open;
    }
  }
  return false;
}

// Waits for the child until the deadline (a child may close its pipes and keep running).
int wait_until(pid_t pid, Clock::time_point deadline, bool& timed_out, int& signal) {
  int status = 0;
  while (true) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) return -1;
    if (Clock::now() >= deadline) {
      timed_out = true;
      kill_group(pid);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFSIGNALED(status)) signal = WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

std::string find_on_path(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) return "";
  const char* env = std::getenv("PATH");
  const std::string path = env ? env : "";
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find(':', start), path.size());
    const std::string dir = path.substr(start, end - start);
    if (!dir.empty() && executable_file(dir + "/" + name)) return dir + "/" + name;
    start = end + 1;
  }
  return "";
}

ToolResult run_tool(const std::vector<std::string>& argv, const ToolLimits& lim) {
  ToolResult r;
  if (argv.empty()) return r;
  r.path = find_on_path(argv[0]);
  r.found = !r.path.empty();
  if (!r.found) return r;
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return r;
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    ::close(out_pipe[0]), ::close(out_pipe[1]);
    return r;
  }
  const Clock::time_point deadline = Clock::now() + lim.timeout;
  const pid_t pid = ::fork();
  if (pid == 0) exec_child(r.path, args.data(), out_pipe[1], err_pipe[1]);
  ::close(out_pipe[1]), ::close(err_pipe[1]);
  if (pid > 0) {
    r.started = true;
    if (read_until({out_pipe[0], err_pipe[0]}, r, lim, deadline)) {
      r.timed_out = true;
      kill_group(pid);
    }
    r.exit_code = wait_until(pid, r.timed_out ? Clock::now() : deadline, r.timed_out, r.signal);
    if (r.timed_out) r.exit_code = -1;
    if (r.exit_code == 127 && r.out.empty() && r.err.empty()) r.started = false;  // exec failed
  }
  ::close(out_pipe[0]), ::close(err_pipe[0]);
  return r;
}

ToolRunner system_runner() {
  // One command's tools share one budget, and a tool that did not answer in time is not
  // asked again: doctor runs nvidia-smi twice and PyTorch's probe, so hung tools would add up.
  struct Session {
    Clock::time_point end = Clock::now() + std::chrono::seconds(15);
    std::vector<std::pair<std::string, ToolResult>> hung;
  };
  auto s = std::make_shared<Session>();
  return [s](const std::vector<std::string>& argv) {
    if (argv.empty()) return ToolResult{};
    for (const auto& [name, result] : s->hung)
      if (name == argv[0]) return result;
    ToolLimits lim;
    if (argv[0].rfind("python", 0) == 0) lim.timeout = std::chrono::seconds(10);
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(s->end - Clock::now());
    lim.timeout = std::clamp(left, std::chrono::milliseconds(0), lim.timeout);
    ToolResult r;
    if (lim.timeout.count() > 0) {
      r = run_tool(argv, lim);
    } else {  // the budget is spent: reported as not answering in time, never started
      r.path = find_on_path(argv[0]);
      r.found = !r.path.empty();
      r.timed_out = r.found;
    }
    if (r.timed_out) s->hung.emplace_back(argv[0], r);
    return r;
  };
}

}  // namespace gpusel
