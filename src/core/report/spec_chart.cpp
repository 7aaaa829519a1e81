// `gpusel plot --metric ...`: the catalog's cards side by side on one figure.
#include <fmt/format.h>

#include <algorithm>

#include "gpusel/base/error.hpp"
#include "gpusel/report/plot.hpp"

namespace gpusel {

namespace {

struct MetricInfo {
  const char* name;
  const char* title;
  const char* unit;
};

MetricInfo info(Metric m) {
  switch (m) {
    case Metric::vram:
      return {"vram", "Memory per card", "GB"};
    case Metric::bandwidth:
      return {"bandwidth", "Memory bandwidth", "GB/s"};
    case Metric::tflops:
      return {"tflops", "Dense 16-bit tensor throughput (BF16, else FP16)", "TFLOPS"};
    case Metric::price_per_gb:
      break;
  }
  return {"price-per-gb", "Price per GB of memory", ""};
}

// The card's figure, or nullopt when the catalog has none (or no allowed price).
std::optional<double> value_of(const Gpu& g, Metric m, const PricePolicy& price, const Rates& rates,
                               bool& converted) {
  switch (m) {
    case Metric::vram:
      return g.vram_gb > 0 ? std::optional(g.vram_gb) : std::nullopt;
    case Metric::bandwidth:
      return g.bandwidth_gbs > 0 ? std::optional(g.bandwidth_gbs) : std::nullopt;
    case Metric::tflops:
      return g.tensor16_tflops() > 0 ? std::optional(g.tensor16_tflops()) : std::nullopt;
    case Metric::price_per_gb:
      break;
  }
  const auto c = charge(g, price, rates);
  if (!c || !(g.vram_gb > 0)) return std::nullopt;
  converted = c->converted;
  return c->amount / g.vram_gb;
}

}  // namespace

Metric parse_metric(const std::string& name) {
  for (Metric m : {Metric::vram, Metric::bandwidth, Metric::tflops, Metric::price_per_gb})
    if (name == info(m).name) return m;
  throw usage_error("unknown --metric '" + name +
                    "' (use vram, bandwidth, tflops or price-per-gb)");
}

SpecChart spec_chart(const Catalog& catalog, const Filters& filters, Metric metric,
                     const PricePolicy& price, const Rates& rates) {
  check_filters(catalog, filters);
  const MetricInfo mi = info(metric);
  SpecChart c;
  c.unit = metric == Metric::price_per_gb ? price.currency + "/GB" : mi.unit;
  c.title = mi.title;
  int missing = 0, considered = 0;
  for (const Gpu& g : catalog.gpus) {
    if (!passes_filters(g, filters)) continue;
    ++considered;
    bool converted = false;
    const auto v = value_of(g, metric, price, rates, converted);
    if (!v) {
      ++missing;
      continue;
    }
    c.bars.push_back({g.id, g.name, *v, converted});
  }
  std::stable_sort(c.bars.begin(), c.bars.end(),
                   [](const SpecBar& a, const SpecBar& b) { return a.value > b.value; });
  c.subtitle = fmt::format("{} of {} cards ({})", c.bars.size(), considered, catalog.origin);
  const double hi = c.bars.empty() ? 1 : c.bars.front().value;
  c.x = make_axis(c.unit, 0, hi, true);
  if (missing > 0)
    c.notes.push_back(fmt::format("{} card{} without {} not shown", missing,
                                  missing == 1 ? "" : "s",
                                  metric == Metric::price_per_gb ? "a price" : "this figure"));
  if (std::any_of(c.bars.begin(), c.bars.end(), [](const auto& b) { return b.converted; }))
    c.notes.push_back("some prices converted at the rates of " + rates.as_of +
                      " (data/rates.json)");
  if (metric == Metric::price_per_gb)
    c.notes.push_back("card price only (no host); unified-memory parts count their whole pool");
  return c;
}

}  // namespace gpusel
