#include "cli/recommend_html.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cli/recommend_view.hpp"
#include "cli/rent_view.hpp"
#include "gpusel/report/html.hpp"
#include "gpusel/report/plot.hpp"
#include "gpusel/report/svg.hpp"

namespace gpusel::cli {
namespace {

// The terminal's score bars ("███████░░░ 75") are for terminals: a page shows the number.
std::string without_bars(const std::string& cell) {
  std::string out;
  for (std::size_t i = 0; i < cell.size();) {
    if (cell.compare(i, 3, "\u2588") == 0 || cell.compare(i, 3, "\u2591") == 0) {
      i += 3;
      continue;
    }
    out += cell[i++];
  }
  return out.empty() || out.front() != ' ' ? out : out.substr(1);
}

HtmlTable html_table(const Table& t) {
  HtmlTable h;
  for (const auto& c : t.columns) h.headers.push_back(c.header), h.right.push_back(c.right);
  for (const auto& row : t.rows) {
    std::vector<std::string> cells;
    for (const auto& cell : row) cells.push_back(without_bars(cell));
    h.rows.push_back(std::move(cells));
  }
  return h;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string line = text.substr(start, end - start);
    const auto first = line.find_first_not_of(" -");
    if (first != std::string::npos) out.push_back(line.substr(first));
    start = end + 1;
  }
  return out;
}

std::vector<std::string> question(const Session& s, const RecommendAnswer& a) {
  const RankRequest& r = s.request;
  std::vector<std::string> q{
      "Workload: " + workload_line(r.workload),
      fmt::format("Memory on one GPU: {} GiB (likely {} to {} GiB)",
                  gib(a.one_gpu_need.need_bytes()), gib(a.one_gpu_need.need_low_bytes()),
                  gib(a.one_gpu_need.need_high_bytes()))};
  q.push_back("Prices in " + r.price.currency +
              (r.budget ? ", budget " + money(*r.budget, r.price.currency) : ", no budget"));
  q.push_back(fmt::format("Score weights: compute {:.2f}, budget {:.2f}, ecosystem {:.2f}",
                          r.weights.compute, r.weights.budget, r.weights.ecosystem));
  return q;
}

std::vector<HtmlWarning> warnings(const RecommendAnswer& a) {
  std::vector<HtmlWarning> out;
  for (std::size_t i = 0; i < a.top.size(); ++i)
    for (const auto& m : a.top[i].rules.warnings)
      out.push_back({fmt::format("{}. {}", i + 1, config_label(a.top[i].config)), m.text, m.rule_id,
                     m.source});
  return out;
}

// Each dataset behind the page, and the dates of what the page shows from it.
HtmlTable data_dates(Context& ctx, const Session& s, const RecommendAnswer& a) {
  HtmlTable t{{"data", "file", "date"}, {}, {}};
  const Catalog& cat = ctx.catalog();
  t.rows.push_back({"GPU catalog", cat.origin,
                    "reviewed " + (cat.reviewed.empty() ? std::string("-") : cat.reviewed)});
  std::vector<std::string> dates;
  for (const auto& r : a.top)
    if (r.unit_price && r.unit_price->from) dates.push_back(r.unit_price->from->as_of);
  std::sort(dates.begin(), dates.end());
  if (!dates.empty())
    t.rows.push_back(
        {"card prices shown", "the catalog's price entries",
         dates.front() == dates.back() ? dates.front() : dates.front() + " to " + dates.back()});
  t.rows.push_back({"exchange rates", "data/rates.json", s.rates.as_of});
  const Cloud& cloud = ctx.cloud();
  t.rows.push_back({"cloud offers", cloud.origin, "reviewed " + cloud.reviewed});
  return t;
}

}  // namespace

std::string recommend_html(Context& ctx, const Session& s, const RecommendAnswer& a,
                           const std::string& summary) {
  HtmlReport r;
  r.title = "Which GPU for " +
            (s.request.workload.model.name.empty() ? s.request.workload.model.id
                                                   : s.request.workload.model.name) +
            ", " + to_string(s.request.workload.mode);
  r.question = question(s, a);
  r.assumptions = s.assumptions;
  r.assumptions.insert(r.assumptions.end(), a.one_gpu_need.assumptions.begin(),
                       a.one_gpu_need.assumptions.end());
  r.ranking = html_table(results_table(a.top, true, s.request.tokens.has_value()));
  r.ranking_notes = split_lines(summary);
  const Sources src{ctx.catalog(), {}, s.rules, s.rates};
  const PricePlot plot =
      price_plot(src, {s.request, std::min<int>(3, static_cast<int>(a.top.size()))});
  if (!plot.points.empty()) r.plot_svg = render_svg(plot, false);
  r.plot_notes = plot.notes;
  r.plot_notes.insert(r.plot_notes.begin(), plot.subtitle);
  r.warnings = warnings(a);
  if (!a.compare_rent.empty()) {
    r.rent = html_table(compare_rent_table(s, a));
    r.rent_notes = a.compare_rent_notes;
    r.rent_notes.insert(r.rent_notes.begin(),
                        "Renting the same work: the cheapest offer of the same GPU; \"rent = buy "
                        "after\" is the on-demand hours that cost the purchase price.");
  }
  r.data = data_dates(ctx, s, a);
  r.generated = std::string("gpusel ") + GPUSEL_VERSION;
  return render_html(r);
}

}  // namespace gpusel::cli
