#include "cli/completion.hpp"

#include <fmt/format.h>

#include <set>

#include "cli/cli_tree.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"

namespace gpusel::cli {
namespace {

struct Level {
  std::string path;  // "" for gpusel itself
  std::vector<std::string> subcommands, sub_descriptions;
  std::vector<OptionInfo> options;  // its own; the root's apply everywhere
};

std::vector<Level> levels(const CLI::App& root) {
  std::vector<Level> out;
  auto add = [&out](const std::string& path, const CLI::App& app) {
    Level l{path, {}, {}, command_options(app)};
    for (const CLI::App* s :
         app.get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); })) {
      l.subcommands.push_back(s->get_name());
      l.sub_descriptions.push_back(s->get_description());
    }
    out.push_back(std::move(l));
  };
  add("", root);
  for (const auto& n : command_tree(root)) add(n.path, *n.app);
  return out;
}

std::string join(const std::vector<std::string>& v, const std::string& sep = " ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// Option names that take a value, across all commands: the scripts skip the word after them.
std::string value_options(const std::vector<Level>& ls) {
  std::set<std::string> names;
  for (const auto& l : ls)
    for (const auto& o : l.options)
      if (o.takes_value && !o.positional) names.insert(o.names.begin(), o.names.end());
  return join({names.begin(), names.end()});
}

// The data functions bash and zsh share (plain `case` and `echo`, valid in both).
std::string shared_functions(const std::vector<Level>& ls) {
  std::string cmds, opts, vals, globals;
  for (const auto& l : ls) {
    if (!l.subcommands.empty())
      cmds += fmt::format("    \"{}\") echo \"{}\" ;;\n", l.path, join(l.subcommands));
    std::vector<std::string> names;
    for (const auto& o : l.options)
      if (!o.positional) names.insert(names.end(), o.names.begin(), o.names.end());
    opts += fmt::format("    \"{}\") echo \"{}{}\" ;;\n", l.path, join(names),
                        l.path.empty() ? "" : " $(_gpusel_opts \"\")");
    for (const auto& o : l.options) {
      if (!o.takes_value) continue;
      const std::string v = join(o.values);
      if (o.positional)
        vals += fmt::format("    \"{}|\") echo \"{}\" ;;\n", l.path, v);
      else
        for (const auto& n : o.names)
          (l.path.empty() ? globals : vals) += fmt::format("    {}\"{}|{}\") echo \"{}\" ;;\n",
                                                           l.path.empty() ? "*" : "", l.path, n, v);
    }
  }
  return "_gpusel_cmds() {\n  case \"$1\" in\n" + cmds + "  esac\n}\n\n" +
         "_gpusel_opts() {\n  case \"$1\" in\n" + opts + "  esac\n}\n\n" +
         "# The values of option $2 (or of the positional, $2 empty) in command $1: words,\n"
         "# @gpus, @models, @files, @commands or @shells; empty for free text.\n"
         "_gpusel_vals() {\n  case \"$1|$2\" in\n" +
         vals + globals + "  esac\n}\n\n" + "_gpusel_value_options=\"" + value_options(ls) + "\"\n";
}

constexpr const char* bash_driver = R"SH(
_gpusel_path() {
  local i w sub
  _gpusel_at=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="${COMP_WORDS[i]}"
    if [[ "$w" == -* ]]; then
      [[ " $_gpusel_value_options " == *" $w "* ]] && ((i++))
      continue
    fi
    for sub in $(_gpusel_cmds "$_gpusel_at"); do
      [[ "$w" == "$sub" ]] && _gpusel_at="${_gpusel_at:+$_gpusel_at }$w" && break
    done
  done
}

_gpusel_values() {
  local bin="${COMP_WORDS[0]}"
  case "$1" in
    @gpus) COMPREPLY=($(compgen -W "$("$bin" __complete gpus 2>/dev/null)" -- "$2")) ;;
    @models) COMPREPLY=($(compgen -W "$("$bin" __complete models 2>/dev/null)" -- "$2")) ;;
    @commands) COMPREPLY=($(compgen -W "environment $(_gpusel_cmds "")" -- "$2")) ;;
    @shells) COMPREPLY=($(compgen -W "bash zsh fish" -- "$2")) ;;
    @files) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$2")) ;;
    *) COMPREPLY=($(compgen -W "$1" -- "$2")) ;;
  esac
}

_gpusel() {
  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" subs
  COMPREPLY=()
  _gpusel_path
  if [[ "$prev" == "=" && COMP_CWORD -ge 2 ]]; then prev="${COMP_WORDS[COMP_CWORD-2]}"; fi
  if [[ "$cur" == "=" ]]; then prev="${COMP_WORDS[COMP_CWORD-1]}"; cur=""; fi
  if [[ "$prev" == -* && " $_gpusel_value_options " == *" $prev "* ]]; then
    _gpusel_values "$(_gpusel_vals "$_gpusel_at" "$prev")" "$cur"
    return 0
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_gpusel_opts "$_gpusel_at")" -- "$cur"))
    return 0
  fi
  subs="$(_gpusel_cmds "$_gpusel_at")"
  if [[ -n "$subs" ]]; then
    COMPREPLY=($(compgen -W "$subs" -- "$cur"))
  else
    _gpusel_values "$(_gpusel_vals "$_gpusel_at" "")" "$cur"
  fi
  return 0
}

complete -F _gpusel gpusel
)SH";

constexpr const char* zsh_driver = R"SH(
_gpusel_values() {
  case "$1" in
    @gpus) compadd -- ${(f)"$(${words[1]} __complete gpus 2>/dev/null)"} ;;
    @models) compadd -- ${(f)"$(${words[1]} __complete models 2>/dev/null)"} ;;
    @commands) compadd -- environment ${=$(_gpusel_cmds "")} ;;
    @shells) compadd -- bash zsh fish ;;
    @files) _files ;;
    "") _message 'value' ;;
    *) compadd -- ${=1} ;;
  esac
}

_gpusel() {
  local at="" i w cur prev vals
  local -a subs
  for (( i = 2; i < CURRENT; i++ )); do
    w="${words[i]}"
    if [[ "$w" == -* ]]; then
      [[ " $_gpusel_value_options " == *" ${w%%=*} "* && "$w" != *=* ]] && (( i++ ))
      continue
    fi
    subs=(${=$(_gpusel_cmds "$at")})
    (( ${subs[(Ie)$w]} )) && at="${at:+$at }$w"
  done
  cur="${words[CURRENT]}"
  prev="${words[CURRENT-1]}"
  if [[ "$cur" == --*=* ]]; then
    prev="${cur%%=*}"
    compset -P '*='
  fi
  if [[ "$prev" == -* && " $_gpusel_value_options " == *" $prev "* ]]; then
    _gpusel_values "$(_gpusel_vals "$at" "$prev")"
    return
  fi
  if [[ "$cur" == -* ]]; then
    compadd -- ${=$(_gpusel_opts "$at")}
    return
  fi
  subs=(${=$(_gpusel_cmds "$at")})
  if (( $#subs )); then
    compadd -- $subs
  else
    _gpusel_values "$(_gpusel_vals "$at" "")"
  fi
}

if [[ "${zsh_eval_context[-1]}" == loadautofunc ]]; then
  _gpusel "$@"
else
  compdef _gpusel gpusel
fi
)SH";

std::string fish_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  return q + "'";
}

std::string fish_values(const std::vector<std::string>& v) {
  const std::string w = join(v);
  if (w == "@gpus" || w == "@models") return " -x -a '(__gpusel_ids " + w.substr(1) + ")'";
  if (w == "@files") return " -r -F";
  if (w == "@commands") return " -x -a '(__gpusel_cmds \"\") environment'";
  if (w == "@shells") return " -x -a 'bash zsh fish'";
  return w.empty() ? " -x" : " -x -a " + fish_quote(w);
}

std::string fish_option(const std::string& at, const OptionInfo& o) {
  std::string line = "complete -c gpusel" + (at.empty() ? "" : " -n " + fish_quote(at));
  if (o.positional) return line + fish_values(o.values) + "\n";
  for (const auto& n : o.names) line += n.size() == 2 ? " -s " + n.substr(1) : " -l " + n.substr(2);
  if (o.takes_value) line += fish_values(o.values);
  // The help without the values it starts with ("inference|full (default...)"): fish lists
  // the values already.
  std::string d = o.description;
  if (!o.values.empty() && d.rfind(join(o.values, "|"), 0) == 0)
    d.erase(0, join(o.values, "|").size());
  d = d.substr(d.find_first_not_of(" :") == std::string::npos ? d.size()
                                                              : d.find_first_not_of(" :"));
  d = d.substr(0, d.find_first_of("(;\n"));
  return line + " -d " + fish_quote(d.substr(0, std::min<std::size_t>(d.size(), 60))) + "\n";
}

constexpr const char* fish_driver = R"SH(
# The command the words so far have reached ("catalog list"); the words after options
# that take a value are skipped.
function __gpusel_path
    set -l words (commandline -opc)
    set -e words[1]
    set -l at ''
    set -l skip 0
    for w in $words
        if test $skip -eq 1
            set skip 0
        else if string match -q -- '-*' $w
            contains -- $w $__gpusel_value_options; and set skip 1
        else if contains -- $w (__gpusel_cmds "$at")
            set at (string trim -- "$at $w")
        end
    end
    echo $at
end

function __gpusel_at
    test (__gpusel_path) = "$argv[1]"
end

function __gpusel_ids
    set -l bin (commandline -opc)[1]
    $bin __complete $argv[1] 2>/dev/null
end

complete -c gpusel -f
)SH";

std::string fish_script(const std::vector<Level>& ls) {
  std::string cmds;
  for (const auto& l : ls)
    if (!l.subcommands.empty())
      cmds += fmt::format("        case {}\n            printf '%s\\n' {}\n", fish_quote(l.path),
                          join(l.subcommands));
  std::string s = "function __gpusel_cmds\n    switch \"$argv[1]\"\n" + cmds + "    end\nend\n\n";
  s += "set -g __gpusel_value_options " + value_options(ls) + "\n" + fish_driver;
  for (const auto& l : ls) {
    const std::string cond = "__gpusel_at '" + l.path + "'";
    for (std::size_t i = 0; i < l.subcommands.size(); ++i)
      s += "complete -c gpusel -n " + fish_quote(cond) + " -a " + fish_quote(l.subcommands[i]) +
           " -d " + fish_quote(l.sub_descriptions[i]) + "\n";
    for (const auto& o : l.options) s += fish_option(l.path.empty() ? "" : cond, o);
  }
  return s;
}

}  // namespace

std::string completion_script(const CLI::App& root, const std::string& shell) {
  const auto ls = levels(root);
  const std::string head = "completion for gpusel, generated by `gpusel completions " + shell +
                           "` from its command tree: regenerate after an upgrade.\n";
  if (shell == "bash") return "# bash " + head + "\n" + shared_functions(ls) + bash_driver;
  if (shell == "zsh")
    return "#compdef gpusel\n# zsh " + head + "\n" + shared_functions(ls) + zsh_driver;
  if (shell == "fish") return "# fish " + head + "\n" + fish_script(ls);
  throw usage_error("no completions for shell '" + quote_input(shell) + "'" +
                    did_you_mean(shell, {"bash", "zsh", "fish"}) + " (use bash, zsh or fish)");
}

}  // namespace gpusel::cli
