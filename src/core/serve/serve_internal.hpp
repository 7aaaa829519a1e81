#pragma once
// Shared between the serve stage's files: one configuration's evaluation and its prices.
#include <optional>
#include <string>

#include "gpusel/serve/plan.hpp"

namespace gpusel::serve_detail {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

struct PlanEnv {
  double kwh_price = 0, years = 3;
  std::string kwh_basis;
};

PlanEnv plan_env(const ServeRequest& req, const Rates& rates);

// The request's workload as the card's serving engine runs it (vLLM where it runs: tensor
// parallel; llama.cpp: layers split), so the configurations and their placement follow it.
Workload served_on(const Gpu& g, const ServeRequest& req);
// `given` run by the serving engine `e` (unchanged where no engine runs).
Workload served_by(const Workload& given, const ServingEngine* e);

// `count` cards of `g` as one replica; `fixed_replicas` when the user owns the cards (else
// as many as the target needs).
ServeOption evaluate_option(const Gpu& g, int count, std::optional<int> fixed_replicas,
                            const Cloud* cloud, const RuleSet& rules, const Rates& rates,
                            const ServeRequest& req, const PlanEnv& env);

}  // namespace gpusel::serve_detail
