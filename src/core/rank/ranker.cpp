#include "gpusel/rank/ranker.hpp"

#include "gpusel/base/threads.hpp"

#include "gpusel/rank/evaluator.hpp"

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
#include "gpusel/memory/reserve.hpp"
#include "ranker_internal.hpp"
#include "rules_internal.hpp"

namespace gpusel {
namespace {

bool listed(const std::vector<std::string>& list, const std::string& v) {
  if (list.empty()) return true;
  return std::any_of(list.begin(), list.end(), [&](const auto& x) { return to_lower(x) == v; });
}

enum class FitVerdict { fits, too_small, excluded, no_price, over_budget };

void count_rejection(Rejections& rej, FitVerdict v, const Result& r) {
  switch (v) {
    case FitVerdict::too_small:
      ++rej.too_small;
      break;
    case FitVerdict::excluded:
      ++rej.excluded_by_rule, ++rej.by_rule[r.rules.exclude_rule];
      break;
    case FitVerdict::no_price:
      ++rej.no_price;
      break;
    case FitVerdict::over_budget:
      ++rej.over_budget;
      break;
    case FitVerdict::fits:
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
    // Equal totals are mostly scores clamped at 0 or 100: the faster first, then the one
    // with more room for a longer sequence or batch.
    if (std::abs(a.tokens_per_s - b.tokens_per_s) > 1e-9 * std::max(a.tokens_per_s, b.tokens_per_s))
      return a.tokens_per_s > b.tokens_per_s;
    return a.headroom > b.headroom;
  });
}

}  // namespace

bool passes_filters(const Gpu& g, const Filters& f) {
  const auto excluded = [&](const std::string& id) { return to_lower(id) == g.id; };
  return listed(f.vendors, g.vendor) && listed(f.ecosystems, g.ecosystem) &&
         listed(f.segments, g.segment) && g.vram_gb >= f.min_vram_gb &&
         std::none_of(f.exclude_ids.begin(), f.exclude_ids.end(), excluded);
}

namespace {

void check_listed(const std::string& flag, const std::vector<std::string>& asked,
                  const std::vector<std::string>& known) {
  for (const auto& a : asked) {
    if (std::find(known.begin(), known.end(), to_lower(a)) != known.end()) continue;
    std::string all;
    for (const auto& k : known) all += (all.empty() ? "" : "|") + k;
    throw usage_error(trf("{} '{}' is none of {}", flag, quote_input(a), all));
  }
}

const std::vector<std::string>& closed_set(std::string_view fact) {
  return find_fact(fact)->values;  // the vocabulary's fixed names: never null
}

}  // namespace

void check_filters(const Catalog& catalog, const Filters& f) {
  check_listed("--vendor", f.vendors, closed_set("gpu.vendor"));
  check_listed("--segment", f.segments, closed_set("gpu.segment"));
  check_listed("--ecosystem", f.ecosystems, closed_set("gpu.ecosystem"));
  for (const auto& id : f.exclude_ids)
    if (!catalog.find(to_lower(id)))
      throw usage_error(trf("--exclude: unknown GPU id '{}'{}; `gpusel catalog list` shows all ids",
                            quote_input(id), did_you_mean_tr(to_lower(id), catalog.ids())));
}

void score_results(std::vector<Result>& results, const RankRequest& req) {
  detail::score(results, req);
}

namespace {

using detail::Candidate;

FitVerdict judge(const Result& r, double need, const RankRequest& req) {
  if (need > r.usable_bytes) return FitVerdict::too_small;
  if (r.rules.excluded) return FitVerdict::excluded;
  if (req.budget && !r.unit_price) return FitVerdict::no_price;
  if (req.budget && r.price > *req.budget) return FitVerdict::over_budget;
  return FitVerdict::fits;
}

void add_counts(Ranking& to, const Ranking& from) {
  Rejections& r = to.rejected;
  const Rejections& f = from.rejected;
  r.too_small += f.too_small, r.over_budget += f.over_budget, r.no_price += f.no_price;
  r.excluded_by_rule += f.excluded_by_rule, r.filtered += f.filtered;
  for (const auto& [rule, n] : f.by_rule) r.by_rule[rule] += n;
  to.candidates += from.candidates;
}

struct Pass {
  Ranking& out;
  std::vector<Candidate> fits, over;
};

// Every configuration of one card, judged: the filters and the memory (the same need for
// every card of a count) before any price, speed or rule; only a few numbers are kept.
void rank_card(const Gpu& gpu, Evaluator& ev, Pass& pass) {
  const RankRequest& req = ev.request();
  Rejections& rej = pass.out.rejected;
  const bool passes = passes_filters(gpu, req.filters);
  std::optional<std::vector<rules_detail::OpenRule>> by_card;  // Evaluator::card_rules
  detail::for_each_count(gpu, req.max_gpus, [&](int count) {   // the counts configurations() has
    Evaluator::Plan& plan = ev.plan(count, &gpu);
    if (!plan.splits) return;
    ++pass.out.candidates;
    const bool linked = detail::linked_at(gpu, count);
    if (!passes || (req.filters.require_interconnect && count > 1 && !linked)) {
      ++rej.filtered;
      return;
    }
    // The engine (so its reserve) can change with the count: llama.cpp on one card, vLLM on
    // several.
    const double usable = usable_for(plan.w, gpu, req.reserve);
    // What fits_within compares: elastic parts (Unsloth's loss chunks) as they size on the card.
    const double need = ev.need(plan).need_on(usable);
    if (need > usable) {
      ++rej.too_small;
      return;
    }
    Result r;
    r.config.gpu = &gpu, r.config.count = count, r.config.linked = linked;
    r.usable_bytes = usable;
    r.need.host_bytes = ev.need(plan).host_bytes;  // the host RAM it prices (quote_platform)
    r.headroom = (usable - need) / usable;
    r.one_card_fits = (count == 1 ? need : ev.one_card_need(gpu, usable)) <= usable;
    const rules_detail::Decisions& by_count = ev.rules_decided(plan);
    if (plan.shared_facts && !by_card) by_card = ev.card_rules(gpu);
    detail::evaluate_numbers(r, plan.w, ev.rules(), ev.rates(), req, &by_count,
                             plan.shared_facts ? &*by_card : nullptr);
    const FitVerdict v = judge(r, need, req);
    count_rejection(rej, v, r);
    if (v != FitVerdict::fits && v != FitVerdict::over_budget) return;
    auto& list = v == FitVerdict::fits ? pass.fits : pass.over;
    list.push_back(
        {&gpu, count, r.tokens_per_s, r.price, r.headroom, r.rules.delta, {}, r.one_card_fits});
  });
}

// Every card in catalog order. A long catalog is judged in chunks claimed by whichever thread
// is free (gpusel/base/threads.hpp: a card's configurations cost from one to many evaluations,
// so equal slices finished up to half apart), each thread with an evaluator of its own (what a
// count shares is the same whichever card computes it first); the chunks' candidates and
// counts are joined in card order.
void rank_cards(const Catalog& catalog, Evaluator& ev, Pass& pass) {
  constexpr std::size_t kThreadsFrom = 2048;  // a shorter catalog stays on one thread
  constexpr std::size_t kChunk = 256;
  const auto& gpus = catalog.gpus;
  const unsigned threads = gpus.size() >= kThreadsFrom ? worker_threads() : 1;
  if (threads == 1) {
    const ThroughputTextsOff quiet;  // the shown ones are evaluated again, with texts
    for (const Gpu& gpu : gpus) rank_card(gpu, ev, pass);
    return;
  }
  const std::size_t chunks = (gpus.size() + kChunk - 1) / kChunk;
  std::vector<Ranking> outs(chunks);
  std::vector<Pass> passes;
  passes.reserve(chunks);
  for (auto& out : outs) passes.push_back({out, {}, {}});
  std::vector<std::optional<Evaluator>> own(threads);  // thread t's, made on first use
  for_chunks(gpus.size(), kChunk, threads, [&](unsigned t, std::size_t begin, std::size_t end) {
    const ThroughputTextsOff quiet;
    if (t && !own[t]) own[t].emplace(ev.rules(), ev.rates(), ev.request());
    Evaluator& mine = t ? *own[t] : ev;
    for (std::size_t i = begin; i < end; ++i) rank_card(gpus[i], mine, passes[begin / kChunk]);
  });
  for (std::size_t c = 0; c < chunks; ++c) {
    auto& from = passes[c];
    pass.fits.insert(pass.fits.end(), from.fits.begin(), from.fits.end());
    pass.over.insert(pass.over.end(), from.over.begin(), from.over.end());
    add_counts(pass.out, outs[c]);
  }
}

// The first `n` candidates in full, as evaluate() builds them, with the scores they were
// ranked by.
std::vector<Result> materialise(const std::vector<Candidate>& cs, std::size_t n, Evaluator& ev,
                                Evaluator::Texts texts) {
  std::vector<Result> out;
  out.reserve(std::min(n, cs.size()));
  for (std::size_t i = 0; i < cs.size() && i < n; ++i) {
    out.push_back(ev.evaluate(ev.config(*cs[i].gpu, cs[i].count), texts));
    out.back().scores = cs[i].scores;
  }
  return out;
}

}  // namespace

Ranking rank(const Catalog& catalog, const RuleSet& rules, const Rates& rates,
             const RankRequest& req) {
  check_filters(catalog, req.filters);
  Ranking out;
  Pass pass{out, {}, {}};
  Evaluator ev(rules, rates, req);
  rank_cards(catalog, ev, pass);
  out.fitting = static_cast<int>(pass.fits.size());
  detail::score(pass.fits, req);
  detail::score(pass.over, req);
  if (req.keep_passed)  // only the plot draws them all
    out.passed = materialise(pass.fits, pass.fits.size(), ev, Evaluator::Texts::no_rule_texts);
  const bool timed = req.tokens.has_value();
  keep_best_per_card(pass.fits, timed);
  sort_results(pass.fits);
  keep_best_per_card(pass.over, timed);
  std::stable_sort(pass.over.begin(), pass.over.end(),
                   [](const Candidate& a, const Candidate& b) { return a.price < b.price; });
  out.ranked = static_cast<int>(pass.fits.size());
  out.results = materialise(pass.fits, req.shown, ev, Evaluator::Texts::all);
  out.over_budget =
      materialise(pass.over, std::min(req.shown, req.shown_over_budget), ev, Evaluator::Texts::all);
  return out;
}

}  // namespace gpusel
