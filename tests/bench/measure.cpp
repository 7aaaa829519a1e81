// Runs a command and prints its wall time, CPU time (user + system: on a loaded machine the
// steadier figure) and peak resident memory, the figures the scaling benchmark reports (GNU
// time is not on every CI image):
//   measure gpusel --catalog big.json recommend ...   ->  "1.234 s  0.987 s  56.7 MB  rc 0"
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <chrono>
#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: measure COMMAND [ARGS...]\n");
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);  // the command's output is not what is measured
    execvp(argv[1], argv + 1);
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  const auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
  std::printf("%.3f s  %.3f s  %.1f MB  rc %d\n", took.count(),
              seconds(usage.ru_utime) + seconds(usage.ru_stime), double(usage.ru_maxrss) / 1024.0,
              WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}
