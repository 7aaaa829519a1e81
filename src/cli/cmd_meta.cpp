// Commands about gpusel itself: help, version, completions, and the hidden ones the build
// and the completion scripts call (manpage, __complete).
#include <fmt/format.h>

#include "cli/cli_tree.hpp"
#include "cli/cmd_meta.hpp"
#include "cli/completion.hpp"
#include "cli/help_text.hpp"
#include "cli/manpage.hpp"
#include "cli/terminal.hpp"
#include "cli/workload_options.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"

namespace gpusel::cli {
namespace {

// `gpusel help catalog list` prints what `gpusel catalog list --help` prints.
int run_help(Context& ctx, const CLI::App& root, const std::vector<std::string>& words) {
  if (!words.empty() && words[0] == "environment") {
    if (words.size() > 1)
      throw usage_error("no help on '" + quote_input(words[1]) +
                        "': gpusel help environment takes nothing after it");
    *ctx.out << environment_text() << std::flush;
    return 0;
  }
  const CLI::App* cmd = &root;
  for (const auto& w : words) {
    const CLI::App* next = nullptr;
    std::vector<std::string> names;
    for (const CLI::App* s :
         cmd->get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); })) {
      names.push_back(s->get_name());
      if (s->get_name() == w) next = s;
    }
    if (cmd == &root) names.push_back("environment");
    if (!next)
      throw usage_error("no help on '" + quote_input(w) + "'" + did_you_mean(w, names) +
                        "; gpusel help lists the commands");
    cmd = next;
  }
  // The formatter directly: App::help would show the help of `help`, the parsed command.
  *ctx.out << cmd->get_formatter()->make_help(cmd, command_name(*cmd), CLI::AppFormatMode::Normal)
           << std::flush;
  return 0;
}

// Ids for the completion scripts: quiet and empty when the data cannot be read.
int run_complete(Context& ctx, const CLI::App& root, const std::string& what) {
  std::string out;
  try {
    if (what == "gpus")
      for (const auto& g : ctx.catalog().gpus) out += g.id + "\n";
    else if (what == "models")
      for (const auto& m : load_models("")) out += m.id + "\n";
    else if (what == "commands")
      for (const auto& n : command_tree(root)) out += n.path + "\n";
  } catch (const Error&) {
    return 0;
  }
  *ctx.out << out << std::flush;
  return 0;
}

}  // namespace

void add_meta_commands(CLI::App& app, Context& ctx) {
  auto words = std::make_shared<std::vector<std::string>>();
  auto* help = app.add_subcommand("help", "Show a command's help, or the environment variables");
  help->add_option("command", *words, "a command (catalog list, ...) or 'environment'");
  help->callback([&ctx, &app, words] {
    ctx.action = [&ctx, &app, words] { return run_help(ctx, app, *words); };
  });

  auto* version = app.add_subcommand("version", "Print gpusel's version");
  version->callback([&ctx] {
    ctx.action = [&ctx] {
      *ctx.out << "gpusel " << GPUSEL_VERSION << "\n" << std::flush;
      return 0;
    };
  });

  auto shell = std::make_shared<std::string>();
  auto* comp =
      app.add_subcommand("completions", "Print the shell completion script for bash|zsh|fish");
  comp->add_option("shell", *shell, "bash|zsh|fish")->required();
  comp->callback([&ctx, &app, shell] {
    ctx.action = [&ctx, &app, shell] {
      *ctx.out << completion_script(app, *shell) << std::flush;
      return 0;
    };
  });

  auto* man = app.add_subcommand("manpage", "Print the gpusel(1) man page (roff)")->group("");
  man->callback([&ctx, &app] {
    ctx.action = [&ctx, &app] {
      *ctx.out << man_page(app) << std::flush;
      return 0;
    };
  });

  auto what = std::make_shared<std::string>();
  auto* complete = app.add_subcommand("__complete", "ids for the completion scripts")->group("");
  complete->add_option("what", *what, "gpus|models|commands")->required();
  complete->callback([&ctx, &app, what] {
    ctx.action = [&ctx, &app, what] { return run_complete(ctx, app, *what); };
  });
}

}  // namespace gpusel::cli
