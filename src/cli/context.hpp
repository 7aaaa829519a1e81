#pragma once
// What every subcommand shares: the global options and the data they select.
#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "gpusel/data/cloud.hpp"
#include "gpusel/data/data_source.hpp"

namespace gpusel::cli {

struct Context {
  DataPaths paths;
  CloudPaths cloud_paths;
  std::ostream* out = nullptr;
  std::string color = "auto";   // --color
  bool wide = false;            // --wide
  std::string lang;             // --lang; empty: from the locale
  std::function<int()> action;  // set by the subcommand that was chosen

  const Catalog& catalog();  // loaded once, on first use
  const Cloud& cloud();      // loaded once, its GPU ids checked against catalog()

 private:
  std::optional<Catalog> catalog_;
  std::optional<Cloud> cloud_;
};

// Each command family adds its subcommands to the app; the chosen one sets ctx.action.
void add_catalog_commands(CLI::App& app, Context& ctx);
void add_validate_command(CLI::App& catalog, Context& ctx);
void add_status_command(CLI::App& catalog, Context& ctx);
void add_cloud_commands(CLI::App& app, Context& ctx);

}  // namespace gpusel::cli
