#include "gpusel/rank/ranker.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/i18n/i18n.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/memory/fit.hpp"
#include "ranker_internal.hpp"

namespace gpusel {
namespace {

bool listed(const std::vector<std::string>& list, const std::string& v) {
  if (list.empty()) return true;
  return std::any_of(list.begin(), list.end(), [&](const auto& x) { return to_lower(x) == v; });
}

enum class Verdict { fits, too_small, excluded, no_price, over_budget };

Verdict judge(const Result& r, const RankRequest& req) {
  if (r.need.total_bytes > r.usable_bytes) return Verdict::too_small;
  if (r.rules.excluded) return Verdict::excluded;
  if (req.budget && !r.unit_price) return Verdict::no_price;
  if (req.budget && r.price > *req.budget) return Verdict::over_budget;
  return Verdict::fits;
}

void count_rejection(Rejections& rej, Verdict v, const Result& r) {
  switch (v) {
    case Verdict::too_small:
      ++rej.too_small;
      break;
    case Verdict::excluded:
      ++rej.excluded_by_rule, ++rej.by_rule[r.rules.exclude_rule];
      break;
    case Verdict::no_price:
      ++rej.no_price;
      break;
    case Verdict::over_budget:
      ++rej.over_budget;
      break;
    case Verdict::fits:
      break;
  }
}

// Per card, the best-scoring count and the fewest cards that fit (when they differ), so
// the table compares cards and still shows the smallest configuration that runs the job.
// Without an amount of work (--tokens) more cards than the workload needs only buy speed
// nobody asked for (data parallelism adds speed, not capacity): then the fewest that fit.
void keep_best_per_card(std::vector<Result>& results, bool timed) {
  std::map<const Gpu*, std::pair<std::size_t, std::size_t>> pick;  // card -> (best, fewest)
  for (std::size_t i = 0; i < results.size(); ++i) {
    auto [it, fresh] = pick.try_emplace(results[i].config.gpu, i, i);
    if (fresh) continue;
    if (results[i].scores.total > results[it->second.first].scores.total) it->second.first = i;
    if (results[i].config.count < results[it->second.second].config.count) it->second.second = i;
  }
  std::vector<Result> kept;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& p = pick.at(results[i].config.gpu);
    if ((timed && i == p.first) || i == p.second) kept.push_back(std::move(results[i]));
  }
  results = std::move(kept);
}

void sort_results(std::vector<Result>& results) {
  std::stable_sort(results.begin(), results.end(), [](const Result& a, const Result& b) {
    if (std::abs(a.scores.total - b.scores.total) > 1e-9) return a.scores.total > b.scores.total;
    return a.headroom > b.headroom;  // tiebreak: more room for a longer sequence or batch
  });
}

// Cards + the platform they need (data/platforms.json), unless the user owns the host or the
// configuration is rented. Platform prices are USD, converted like the cards'.
void price_configuration(Result& r, const RankRequest& req, const Rates& rates) {
  const Config& c = r.config;
  r.unit_price = charge(*c.gpu, req.price, rates);
  if (c.rented) return;
  r.platform_quote =
      quote_platform(default_platforms(), *c.gpu, c.count, r.unit_price && r.unit_price->used);
  r.platform = r.platform_quote.platform ? r.platform_quote.label : tr("no platform takes it");
  if (!r.unit_price) return;
  r.cards_price = r.unit_price->amount * c.count;
  if (!req.cards_only)
    r.platform_price = convert(r.platform_quote.total_usd, "USD", req.price.currency, rates);
  r.price = r.cards_price + r.platform_price;
}

}  // namespace

Workload workload_for(const Config& c, const RankRequest& r) {
  return on_gpus(r.workload, c.count);
}

bool passes_filters(const Gpu& g, const Filters& f) {
  const auto excluded = [&](const std::string& id) { return to_lower(id) == g.id; };
  return listed(f.vendors, g.vendor) && listed(f.ecosystems, g.ecosystem) &&
         listed(f.segments, g.segment) && g.vram_gb >= f.min_vram_gb &&
         std::none_of(f.exclude_ids.begin(), f.exclude_ids.end(), excluded);
}

namespace {

// What evaluate needs beyond the configuration: the same card's one-card need (shared by
// every count of a card), whether to write the rules' texts, and whether a configuration
// that does not fit may stop at its memory (the ranker only counts those: no price, speed or
// rules for a result nobody sees).
struct EvalContext {
  std::optional<double> one_card_need;
  bool render = true;
  bool stop_if_too_small = false;
};

double one_card_need(const Gpu& gpu, const RankRequest& req) {
  if (model_parallel(req.workload))  // one card: no tensor or pipeline split
    return estimate(without_model_parallel(req.workload), EstimateDetail::numbers).total_bytes;
  return estimate(workload_for(make_config(gpu, 1, req.workload), req), EstimateDetail::numbers)
      .total_bytes;
}

Result evaluate_in(const Config& config, const RuleSet& rules, const Rates& rates,
                   const RankRequest& req, const EvalContext& ctx) {
  Result r;
  r.config = config;
  const Workload w = workload_for(config, req);
  r.config.shard = w.shard;
  r.config.split = parallel_label(w);
  r.need = estimate(w, EstimateDetail::numbers);
  r.usable_bytes = usable_bytes(*config.gpu, req.reserve);
  r.headroom = (r.usable_bytes - r.need.total_bytes) / r.usable_bytes;
  if (ctx.stop_if_too_small && r.need.total_bytes > r.usable_bytes) return r;  // judged too_small
  r.one_card_fits = config.count == 1
                        ? r.need.total_bytes <= r.usable_bytes
                        : (ctx.one_card_need ? *ctx.one_card_need
                                             : one_card_need(*config.gpu, req)) <= r.usable_bytes;
  price_configuration(r, req, rates);
  r.throughput = estimate_throughput(w, *config.gpu, config.count, config.linked);
  r.tokens_per_s = primary_tokens_per_s(w, r.throughput);
  if (req.tokens && r.tokens_per_s > 0) r.hours = hours_for_tokens(*req.tokens, r.tokens_per_s);
  r.rules = apply_rules(rules, detail::facts_for(r, w, req), ctx.render);
  return r;
}

// The rules' texts for a result evaluated without them: the same rules fire on the same facts.
void render_rules(Result& r, const RuleSet& rules, const RankRequest& req) {
  r.rules = apply_rules(rules, detail::facts_for(r, workload_for(r.config, req), req));
}

}  // namespace

Result evaluate(const Config& config, const RuleSet& rules, const Rates& rates,
                const RankRequest& req) {
  return evaluate_in(config, rules, rates, req, {});
}

void score_results(std::vector<Result>& results, const RankRequest& req) {
  detail::score(results, req);
}

Ranking rank(const Catalog& catalog, const RuleSet& rules, const Rates& rates,
             const RankRequest& req) {
  Ranking out;
  for (const auto& gpu : catalog.gpus) {
    EvalContext ctx;
    ctx.render = false;  // written below for the configurations kept
    ctx.stop_if_too_small = true;
    for (const auto& config : configurations(gpu, req.max_gpus, req.workload)) {
      ++out.candidates;
      const bool unlinked = config.count > 1 && !config.linked;
      if (!passes_filters(gpu, req.filters) || (req.filters.require_interconnect && unlinked)) {
        ++out.rejected.filtered;
        continue;
      }
      if (config.count > 1 && !ctx.one_card_need) ctx.one_card_need = one_card_need(gpu, req);
      Result r = evaluate_in(config, rules, rates, req, ctx);
      const Verdict v = judge(r, req);
      count_rejection(out.rejected, v, r);
      if (v == Verdict::fits)
        out.results.push_back(std::move(r));
      else if (v == Verdict::over_budget)
        out.over_budget.push_back(std::move(r));
    }
  }
  out.fitting = static_cast<int>(out.results.size());
  score_results(out.results, req);
  score_results(out.over_budget, req);
  if (req.keep_passed) out.passed = out.results;  // only the plot draws them all
  const bool timed = req.tokens.has_value();
  keep_best_per_card(out.results, timed);
  sort_results(out.results);
  keep_best_per_card(out.over_budget, timed);
  std::stable_sort(out.over_budget.begin(), out.over_budget.end(),
                   [](const Result& a, const Result& b) { return a.price < b.price; });
  for (auto* list : {&out.results, &out.over_budget})
    for (auto& r : *list) render_rules(r, rules, req);
  return out;
}

}  // namespace gpusel
