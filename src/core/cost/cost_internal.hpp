#pragma once
// Shared by cost_report.cpp (the numbers) and cost_verdict.cpp (the verdict and its notes).
#include "gpusel/cost/cost.hpp"

namespace gpusel::detail {

// Picks the cheapest option and says why, from the report's numbers.
void decide(CostReport& r);
// The caveats a buyer or renter should read beside the numbers (K25-K28).
void add_notes(CostReport& r, const CostData& d);

}  // namespace gpusel::detail
