#pragma once
// Running the machine's own tools (nvidia-smi, rocm-smi, python3...) safely: found on PATH,
// started with a fixed argument list and no shell, stdin closed, killed after a few seconds,
// output capped. `detect` and `doctor` take a ToolRunner so tests can feed captured output.
#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace gpusel {

struct ToolLimits {
  std::chrono::milliseconds timeout{5000};
  std::size_t max_bytes = 1 << 20;  // per stream; the rest is read and dropped
};

struct ToolResult {
  bool found = false;      // an executable of that name is on PATH
  bool started = false;    // it was executed
  bool timed_out = false;  // killed at the time limit
  int exit_code = -1;      // -1: killed by a signal, timed out or never started
  int signal = 0;          // the signal that ended it (SIGSEGV...), 0: none
  bool truncated = false;  // an output stream went over max_bytes
  std::string path, out, err;
  bool ok() const { return started && !timed_out && exit_code == 0; }
};

// argv[0] is looked up on PATH (never through a shell); the rest are passed as they are.
using ToolRunner = std::function<ToolResult(const std::vector<std::string>& argv)>;

// The first executable regular file called `name` in PATH's folders; "" when none. Names
// with a '/' are not looked up. Empty PATH entries (the current folder) are skipped.
std::string find_on_path(const std::string& name);

// Runs one tool: fork, then execv of the file find_on_path found, stdin from /dev/null,
// stdout and stderr read through pipes, in its own process group so a timeout kills it and
// anything it started.
ToolResult run_tool(const std::vector<std::string>& argv, const ToolLimits& limits = {});

// run_tool with the default limits, and a longer one for python3 (importing PyTorch cold takes
// several seconds); the tools one runner starts share 15 s in all, and a tool that timed out
// answers its later calls at once with the same timeout.
ToolRunner system_runner();

}  // namespace gpusel
