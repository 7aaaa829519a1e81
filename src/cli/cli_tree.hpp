#pragma once
// The command tree as data: what `help`, the man page, the shell completions and "did you
// mean" read, so none of them can drift from the options the parser really takes.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace gpusel::cli {

struct CommandNode {
  std::string path;  // "catalog list"
  const CLI::App* app;
};

// Every visible command below `root`, depth first, in definition order.
std::vector<CommandNode> command_tree(const CLI::App& root);

struct OptionInfo {
  std::string name;                // "--mode", or the positional's name ("gpus")
  std::vector<std::string> names;  // every spelling: "-V", "--version", "--no-grad-ckpt"
  std::string description;
  std::string type_name;  // CLI11's: TEXT, INT, FLOAT...
  bool positional = false;
  bool takes_value = false;
  // What a value may be: the enum's words, or one of "@gpus", "@models", "@files",
  // "@commands", "@shells"; empty when free text.
  std::vector<std::string> values;
};

// The options of one command (not its parents'), help flag last.
std::vector<OptionInfo> command_options(const CLI::App& cmd);

// A command's full name: "gpusel catalog list".
std::string command_name(const CLI::App& cmd);

// When `args` name a command or an option that does not exist, the error for it with the
// nearest real names ("unknown command 'recomend' (did you mean recommend?)"); else "".
// `deepest` is set to the last command the arguments reached.
std::string unknown_word(const CLI::App& root, const std::vector<std::string>& args,
                         const CLI::App** deepest);

// CLI11's "Could not convert: --batch = abc" as a sentence naming what the option takes
// ("--batch 'abc' is not a whole number"; a number beyond the type's range says so); any
// other message unchanged.
std::string conversion_message(const CLI::App& cmd, const std::string& what);

}  // namespace gpusel::cli
