#include "gpusel/rank/ranker.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <unordered_map>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/i18n/i18n.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/memory/fit.hpp"
#include "ranker_internal.hpp"
#include "rules_internal.hpp"

namespace gpusel {
namespace {

bool listed(const std::vector<std::string>& list, const std::string& v) {
  if (list.empty()) return true;
  return std::any_of(list.begin(), list.end(), [&](const auto& x) { return to_lower(x) == v; });
}

enum class Verdict { fits, too_small, excluded, no_price, over_budget };

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
template <class T>
void keep_best_per_card(std::vector<T>& results, bool timed) {
  std::unordered_map<const Gpu*, std::pair<std::size_t, std::size_t>> pick;  // (best, fewest)
  pick.reserve(results.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    auto [it, fresh] = pick.try_emplace(results[i].gpu, i, i);
    if (fresh) continue;
    if (results[i].scores.total > results[it->second.first].scores.total) it->second.first = i;
    if (results[i].count < results[it->second.second].count) it->second.second = i;
  }
  std::vector<T> kept;
  kept.reserve(pick.size() * (timed ? 2 : 1));
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& p = pick.at(results[i].gpu);
    if ((timed && i == p.first) || i == p.second) kept.push_back(std::move(results[i]));
  }
  results = std::move(kept);
}

template <class T>
void sort_results(std::vector<T>& results) {
  std::stable_sort(results.begin(), results.end(), [](const T& a, const T& b) {
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

double one_card_need(const Gpu& gpu, const RankRequest& req) {
  if (model_parallel(req.workload))  // one card: no tensor or pipeline split
    return estimate(without_model_parallel(req.workload), EstimateDetail::numbers).need_bytes();
  return estimate(workload_for(make_config(gpu, 1, req.workload), req), EstimateDetail::numbers)
      .need_bytes();
}

// Everything after the memory estimate: price, speed, rules. `w` is workload_for(r.config).
// Price and speed: what the rules and the scores read.
void measure(Result& r, const Workload& w, const Rates& rates, const RankRequest& req) {
  const Config& config = r.config;
  price_configuration(r, req, rates);
  r.throughput = estimate_throughput(w, *config.gpu, config.count, config.linked,
                                     config.nodes ? &*config.nodes : nullptr);
  r.tokens_per_s = primary_tokens_per_s(w, r.throughput);
  if (req.tokens && r.tokens_per_s > 0) r.hours = hours_for_tokens(*req.tokens, r.tokens_per_s);
}

void evaluate_rest(Result& r, const Workload& w, const RuleSet& rules, const Rates& rates,
                   const RankRequest& req, bool render) {
  measure(r, w, rates, req);
  detail::ConfigFacts facts;
  detail::facts_for(r, w, req, facts);
  r.rules = apply_rules(rules, facts.table, render);
}

// The same for a configuration that is counted and scored but not returned: of the rules,
// only their score changes and the first exclusion (its id, for Rejections::by_rule).
void evaluate_numbers(Result& r, const Workload& w, const RuleSet& rules, const Rates& rates,
                      const RankRequest& req) {
  measure(r, w, rates, req);
  detail::ConfigFacts facts;
  detail::facts_for(r, w, req, facts);
  const rules_detail::Judgement j = rules_detail::judge_rules(rules, facts.table);
  r.rules.delta = j.delta;
  if (j.excluded_by) r.rules.excluded = true, r.rules.exclude_rule = j.excluded_by->id;
}

// One configuration, in full. `one_card`: the card's one-card need when known, else null.
Result evaluate_in(const Config& config, const RuleSet& rules, const Rates& rates,
                   const RankRequest& req, const double* one_card, bool render) {
  Result r;
  r.config = config;
  const Workload w = workload_for(config, req);
  r.config.shard = w.shard;
  r.config.split = parallel_label(w);
  r.need = estimate(w, EstimateDetail::numbers);
  r.usable_bytes = usable_bytes(*config.gpu, req.reserve);
  r.headroom = (r.usable_bytes - r.need.need_bytes()) / r.usable_bytes;
  r.one_card_fits = config.count == 1 ? r.need.fits_within(r.usable_bytes)
                                      : (one_card ? *one_card : one_card_need(*config.gpu, req)) <=
                                            r.usable_bytes;
  evaluate_rest(r, w, rules, rates, req, render);
  return r;
}

}  // namespace

Result evaluate(const Config& config, const RuleSet& rules, const Rates& rates,
                const RankRequest& req) {
  return evaluate_in(config, rules, rates, req, nullptr, true);
}

void score_results(std::vector<Result>& results, const RankRequest& req) {
  detail::score(results, req);
}

namespace {

using detail::Candidate;

// The card-independent part of ranking: per GPU count, the workload (workload_for, the one
// decision), whether the count splits it and its per-GPU need. Filled in the order counts are
// first asked for, so a count on_gpus refuses throws where it did (the first card reaching it).
class CountMemo {
 public:
  explicit CountMemo(const RankRequest& req) : req_(req) {}
  struct Plan {
    bool splits = false;
    Workload w;
    std::optional<double> need;  // need_bytes per GPU, once a card of that count is sized
  };
  Plan& at(int count) {
    auto [it, fresh] = plans_.try_emplace(count);
    Plan& p = it->second;
    if (fresh && (p.splits = tensor_parallel_splits(req_.workload, count))) {
      Config c;
      c.count = count;
      p.w = workload_for(c, req_);
    }
    return p;
  }
  static double need(Plan& p) {
    if (!p.need) p.need = estimate(p.w, EstimateDetail::numbers).need_bytes();
    return *p.need;
  }
  // The same for every card: one_card_need uses a card only to place one GPU.
  double one_card(const Gpu& any) {
    if (!one_card_) one_card_ = one_card_need(any, req_);
    return *one_card_;
  }

 private:
  const RankRequest& req_;
  std::map<int, Plan> plans_;
  std::optional<double> one_card_;
};

Verdict judge(const Result& r, double need, const RankRequest& req) {
  if (need > r.usable_bytes) return Verdict::too_small;
  if (r.rules.excluded) return Verdict::excluded;
  if (req.budget && !r.unit_price) return Verdict::no_price;
  if (req.budget && r.price > *req.budget) return Verdict::over_budget;
  return Verdict::fits;
}

struct Pass {
  Ranking& out;
  std::vector<Candidate> fits, over;
};

// Every configuration of one card, judged: the filters and the memory (the same need for
// every card of a count) before any price, speed or rule; only a few numbers are kept.
void rank_card(const Gpu& gpu, const RuleSet& rules, const Rates& rates, const RankRequest& req,
               CountMemo& memo, Pass& pass) {
  Rejections& rej = pass.out.rejected;
  const bool passes = passes_filters(gpu, req.filters);
  std::optional<double> usable;
  detail::for_each_count(gpu, req.max_gpus, [&](int count) {  // the counts configurations() has
    CountMemo::Plan& plan = memo.at(count);
    if (!plan.splits) return;
    ++pass.out.candidates;
    const bool linked = detail::linked_at(gpu, count);
    if (!passes || (req.filters.require_interconnect && count > 1 && !linked)) {
      ++rej.filtered;
      return;
    }
    if (!usable) usable = usable_bytes(gpu, req.reserve);
    const double need = CountMemo::need(plan);
    if (need > *usable) {
      ++rej.too_small;
      return;
    }
    Result r;
    r.config.gpu = &gpu, r.config.count = count, r.config.linked = linked;
    r.usable_bytes = *usable;
    r.headroom = (*usable - need) / *usable;
    r.one_card_fits = (count == 1 ? need : memo.one_card(gpu)) <= *usable;
    evaluate_numbers(r, plan.w, rules, rates, req);
    const Verdict v = judge(r, need, req);
    count_rejection(rej, v, r);
    if (v != Verdict::fits && v != Verdict::over_budget) return;
    auto& list = v == Verdict::fits ? pass.fits : pass.over;
    list.push_back({&gpu, count, r.tokens_per_s, r.price, r.headroom, r.rules.delta, {}});
  });
}

// The candidate in full, as evaluate() builds it, with the scores it was ranked by.
Result materialise(const Candidate& c, const RuleSet& rules, const Rates& rates,
                   const RankRequest& req, CountMemo& memo, bool render) {
  const double one = c.count > 1 ? memo.one_card(*c.gpu) : 0;
  Result r = evaluate_in(make_config(*c.gpu, c.count, req.workload), rules, rates, req,
                         c.count > 1 ? &one : nullptr, render);
  r.scores = c.scores;
  return r;
}

std::vector<Result> materialise(const std::vector<Candidate>& cs, std::size_t n,
                                const RuleSet& rules, const Rates& rates, const RankRequest& req,
                                CountMemo& memo, bool render) {
  std::vector<Result> out;
  out.reserve(std::min(n, cs.size()));
  for (std::size_t i = 0; i < cs.size() && i < n; ++i)
    out.push_back(materialise(cs[i], rules, rates, req, memo, render));
  return out;
}

}  // namespace

Ranking rank(const Catalog& catalog, const RuleSet& rules, const Rates& rates,
             const RankRequest& req) {
  Ranking out;
  Pass pass{out, {}, {}};
  CountMemo memo(req);
  {
    const ThroughputTextsOff quiet;  // the shown ones are evaluated again below, with texts
    for (const auto& gpu : catalog.gpus) rank_card(gpu, rules, rates, req, memo, pass);
  }
  out.fitting = static_cast<int>(pass.fits.size());
  detail::score(pass.fits, req);
  detail::score(pass.over, req);
  if (req.keep_passed)  // only the plot draws them all
    out.passed = materialise(pass.fits, pass.fits.size(), rules, rates, req, memo, false);
  const bool timed = req.tokens.has_value();
  keep_best_per_card(pass.fits, timed);
  sort_results(pass.fits);
  keep_best_per_card(pass.over, timed);
  std::stable_sort(pass.over.begin(), pass.over.end(),
                   [](const Candidate& a, const Candidate& b) { return a.price < b.price; });
  out.ranked = static_cast<int>(pass.fits.size());
  out.results = materialise(pass.fits, req.shown, rules, rates, req, memo, true);
  out.over_budget = materialise(pass.over, req.shown, rules, rates, req, memo, true);
  return out;
}

}  // namespace gpusel
