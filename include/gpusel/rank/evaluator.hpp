#pragma once
// Evaluating many configurations of one request (rank(), recommend --rent): what every card of
// a GPU count shares is computed once per count, and a configuration whose texts nobody reads
// is evaluated without them. Field for field what evaluate() (ranker.hpp) returns.
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "gpusel/rank/ranker.hpp"

namespace gpusel {

namespace detail {
struct ConfigFacts;
}
namespace rules_detail {
struct OpenRule;
}

class Evaluator {
 public:
  // Holds references: rules, rates and request must outlive it.
  Evaluator(const RuleSet& rules, const Rates& rates, const RankRequest& req);
  ~Evaluator();
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  // What every configuration of `count` GPUs shares, whichever the card: workload_for decides
  // the per-GPU workload from the count alone, and the memory estimate reads only that.
  struct Plan {
    bool splits = false;           // tensor_parallel_splits(request workload, count)
    Workload w;                    // workload_for a configuration of `count` (when it splits)
    std::optional<Estimate> need;  // estimate(w, numbers), once a card of that count is sized
    // Each rule as the workload's facts alone decide it (nullopt: the card's and the
    // configuration's are needed), once a configuration of that count is judged.
    std::optional<std::vector<std::optional<bool>>> rules;
    // Its workload facts are those of the first count judged (they are on every count today:
    // on_gpus places, it does not change what the facts read), so card_rules hold for it.
    bool shared_facts = false;
  };
  // Filled in the order counts are first asked for, so a count on_gpus refuses throws where it
  // did (the first card reaching it).
  // With a card: that card's plan, which differs only where the default engine does not run
  // on it (workload_for swaps it).
  Plan& plan(int count, const Gpu* gpu = nullptr);
  const Estimate& need(Plan& p);
  const std::vector<std::optional<bool>>& rules_decided(Plan& p);
  // The rules the card's facts and the shared workload facts leave open or know to fire (after
  // a rules_decided), in rule order: for the card's configurations whose plan has shared_facts.
  std::vector<rules_detail::OpenRule> card_rules(const Gpu& gpu) const;
  // The one-card need of evaluate() on a card of `usable` bytes: the same estimate on every
  // card (a card only places one GPU), its elastic parts sized on that card (need_on).
  double one_card_need(const Gpu& any, double usable);

  // make_config(gpu, count, request workload), its placed workload taken from the plan.
  Config config(const Gpu& gpu, int count);

  // Which texts an evaluation builds. all: evaluate()'s. no_rule_texts (the plot): the rules'
  // messages unrendered (empty). none, for configurations that are counted and not shown: the
  // same numbers, throughput assumptions without their figures, and of the rules only what
  // judge_rules decides (RuleOutcome::delta, excluded, exclude_rule; no fired ids or messages).
  enum class Texts { all, no_rule_texts, none };
  // evaluate(config, rules, rates, request), field for field with Texts::all.
  Result evaluate(const Config& config, Texts texts = Texts::all);

  const RuleSet& rules() const { return rules_; }
  const Rates& rates() const { return rates_; }
  const RankRequest& request() const { return req_; }

 private:
  const RuleSet& rules_;
  const Rates& rates_;
  const RankRequest& req_;
  // by count, and the engine swapped to on the card ("" where the engine is kept)
  std::map<std::pair<int, std::string>, Plan> plans_;
  std::optional<Estimate> one_card_;
  std::unique_ptr<detail::ConfigFacts> shared_;    // the first count's workload facts
  std::vector<std::optional<bool>> shared_rules_;  // and the rules they decide
};

}  // namespace gpusel
