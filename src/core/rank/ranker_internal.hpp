#pragma once
// Pieces of the ranker shared between its source files.
#include "gpusel/rank/ranker.hpp"

namespace gpusel::detail {

// The rule engine's view of one evaluated configuration (vocabulary: rules.hpp).
Facts facts_for(const Result& r, const Workload& w, const RankRequest& req);

// Fills every result's Scores (compute/budget relative to the best of `results`).
void score(std::vector<Result>& results, const RankRequest& req);

}  // namespace gpusel::detail
