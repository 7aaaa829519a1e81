#pragma once
// This machine: `gpusel detect`, `gpusel doctor`, and what `--gpu local` resolves to.
#include "cli/context.hpp"
#include "gpusel/host/detect.hpp"

namespace gpusel::cli {

void add_host_commands(CLI::App& app, Context& ctx);  // detect, doctor
void add_plot_command(CLI::App& app, Context& ctx);   // cmd_plot.cpp

// `--gpu local`: the card model in this machine and how many of it (Error(negative) with
// the reason when there is none, it is unknown, or the machine mixes models).
LocalCards local_gpus(Context& ctx);

// "local" as a --gpu value.
inline bool is_local(const std::string& id) { return id == "local"; }

// A note for people when the local cards already hold memory ("" when none or unknown).
std::string in_use_note(const LocalCards& local);

}  // namespace gpusel::cli
