#pragma once
// Pieces of the ranker shared between its source files.
#include <algorithm>

#include "gpusel/rank/ranker.hpp"
#include "rules_internal.hpp"

namespace gpusel::detail {

// The rule engine's view of one evaluated configuration (vocabulary: rules.hpp): a table
// whose texts view the card, the platform data and the strings held here, so it is filled
// in place and never copied or moved.
struct ConfigFacts {
  ConfigFacts() = default;
  ConfigFacts(const ConfigFacts&) = delete;
  ConfigFacts& operator=(const ConfigFacts&) = delete;
  std::string mode, precision, optimizer, engine, board_sizes;
  FactTable table;
};
void card_facts(const Gpu& g, FactTable& out);  // the gpu.* facts but gpu.used_price
void facts_for(const Result& r, const Workload& w, const RankRequest& req, ConfigFacts& out);
void workload_facts(const Workload& w, const RankRequest& req, std::optional<double> hours,
                    ConfigFacts& out);

// What the ranking keeps of a configuration until it knows which ones are shown: a few
// numbers, not a Result (the shown ones are evaluated again, in full, with their texts).
struct Candidate {
  const Gpu* gpu = nullptr;
  int count = 1;
  double tokens_per_s = 0, price = 0, headroom = 0;
  ScoreDelta delta;
  Scores scores;
  bool one_card_fits = false;
};

// Fills every result's Scores (compute/budget relative to the best of `results`).
void score(std::vector<Result>& results, const RankRequest& req);
void score(std::vector<Candidate>& results, const RankRequest& req);

// The ranker's evaluation of a configuration counted and not returned (evaluator.cpp): price,
// speed, and of the rules only their score changes and first exclusion. `w` is workload_for;
// `decided`: Evaluator::rules_decided for its count; `open`, where given instead: the rules
// Evaluator::card_rules leaves to the card's configurations.
void evaluate_numbers(Result& r, const Workload& w, const RuleSet& rules, const Rates& rates,
                      const RankRequest& req, const std::vector<std::optional<bool>>* decided,
                      const std::vector<rules_detail::OpenRule>* open = nullptr);

// make_config() with the configuration's per-GPU workload already placed (on_gpus(w, count)).
Config placed_config(const Gpu& gpu, int count, const Workload& placed);

// configurations(): how many cards a platform takes, and whether `count` of them are linked.
int platform_limit(const Gpu& g);
bool linked_at(const Gpu& g, int count);

// The GPU counts configurations() considers for a card, in order: 1, 2, 4, 8, then nodes of 8
// (16, 32...) up to what its platform takes and --max-gpus. The ranker walks the same counts.
template <class F>
void for_each_count(const Gpu& g, int max_gpus, F f) {
  const int limit = std::min(platform_limit(g), max_gpus);
  for (int count = 1; count <= limit; count *= 2) f(count);
}

}  // namespace gpusel::detail
