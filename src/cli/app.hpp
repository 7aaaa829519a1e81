#pragma once

namespace gpusel::cli {

// Parses the command line, runs the subcommand, returns the process exit code.
// Every gpusel::Error and CLI11 parse error is caught here and nowhere else.
int run(int argc, char** argv);

}  // namespace gpusel::cli
