#pragma once
#include "cli/context.hpp"

namespace gpusel::cli {

// help, version, completions; manpage and __complete (hidden).
void add_meta_commands(CLI::App& app, Context& ctx);

}  // namespace gpusel::cli
