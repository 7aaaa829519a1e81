#pragma once
#include "cli/context.hpp"

namespace gpusel::cli {

// `gpusel cost`: owning cards vs renting them (or other GPUs) for one project.
void add_cost_command(CLI::App& app, Context& ctx);

}  // namespace gpusel::cli
