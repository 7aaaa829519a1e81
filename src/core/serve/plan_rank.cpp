// Every configuration recommend would build, as serving replicas, ranked by the cost of a
// million output tokens at the target load.
#include <algorithm>
#include <map>

#include "gpusel/serve/plan.hpp"
#include "serve_internal.hpp"

namespace gpusel {
namespace {

enum class ServeVerdict {
  meets,
  no_engine,
  too_small,
  too_slow,
  beyond_fleet,
  excluded,
  no_price,
  over_budget
};

ServeVerdict judge(const ServeOption& o, const ServeRequest& req) {
  if (!o.engine) return ServeVerdict::no_engine;
  if (!o.replica.fits()) return ServeVerdict::too_small;
  if (!o.capacity) return ServeVerdict::too_slow;
  if (o.beyond_fleet) return ServeVerdict::beyond_fleet;
  if (o.eval.rules.excluded) return ServeVerdict::excluded;
  if (req.rank.budget && !o.bought.priced) return ServeVerdict::no_price;
  if (req.rank.budget && o.bought.price > *req.rank.budget) return ServeVerdict::over_budget;
  return ServeVerdict::meets;
}

void count(ServeCounts& c, ServeVerdict v) {
  switch (v) {
    case ServeVerdict::no_engine:
      ++c.no_engine;
      break;
    case ServeVerdict::too_small:
      ++c.too_small;
      break;
    case ServeVerdict::too_slow:
      ++c.too_slow;
      break;
    case ServeVerdict::beyond_fleet:
      ++c.beyond_fleet;
      break;
    case ServeVerdict::excluded:
      ++c.excluded_by_rule;
      break;
    case ServeVerdict::no_price:
      ++c.no_price;
      break;
    case ServeVerdict::over_budget:
      ++c.over_budget;
      break;
    case ServeVerdict::meets:
      break;
  }
}

// Whether the option has a cost on the basis ranked by (rented, or bought).
bool priced_on(const ServeOption& o, bool by_rent) {
  return by_rent ? o.rented && o.rented->per_million > 0
                 : o.bought.priced && o.bought.per_million > 0;
}

// Options priced on the asked basis first (under --rank-by rent a card nobody rents out
// comes after every rented one: its bought cost is another basis); then cheaper; then fewer
// cards; then the lower TPOT.
bool better(const ServeOption& a, const ServeOption& b, bool by_rent) {
  if (priced_on(a, by_rent) != priced_on(b, by_rent)) return priced_on(a, by_rent);
  const double ca = a.cost(by_rent), cb = b.cost(by_rent);
  if (ca != cb) return ca < cb;
  if (a.cards != b.cards) return a.cards < b.cards;
  return a.served.tpot.p50 < b.served.tpot.p50;
}

// Per card, its best configuration only: the table compares cards.
void keep_best_per_card(std::vector<ServeOption>& v, bool by_rent) {
  std::map<const Gpu*, std::size_t> best;
  for (std::size_t i = 0; i < v.size(); ++i) {
    auto [it, fresh] = best.try_emplace(v[i].eval.config.gpu, i);
    if (!fresh && better(v[i], v[it->second], by_rent)) it->second = i;
  }
  std::vector<ServeOption> kept;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (best.at(v[i].eval.config.gpu) == i) kept.push_back(std::move(v[i]));
  v = std::move(kept);
}

// Lowest latency floor first (unloaded TTFT + TPOT at the target percentile): the
// configurations closest to meeting the targets.
void sort_by_floor(std::vector<ServeOption>& v, double pct) {
  std::vector<std::pair<double, std::size_t>> key;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const LoadPoint idle = idle_point(v[i].replica);
    key.emplace_back(idle.tpot.at(pct) + idle.ttft.at(pct), i);
  }
  std::stable_sort(key.begin(), key.end());
  std::vector<ServeOption> sorted;
  for (const auto& [k, i] : key) sorted.push_back(std::move(v[i]));
  v = std::move(sorted);
}

}  // namespace

ServePlan plan_serving(const Catalog& catalog, const Cloud* cloud, const RuleSet& rules,
                       const Rates& rates, const ServeRequest& req) {
  ServePlan plan;
  const serve_detail::PlanEnv env = serve_detail::plan_env(req, rates);
  plan.kwh_price = env.kwh_price, plan.kwh_basis = env.kwh_basis, plan.years = env.years;
  const Filters& f = req.rank.filters;
  check_filters(catalog, f);
  for (const auto& gpu : catalog.gpus) {
    const Workload served = serve_detail::served_on(gpu, req);
    for (const Config& c : configurations(gpu, req.rank.max_gpus, served)) {
      ++plan.counts.candidates;
      if (!passes_filters(gpu, f) || (f.require_interconnect && c.count > 1 && !c.linked)) {
        ++plan.counts.filtered;
        continue;
      }
      ServeOption o =
          serve_detail::evaluate_option(gpu, c.count, std::nullopt, cloud, rules, rates, req, env);
      const ServeVerdict v = judge(o, req);
      count(plan.counts, v);
      if (v == ServeVerdict::meets) plan.options.push_back(std::move(o));
      if (v == ServeVerdict::over_budget) plan.over_budget.push_back(std::move(o));
      if (v == ServeVerdict::too_slow) plan.too_slow.push_back(std::move(o));
    }
  }
  const bool by_rent = req.target.rank_by_rent;
  keep_best_per_card(plan.options, by_rent);
  std::stable_sort(
      plan.options.begin(), plan.options.end(),
      [&](const ServeOption& a, const ServeOption& b) { return better(a, b, by_rent); });
  keep_best_per_card(plan.over_budget, by_rent);
  std::stable_sort(
      plan.over_budget.begin(), plan.over_budget.end(),
      [](const ServeOption& a, const ServeOption& b) { return a.bought.price < b.bought.price; });
  sort_by_floor(plan.too_slow, req.target.targets.percentile);
  return plan;
}

}  // namespace gpusel
