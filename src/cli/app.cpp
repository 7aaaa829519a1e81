#include "cli/app.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "cli/cli_tree.hpp"
#include "cli/cmd_cost.hpp"
#include "cli/cmd_estimate.hpp"
#include "cli/cmd_host.hpp"
#include "cli/cmd_meta.hpp"
#include "cli/cmd_recommend.hpp"
#include "cli/cmd_serve.hpp"
#include "cli/context.hpp"
#include "cli/help_text.hpp"
#include "cli/option_values.hpp"
#include "cli/terminal.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/base/input_text.hpp"
#include "gpusel/base/output_guard.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/base/threads.hpp"
#include "gpusel/i18n/i18n.hpp"

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
  app.add_option("--lang", ctx.lang,
                 "en|zh-CN: the language of tables and messages (default: LC_ALL, "
                 "LC_MESSAGES or LANG; zh_CN gives Simplified Chinese, anything else English)");
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// The --format value of the command that ran ("" when it has none).
std::string chosen_format(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) {
    if (const CLI::Option* o = sub->get_option_no_throw("--format"); o && o->count() > 0)
      return o->results().front();
    if (std::string f = chosen_format(*sub); !f.empty()) return f;
  }
  return "";
}

// --lang, else the locale (POSIX order). Machine formats are always English: JSON, CSV and
// CI annotations are read by programs that match on their texts.
Lang choose_language(const CLI::App& app, const std::string& flag) {
  const std::optional<Lang> asked = flag.empty() ? std::nullopt : parse_lang(flag);
  if (!flag.empty() && !asked)
    throw usage_error("--lang " + quote_input(flag) + ": must be en or zh-CN");
  const std::string format = chosen_format(app);
  if (format == "json" || format == "csv" || format == "github") return Lang::en;
  return asked ? *asked : lang_from_locale(env("LC_ALL"), env("LC_MESSAGES"), env("LANG"));
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
  add_serve_command(app, ctx);
  add_catalog_commands(app, ctx);
  add_cloud_commands(app, ctx);
  add_plot_command(app, ctx);
  add_host_commands(app, ctx);
  add_meta_commands(app, ctx);
  add_help_footers(app);
}

// CLI11's message, or ours when a word is not a command or option at all (with the nearest
// real ones), and the help of the command the arguments reached.
int usage(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const CLI::App* reached = &app;
  std::string msg = unknown_word(app, args, &reached);
  if (msg.empty()) msg = clip_words(conversion_message(*reached, e.what()));
  std::cerr << guard_output(tr("gpusel: error: ") + safe_cell(msg) +
                                trf("; see {} --help", command_name(*reached)),
                            OutputKind::text)
            << "\n";
  return static_cast<int>(ExitCode::usage);
}

// A usage error is written before --lang is parsed: the language it asks for, read off the
// words themselves ("--lang zh-CN", "--lang=zh-CN"), so that error speaks it too. A bad value
// is left to the parsed option's own message.
void language_from_words(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--") return;
    std::optional<Lang> l;
    if (a == "--lang" && i + 1 < argc) l = parse_lang(argv[i + 1]);
    if (a.rfind("--lang=", 0) == 0) l = parse_lang(std::string(a.substr(7)));
    if (l) set_language(*l);
  }
}

int parse(CLI::App& app, int argc, char** argv) {
  language_from_words(argc, argv);
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

// The longest run of non-space bytes an error line keeps: room for a long file path with its
// line and column, far below a value that floods (a 30,000-digit number).
constexpr std::size_t kMaxWordInError = 256;

namespace {

// What was written to standard output reached it: a full disk or a closed descriptor is an
// error a script must see (coreutils' "write error"), never exit 0 with the output lost. A
// reader that went away (EPIPE) stays quiet, as SIGPIPE would have ended the run.
int finish_stdout(int rc) {
  errno = 0;
  std::cout.flush();
  const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
  const int err = errno;
  if (!failed || err == EPIPE) return rc;
  std::cerr << guard_output(
                   tr("gpusel: error: ") + trf("cannot write standard output: {}",
                                               err ? std::strerror(err) : tr("write error")),
                   OutputKind::text)
            << "\n";
  return rc != 0 ? rc : static_cast<int>(ExitCode::usage);
}

// A data file named on the command line (or by GPUSEL_CATALOG/GPUSEL_CLOUD) exists, whatever
// the command: one that does not read it must not let a mistyped path pass unnoticed. Only
// stat(2): a FIFO is not opened here (its reader is the command that loads it).
void check_named_files(const Context& ctx) {
  std::vector<std::string> named = ctx.paths.catalog_add;
  named.insert(named.end(), ctx.cloud_paths.cloud_add.begin(), ctx.cloud_paths.cloud_add.end());
  for (const std::string* p : {&ctx.paths.catalog, &ctx.cloud_paths.cloud})
    if (!p->empty()) named.push_back(*p);
  for (const auto& path : named) check_input_file(path);
}

// A data file the user names is read and checked before any command runs, used by it or not:
// a truncated --cloud given to `estimate` is exit 3 naming the file, line and column, never a
// normal answer that silently ignored it. The catalog commands read the catalog themselves,
// some with each card's source text (a second read, which a FIFO cannot give), so they are
// left to it.
void load_named_data(const CLI::App& app, Context& ctx) {
  if (app.got_subcommand("catalog")) return;
  if (!ctx.paths.catalog.empty() || !ctx.paths.catalog_add.empty()) ctx.catalog();
  if (!ctx.cloud_paths.cloud.empty() || !ctx.cloud_paths.cloud_add.empty()) ctx.cloud();
}

// The run itself; run() adds the check that its output reached standard output.
int run_command(int argc, char** argv) {
  // `gpusel ... | head` ends quietly when head stops reading (status 141, no message), even
  // when the parent (a Python subprocess, say) left SIGPIPE ignored.
  std::signal(SIGPIPE, SIG_DFL);
  Context ctx;
  ctx.out = &std::cout;
  // The locale's language from the start, so that usage errors speak it too; --lang and the
  // output format settle it after parsing.
  set_language(lang_from_locale(env("LC_ALL"), env("LC_MESSAGES"), env("LANG")));
  CLI::App app{"gpusel: which GPU, bought or rented, runs this model, how fast, for how much"};
  app.name("gpusel");
  try {
    build(app, ctx);
    if (int rc = parse(app, argc, argv); rc >= 0) return rc;
    set_display(detect_display(ctx.color, ctx.wide));
    set_language(choose_language(app, ctx.lang));
    check_given_values(app);  // in the chosen language
    // Commands that read no data (and the completion scripts' quiet id lookups) run whatever
    // GPUSEL_CATALOG names.
    const bool reads_data =
        !(app.got_subcommand("help") || app.got_subcommand("version") ||
          app.got_subcommand("completions") || app.got_subcommand("__complete"));
    if (reads_data) {
      check_named_files(ctx);
      load_named_data(app, ctx);
    }
    worker_threads();  // a bad GPUSEL_THREADS is refused on every run, not only on a long file
    return ctx.action ? ctx.action() : 0;
  } catch (const Error& e) {
    std::cout.flush();
    // Every value a message quotes should be cut where it is quoted (quote_input); this is
    // the net for any that is not, so no input can flood a terminal or a CI log.
    std::cerr << guard_output(
                     tr("gpusel: error: ") + safe_cell(clip_words(e.what(), kMaxWordInError)),
                     OutputKind::text)
              << "\n";
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    std::cerr << guard_output(tr("gpusel: error: ") +
                                  "internal: " + safe_cell(clip_words(e.what(), kMaxWordInError)),
                              OutputKind::text)
              << "\n";
    return static_cast<int>(ExitCode::data);
  }
}

}  // namespace

int run(int argc, char** argv) { return finish_stdout(run_command(argc, argv)); }

}  // namespace gpusel::cli
