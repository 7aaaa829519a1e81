// Bare parameter counts ("7B", "8x7B", "30B-A3B") and the typical architecture that
// stands in for a model given only by its size.
#include <algorithm>
#include <charconv>
#include <cmath>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/memory/param_count.hpp"

namespace gpusel {
namespace {

constexpr double kMinParams = 1e5;   // below this a count is a typo ("7" for "7B")
constexpr double kMaxParams = 1e14;  // 100T: far beyond any published model

[[noreturn]] void reject(std::string_view text, const std::string& why) {
  throw usage_error("invalid parameter count '" + quote_input(text) + "'" +
                    (why.empty() ? "" : " (" + why + ")") +
                    "; accepted forms: 7B, 7b, 1.5B, 350M, 0.5T, 7e9, 7000000000, "
                    "8x7B (experts x size), 30B-A3B (total-A-active)");
}

double suffix_scale(char c) {
  switch (c) {
    case 'k':
    case 'K':
      return 1e3;
    case 'm':
    case 'M':
      return 1e6;
    case 'b':
    case 'B':
    case 'g':
    case 'G':
      return 1e9;
    case 't':
    case 'T':
      return 1e12;
    default:
      return 0;
  }
}

// One count: a plain decimal number (no sign, no hex, no inf/nan) with an optional
// K/M/B/T suffix. Returns the count in parameters.
double parse_one(std::string_view part, std::string_view whole) {
  if (part.empty()) reject(whole, "empty");
  double scale = 1;
  if (double s = suffix_scale(part.back()); s > 0) {
    scale = s;
    part.remove_suffix(1);
  }
  if (part.empty() ||
      !(std::isdigit(static_cast<unsigned char>(part.front())) || part.front() == '.'))
    reject(whole, "a count starts with a digit");
  double v = 0;
  auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
  if (ec == std::errc::result_out_of_range) reject(whole, "out of range");
  if (ec != std::errc() || end != part.data() + part.size()) reject(whole, "");
  v *= scale;
  if (!std::isfinite(v) || v > kMaxParams) reject(whole, "out of range");
  if (v <= 0) reject(whole, "must be positive");
  if (v < kMinParams)
    reject(whole, scale == 1 && v >= 1 ? "too small: did you mean " + quote_input(part) + "B?"
                                       : "too small: at least 100K parameters");
  return v;
}

ParamCount parse_experts(std::string_view s, std::size_t x, std::string_view whole) {
  std::string_view n = s.substr(0, x);
  int experts = 0;
  auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), experts);
  if (ec != std::errc() || end != n.data() + n.size() || experts < 2 || experts > 1024)
    reject(whole, "expert count must be an integer from 2 to 1024");
  ParamCount c;
  c.experts = experts;
  c.expert_size = parse_one(s.substr(x + 1), whole);
  const ModelArch m = typical_arch(c);
  c.total = m.params;
  c.active = m.active_params.value_or(m.params);
  return c;
}

}  // namespace

ParamCount parse_param_count(std::string_view text) {
  std::string_view s = trim(text);
  if (s.empty()) reject(text, "empty");
  if (auto x = s.find_first_of("xX"); x != std::string_view::npos) return parse_experts(s, x, text);
  if (auto a = s.find("-A"); a != std::string_view::npos) {
    double total = parse_one(s.substr(0, a), text);
    double active = parse_one(s.substr(a + 2), text);
    if (active > total) reject(text, "active exceeds total");
    return {total, active};
  }
  if (auto a = s.find("-a"); a != std::string_view::npos)
    return parse_param_count(std::string(s.substr(0, a)) + "-A" + std::string(s.substr(a + 2)));
  double v = parse_one(s, text);
  return {v, v};
}

}  // namespace gpusel
