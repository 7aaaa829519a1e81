#include "gpusel/report/plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "gpusel/speed/throughput.hpp"

namespace gpusel {

namespace {

double nice_step(double range) {
  const double raw = range / 5;
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * mag >= raw) return m * mag;
  return 10 * mag;
}

// Log ticks: the decades, with 2 and 5 between them over two decades or less, and the
// axis ends (1, 2 or 5 times a power of ten) so the top and bottom are labelled.
std::vector<double> log_ticks(double lo, double hi) {
  const int d0 = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  const int d1 = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  // Two decades or less (hi/lo <= 100) have room for 2 and 5 between the decades.
  const bool fine = hi / lo <= 100 * (1 + 1e-9);
  std::vector<double> ticks{lo, hi};
  for (int d = d0; d <= d1; ++d)
    for (double m : fine ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
      const double t = m * std::pow(10, d);
      if (t > lo * (1 + 1e-9) && t < hi * (1 - 1e-9)) ticks.push_back(t);
    }
  std::sort(ticks.begin(), ticks.end());
  return ticks;
}

// The nearest 1, 2 or 5 times a power of ten below (or above) v.
double round125(double v, bool up) {
  const double d = std::pow(10, std::floor(std::log10(v)));
  if (up) {
    for (double m : {1.0, 2.0, 5.0, 10.0})
      if (m * d >= v * (1 - 1e-9)) return m * d;
  }
  for (double m : {5.0, 2.0, 1.0})
    if (m * d <= v * (1 + 1e-9)) return m * d;
  return d;
}

// The label recommend's table gives a configuration: the link, and the nodes of a cluster.
std::string label_of(const Config& c) {
  std::string s = fmt::format("{}x {}", c.count, c.gpu->id);
  if (c.count == 1) return s;
  const int nodes = machines_of(c);
  return s + " (" + (c.linked ? c.gpu->interconnect.kind : std::string("PCIe")) +
         (nodes > 1 ? fmt::format(", {} nodes", nodes) : "") + ")";
}

std::string workload_title(const Workload& w) {
  const std::string model = w.model.name.empty() ? w.model.id : w.model.name;
  const std::string batch = image_side(w) > 0
                                ? fmt::format("batch {} images of {} px", w.batch, image_side(w))
                                : fmt::format("batch {} x {} tokens", w.batch, w.seq_len);
  return fmt::format("{} ({:.2f}B params): {} {}, {}", model, w.model.params / 1e9,
                     to_string(w.mode), precision_label(w), batch);
}

// The throughput axis: images for vision models; an encoder's inference is its encode rate.
std::string rate_axis(const Workload& w, const std::string& unit) {
  if (is_training(w.mode)) return "training throughput (" + unit + ")";
  if (w.model.kind != "decoder")
    return fmt::format("inference throughput ({}, batch {})", unit, w.batch);
  return fmt::format("decode throughput ({}, batch {})", unit, w.batch);
}

// The titles, both axes (the budget inside the price axis) and the notes of a plot whose
// points are in place.
void finish(PricePlot& p, const Workload& w, const Rates& rates) {
  p.title = workload_title(w);
  p.subtitle = fmt::format("{} fitting configurations, {} on the price/throughput frontier",
                           p.points.size(), p.frontier.size());
  double xlo = 0, xhi = 0, ylo = 0, yhi = 0;
  if (!p.points.empty()) {
    xlo = p.points.front().price, xhi = p.points.back().price;
    const auto [mn, mx] = std::minmax_element(
        p.points.begin(), p.points.end(),
        [](const auto& a, const auto& b) { return a.tokens_per_s < b.tokens_per_s; });
    ylo = mn->tokens_per_s, yhi = mx->tokens_per_s;
  }
  if (p.budget)
    xlo = std::min(xlo > 0 ? xlo : *p.budget, *p.budget), xhi = std::max(xhi, *p.budget);
  p.x = make_axis("price (" + p.currency + ")", xlo, xhi, false);
  p.rate_unit = image_side(w) > 0 ? "images/s" : "tokens/s";
  p.y = make_axis(rate_axis(w, p.rate_unit), ylo, yhi, true);
  if (p.unpriced > 0)
    p.notes.push_back(fmt::format("{} fitting configuration{} without a price not shown",
                                  p.unpriced, p.unpriced == 1 ? "" : "s"));
  if (p.no_speed > 0)
    p.notes.push_back(fmt::format("{} without a throughput estimate not shown", p.no_speed));
  if (std::any_of(p.points.begin(), p.points.end(), [](const auto& x) { return x.converted; }))
    p.notes.push_back("some prices converted at the rates of " + rates.as_of +
                      " (data/rates.json)");
}

}  // namespace

Axis make_axis(std::string title, double lo, double hi, bool from_zero) {
  Axis a;
  a.title = std::move(title);
  if (!(hi > lo)) {  // one value: give it room on both sides
    lo = lo > 0 ? lo / 2 : 0;
    hi = hi > 0 ? hi * 1.5 : 1;
  }
  if (lo > 0 && hi / lo >= kLogSpan) {
    a.log = true;
    a.min = round125(lo, false);
    a.max = round125(hi, true);
    a.ticks = log_ticks(a.min, a.max);
    return a;
  }
  const double step = nice_step(hi - (from_zero ? 0 : lo));
  a.min = from_zero ? 0 : std::floor(lo / step) * step;
  a.max = std::ceil(hi / step) * step;
  for (double t = a.min; t <= a.max + step / 2; t += step) a.ticks.push_back(t);
  return a;
}

std::vector<std::size_t> pareto_frontier(const std::vector<PlotPoint>& pts) {
  std::vector<std::size_t> out;
  double best = -1;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    if (pts[i].tokens_per_s <= best) continue;
    // Equal prices: only the fastest of them (sorted first) can be on the frontier.
    if (!out.empty() && pts[out.back()].price == pts[i].price) continue;
    best = pts[i].tokens_per_s;
    out.push_back(i);
  }
  return out;
}

PricePlot price_plot(const Sources& src, const PlotQuery& q) {
  RankRequest all = q.request;
  all.budget.reset();  // every fitting configuration; the budget only draws a line
  all.keep_passed = true;
  const Ranking everything = rank(src.catalog, src.rules, src.rates, all);
  const RecommendAnswer rec = recommend(src, {q.request, q.picks, false, {}});
  std::map<std::string, int> picks;
  for (std::size_t i = 0; i < rec.top.size(); ++i) picks[label_of(rec.top[i].config)] = int(i) + 1;
  PricePlot p;
  p.currency = q.request.price.currency;
  p.budget = q.request.budget;
  for (const Result& r : everything.passed) {
    if (!r.unit_price || !(r.price > 0)) {
      ++p.unpriced;
      continue;
    }
    if (!(r.tokens_per_s > 0)) {
      ++p.no_speed;
      continue;
    }
    PlotPoint pt{label_of(r.config), r.config.gpu->id, r.config.count, r.price, r.tokens_per_s};
    pt.over_budget = p.budget && r.price > *p.budget;
    pt.converted = r.unit_price->converted;
    pt.used = r.unit_price->used;
    if (auto it = picks.find(pt.label); it != picks.end()) pt.pick = it->second;
    p.points.push_back(std::move(pt));
  }
  std::sort(p.points.begin(), p.points.end(), [](const PlotPoint& a, const PlotPoint& b) {
    return a.price != b.price ? a.price < b.price : a.tokens_per_s > b.tokens_per_s;
  });
  p.frontier = pareto_frontier(p.points);
  for (std::size_t i : p.frontier) p.points[i].frontier = true;
  finish(p, q.request.workload, src.rates);
  return p;
}

}  // namespace gpusel
