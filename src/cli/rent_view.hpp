#pragma once
// `recommend --rent` and `recommend --compare-rent`: the cloud side of a ranking.
#include <optional>
#include <string>

#include "cli/context.hpp"
#include "cli/rank_options.hpp"
#include "cli/render.hpp"
#include "gpusel/answer/answers.hpp"

namespace gpusel::cli {

struct RentArgs {
  bool rent = false, compare = false;
  std::optional<double> hours;
  double storage_gb = 0, egress_gb = 0;
  std::optional<double> storage_price, egress_price;
  std::optional<double> deadline_days;
};

// --rent, --compare-rent, --hours and the storage/egress figures (K28).
void add_rent_options(CLI::App* cmd, RentArgs& a);

// Error(usage) for --rent with --compare-rent, --hours with --tokens, --hours <= 0, or a
// --deadline-days that is not > 0 or comes without --rent and --tokens.
void check_rent_args(const RentArgs& a, const RankArgs& rank);

// The rental request the flags describe.
RentalRequest rental_request(const RentArgs& a);

// The ranked offers that fit the workload; `cloud_origin` names the offers file.
// The JSON document and CSV rows only for `f` json or csv.
Output rent_output(const Session& s, const RentAnswer& answer, const std::string& cloud_origin,
                   Format f);

// Below a purchase ranking: for each shown result, renting the same work.
void add_compare_rent(Output& o, const Session& s, const RecommendAnswer& answer);
// That comparison's table (the HTML report shows it too).
Table compare_rent_table(const Session& s, const RecommendAnswer& answer);

}  // namespace gpusel::cli
