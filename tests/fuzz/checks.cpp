#include "checks.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/data/card_memory.hpp"
#include "gpusel/data/money.hpp"
#include "gpusel/data/validate.hpp"
#include "gpusel/memory/estimator.hpp"
#include "gpusel/memory/param_count.hpp"
#include "gpusel/rank/ranker.hpp"

namespace gpusel::fuzz {

void require(bool ok, const std::string& what) {
  if (!ok) throw Finding(what);
}

// A refusal must be a gpusel::Error of the expected code with a one-line, bounded message.
void require_clean_error(const Error& e, ExitCode code, std::string_view input) {
  const std::string msg = e.what();
  require(e.code() == code, "unexpected exit code " + std::to_string(int(e.code())) + ": " + msg);
  require(msg.find('\n') == std::string::npos, "multi-line error: " + msg);
  require(msg.size() < 2000 || msg.size() < input.size() / 4,
          "error message floods: " + std::to_string(msg.size()));
}

bool finite_non_negative(double v) { return std::isfinite(v) && v >= 0; }

void check_param_count(std::string_view input) {
  try {
    const ParamCount c = parse_param_count(input);
    require(std::isfinite(c.total) && std::isfinite(c.active), "non-finite count");
    require(c.active > 0 && c.active <= c.total * (1 + 1e-9), "active outside (0, total]");
    const ModelArch m = typical_arch(c);
    require(m.layers > 0 && m.hidden > 0 && m.heads > 0 && m.kv_heads > 0, "empty typical shape");
    const ArchParams a = arch_params(m);
    require(std::isfinite(a.total) && a.total > 0, "typical shape has no parameters");
  } catch (const Error& e) {
    require_clean_error(e, ExitCode::usage, input);
  }
}

namespace {

void check_budget(std::string_view s) {
  try {
    const Budget b = parse_budget(s);
    require(std::isfinite(b.amount) && b.amount > 0, "budget not positive and finite");
    require(b.currency.empty() || b.currency.size() == 3, "currency not a 3-letter code");
  } catch (const Error& e) {
    require_clean_error(e, ExitCode::usage, s);
  }
}

void check_weights(std::string_view s) {
  try {
    const Weights w = parse_weights(std::string(s));
    const double sum = w.compute + w.budget + w.ecosystem;
    require(finite_non_negative(w.compute) && finite_non_negative(w.budget) &&
                finite_non_negative(w.ecosystem) && std::abs(sum - 1) < 1e-9,
            "weights not normalised");
  } catch (const Error& e) {
    require_clean_error(e, ExitCode::usage, s);
  }
}

void check_reserve(std::string_view s) {
  try {
    const Reserve r = parse_reserve(s);
    require(r.fraction >= 0 && r.fraction < 1, "reserve share outside [0, 1)");
    require(finite_non_negative(r.bytes), "reserve bytes negative or not finite");
  } catch (const Error& e) {
    require_clean_error(e, ExitCode::usage, s);
  }
}

void check_locale(std::string_view s) {
  const std::string c = currency_for_locale(s);
  require(c.empty() || c.size() == 3, "locale currency not a code");
  try {
    const std::string d = default_currency(std::string(s), "", "", "");
    require(d.size() == 3, "session currency not a code");
  } catch (const Error& e) {
    require_clean_error(e, ExitCode::usage, s);
  }
  const std::string d = default_currency("", std::string(s), std::string(s), std::string(s));
  require(d.size() == 3, "locale fallback not a code");
}

}  // namespace

void check_text_parsers(std::string_view input) {
  check_budget(input);
  check_weights(input);
  check_reserve(input);
  check_locale(input);
  if (is_date(input)) require(days_between(std::string(input), "2026-01-01") > -4000000, "date");
}

Check check_named(std::string_view target) {
  if (target == "param_count") return check_param_count;
  if (target == "text") return check_text_parsers;
  if (target == "json") return check_json_source;
  if (target == "data") return check_data_file;
  if (target == "rules") return check_rules;
  if (target == "cli") return check_cli;
  return nullptr;
}

}  // namespace gpusel::fuzz
