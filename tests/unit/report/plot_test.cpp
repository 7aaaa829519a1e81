// The chart's data: every fitting configuration, the Pareto frontier, the picks, the budget
// and the axes; the SVG it becomes is well-formed and escapes what comes from data.
#include "gpusel/report/plot.hpp"

#include <catch2/catch.hpp>
#include <set>

#include "gpusel/base/error.hpp"
#include "gpusel/report/html.hpp"
#include "gpusel/report/svg.hpp"
#include "gpusel/speed/throughput.hpp"
#include "ranker_fixtures.hpp"
#include "xml_check.hpp"

using namespace gpusel;
using namespace ranker_fixtures;

namespace {

Sources plot_sources(const Catalog& cat = catalog()) { return {cat, {}, rules(), rates()}; }

RankRequest lora_request(std::optional<double> budget) {
  RankRequest r;
  r.workload = bare_7b_lora();
  r.price.currency = "USD";
  r.budget = budget;
  return r;
}

PlotPoint pt(double price, double tps) {
  PlotPoint p;
  p.price = price, p.tokens_per_s = tps;
  return p;
}

}  // namespace

TEST_CASE("the Pareto frontier: each point faster than every cheaper one") {
  const std::vector<PlotPoint> pts{pt(100, 10), pt(150, 8),  pt(200, 30),
                                   pt(200, 20), pt(300, 30), pt(400, 50)};
  CHECK(pareto_frontier(pts) == std::vector<std::size_t>{0, 2, 5});
  CHECK(pareto_frontier({}).empty());
}

TEST_CASE("axes: log scale when the values span 20x or more, 1-2-5 steps otherwise") {
  // The ends are 1, 2 or 5 times a power of ten around the values, labelled; the decades
  // between them are the ticks.
  const Axis wide = make_axis("price", 300, 400000, false);
  CHECK(wide.log);
  CHECK(wide.min == 200);
  CHECK(wide.max == 500000);
  CHECK(wide.ticks == std::vector<double>{200, 1000, 10000, 100000, 500000});
  // Linear from zero in 1-2-5 steps: 3400 / 5 = 680 rounds up to a step of 1000.
  const Axis narrow = make_axis("tokens/s", 1200, 3400, true);
  CHECK_FALSE(narrow.log);
  CHECK(narrow.min == 0);
  CHECK(narrow.max == 4000);
  CHECK(narrow.ticks == std::vector<double>{0, 1000, 2000, 3000, 4000});
  // 40x is log, and within two decades 2 and 5 are ticks too.
  const Axis two_decades = make_axis("x", 50, 2000, false);
  CHECK(two_decades.log);
  CHECK(two_decades.ticks == std::vector<double>{50, 100, 200, 500, 1000, 2000});
  // Just under 20x stays linear, not from zero when asked not to.
  const Axis linear = make_axis("x", 100, 1900, false);
  CHECK_FALSE(linear.log);
  CHECK(linear.min <= 100);
  CHECK(linear.max >= 1900);
}

TEST_CASE("price_plot: every fitting priced configuration, the frontier and the picks") {
  const PricePlot p = price_plot(plot_sources(), {lora_request(15000), 3});
  REQUIRE(p.points.size() > 10);
  // Sorted by price; the frontier is increasing in both price and speed.
  for (std::size_t i = 1; i < p.points.size(); ++i)
    CHECK(p.points[i - 1].price <= p.points[i].price);
  for (std::size_t k = 1; k < p.frontier.size(); ++k) {
    CHECK(p.points[p.frontier[k]].price > p.points[p.frontier[k - 1]].price);
    CHECK(p.points[p.frontier[k]].tokens_per_s > p.points[p.frontier[k - 1]].tokens_per_s);
  }
  // No point is strictly better than a frontier point in both price and speed.
  for (std::size_t f : p.frontier)
    for (const auto& x : p.points)
      CHECK_FALSE((x.price < p.points[f].price && x.tokens_per_s > p.points[f].tokens_per_s));
  // The picks are recommend's first three, within the budget.
  const RecommendAnswer rec = recommend(plot_sources(), {lora_request(15000), 3, false, {}});
  int picks = 0;
  for (const auto& x : p.points)
    if (x.pick) {
      ++picks;
      CHECK_FALSE(x.over_budget);
      CHECK(x.price <= 15000);
    }
  CHECK(picks == static_cast<int>(rec.top.size()));
  // Over-budget configurations are drawn, beyond the budget line.
  CHECK(std::any_of(p.points.begin(), p.points.end(), [](const auto& x) { return x.over_budget; }));
  CHECK(p.budget == 15000);
  CHECK(p.x.min <= 15000);
  CHECK(p.x.max >= 15000);
  CHECK(p.x.title == "price (USD)");
  CHECK(p.y.title == "training throughput (tokens/s)");
}

TEST_CASE("clusters (--max-gpus 64) are plotted with their nodes, each label once") {
  RankRequest req = lora_request(std::nullopt);
  req.workload.model = model("llama-2-70b");
  req.workload.mode = Mode::full;
  req.max_gpus = 64;
  const PricePlot p = price_plot(plot_sources(), {req, 3});
  std::set<std::string> labels;
  bool cluster = false;
  for (const auto& x : p.points) {
    CAPTURE(x.label);
    CHECK(labels.insert(x.label).second);
    CHECK(x.count <= 64);
    // Beyond one node (8 for an HGX board, 72 for a GB200 NVL72 rack) the label names nodes.
    if (x.count > node_size(require_gpu(catalog(), x.gpu))) {
      cluster = true;
      CHECK_THAT(x.label, Catch::Contains(" nodes)"));
    }
  }
  CHECK(cluster);
}

TEST_CASE("a configuration filtered out is not plotted") {
  RankRequest r = lora_request(std::nullopt);
  r.filters.vendors = {"amd"};
  const PricePlot p = price_plot(plot_sources(), {r, 3});
  for (const auto& x : p.points) CHECK(catalog().find(x.gpu)->vendor == "amd");
}

TEST_CASE("spec charts: cards by the metric, largest first, unknown metric is a usage error") {
  Filters f;
  f.vendors = {"nvidia"};
  const SpecChart c = spec_chart(catalog(), f, Metric::vram, {"USD"}, rates());
  REQUIRE(c.bars.size() > 10);
  for (std::size_t i = 1; i < c.bars.size(); ++i) CHECK(c.bars[i - 1].value >= c.bars[i].value);
  CHECK(c.unit == "GB");
  const SpecChart ppg = spec_chart(catalog(), {}, Metric::price_per_gb, {"USD"}, rates());
  CHECK(ppg.unit == "USD/GB");
  CHECK_FALSE(ppg.notes.empty());  // cards without a price are counted
  CHECK_THROWS_AS(parse_metric("vrma"), Error);
}

TEST_CASE("escaping: markup, quotes and control characters from data cannot break out") {
  CHECK(xml_escape("<script>alert('x')</script> & \"q\"") ==
        "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
  CHECK(xml_escape(std::string("a\x01"
                               "b\x1b[31m",
                               8)) == "ab[31m");
  CHECK(xml_escape("\xff\xfe ok \xe4\xb8\xad") == "\xEF\xBF\xBD\xEF\xBF\xBD ok \xe4\xb8\xad");
  CHECK(xml_escape("\xed\xa0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  CHECK(grouped(1234567) == "1,234,567");
  CHECK(grouped(56.74) == "56.7");
}

TEST_CASE("the SVG is well-formed, standalone or inline, and carries no script") {
  const PricePlot p = price_plot(plot_sources(), {lora_request(15000), 3});
  const std::string svg = render_svg(p);
  CHECK(xml_check::problem(svg) == "");
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(svg.find("<script") == std::string::npos);
  CHECK(svg.find("font-family=\"sans-serif\"") != std::string::npos);
  CHECK(svg.find("budget 15,000 USD") != std::string::npos);
  const std::string inline_svg = render_svg(p, false);
  CHECK(inline_svg.rfind("<svg", 0) == 0);
  CHECK(xml_check::problem(inline_svg) == "");
  const SpecChart c = spec_chart(catalog(), {}, Metric::bandwidth, {"USD"}, rates());
  CHECK(xml_check::problem(render_svg(c)) == "");
}

TEST_CASE("a hostile card name from a user catalog stays text in the SVG and the page") {
  Catalog cat = catalog();
  Gpu& g = const_cast<Gpu&>(*cat.find("rtx-4090"));
  g.name = "<script>alert(1)</script><svg onload=alert(2)> & \"quoted\"";
  const SpecChart c = spec_chart(cat, {}, Metric::vram, {"USD"}, rates());
  const std::string svg = render_svg(c);
  CHECK(xml_check::problem(svg) == "");
  CHECK(svg.find("<script>") == std::string::npos);
  CHECK(svg.find("<svg onload") == std::string::npos);
  CHECK(svg.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
  HtmlReport r;
  r.title = g.name;
  r.question = {g.name};
  r.ranking = {{"config", "price"}, {false, true}, {{g.name, "1,000 USD"}}};
  r.warnings = {{g.name, "text <b>", "rule\"id", "javascript:alert(1)"}};
  r.plot_svg = render_svg(c, false);
  r.data = {{"data", "date"}, {}, {{"catalog", "2026-01-01"}}};
  r.generated = "gpusel test";
  const std::string html = render_html(r);
  CHECK(xml_check::problem(html, true) == "");
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("href=\"javascript") == std::string::npos);  // only http(s) sources link
}

TEST_CASE("the page: sections in order, tables with their cells, sources linked") {
  HtmlReport r;
  r.title = "Which GPU";
  r.question = {"Workload: 7B lora"};
  r.ranking = {{"#", "config"}, {true, false}, {{"1", "1x rtx-4090"}}};
  r.warnings = {{"1. 1x rtx-4090", "tight", "low-headroom", "https://example.org/a?b=1&c=2"}};
  r.rent = {{"#", "rent"}, {true, false}, {{"1", "runpod-4090"}}};
  r.data = {{"data", "date"}, {}, {{"GPU catalog", "reviewed 2026-12-03"}}};
  r.generated = "gpusel 0.1.0";
  const std::string html = render_html(r);
  CHECK(xml_check::problem(html, true) == "");
  const auto q = html.find("id=\"question\""), k = html.find("id=\"ranking\""),
             w = html.find("id=\"warnings\""), b = html.find("id=\"rent\""),
             d = html.find("id=\"data\"");
  CHECK((q < k && k < w && w < b && b < d && d != std::string::npos));
  CHECK(html.find("<td class=\"num\">1</td><td>1x rtx-4090</td>") != std::string::npos);
  CHECK(html.find("<a href=\"https://example.org/a?b=1&amp;c=2\"") != std::string::npos);
  CHECK(html.find("<link") == std::string::npos);  // nothing loaded from anywhere
  CHECK(html.find("src=") == std::string::npos);
}

TEST_CASE("the page links only http(s) sources, any other scheme stays text") {
  HtmlReport r;
  r.title = "Which GPU";
  r.warnings = {{"1. x", "<b>t</b>", "user-rule", "javascript:alert(1)"},
                {"2. y", "t", "user-rule", "data:text/html,<script>alert(1)</script>"}};
  const std::string html = render_html(r);
  CHECK(xml_check::problem(html, true) == "");
  CHECK(html.find("href=\"javascript") == std::string::npos);
  CHECK(html.find("href=\"data") == std::string::npos);
  CHECK(html.find("javascript:alert(1)") != std::string::npos);  // shown, as text
  CHECK(html.find("&lt;b&gt;t&lt;/b&gt;") != std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
}
