#pragma once
#include "cli/context.hpp"

namespace gpusel::cli {

void add_serve_command(CLI::App& app, Context& ctx);  // cmd_serve.cpp

}  // namespace gpusel::cli
