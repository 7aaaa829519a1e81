#pragma once
// What every subcommand shares: the global options and the data they select.
#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
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

  const Catalog& catalog();  // loaded once, on first use, without the cards' source text
  // The catalog with each card's source text (Gpu::raw()): only `catalog show` and `catalog
  // list --format json` print it, so only they hold a user's file (reloaded if needed).
  const Catalog& catalog_with_text();
  const Cloud& cloud();  // loaded once, its GPU ids checked against catalog()

  Context() = default;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  ~Context();

 private:
  std::unique_ptr<Catalog> catalog_;
  bool with_text_ = false;
  std::unique_ptr<Cloud> cloud_;
};

// Each command family adds its subcommands to the app; the chosen one sets ctx.action.
void add_catalog_commands(CLI::App& app, Context& ctx);
void add_validate_command(CLI::App& catalog, Context& ctx);
void add_status_command(CLI::App& catalog, Context& ctx);
void add_cloud_commands(CLI::App& app, Context& ctx);

}  // namespace gpusel::cli
