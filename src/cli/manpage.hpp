#pragma once
// gpusel(1), written from the command tree (cli_tree.hpp) and the help texts
// (help_text.hpp) at build time, so the man page lists exactly the commands and options the
// binary takes.
#include <CLI/CLI.hpp>
#include <string>

namespace gpusel::cli {

std::string man_page(const CLI::App& root);  // roff, man macros

}  // namespace gpusel::cli
