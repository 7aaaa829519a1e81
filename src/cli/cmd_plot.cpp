// `gpusel plot`: the price/throughput chart of a workload, or a spec chart of the catalog
// (--metric), as SVG (or its data as JSON), to a file written in one piece.
#include <fmt/format.h>

#include "cli/cmd_host.hpp"
#include "cli/rank_options.hpp"
#include "cli/render.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/base/output_file.hpp"
#include "gpusel/base/output_guard.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_source.hpp"
#include "gpusel/report/plot.hpp"
#include "gpusel/report/svg.hpp"

namespace gpusel::cli {
namespace {

using nlohmann::json;

struct PlotArgs {
  RankArgs rank;
  std::string metric, output = "-", format = "svg";
  int top = 3;
};

json axis_json(const Axis& a) {
  return {{"title", a.title}, {"log", a.log}, {"min", a.min}, {"max", a.max}, {"ticks", a.ticks}};
}

json plot_json(const PricePlot& p) {
  json pts = json::array();
  for (const auto& x : p.points)
    pts.push_back({{"label", x.label},
                   {"gpu", x.gpu},
                   {"count", x.count},
                   {"price", x.price},
                   {"tokens_per_s", x.tokens_per_s},
                   {"frontier", x.frontier},
                   {"over_budget", x.over_budget},
                   {"converted", x.converted},
                   {"used", x.used},
                   {"pick", x.pick ? json(x.pick) : json()}});
  return {{"schema_version", 1},    {"title", p.title},
          {"currency", p.currency}, {"budget", p.budget ? json(*p.budget) : json()},
          {"x", axis_json(p.x)},    {"y", axis_json(p.y)},
          {"points", pts},          {"frontier", p.frontier},
          {"unpriced", p.unpriced}, {"notes", p.notes}};
}

json chart_json(const SpecChart& c) {
  json bars = json::array();
  for (const auto& b : c.bars)
    bars.push_back(
        {{"gpu", b.gpu}, {"name", b.name}, {"value", b.value}, {"converted", b.converted}});
  return {{"schema_version", 1}, {"title", c.title}, {"unit", c.unit},
          {"x", axis_json(c.x)}, {"bars", bars},     {"notes", c.notes}};
}

bool workload_given(const WorkloadArgs& w) {
  return !w.model.empty() || !w.params.empty() || !w.model_config.empty();
}

// The chart as written: SVG markup or JSON, with nothing from data a terminal or CI runs.
std::string guard(const PlotArgs& a, const std::string& text) {
  return guard_output(text, a.format == "json" ? OutputKind::json : OutputKind::markup);
}

// The file or stdout; a file gets a one-line summary on stdout.
void write(Context& ctx, const PlotArgs& a, const std::string& text, const std::string& summary) {
  if (a.output == "-") {
    *ctx.out << guard(a, text);
    ctx.out->flush();
    return;
  }
  write_file_atomic(a.output, guard(a, text));
  *ctx.out << guard_output(terminal_safe("Wrote " + quote_input(a.output, 4096) + ": " + summary),
                           OutputKind::text)
           << "\n";
}

int run_metric(Context& ctx, const PlotArgs& a) {
  if (workload_given(a.rank.workload))
    throw usage_error(
        "--metric charts the catalog's cards: give no --model, --params or "
        "--model-config (without --metric, plot charts a workload)");
  const Metric metric = parse_metric(a.metric);
  const Session s = resolve_session(a.rank, false);
  const SpecChart c =
      spec_chart(ctx.catalog(), s.request.filters, metric, s.request.price, s.rates);
  const std::string text = a.format == "json" ? chart_json(c).dump(2) + "\n" : render_svg(c);
  write(ctx, a, text, fmt::format("{} cards by {}", c.bars.size(), a.metric));
  return c.bars.empty() ? static_cast<int>(ExitCode::negative) : 0;
}

int run_plot(Context& ctx, const PlotArgs& a) {
  if (a.format != "svg" && a.format != "json")
    throw usage_error("unknown format '" + quote_input(a.format) + "' for plot (use svg or json)");
  if (a.top < 0) throw usage_error(fmt::format("--top {} must be 0 or more", a.top));
  if (!a.metric.empty()) return run_metric(ctx, a);
  const Session s = resolve_session(a.rank);
  const Sources src{ctx.catalog(), {}, s.rules, s.rates};
  const PricePlot p = price_plot(src, {s.request, a.top});
  const std::string text = a.format == "json" ? plot_json(p).dump(2) + "\n" : render_svg(p);
  int picks = 0;
  for (const auto& pt : p.points) picks += pt.pick > 0;
  write(ctx, a, text,
        fmt::format("{} configurations, {} on the frontier, {} recommended{}", p.points.size(),
                    p.frontier.size(), picks,
                    p.unpriced ? fmt::format("; {} without a price not shown", p.unpriced) : ""));
  return p.points.empty() ? static_cast<int>(ExitCode::negative) : 0;
}

}  // namespace

void add_plot_command(CLI::App& app, Context& ctx) {
  auto a = std::make_shared<PlotArgs>();
  auto* cmd = app.add_subcommand(
      "plot",
      "Chart every fitting configuration's price against its throughput (SVG), or the "
      "catalog's cards by --metric");
  add_evaluation_options(cmd, a->rank);
  add_search_options(cmd, a->rank);
  // The chart has its own formats; a score breakdown has no place on it.
  cmd->remove_option(cmd->get_option("--format"));
  cmd->remove_option(cmd->get_option("--explain"));
  cmd->add_option("-o,--output", a->output, "file to write (default -: standard output)");
  cmd->add_option("--format", a->format, "svg (default) or json (the chart's data)");
  cmd->add_option("--metric", a->metric,
                  "chart the catalog instead: vram, bandwidth, tflops or price-per-gb");
  cmd->add_option("--top", a->top, "recommended configurations to highlight (default 3)");
  cmd->callback([&ctx, a] { ctx.action = [&ctx, a] { return run_plot(ctx, *a); }; });
}

}  // namespace gpusel::cli
