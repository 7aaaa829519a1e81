#pragma once
// The data of gpusel's charts, computed from answers: `gpusel plot` (every fitting
// configuration as price against estimated throughput, its Pareto frontier, the recommended
// picks and the budget) and the catalog's spec charts (--metric). The SVG writer
// (report/svg.hpp) only draws what is decided here.
#include <optional>
#include <string>
#include <vector>

#include "gpusel/answer/answers.hpp"

namespace gpusel {

struct Axis {
  std::string title;  // "price (USD)", "decode throughput (tokens/s)"
  bool log = false;   // log10 scale: the values span 20x or more
  double min = 0, max = 0;
  std::vector<double> ticks;  // within [min, max]
};

// A range wide enough (max/min >= kLogSpan) is drawn on a log scale, so cheap single cards
// and 8-GPU servers both stay readable.
inline constexpr double kLogSpan = 20;

// The axis over [lo, hi]: linear with 1-2-5 steps (from 0 when `from_zero`), or log10 with
// decades (and 2 and 5 between them when it spans two decades or less).
Axis make_axis(std::string title, double lo, double hi, bool from_zero);

struct PlotPoint {
  std::string label;  // "2x rtx-3090 (nvlink-bridge)"
  std::string gpu;    // catalog id
  int count = 1;
  double price = 0, tokens_per_s = 0;
  bool frontier = false;     // no cheaper-or-equal configuration is as fast
  bool over_budget = false;  // price above the budget
  bool converted = false;    // priced through the rates table
  bool used = false;         // a used-market price
  int pick = 0;              // rank among the recommended configurations (1..), 0 = not one
};

struct PricePlot {
  std::string title, subtitle, currency;
  std::string rate_unit = "tokens/s";  // what the throughput counts: images/s for vision
  Axis x, y;
  std::vector<PlotPoint> points;      // by price, then speed (fastest first)
  std::vector<std::size_t> frontier;  // indices into points, cheapest first
  std::optional<double> budget;
  std::vector<std::string> notes;  // what is not shown and why, conversions
  int unpriced = 0;                // fitting configurations without a price
  int no_speed = 0;                // priced, but with no throughput estimate
};

struct PlotQuery {
  RankRequest request;
  int picks = 3;  // recommended configurations to highlight
};

// Every configuration that fits and passes the rules and filters (the budget aside: those
// over it are drawn beyond the budget line), priced; the picks are `recommend`'s first
// `picks` results under the same request, budget included.
PricePlot price_plot(const Sources& src, const PlotQuery& q);

// The Pareto frontier of points sorted by price: each point faster than every cheaper one.
std::vector<std::size_t> pareto_frontier(const std::vector<PlotPoint>& sorted_points);

// ---- spec charts: one bar per catalog card ----

enum class Metric { vram, bandwidth, tflops, price_per_gb };
Metric parse_metric(const std::string& name);  // Error(usage) naming the choices

struct SpecBar {
  std::string gpu, name;
  double value = 0;
  bool converted = false;  // price_per_gb: through the rates table
};

struct SpecChart {
  std::string title, subtitle, unit;
  Axis x;
  std::vector<SpecBar> bars;  // largest first
  std::vector<std::string> notes;
};

// The cards passing `filters`, by the metric (VRAM GB, bandwidth GB/s, dense 16-bit tensor
// TFLOPS, or price per GB of memory in the policy's currency); cards without the figure are
// counted in the notes.
SpecChart spec_chart(const Catalog& catalog, const Filters& filters, Metric metric,
                     const PricePolicy& price, const Rates& rates);

}  // namespace gpusel
