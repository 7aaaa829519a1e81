#include "cli/currency.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "cli/terminal.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/i18n/i18n.hpp"

namespace gpusel::cli {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// The variable that decided, as default_currency reads them (POSIX order).
std::string deciding_variable() {
  if (!env("GPUSEL_CURRENCY").empty()) return "GPUSEL_CURRENCY";
  for (const char* name : {"LC_ALL", "LC_MONETARY", "LANG"})
    if (!env(name).empty()) return currency_for_locale(env(name)).empty() ? "" : name;
  return "";
}

}  // namespace

CurrencyChoice choose_currency(const std::string& flag, const std::string& budget_currency) {
  if (!flag.empty()) return {normalise_currency(flag), ""};
  if (!budget_currency.empty()) return {budget_currency, ""};
  const std::string code =
      default_currency(env("GPUSEL_CURRENCY"), env("LC_ALL"), env("LC_MONETARY"), env("LANG"));
  const std::string var = deciding_variable();
  // Shown as typed but shortened: a locale name is short, a hostile one need not be.
  const std::string value = env(var.empty() ? "LANG" : var.c_str()).substr(0, 40);
  return {code, var.empty() ? "" : var + "=" + value};
}

std::string origin_note(const CurrencyChoice& c) {
  return c.origin.empty() ? "" : trf(" (from {})", safe_cell(c.origin));
}

std::string bare_budget_note(const std::string& budget_text, double amount, const CurrencyChoice& c,
                             const Rates& rates) {
  if (c.origin.empty() || c.code == "USD") return "";
  std::string usd;
  try {
    usd = trf(", about {:.0f} USD", convert(amount, c.code, "USD", rates));
  } catch (const Error&) {
    // a currency the rates table lacks: the note still says what was read
  }
  return trf(
      "Note: --budget {} names no currency, so it is read in {}{}{}; write {}USD or add "
      "--currency USD for dollars.",
      safe_cell(budget_text), c.code, origin_note(c), usd, safe_cell(budget_text));
}

}  // namespace gpusel::cli
