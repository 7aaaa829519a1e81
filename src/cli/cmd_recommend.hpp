#pragma once
#include "cli/context.hpp"

namespace gpusel::cli {

void add_recommend_command(CLI::App& app, Context& ctx);       // cmd_recommend.cpp
void add_check_compare_commands(CLI::App& app, Context& ctx);  // cmd_check.cpp

}  // namespace gpusel::cli
