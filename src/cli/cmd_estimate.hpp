#pragma once
#include "cli/context.hpp"

namespace gpusel::cli {

// `gpusel estimate`, `gpusel fit` and `gpusel models list`.
void add_estimate_commands(CLI::App& app, Context& ctx);

// `gpusel models list` (cmd_models.cpp), registered by add_estimate_commands.
void add_models_commands(CLI::App& app, Context& ctx);

}  // namespace gpusel::cli
