#include "cli/app.hpp"

#include <csignal>
#include <cstdlib>
#include <iostream>

#include "cli/cli_tree.hpp"
#include "cli/cmd_cost.hpp"
#include "cli/cmd_estimate.hpp"
#include "cli/cmd_meta.hpp"
#include "cli/cmd_recommend.hpp"
#include "cli/context.hpp"
#include "cli/help_text.hpp"
#include "cli/terminal.hpp"
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
  app.add_option("--color", ctx.color,
                 "auto|always|never: colour verdicts, headroom and warnings (default auto: "
                 "on a terminal unless NO_COLOR is set; never in a pipe)");
  app.add_flag("--wide", ctx.wide,
               "every table column at full width, whatever the terminal's width or COLUMNS");
}

void build(CLI::App& app, Context& ctx) {
  app.set_version_flag("-V,--version", std::string("gpusel ") + GPUSEL_VERSION);
  app.require_subcommand(1);
  app.fallthrough();
  add_global_options(app, ctx);
  add_recommend_command(app, ctx);
  add_check_compare_commands(app, ctx);
  add_estimate_commands(app, ctx);
  add_cost_command(app, ctx);
  add_catalog_commands(app, ctx);
  add_cloud_commands(app, ctx);
  add_meta_commands(app, ctx);
  add_help_footers(app);
}

// CLI11's message, or ours when a word is not a command or option at all (with the nearest
// real ones), and the help of the command the arguments reached.
int usage(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const CLI::App* reached = &app;
  std::string msg = unknown_word(app, args, &reached);
  if (msg.empty()) msg = e.what();
  std::cerr << "gpusel: error: " << safe_text(msg) << "; see " << command_name(*reached)
            << " --help\n";
  return static_cast<int>(ExitCode::usage);
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
    return usage(app, e, argc, argv);
  }
  return -1;
}

}  // namespace

int run(int argc, char** argv) {
  // `gpusel ... | head` ends quietly when head stops reading (status 141, no message), even
  // when the parent (a Python subprocess, say) left SIGPIPE ignored.
  std::signal(SIGPIPE, SIG_DFL);
  Context ctx;
  ctx.out = &std::cout;
  CLI::App app{"gpusel: which GPU, bought or rented, runs this model, how fast, for how much"};
  app.name("gpusel");
  try {
    build(app, ctx);
    if (int rc = parse(app, argc, argv); rc >= 0) return rc;
    set_display(detect_display(ctx.color, ctx.wide));
    return ctx.action ? ctx.action() : 0;
  } catch (const Error& e) {
    std::cout.flush();
    std::cerr << "gpusel: error: " << safe_text(e.what()) << "\n";
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    std::cerr << "gpusel: error: internal: " << safe_text(e.what()) << "\n";
    return static_cast<int>(ExitCode::data);
  }
}

}  // namespace gpusel::cli
