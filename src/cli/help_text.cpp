#include "cli/help_text.hpp"

#include <fmt/format.h>

#include <map>

#include "cli/cli_tree.hpp"

namespace gpusel::cli {

const std::vector<std::string>& examples(const std::string& path) {
  static const std::map<std::string, std::vector<std::string>> m{
      {"recommend",
       {"gpusel recommend --params 7B --mode lora --budget 15000",
        "gpusel recommend --model llama-3.1-8b --mode qlora --budget 12000CNY --vendor nvidia",
        "gpusel recommend --model qwen2.5-14b --mode inference --rent --hours 100",
        "gpusel recommend --params 7B --mode lora --budget 15000 --format csv"}},
      {"check",
       {"gpusel check --gpu rtx-4090 --model llama-3.1-8b --mode qlora",
        "gpusel check --gpu rtx-4060-ti-16gb --params 13B --mode lora --format json"}},
      {"compare",
       {"gpusel compare rtx-4090 rtx-5090 rtx-a6000 --model qwen2.5-14b --mode qlora",
        "gpusel compare rtx-4090 rtx-a6000 --params 13B --mode lora --explain"}},
      {"estimate",
       {"gpusel estimate --model llama-3.1-8b --mode lora --explain",
        "gpusel estimate --params 70B --mode inference --precision int4 --format json"}},
      {"fit",
       {"gpusel fit --gpu rtx-4090 --model llama-3.1-8b --mode full",
        "gpusel fit --gpu a100-80gb-sxm --count 2 --params 70B --mode lora"}},
      {"cost",
       {"gpusel cost --gpu rtx-4090 --count 2 --rent-gpu a100-80gb-sxm --rent-count 1 "
        "--hours-per-day 8 --months 6",
        "gpusel cost --gpu rtx-4090 --hours-per-day 4 --months 12 --currency EUR --format json"}},
      {"models", {"gpusel models list", "gpusel models show llama-3.1-8b"}},
      {"models list", {"gpusel models list", "gpusel models list --format csv"}},
      {"models show",
       {"gpusel models show llama-3.1-8b", "gpusel models show qwen2.5-14b --format json"}},
      {"catalog",
       {"gpusel catalog list --vendor nvidia --min-vram 24", "gpusel catalog show rtx-4090"}},
      {"catalog list",
       {"gpusel catalog list --vendor nvidia --min-vram 24", "gpusel catalog list --format csv"}},
      {"catalog show",
       {"gpusel catalog show rtx-4090", "gpusel catalog show h100-sxm --format json"}},
      {"catalog validate",
       {"gpusel catalog validate", "gpusel catalog validate --as-of reviewed --format github"}},
      {"help",
       {"gpusel help recommend", "gpusel help catalog validate", "gpusel help environment"}},
      {"version", {"gpusel version"}},
      {"completions",
       {"gpusel completions bash", "gpusel completions zsh", "gpusel completions fish"}}};
  static const std::vector<std::string> none;
  auto it = m.find(path);
  return it == m.end() ? none : it->second;
}

void add_help_footers(CLI::App& root) {
  root.footer(
      "Examples:\n  gpusel recommend --params 7B --mode lora --budget 15000\n"
      "  gpusel check --gpu rtx-4090 --model llama-3.1-8b --mode qlora\n\n"
      "gpusel help COMMAND shows a command's options; gpusel help environment the environment "
      "variables.\nExit status: 0 ok, 1 a negative answer (nothing fits, check or validation "
      "failed), 2 usage error, 3 unreadable or invalid data.");
  for (const auto& node : command_tree(root)) {
    const auto& ex = examples(node.path);
    if (ex.empty()) continue;
    std::string text = "Examples:\n";
    for (const auto& e : ex) text += "  " + e + "\n";
    text.pop_back();
    const_cast<CLI::App*>(node.app)->footer(text);
  }
}

const std::vector<EnvVar>& environment_variables() {
  static const std::vector<EnvVar> v{
      {"GPUSEL_CATALOG", "GPU catalog JSON replacing the embedded one (as --catalog)."},
      {"GPUSEL_CLOUD", "Cloud offers JSON replacing the embedded one (as --cloud)."},
      {"GPUSEL_CURRENCY",
       "Currency of prices and of a --budget without one, when --currency is not given "
       "(ISO code: USD, CNY, EUR, JPY...)."},
      {"LC_ALL, LC_MONETARY, LANG",
       "Without GPUSEL_CURRENCY, the first of these that is set decides the currency by its "
       "region, POSIX order (zh_CN.UTF-8: CNY, de_DE: EUR, ja_JP: JPY); C, POSIX or a region "
       "gpusel does not know: USD. The header names the currency and where it came from; a "
       "bare --budget 15000 is read in it (write 15000USD or --currency USD for dollars)."},
      {"LC_ALL, LC_MESSAGES, LANG",
       "Without --lang, the first of these that is set decides the language of tables and "
       "messages, POSIX order: zh_CN, zh_SG or zh_Hans gives Simplified Chinese, anything else "
       "English. JSON and CSV output stay English."},
      {"NO_COLOR",
       "Set and not empty: no colour (no-color.org). --color always|never overrides it."},
      {"TERM", "dumb: no colour."},
      {"COLUMNS",
       "Width that tables fit into (low-priority columns dropped, long text wrapped); "
       "default the terminal's width, no limit in a pipe. --wide ignores it."},
      {"GPUSEL_THREADS",
       "Threads that read a data file of 4,096 records or more, rank a catalog of 2,048 "
       "cards or more and make a list's rows of 4,096 or more (1-64; default the CPUs gpusel "
       "may run on, at most 8). Answers are the same on any number."},
      {"GPUSEL_UPDATE_GOLDEN", "Tests only: re-record the golden outputs (ctest -R golden)."}};
  return v;
}

namespace {

// `text` in lines of at most `width` columns, each after `indent`.
std::string wrapped(const std::string& text, std::size_t width, const std::string& indent) {
  std::string out, line;
  for (std::size_t pos = 0; pos <= text.size();) {
    const std::size_t end = std::min(text.find(' ', pos), text.size());
    const std::string word = text.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.size() + 1 + word.size() > width)
      out += indent + line + "\n", line.clear();
    line += (line.empty() ? "" : " ") + word;
  }
  return out + indent + line + "\n";
}

}  // namespace

std::string environment_text() {
  std::string s = "Environment variables gpusel reads:\n\n";
  for (const auto& e : environment_variables())
    s += "  " + e.name + "\n" + wrapped(e.meaning, 72, "      ");
  return s + "\nFlags given on the command line override the environment.\n";
}

const std::vector<ExitStatus>& exit_statuses() {
  static const std::vector<ExitStatus> v{
      {0, "ok"},
      {1, "a negative answer: nothing fits, a check failed, validation found errors"},
      {2, "usage error: a bad flag or value"},
      {3, "unreadable or invalid input data (catalog, rules, models, cloud offers)"}};
  return v;
}

}  // namespace gpusel::cli
