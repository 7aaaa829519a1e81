// The price/throughput chart: points, the Pareto frontier with its labels, the picks, the
// budget line, both axes with units, and a key listing the frontier and the picks.
#include <algorithm>

#include "svg_internal.hpp"

namespace gpusel {

using namespace svg_detail;

namespace {

struct Frame {
  double left = 90, top = 72, right = 790, bottom = 560;  // the plotting area
  double width = 1100, height = 640;
  double panel = 815;  // the key's left edge
};

struct Box {
  double x0, y0, x1, y1;
  bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

double px(const PricePlot& p, const Frame& f, double price) {
  return scale(p.x, price, f.left, f.right);
}
double py(const PricePlot& p, const Frame& f, double tps) {
  return scale(p.y, tps, f.bottom, f.top);
}

void axes(Svg& s, const PricePlot& p, const Frame& f) {
  for (double t : p.x.ticks) {
    const double x = px(p, f, t);
    s.line(x, f.top, x, f.bottom, "grid");
    s.text(x, f.bottom + 16, tick_label(t), "tick", "middle");
  }
  for (double t : p.y.ticks) {
    const double y = py(p, f, t);
    s.line(f.left, y, f.right, y, "grid");
    s.text(f.left - 6, y + 4, tick_label(t), "tick", "end");
  }
  s.line(f.left, f.bottom, f.right, f.bottom, "axis");
  s.line(f.left, f.top, f.left, f.bottom, "axis");
  s.text((f.left + f.right) / 2, f.bottom + 38, p.x.title + (p.x.log ? ", log scale" : ""),
         "axis-title", "middle");
  const double cy = (f.top + f.bottom) / 2;
  s.text(24, cy, p.y.title + (p.y.log ? ", log scale" : ""), "axis-title", "middle",
         fmt::format("transform=\"rotate(-90 24 {:.1f})\"", cy));
}

void budget(Svg& s, const PricePlot& p, const Frame& f) {
  if (!p.budget) return;
  const double x = px(p, f, *p.budget);
  s.rect(x, f.top, f.right - x, f.bottom - f.top, "over");
  s.line(x, f.top - 4, x, f.bottom, "budget");
  s.text(x + 4, f.top - 8, "budget " + grouped(*p.budget) + " " + p.currency, "budget-label");
}

std::string tooltip(const PlotPoint& pt, const PricePlot& p) {
  return fmt::format("{}: {} {}{}{}, {} {}", pt.label, grouped(pt.price), p.currency,
                     pt.converted ? " (converted)" : "", pt.used ? " used" : "",
                     grouped(pt.tokens_per_s), p.rate_unit);
}

// Places `text` beside the point at (x, y), `gap` px from it: right, left, above, below,
// wherever it covers no earlier label or mark and stays inside the plot. false when none.
bool place(Svg& s, std::vector<Box>& taken, const Frame& f, double x, double y, double gap,
           const std::string& text, std::string_view cls) {
  const double w = text_width(text);
  const Box options[] = {{x + gap, y - 10, x + gap + w, y + 4},
                         {x - gap - w, y - 10, x - gap, y + 4},
                         {x - w / 2, y - gap - 14, x + w / 2, y - gap},
                         {x - w / 2, y + gap, x + w / 2, y + gap + 14}};
  for (const Box& b : options) {
    if (b.x0 < f.left || b.x1 > f.right || b.y0 < f.top || b.y1 > f.bottom) continue;
    if (std::any_of(taken.begin(), taken.end(), [&](const Box& t) { return t.overlaps(b); }))
      continue;
    s.text(b.x0, b.y1 - 3, text, cls);
    taken.push_back(b);
    return true;
  }
  return false;
}

// The picks' ranks first ("#1"), then each frontier point's number and name where the name
// fits, else its number alone (the key names it).
void labels(Svg& s, const PricePlot& p, const Frame& f) {
  std::vector<Box> taken;
  for (const PlotPoint& pt : p.points)
    if (pt.frontier || pt.pick) {
      const double x = px(p, f, pt.price), y = py(p, f, pt.tokens_per_s);
      const double r = pt.pick ? 9 : 5;
      taken.push_back({x - r, y - r, x + r, y + r});
    }
  for (const PlotPoint& pt : p.points)
    if (pt.pick && !place(s, taken, f, px(p, f, pt.price), py(p, f, pt.tokens_per_s), 11,
                          "#" + std::to_string(pt.pick), "pick-label"))
      s.text(px(p, f, pt.price) - 11, py(p, f, pt.tokens_per_s) + 4, "#" + std::to_string(pt.pick),
             "pick-label", "end");
  for (std::size_t k = 0; k < p.frontier.size(); ++k) {
    const PlotPoint& pt = p.points[p.frontier[k]];
    const double x = px(p, f, pt.price), y = py(p, f, pt.tokens_per_s);
    const double gap = pt.pick ? 11 : 7;
    if (!place(s, taken, f, x, y, gap, fmt::format("{} {}", k + 1, pt.label), "label") &&
        !place(s, taken, f, x, y, gap, std::to_string(k + 1), "label"))
      s.text(x + gap, y - 5, std::to_string(k + 1), "label");  // crowded: the key names it
  }
}

void points(Svg& s, const PricePlot& p, const Frame& f) {
  for (const PlotPoint& pt : p.points)
    if (!pt.frontier)
      s.circle(px(p, f, pt.price), py(p, f, pt.tokens_per_s), 3.5,
               pt.over_budget ? "pt-over" : "pt", tooltip(pt, p));
  std::vector<std::pair<double, double>> line;
  for (std::size_t i : p.frontier)
    line.emplace_back(px(p, f, p.points[i].price), py(p, f, p.points[i].tokens_per_s));
  if (line.size() > 1) s.polyline(line, "front-line");
  for (std::size_t i : p.frontier)
    s.circle(px(p, f, p.points[i].price), py(p, f, p.points[i].tokens_per_s), 5, "front",
             tooltip(p.points[i], p));
  for (const PlotPoint& pt : p.points)
    if (pt.pick)
      s.circle(px(p, f, pt.price), py(p, f, pt.tokens_per_s), 9, "pick",
               "recommended #" + std::to_string(pt.pick) + ": " + tooltip(pt, p));
  labels(s, p, f);
}

// The key: what each mark means, the frontier (numbered, cheapest first) and the picks.
void key(Svg& s, const PricePlot& p, const Frame& f) {
  double y = f.top;
  s.circle(f.panel + 5, y - 4, 5, "front");
  s.text(f.panel + 16, y, "on the Pareto frontier", "panel");
  s.circle(f.panel + 5, y + 12, 3.5, "pt");
  s.text(f.panel + 16, y + 16, "another fitting configuration", "panel");
  s.circle(f.panel + 5, y + 28, 7, "pick");
  s.text(f.panel + 16, y + 32, "recommended (gpusel recommend)", "panel");
  y += 58;
  s.text(f.panel, y, "Frontier, cheapest first", "panel-head");
  const std::size_t room = static_cast<std::size_t>((f.bottom - y - 90) / 15);
  for (std::size_t k = 0; k < p.frontier.size(); ++k) {
    y += 15;
    if (k + 1 == room && p.frontier.size() > room) {
      s.text(f.panel, y, fmt::format("... and {} more (hover the points)", p.frontier.size() - k),
             "panel");
      break;
    }
    const PlotPoint& pt = p.points[p.frontier[k]];
    s.text(f.panel, y, fmt::format("{}. {}", k + 1, pt.label), "panel");
    s.text(f.width - 12, y, grouped(pt.price) + " / " + grouped(pt.tokens_per_s), "panel", "end");
  }
  y += 26;
  s.text(f.panel, y, "Recommended (price / " + p.rate_unit + ")", "panel-head");
  std::vector<const PlotPoint*> picks;
  for (const PlotPoint& pt : p.points)
    if (pt.pick) picks.push_back(&pt);
  std::sort(picks.begin(), picks.end(), [](auto* a, auto* b) { return a->pick < b->pick; });
  if (picks.empty()) s.text(f.panel, y + 15, "none within the budget and filters", "panel");
  for (const PlotPoint* pt : picks) {
    y += 15;
    s.text(f.panel, y, fmt::format("#{} {}", pt->pick, pt->label), "panel");
    s.text(f.width - 12, y, grouped(pt->price) + " / " + grouped(pt->tokens_per_s), "panel", "end");
  }
}

}  // namespace

std::string render_svg(const PricePlot& p, bool standalone) {
  const Frame f;
  Svg s(f.width, f.height, p.title + ": price against throughput", standalone);
  s.text(20, 28, p.title, "title");
  s.text(20, 48, p.subtitle, "sub");
  if (p.points.empty()) {
    s.text(f.width / 2, f.height / 2, "No fitting configuration has a price to plot", "sub",
           "middle");
  } else {
    axes(s, p, f);
    budget(s, p, f);
    points(s, p, f);
    key(s, p, f);
  }
  std::string notes;
  for (const auto& n : p.notes) notes += (notes.empty() ? "" : "; ") + n;
  s.text(20, f.height - 14,
         "Estimated by gpusel; prices in " + p.currency + (notes.empty() ? "" : "; " + notes),
         "note");
  return s.finish();
}

std::string render_svg(const SpecChart& c, bool standalone) {
  const double row = 22, top = 84, left = 250, right_pad = 110, width = 900;
  const double height = top + std::max<double>(1, static_cast<double>(c.bars.size())) * row + 60;
  Svg s(width, height, c.title, standalone);
  s.text(20, 28, c.title + " (" + c.unit + ")", "title");
  s.text(20, 48, c.subtitle, "sub");
  const double x1 = width - right_pad, bottom = top + static_cast<double>(c.bars.size()) * row;
  for (double t : c.x.ticks) {
    const double x = scale(c.x, t, left, x1);
    s.line(x, top - 6, x, bottom, "grid");
    s.text(x, top - 10, tick_label(t), "tick", "middle");
  }
  double y = top;
  for (const SpecBar& b : c.bars) {
    const double w = std::max(1.0, scale(c.x, b.value, left, x1) - left);
    s.text(left - 8, y + 15, b.gpu, "tick", "end");
    s.rect(left, y + 4, w, row - 8, "bar", b.name + ": " + grouped(b.value) + " " + c.unit);
    s.text(left + w + 6, y + 15, grouped(b.value) + (b.converted ? "*" : ""), "value");
    y += row;
  }
  s.line(left, top - 6, left, bottom, "axis");
  std::string notes;
  for (const auto& n : c.notes) notes += (notes.empty() ? "" : "; ") + n;
  s.text(20, height - 16, "gpusel catalog" + (notes.empty() ? "" : "; " + notes), "note");
  return s.finish();
}

}  // namespace gpusel
