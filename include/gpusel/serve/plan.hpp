#pragma once
// Serving a load: for a configuration (its card, cards per replica, engine), the most a
// replica carries within the latency targets, the replicas a target needs, and what the
// deployment costs bought (cards + platform, amortised, plus power) and rented (the cheapest
// fitting offers), per million output tokens. And every configuration ranked by that cost.
#include <optional>
#include <string>
#include <vector>

#include "gpusel/data/cloud.hpp"
#include "gpusel/rank/ranker.hpp"
#include "gpusel/serve/load.hpp"

namespace gpusel {

struct ServeTarget {
  std::optional<double> rps, users;  // the load to carry (neither: one replica at capacity)
  Traffic traffic;
  Targets targets;
  std::string engine;  // "" = the default engine of each card
  double years = 0;    // amortisation of a purchase; 0 = data/serving.json's
  bool rank_by_rent = false;
};

struct ServeRequest {
  RankRequest rank;  // workload (inference), prices, filters, budget, max_gpus, reserve
  ServeTarget target;
};

struct Deployment {  // bought: every replica's cards, the hosts they sit in, power
  bool priced = false;
  double cards_price = 0, platform_price = 0, price = 0;  // session currency
  int hosts = 0;
  int cards_bought = 0;  // the replicas' cards rounded up to whole boards (sold_in)
  std::string platform;
  double power_kw = 0;
  double per_hour = 0;     // price / amortisation hours + power x kWh price
  double per_million = 0;  // per 10^6 output tokens at the served load
};

struct Rental {  // the cheapest offers of the card holding every replica
  const Offer* offer = nullptr;
  int instances = 0;
  double per_hour = 0, per_million = 0;  // on-demand, session currency
};

struct ServeOption {
  Result eval;  // one replica as the ranker evaluates it: memory, rules, card price
  const ServingEngine* engine = nullptr;
  Replica replica;
  std::optional<LoadPoint> capacity;  // per replica: the highest rate within the targets
  double capacity_users = 0;          // per replica, at that rate
  LoadPoint served;                   // per replica at the load it is given
  int replicas = 1, cards = 1;
  int replicas_needed = 1;  // what the target needs (serve_cards: may exceed `replicas`)
  double tokens_per_s = 0;  // the deployment's output tokens/s at the served load
  Deployment bought;
  std::optional<Rental> rented;
  bool meets = false;
  bool beyond_fleet = false;  // the load needs more than kMaxGpuCount cards of it
  std::string why_not;        // when it does not: the floor that misses, or what does not fit

  // The ranking cost per million tokens (bought, or rented with rank_by_rent; the other
  // when that one is missing); infinity when neither is priced.
  double cost(bool by_rent) const;
};

struct ServeCounts {
  int candidates = 0, no_engine = 0, too_small = 0, too_slow = 0, excluded_by_rule = 0;
  int beyond_fleet = 0;  // the load needs more than kMaxGpuCount cards
  int filtered = 0, over_budget = 0, no_price = 0;
};

struct ServePlan {
  std::vector<ServeOption> options;      // meet the target within the budget; cheapest first
  std::vector<ServeOption> over_budget;  // meet it, but cost more than the budget
  std::vector<ServeOption> too_slow;     // fit, but their latency floor misses the targets
  ServeCounts counts;
  double kwh_price = 0;  // session currency
  std::string kwh_basis;
  double years = 3;
};

// One configuration: `count` cards of `gpu` as one replica, given as many replicas as the
// target needs (one without a target).
ServeOption serve_configuration(const Gpu& gpu, int count, const Cloud* cloud, const RuleSet& rules,
                                const Rates& rates, const ServeRequest& req);

// Cards the user has: the best split of `count` cards into equal replicas (tensor parallel
// inside each), all of them serving: its capacity is replicas x one replica's.
ServeOption serve_cards(const Gpu& gpu, int count, const Cloud* cloud, const RuleSet& rules,
                        const Rates& rates, const ServeRequest& req);

// Every catalog card in the configurations recommend builds (1, 2, 4, 8 cards to max_gpus)
// as replicas; per card the cheapest that meets the target.
ServePlan plan_serving(const Catalog& catalog, const Cloud* cloud, const RuleSet& rules,
                       const Rates& rates, const ServeRequest& req);

// The session's power price and where it comes from (data/kwh_prices.json).
std::pair<double, std::string> serving_kwh_price(const std::string& currency, const Rates& rates);

}  // namespace gpusel
