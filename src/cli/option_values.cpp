#include "cli/option_values.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/i18n/i18n.hpp"

namespace gpusel::cli {
namespace {

// Options whose 0 is no amount at all (not a documented "none", as --ttft-ms 0 is).
// --prompt-len 0 would read as "not given" (all of --seq-len).
constexpr std::array<std::string_view, 7> kPositive = {
    "--years",     "--vocab", "--image-size", "--lora-rank", "--epochs", "--trainable-layers",
    "--prompt-len"};

// Options that multiply into money or time: bounds far beyond any real project, so that a
// value like 1e308 is refused rather than printed as inf, nan or a 300-digit cost.
struct Bound {
  std::string_view name;
  double min_positive, max;  // min_positive: the smallest value above 0 that means anything
};
constexpr std::array<Bound, 12> kBounds{{{"--months", 0, 1200},
                                         {"--years", 1.0 / 365, 100},
                                         {"--hours", 0, 1e6},
                                         {"--epochs", 0, 1e6},
                                         {"--kwh-price", 0, 1e5},
                                         {"--storage-gb", 0, 1e9},
                                         {"--egress-gb", 0, 1e9},
                                         {"--storage-price", 0, 1e5},
                                         {"--egress-price", 0, 1e5},
                                         {"--rps", 0, 1e6},
                                         {"--users", 1, 1e8},
                                         {"--ds-live-params", 0, 1e15}}};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Digits from `i`; returns how many.
std::size_t digits(std::string_view s, std::size_t& i) {
  const std::size_t from = i;
  while (i < s.size() && is_digit(s[i])) ++i;
  return i - from;
}

// A plain decimal: [+-]digits[.digits][e[+-]digits] (or .digits), nothing before or after.
// CLI11 also reads 0x10, 0b101 and 0o17 as numbers; a user writing them meant something else.
bool plain_decimal(std::string_view s, bool integer) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  std::size_t n = digits(s, i);
  if (!integer && i < s.size() && s[i] == '.') {
    ++i;
    n += digits(s, i);
  }
  if (n == 0) return false;
  if (!integer && i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits(s, i) == 0) return false;
  }
  return i == s.size();
}

std::string option_name(const CLI::Option& o) {
  return o.get_lnames().empty() ? o.get_name() : "--" + o.get_lnames().front();
}

void check_value(const CLI::Option& o, const std::string& value) {
  const std::string name = option_name(o);
  if (trim(value).empty())
    throw usage_error(trf("{} was given an empty value: give one, or leave the option out", name));
  const std::string type = o.get_type_name();
  const bool integer = type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0;
  if (!integer && type.rfind("FLOAT", 0) != 0) return;
  const std::string v(trim(value));
  if (!plain_decimal(v, integer))
    throw usage_error(trf("{} '{}' is not a decimal number", name, quote_input(value)));
  const double x = std::strtod(v.c_str(), nullptr);
  if (!std::isfinite(x))
    throw usage_error(trf("{} '{}' is out of range", name, quote_input(value)));
  if (x < 0) throw usage_error(trf("{} {} must not be negative", name, quote_input(value)));
  if (x == 0 && std::find(kPositive.begin(), kPositive.end(), name) != kPositive.end())
    throw usage_error(trf("{} must be positive, not 0", name));
  for (const Bound& b : kBounds)
    if (b.name == name && (x > b.max || (x > 0 && x < b.min_positive)))
      throw usage_error(trf("{} {} is out of range ({:g} to {:g})", name, quote_input(value),
                            b.min_positive, b.max));
}

// Every given value of every parsed command, with its option.
void collect(const CLI::App& app, std::vector<std::pair<const CLI::Option*, std::string>>& out) {
  for (const CLI::Option* o : app.get_options())
    if (o->get_type_size_max() > 0)
      for (const std::string& value : o->results()) out.emplace_back(o, value);
  for (const CLI::App* sub : app.get_subcommands())
    if (sub->parsed()) collect(*sub, out);
}

// -o naming a file another option reads (--catalog, --rules...) would replace the user's
// input with the answer: refused before anything is read or written.
void check_output_is_no_input(const CLI::App& root) {
  std::vector<std::pair<const CLI::Option*, std::string>> given;
  collect(root, given);
  for (const auto& [out, path] : given) {
    if (option_name(*out) != "--output" || path == "-") continue;
    for (const auto& [in, other] : given) {
      std::error_code ec;
      if (in == out || !std::filesystem::is_regular_file(other, ec)) continue;
      if (std::filesystem::equivalent(path, other, ec))
        throw usage_error(trf("-o {} is the file {} reads: write the output elsewhere",
                              quote_input(path, 256), option_name(*in)));
    }
  }
}

void check_app(const CLI::App& app) {
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_type_size_max() <= 0 || o->count() == 0) continue;
    for (const std::string& value : o->results()) check_value(*o, value);
  }
  for (const CLI::App* sub : app.get_subcommands())
    if (sub->parsed()) check_app(*sub);
}

}  // namespace

void check_given_values(const CLI::App& root) {
  check_app(root);
  check_output_is_no_input(root);
}

}  // namespace gpusel::cli
