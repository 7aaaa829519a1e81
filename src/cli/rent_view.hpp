#pragma once
// `recommend --rent` and `recommend --compare-rent`: the cloud side of a ranking.
#include <optional>
#include <string>

#include "cli/context.hpp"
#include "cli/rank_options.hpp"
#include "cli/render.hpp"

namespace gpusel::cli {

struct RentArgs {
  bool rent = false, compare = false;
  std::optional<double> hours;
  double storage_gb = 0, egress_gb = 0;
  std::optional<double> storage_price, egress_price;
};

// --rent, --compare-rent, --hours and the storage/egress figures (K28).
void add_rent_options(CLI::App* cmd, RentArgs& a);

// Error(usage) for --rent with --compare-rent, --hours with --tokens, or --hours <= 0.
void check_rent_args(const RentArgs& a, const RankArgs& rank);

// The ranked offers that fit the workload; `fitting` is set to how many did.
Output rent_output(Context& ctx, const Session& s, const RentArgs& a, int top, int& fitting);

// Below a purchase ranking: for each of the first `top` results, renting the same work.
void add_compare_rent(Output& o, Context& ctx, const Session& s, const std::vector<Result>& results,
                      int top, const RentArgs& a);

}  // namespace gpusel::cli
