#pragma once
// Currencies: budgets as typed by users, dated exchange rates, and which catalog price a
// configuration is charged at.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "gpusel/data/catalog.hpp"

namespace gpusel {

struct Rates {
  std::string base = "USD";
  std::string as_of, source;
  std::map<std::string, double> per_base;  // units of currency per 1 base unit
};

Rates parse_rates(const nlohmann::json& doc, const std::string& origin);

// amount in `from` expressed in `to`; Error(usage) for a currency the table lacks.
double convert(double amount, const std::string& from, const std::string& to, const Rates& r);

struct Budget {
  double amount = 0;
  std::string currency;  // empty: the amount is in the session's currency
};

// "15000", "15000CNY", "15000 eur", "$15000", "¥15000" (CNY), "€15000", "£2k", "1.5M".
// Error(usage) quoting the input for anything else, a negative, zero or non-finite amount.
Budget parse_budget(std::string_view text);
// An amount in the same forms given with `flag` (--card-price, --host-cost): zero allowed (a
// host already owned), errors name the flag.
Budget parse_amount(std::string_view text, std::string_view flag);

// ISO code from a locale name: "zh_CN.UTF-8" -> CNY, "de_DE" -> EUR; "" if unknown.
std::string currency_for_locale(std::string_view locale);

// The session currency: GPUSEL_CURRENCY, else LC_ALL / LC_MONETARY / LANG's region, else USD.
// Values are passed in so the function stays pure and testable.
std::string default_currency(const std::string& gpusel_currency, const std::string& lc_all,
                             const std::string& lc_monetary, const std::string& lang);

std::string normalise_currency(std::string_view code);  // "cny" -> "CNY"; Error(usage) if bad

struct PricePolicy {
  std::string currency = "USD";
  bool new_only = false;     // never charge a used-market price
  bool prefer_used = false;  // charge the used price where one exists (--include-used)
  std::string today = "";    // YYYY-MM-DD; empty: the system's date. Later prices are not charged
};

struct ChargedPrice {
  double amount = 0;            // in policy.currency
  std::string currency;         // = policy.currency
  const Price* from = nullptr;  // the catalog entry it came from
  bool converted = false;       // from another currency through the rates table
  bool used = false;
};

// The price a buyer would pay for one card, or nullopt when the card has none allowed.
// Order: current street/estimate > used (when allowed and no new current price, or preferred)
// > MSRP; within a kind the asked currency first, then the newest; none dated after today.
std::optional<ChargedPrice> charge(const Gpu& gpu, const PricePolicy& policy, const Rates& rates);

}  // namespace gpusel
