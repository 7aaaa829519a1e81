#pragma once
#include <cstdint>
// Renting for a workload: which cloud instances fit it (the instance's GPUs, sharded as the
// ranker shards), how long the job takes there and what it costs on-demand and on spot;
// and, for a configuration one could buy, what renting the same work would cost.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpusel/cost/cost.hpp"
#include "gpusel/data/cloud.hpp"
#include "gpusel/rank/ranker.hpp"

namespace gpusel {

struct RentalRequest {
  std::optional<double> hours;  // known job length; else RankRequest::tokens sets it
  double storage_gb = 0, egress_gb = 0;
  std::optional<double> storage_price, egress_price;  // session currency; else cloud defaults
  // A job of RankRequest::tokens must finish within this many hours (ignored with `hours`):
  // offers spread over more RDMA-linked instances to meet it; those that cannot rank last.
  std::optional<double> deadline_hours;
  bool deadline_default = false;  // the deadline is data/scoring.json's, not the user's
};

struct RentalOption {
  const Offer* offer = nullptr;
  int instances = 1;  // > 1 only for the same work on separate 1-GPU instances (network)
  Result eval;        // the instance's configuration, evaluated as the ranker does
  double on_demand_per_hour = 0, spot_per_hour = 0;  // all instances, session currency
  bool spot_published = false;
  std::optional<double> hours;                      // job wall-clock hours
  std::optional<double> on_demand_cost, spot_cost;  // job totals with storage and egress
  double extras = 0;
  double per_million_tokens = 0;  // on-demand cost of 10^6 tokens at the workload's rate
};

struct RentalRanking {
  std::vector<RentalOption> options;  // the first `keep` fitting, cheapest job first (then fastest)
  int fitting = 0;                    // every offer that fits (options holds the first of them)
  int considered = 0, too_small = 0, excluded_by_rule = 0, filtered = 0;
  int spot_only = 0;  // offers with no on-demand price: never ranked for a whole job
  int too_slow = 0;   // fitting offers that cannot finish the job by the deadline
  double storage_price = 0, egress_price = 0;  // per GB-month / per GB, session currency
};

// Every offer whose GPU passes the request's filters, as one whole instance. All fitting
// offers are ranked and counted; the `keep` cheapest become options (each carries a copy of
// its evaluation, so 100,000 offers kept whole would cost hundreds of MB for ten rows shown).
RentalRanking rank_rentals(const Catalog& catalog, const Cloud& cloud, const RuleSet& rules,
                           const Rates& rates, const RankRequest& req, const RentalRequest& rr,
                           std::size_t keep = SIZE_MAX);

// The cheapest way to rent the work of `bought`: an instance of the same GPU with at least
// as many GPUs, else enough smaller instances (linked by the network, so evaluated unlinked);
// nullopt when no offer for that GPU fits. The work is RankRequest::tokens, else rr.hours of
// the bought configuration at its own rate; without either, the cheapest per token wins.
std::optional<RentalOption> rent_same_work(const Result& bought, const Cloud& cloud,
                                           const RuleSet& rules, const Rates& rates,
                                           const RankRequest& req, const RentalRequest& rr);

// Storage per GB-month and egress per GB in `currency`: the request's, else the cloud defaults.
std::pair<double, double> extras_prices(const Cloud& cloud, const Rates& rates,
                                        const std::string& currency, const RentalRequest& rr);

// The caveats for the options shown (spot pre-emption, separate instances, marketplace and
// stale prices, prices from defaults: rental_notes) and the storage/egress note (K28).
std::vector<std::string> rental_option_notes(const std::vector<RentalOption>& shown,
                                             const Cloud& cloud, const RentalRequest& rr,
                                             double storage_price, double egress_price,
                                             const std::string& currency, const std::string& today);

// Hours of on-demand renting that cost as much as buying `bought` outright; nullopt when
// either price is missing.
std::optional<double> rent_hours_to_purchase(const Result& bought, const RentalOption& rental);

}  // namespace gpusel
