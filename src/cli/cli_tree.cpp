#include "cli/cli_tree.hpp"

#include <algorithm>
#include <map>

#include "cli/terminal.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/i18n/i18n.hpp"

namespace gpusel::cli {
namespace {

bool visible(const CLI::App* a) { return !a->get_group().empty(); }

// Values that come from the data (ids), the file system or fixed lists that the option's
// help does not spell as a|b|c.
const std::map<std::string, std::vector<std::string>>& named_values() {
  static const std::map<std::string, std::vector<std::string>> m{
      {"--gpu", {"@gpus"}},
      {"--rent-gpu", {"@gpus"}},
      {"--exclude", {"@gpus"}},
      {"compare|gpus", {"@gpus"}},
      {"catalog show|id", {"@gpus"}},
      {"--model", {"@models"}},
      {"models show|id", {"@models"}},
      {"--catalog", {"@files"}},
      {"--catalog-add", {"@files"}},
      {"--cloud", {"@files"}},
      {"--cloud-add", {"@files"}},
      {"--rules", {"@files"}},
      {"--models", {"@files"}},
      {"--ownership", {"@files"}},
      {"catalog validate|files", {"@files"}},
      {"completions|shell", {"@shells"}},
      {"help|command", {"@commands"}},
      {"--vendor", {"nvidia", "amd", "intel", "huawei", "apple"}},
      {"--segment", {"consumer", "workstation", "datacenter"}},
      {"--ecosystem", {"cuda", "rocm", "oneapi", "synapseai", "cann", "metal"}}};
  return m;
}

// "inference|full|lora (default inference)" -> {inference, full, lora}: the convention every
// enum option's help follows, so a new option completes without being registered here.
std::vector<std::string> values_in_help(const std::string& help) {
  std::size_t end = 0;
  while (end < help.size() && (std::isalnum(static_cast<unsigned char>(help[end])) ||
                               std::string_view("|-_.").find(help[end]) != std::string_view::npos))
    ++end;
  const std::string head = help.substr(0, end);
  if (head.find('|') == std::string::npos) return {};
  std::vector<std::string> out;
  for (std::size_t pos = 0; pos <= head.size();) {
    const std::size_t bar = std::min(head.find('|', pos), head.size());
    if (bar > pos) out.push_back(head.substr(pos, bar - pos));
    pos = bar + 1;
  }
  return out;
}

std::string path_of(const CLI::App& cmd) {
  std::string path;
  for (const CLI::App* a = &cmd; a && a->get_parent(); a = a->get_parent())
    path = a->get_name() + (path.empty() ? "" : " " + path);
  return path;
}

// " (did you mean X?)" for the nearest names only: a typo is one or two edits away, and a
// list of five loosely similar options helps nobody.
std::string nearest_names(const std::string& word, const std::vector<std::string>& names) {
  std::size_t best = SIZE_MAX;
  for (const auto& n : names) best = std::min(best, edit_distance(word, n));
  if (best > std::max<std::size_t>(2, word.size() / 4)) return did_you_mean(word, names);
  std::vector<std::string> near;
  for (const auto& n : names)
    if (edit_distance(word, n) == best && std::find(near.begin(), near.end(), n) == near.end())
      near.push_back(n);
  return did_you_mean(word, near);
}

const CLI::Option* find_option(const CLI::App* cmd, const std::string& name) {
  for (const CLI::App* a = cmd; a; a = a->get_parent())
    if (const CLI::Option* o = a->get_option_no_throw(name)) return o;
  return nullptr;
}

std::vector<std::string> long_names(const CLI::App* cmd) {
  std::vector<std::string> out;
  for (const CLI::App* a = cmd; a; a = a->get_parent())
    for (const auto& o : command_options(*a))
      for (const auto& n : o.names)
        if (n.size() > 2) out.push_back(n);
  return out;
}

const CLI::App* subcommand(const CLI::App* cmd, const std::string& name) {
  for (const CLI::App* s : cmd->get_subcommands([](const CLI::App*) { return true; }))
    if (s->get_name() == name) return s;
  return nullptr;
}

}  // namespace

std::vector<CommandNode> command_tree(const CLI::App& root) {
  std::vector<CommandNode> out;
  for (const CLI::App* s : root.get_subcommands([](const CLI::App* a) { return visible(a); })) {
    out.push_back({path_of(*s), s});
    for (auto& n : command_tree(*s)) out.push_back(std::move(n));
  }
  return out;
}

std::vector<OptionInfo> command_options(const CLI::App& cmd) {
  std::vector<OptionInfo> out;
  const std::string path = path_of(cmd);
  for (const CLI::Option* o : cmd.get_options()) {
    if (o->get_group().empty()) continue;  // hidden
    OptionInfo i;
    i.positional = !o->nonpositional();
    for (const auto& s : o->get_snames()) i.names.push_back("-" + s);
    for (const auto& l : o->get_lnames()) i.names.push_back("--" + l);
    // The long spelling names an option; a positional is known by its own name.
    i.name = i.names.empty() ? o->get_name() : i.names.back();
    for (const auto& n : i.names)
      if (n.size() > 2) {
        i.name = n;
        break;
      }
    i.description = o->get_description();
    i.type_name = o->get_type_name();
    i.takes_value = i.positional || o->get_type_size_max() > 0;
    const auto& named = named_values();
    auto it = named.find(i.positional ? path + "|" + i.name : i.name);
    i.values = it != named.end() ? it->second : values_in_help(i.description);
    out.push_back(std::move(i));
  }
  return out;
}

std::string command_name(const CLI::App& cmd) {
  const std::string path = path_of(cmd);
  return "gpusel" + (path.empty() ? "" : " " + path);
}

std::string unknown_word(const CLI::App& root, const std::vector<std::string>& args,
                         const CLI::App** deepest) {
  const CLI::App* cur = &root;
  std::string error;
  for (std::size_t i = 0; i < args.size() && error.empty(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (a.size() > 1 && a[0] == '-') {
      const std::string name = a.substr(0, a.find('='));
      const CLI::Option* o = find_option(cur, name);
      if (!o)
        error = trf("unknown option '{}' for '{}'", quote_input(name), command_name(*cur)) +
                nearest_names(name, long_names(cur));
      else if (o->get_expected_max() > 0 && a.find('=') == std::string::npos)
        ++i;  // its value
      continue;
    }
    if (const CLI::App* s = subcommand(cur, a)) {
      cur = s;
      continue;
    }
    const bool wants_command =
        !cur->get_subcommands([](const CLI::App* x) { return visible(x); }).empty() &&
        cur->get_options([](const CLI::Option* o) { return !o->nonpositional(); }).empty();
    if (wants_command) {
      std::vector<std::string> names;
      for (const CLI::App* s : cur->get_subcommands([](const CLI::App* x) { return visible(x); }))
        names.push_back(s->get_name());
      error = (cur == &root
                   ? trf("unknown command '{}'", quote_input(a))
                   : trf("unknown command '{}' for '{}'", quote_input(a), command_name(*cur))) +
              nearest_names(a, names);
    }
  }
  *deepest = cur;
  return error;
}

std::string conversion_message(const CLI::App& cmd, const std::string& what) {
  const std::string prefix = "Could not convert: ", sep = " = ";
  const std::size_t at = what.find(sep);
  if (what.rfind(prefix, 0) != 0 || at == std::string::npos) return what;
  const std::string name = what.substr(prefix.size(), at - prefix.size());
  const std::string value = what.substr(at + sep.size());
  const CLI::Option* o = find_option(&cmd, name);
  const std::string type = o ? o->get_type_name() : "";
  const bool whole = type == "INT" || type == "UINT";
  const std::string kind = whole ? "a whole number" : type == "FLOAT" ? "a number" : "valid";
  // A flood stays one short line.
  const std::string shown = value.size() > 32 ? value.substr(0, 32) + "..." : value;
  // Digits alone (with a sign) that still failed: beyond what the type holds.
  const std::size_t first = value.find_first_not_of("+-");
  const bool digits =
      first < value.size() && value.find_first_not_of("0123456789", first) == std::string::npos;
  if (whole && digits) return name + " " + quote_input(shown) + " is out of range";
  return name + " '" + quote_input(shown) + "' is not " + kind;
}

}  // namespace gpusel::cli
