// `gpusel recommend`: ranked configurations for a workload, with reasons.
#include <fmt/format.h>

#include "cli/cmd_recommend.hpp"
#include "cli/recommend_view.hpp"
#include "cli/rent_view.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/memory/fit.hpp"

namespace gpusel::cli {
namespace {

struct RecommendArgs {
  RankArgs rank;
  RentArgs rent;
  int top = 10;
};

std::string rejected_text(const Ranking& r) {
  const Rejections& x = r.rejected;
  std::string s = fmt::format(
      "Considered {} configurations: {} pass{}; rejected {} too small, {} over budget, {} without "
      "a price, {} by rules, {} by filters.\n",
      r.candidates, r.fitting, r.fitting == 1 ? "es" : "", x.too_small, x.over_budget, x.no_price,
      x.excluded_by_rule, x.filtered);
  if (static_cast<int>(r.results.size()) < r.fitting)
    s += fmt::format(
        "Of those that pass, {} are ranked: per card, the best-scoring count and the "
        "fewest cards that fit.\n",
        r.results.size());
  for (const auto& [rule, n] : x.by_rule) s += fmt::format("  excluded by {}: {}\n", rule, n);
  return s;
}

nlohmann::json rejected_json(const Ranking& r) {
  const Rejections& x = r.rejected;
  return {{"considered", r.candidates},
          {"passed", r.fitting},
          {"ranked", r.results.size()},
          {"too_small", x.too_small},
          {"over_budget", x.over_budget},
          {"no_price", x.no_price},
          {"excluded_by_rule", x.excluded_by_rule},
          {"by_rule", x.by_rule},
          {"filtered", x.filtered}};
}

// Nothing fits: the cheapest configurations that would, were the budget larger, and the K37
// workload changes that make an affordable card fit.
std::vector<std::string> remedies(const Session& s, const Catalog& cat, const Ranking& ranking) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < ranking.over_budget.size() && i < 3; ++i) {
    const Result& r = ranking.over_budget[i];
    out.push_back(
        fmt::format("{} fits for {} (over the budget by {})", config_label(r.config),
                    money(r.price, r.unit_price->currency),
                    money(r.price - s.request.budget.value_or(0), r.unit_price->currency)));
  }
  std::vector<const Gpu*> affordable;
  for (const auto& g : cat.gpus) {
    auto p = charge(g, s.request.price, s.rates);
    if (p && (!s.request.budget || p->amount <= *s.request.budget) &&
        passes_filters(g, s.request.filters))
      affordable.push_back(&g);
  }
  std::sort(affordable.begin(), affordable.end(),
            [](const Gpu* a, const Gpu* b) { return a->vram_gb > b->vram_gb; });
  for (std::size_t i = 0; i < affordable.size() && out.size() < 6; ++i) {
    const FitResult f = fit(s.request.workload, *affordable[i], 1, s.request.reserve);
    for (const auto& c : f.changes)
      if (c.fits && c.workload.gpus == 1) {  // more cards: the ranking already tried those
        out.push_back(fmt::format("{} makes 1x {} fit ({} of {} GiB)", c.change, affordable[i]->id,
                                  gib(c.estimate.total_bytes), gib(f.usable_bytes)));
        break;
      }
  }
  return out;
}

Output build_output(const Session& s, const Ranking& ranking, const RecommendArgs& a,
                    const std::vector<std::string>& fixes) {
  std::vector<Result> top(
      ranking.results.begin(),
      ranking.results.begin() + std::min<std::ptrdiff_t>(a.top, ranking.results.size()));
  Output o;
  o.before = header_text(s, estimate(s.request.workload), converted_note(s, top));
  o.table = results_table(top, true, s.request.tokens.has_value());
  o.after = "\n" + warnings_text(top, 2) + rejected_text(ranking);
  if (!fixes.empty()) {
    o.after += "\nNothing fits. What would:\n";
    for (const auto& f : fixes) o.after += "  - " + f + "\n";
  }
  if (a.rank.explain) o.after += "\n" + explain_text(top, s.request);
  o.json = {{"schema_version", 1},
            {"workload", workload_json(s.request.workload)},
            {"currency", s.request.price.currency},
            {"rates_as_of", s.rates.as_of},
            {"budget", s.request.budget ? nlohmann::json(*s.request.budget) : nlohmann::json()},
            {"weights",
             {{"compute", s.request.weights.compute},
              {"budget", s.request.weights.budget},
              {"ecosystem", s.request.weights.ecosystem}}},
            {"results", nlohmann::json::array()},
            {"rejected", rejected_json(ranking)},
            {"suggestions", fixes}};
  int rank = 0;
  for (const auto& r : top) o.json["results"].push_back(result_json(r, ++rank));
  return o;
}

int run_recommend(Context& ctx, const RecommendArgs& a) {
  const Format f = parse_format(a.rank.format);
  if (a.top < 1) throw usage_error(fmt::format("--top {} must be at least 1", a.top));
  check_rent_args(a.rent, a.rank);
  const Session s = resolve_session(a.rank);
  if (a.rent.rent) {
    int fitting = 0;
    emit(*ctx.out, rent_output(ctx, s, a.rent, a.top, fitting), f);
    return fitting == 0 ? static_cast<int>(ExitCode::negative) : 0;
  }
  const Ranking ranking = rank(ctx.catalog(), s.rules, s.rates, s.request);
  std::vector<std::string> fixes;
  if (ranking.results.empty()) fixes = remedies(s, ctx.catalog(), ranking);
  Output o = build_output(s, ranking, a, fixes);
  if (a.rent.compare) add_compare_rent(o, ctx, s, ranking.results, a.top, a.rent);
  emit(*ctx.out, o, f);
  return ranking.results.empty() ? static_cast<int>(ExitCode::negative) : 0;
}

}  // namespace

void add_recommend_command(CLI::App& app, Context& ctx) {
  auto a = std::make_shared<RecommendArgs>();
  auto* cmd =
      app.add_subcommand("recommend", "Rank GPUs and multi-GPU configurations for a workload");
  add_evaluation_options(cmd, a->rank);
  add_search_options(cmd, a->rank);
  cmd->add_option("--top", a->top, "how many configurations to show (default 10)");
  add_rent_options(cmd, a->rent);
  cmd->callback([&ctx, a] { ctx.action = [&ctx, a] { return run_recommend(ctx, *a); }; });
}

}  // namespace gpusel::cli
