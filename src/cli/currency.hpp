#pragma once
// Which currency a session speaks, and why: people must see when a bare `--budget 15000`
// was read in yen because LANG says ja_JP.
#include <string>

#include "gpusel/data/money.hpp"

namespace gpusel::cli {

struct CurrencyChoice {
  std::string code;
  // Where it came from when the environment decided ("LANG=zh_CN.UTF-8",
  // "GPUSEL_CURRENCY=EUR"); empty when the command line did, or nothing did (USD).
  std::string origin;
};

// --currency, else the budget's own currency, else GPUSEL_CURRENCY, the locale
// (LC_ALL > LC_MONETARY > LANG), USD.
CurrencyChoice choose_currency(const std::string& flag, const std::string& budget_currency);

// " (from LANG=ja_JP.UTF-8)" or "".
std::string origin_note(const CurrencyChoice& c);

// When a budget without a currency was read in a currency the environment chose (not USD):
// the sentence that says so, with the amount in USD; else "".
std::string bare_budget_note(const std::string& budget_text, double amount, const CurrencyChoice& c,
                             const Rates& rates);

}  // namespace gpusel::cli
