#pragma once
// Shell completion scripts generated from the command tree (cli_tree.hpp): subcommands,
// options, enum values, and GPU and model ids read at completion time from the binary
// itself (`gpusel __complete gpus`), so a user's GPUSEL_CATALOG is honoured.
#include <CLI/CLI.hpp>
#include <string>

namespace gpusel::cli {

// The script for "bash", "zsh" or "fish"; usage error for another shell.
std::string completion_script(const CLI::App& root, const std::string& shell);

}  // namespace gpusel::cli
