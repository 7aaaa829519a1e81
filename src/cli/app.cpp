#include "cli/app.hpp"

#include <cstdlib>
#include <iostream>

#include "cli/cmd_cost.hpp"
#include "cli/cmd_estimate.hpp"
#include "cli/cmd_recommend.hpp"
#include "cli/context.hpp"
#include "cli/render.hpp"
#include "gpusel/base/error.hpp"

namespace gpusel::cli {
namespace {

void add_global_options(CLI::App& app, Context& ctx) {
  app.add_option("--catalog", ctx.paths.catalog,
                 "GPU catalog JSON replacing the embedded one (env GPUSEL_CATALOG)")
      ->envname("GPUSEL_CATALOG");
  app.add_option("--catalog-add", ctx.paths.catalog_add,
                 "catalog JSON overlaid on the catalog; same id replaces (repeatable)");
  app.add_option("--cloud", ctx.cloud_paths.cloud,
                 "cloud offers JSON replacing the embedded one (env GPUSEL_CLOUD)")
      ->envname("GPUSEL_CLOUD");
  app.add_option("--cloud-add", ctx.cloud_paths.cloud_add,
                 "cloud offers JSON overlaid on the offers; same id replaces (repeatable)");
}

void build(CLI::App& app, Context& ctx) {
  app.set_version_flag("--version", std::string("gpusel ") + GPUSEL_VERSION);
  app.require_subcommand(1);
  app.fallthrough();
  add_global_options(app, ctx);
  add_catalog_commands(app, ctx);
  add_estimate_commands(app, ctx);
  add_recommend_command(app, ctx);
  add_check_compare_commands(app, ctx);
  add_cost_command(app, ctx);
  add_cloud_commands(app, ctx);
}

int parse(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "gpusel: error: " << terminal_safe(e.what()) << " (see gpusel --help)\n";
    return static_cast<int>(ExitCode::usage);
  }
  return -1;
}

}  // namespace

int run(int argc, char** argv) {
  Context ctx;
  ctx.out = &std::cout;
  CLI::App app{"gpusel: which GPU, bought or rented, runs this model, how fast, for how much"};
  app.name("gpusel");
  try {
    build(app, ctx);
    if (int rc = parse(app, argc, argv); rc >= 0) return rc;
    return ctx.action ? ctx.action() : 0;
  } catch (const Error& e) {
    std::cout.flush();
    std::cerr << "gpusel: error: " << terminal_safe(e.what()) << "\n";
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    std::cerr << "gpusel: error: internal: " << terminal_safe(e.what()) << "\n";
    return static_cast<int>(ExitCode::data);
  }
}

}  // namespace gpusel::cli
