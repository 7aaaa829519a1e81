#pragma once
// Buy or rent: what owning cards costs over a project (purchase, host system, power, less
// what they resell for) against renting GPUs in the cloud on-demand, spot, monthly or under
// a 1- or 3-year commitment, and where the two break even (KNOWLEDGE K25-K29).
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gpusel/data/catalog.hpp"
#include "gpusel/data/cloud.hpp"
#include "gpusel/data/money.hpp"
#include "gpusel/data/ownership.hpp"

namespace gpusel {

// The model's calendar: an average month of 365/12 days, 730 hours.
constexpr double kDaysPerMonth = 365.0 / 12.0;

// ---- The arithmetic (every amount in one currency) ----

// What a seller gets back after `months`, as a share of the price paid: residual_1y ^ (months /
// 12), a geometric decay, less `selling_cost` of the sale (a marketplace's fee). 1 at 0 months.
double residual_fraction(double residual_1y, double months, double selling_cost = 0);
double hours_used(double hours_per_day, double months);

// Hours a day above which owning (depreciation + power while used) costs less than renting
// at rent_per_hour plus rent_fixed (storage, egress) for `months`: 0 when owning always does,
// nullopt when renting is no dearer per hour than the power.
std::optional<double> break_even_hours_per_day(double depreciation, double rent_per_hour,
                                               double power_per_hour, double months,
                                               double rent_fixed = 0);

// Months after which owning costs less than renting at hours_per_day: 0 when it does from
// the start, nullopt when it never does. Resale follows residual_fraction; renting also pays
// extra_per_month (storage) and extra_once (egress) whatever the hours.
std::optional<double> break_even_months(double purchase, double residual_1y, double rent_per_hour,
                                        double power_per_hour, double hours_per_day,
                                        double extra_per_month = 0, double extra_once = 0,
                                        double selling_cost = 0);

// ---- Renting ----

struct RentQuote {
  RentKind kind = RentKind::on_demand;
  const Offer* offer = nullptr;
  int instances = 1;         // ceil(GPUs wanted / GPUs per instance)
  double rate_per_hour = 0;  // all instances, session currency
  bool published = true;     // false: derived from on-demand and a data default
  std::string basis;
  double billed_hours = 0;  // wall-clock hours paid for (a commitment: its whole term)
  double compute = 0;       // rate_per_hour x billed_hours
  double extras = 0;        // storage + egress
  double total = 0;
};

// Hours a rental of this kind bills for a project: the hours used (on-demand, spot), whole
// months (monthly), or the whole 1- or 3-year term(s) a commitment covers.
double billed_hours(RentKind kind, double hours_used, double months);

// Whether a spot-only offer can serve a project of `hours` over `months` under `kind`: only as
// spot, and only when the hours a day stay below 24 x spot availability (never 24/7), since
// there is no on-demand price to fall back on while spot capacity is gone.
bool spot_only_fits(RentKind kind, double hours, double months, double availability);

// The offer for `gpu_id` under `kind` closest to `gpus` like for like, then the cheapest: one
// the count fills exactly in the fewest instances (8 GPUs: an 8-GPU node before eight 1-GPU
// instances), else the cheapest with enough instances; nullopt when no offer for that GPU
// has a price of this kind. Spot-only offers count only
// where spot_only_fits (availability: the cloud defaults', 1 when absent).
std::optional<RentQuote> cheapest_rental(const Cloud& cloud, const std::string& gpu_id, int gpus,
                                         RentKind kind, double hours, double months,
                                         const std::string& currency, const Rates& rates);

// Caveats for a set of quotes: spot pre-emption (checkpoint), several instances without
// NVLink, floating marketplace prices, prices over six months old at `today` (YYYY-MM-DD,
// "" = don't age), prices derived from the data defaults. One note per fact.
std::vector<std::string> rental_notes(const std::vector<RentQuote>& quotes, const Cloud& cloud,
                                      const std::string& today);

// What storage and egress add (K28), or that they are not counted and how to count them.
std::string extras_note(double storage_gb, double egress_gb, double storage_price,
                        double egress_price, const std::string& currency,
                        const std::string& origin);

// ---- The comparison behind `gpusel cost` ----

struct CostQuery {
  std::string own_gpu;
  // 0 = not given: one card, or the smallest board the card is sold on (an H100 SXM: 4);
  // resolved in CostReport::query.
  int own_count = 0;
  std::string rent_gpu;           // "" = own_gpu
  std::optional<int> rent_count;  // none = own_count; resolved in CostReport::query
  double hours_per_day = 0, months = 0;
  std::string currency = "USD";
  std::string today;  // YYYY-MM-DD, ages offer prices; "" = don't
  std::optional<double> kwh_price, card_price, host_cost;  // session currency
  std::optional<double> resale_1y;                         // fraction
  std::optional<double> selling_cost;  // fraction of the sale lost to selling (--selling-cost)
  // A data-centre server's hosting: colocation per kW-month (session currency) and the PUE;
  // none: data/ownership.json hosting. --colo-per-kw-month 0: a facility of one's own.
  std::optional<double> colo_per_kw_month, pue;
  double storage_gb = 0, egress_gb = 0;
  std::optional<double> storage_price, egress_price;  // session currency per GB-month / GB
};

struct CostData {
  const Catalog& catalog;
  const Cloud& cloud;
  const Ownership& ownership;
  const std::vector<KwhPrice>& kwh;
  const Rates& rates;
};

struct OwnCost {
  const Gpu* gpu = nullptr;
  int count = 1, hosts = 1;
  double card_price = 0, cards = 0, host_price = 0, host_total = 0, purchase = 0;
  double residual_1y = 0, selling_cost = 0, residual = 0, resale = 0, depreciation = 0;
  double power_kw = 0, kwh = 0, kwh_price = 0, electricity = 0, power_per_hour = 0;
  // A server that lives in a data centre (its platform's host_power_w): the IT load (cards +
  // host), the facility's PUE (power_kw = it_kw x pue) and its colocation; 1 and 0 otherwise.
  bool hosted = false;  // the platform states host_power_w and data/ownership.json hosting
  double it_kw = 0, pue = 1, colocation_per_month = 0, colocation = 0;
  double total = 0;  // depreciation + electricity + colocation
  std::string card_basis, host_basis, resale_basis, kwh_basis;
};

struct BreakEven {  // against published prices only
  RentKind kind = RentKind::on_demand;
  std::optional<double> hours_per_day, months;  // nullopt: never
  bool beyond_a_day = false;  // owning would need more than 24 h/day: it never wins
};

struct Verdict {
  std::string choice;  // buy | rent-on-demand | rent-spot | rent-monthly | commit-1y | commit-3y
                       // | "" when there is nothing to compare
  std::vector<std::string> reasons;
};

struct CostReport {
  CostQuery query;  // resolved: rent_gpu and rent_count filled in
  double hours = 0;
  std::optional<OwnCost> own;   // nullopt: no price for the card
  std::vector<RentQuote> rent;  // cheapest per kind that has a price
  std::vector<BreakEven> break_even;
  double storage_price = 0, egress_price = 0;    // per GB-month / per GB, session currency
  std::vector<std::string> nearest_with_offers;  // when the rented GPU has no offer
  bool spot_only_unusable = false;  // the rented GPU's only offers are spot-only, unusable here
  double spot_availability = 1;     // the cloud defaults' share of the time spot capacity exists
  Verdict verdict;
  std::vector<std::string> notes, conversions;
};

// Error(usage) for a bad value (negative or > 24 hours a day, months <= 0, count < 1, unknown
// GPU id with suggestions, resale outside [0, 1], negative prices).
CostReport compare_costs(const CostQuery& query, const CostData& data);

std::string verdict_text(const std::string& choice);  // "rent-spot" -> "rent spot"
std::string rent_choice(RentKind kind);  // spot -> "rent-spot", commit_1y -> "commit-1y"

}  // namespace gpusel
