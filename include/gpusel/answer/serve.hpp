#pragma once
// `gpusel serve`: how many requests and users a configuration carries within TTFT/TPOT
// targets, how many replicas a load needs, and what a million output tokens cost bought and
// rented; every configuration ranked, or the user's own cards evaluated. When nothing meets
// the target, the changes that would, each re-evaluated.
#include <optional>
#include <string>
#include <vector>

#include "gpusel/answer/answers.hpp"
#include "gpusel/serve/plan.hpp"

namespace gpusel {

struct ServeQuery {
  ServeRequest request;
  const Gpu* gpu = nullptr;  // set: evaluate these cards (check-style), else rank
  int count = 1;
  int top = 10;
  const std::vector<ModelArch>* models = nullptr;  // presets, for the smaller-model remedy
};

struct ServeRemedy {
  std::string change;                 // the flags, e.g. "--kv-dtype fp8"
  std::optional<ServeOption> option;  // the best configuration then
};

struct ServeAnswer {
  ServePlan plan;                            // ranking mode: everything considered
  std::vector<ServeOption> top;              // the first `top` options
  std::optional<ServeOption> configuration;  // --gpu mode: the user's cards
  bool met = false;                          // something (or the user's cards) meets the target
  // --gpu mode: the cards meet the target and a rule excludes only buying them (a China-only
  // SKU for a buyer elsewhere, a module off its board): cards owned or rented serve it.
  bool purchase_only = false;
  std::vector<ServeRemedy> remedies;  // when not met
  // Ranking mode, 16-bit weights met: the lighter precision (fp8, else int4) whose best option
  // serves a million tokens for less than the first (the weights most deployments run).
  std::optional<ServeRemedy> lighter;
  bool converted_prices = false;
};

ServeAnswer serve(const Sources& src, const ServeQuery& q);

}  // namespace gpusel
