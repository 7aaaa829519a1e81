#pragma once
// Words for people that the parser does not know: each command's examples and the
// environment variables. --help, `gpusel help`, the man page and README read the same text.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace gpusel::cli {

// Example command lines for a command path ("catalog list"); every one is run by a test.
const std::vector<std::string>& examples(const std::string& path);

// "Examples:\n  gpusel ...\n" as a footer on every command, and the root's pointers to
// `gpusel help environment` and the exit codes.
void add_help_footers(CLI::App& root);

struct EnvVar {
  std::string name, meaning;
};
const std::vector<EnvVar>& environment_variables();
std::string environment_text();  // what `gpusel help environment` prints

struct ExitStatus {
  int code;
  std::string meaning;
};
const std::vector<ExitStatus>& exit_statuses();

}  // namespace gpusel::cli
