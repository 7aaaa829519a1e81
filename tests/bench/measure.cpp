// Runs a command and prints its wall time and peak resident memory, the two figures the
// scaling benchmark reports (GNU time is not on every CI image):
//   measure gpusel --catalog big.json recommend ...   ->  "1.234 s  56.7 MB  rc 0"
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
  std::printf("%.3f s  %.1f MB  rc %d\n", took.count(), double(usage.ru_maxrss) / 1024.0,
              WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}
