// `recommend`: the ranking, what to do when nothing passes, and renting the same work.
#include <algorithm>

#include "gpusel/answer/answers.hpp"

namespace gpusel {
namespace {

bool any_converted(const std::vector<Result>& rs) {
  return std::any_of(rs.begin(), rs.end(),
                     [](const Result& r) { return r.unit_price && r.unit_price->converted; });
}

// The cheapest configurations that would pass, were the budget larger.
void add_over_budget(const RankRequest& req, const Ranking& ranking, std::vector<Remedy>& out) {
  for (std::size_t i = 0; i < ranking.over_budget.size() && i < 3; ++i) {
    Remedy r;
    r.kind = Remedy::Kind::over_budget;
    r.purchase = ranking.over_budget[i];
    r.over_by = r.purchase->price - req.budget.value_or(0);
    out.push_back(std::move(r));
  }
}

// The K37 workload changes that make an affordable card (within the filters) fit, largest
// cards first: one change per card, one card each (the ranking already tried more cards).
void add_changes(const Sources& src, const RankRequest& req, std::vector<Remedy>& out) {
  std::vector<const Gpu*> affordable;
  for (const auto& g : src.catalog.gpus) {
    auto p = charge(g, req.price, src.rates);
    if (p && (!req.budget || p->amount <= *req.budget) && passes_filters(g, req.filters))
      affordable.push_back(&g);
  }
  std::sort(affordable.begin(), affordable.end(),
            [](const Gpu* a, const Gpu* b) { return a->vram_gb > b->vram_gb; });
  for (std::size_t i = 0; i < affordable.size() && out.size() < 6; ++i) {
    const FitResult f = fit(req.workload, *affordable[i], 1, req.reserve);
    for (const auto& c : f.changes)
      if (c.fits && c.workload.gpus == 1) {
        Remedy r;
        r.change = c.change;
        r.gpu = affordable[i];
        r.need_bytes = c.estimate.total_bytes;
        r.usable_bytes = f.usable_bytes;
        out.push_back(std::move(r));
        break;
      }
  }
}

void add_compare_rent(const Sources& src, const RecommendQuery& q, RecommendAnswer& a) {
  std::vector<RentalOption> rented;
  for (const Result& bought : a.top) {
    RentComparison c;
    c.rental = rent_same_work(bought, *src.cloud, src.rules, src.rates, q.request, q.rental);
    c.offered = !src.cloud->for_gpu(bought.config.gpu->id).empty();
    if (c.rental) {
      c.hours_to_purchase = rent_hours_to_purchase(bought, *c.rental);
      rented.push_back(*c.rental);
    }
    a.compare_rent.push_back(std::move(c));
  }
  const auto& cur = q.request.price.currency;
  const auto [storage, egress] = extras_prices(*src.cloud, src.rates, cur, q.rental);
  a.compare_rent_notes =
      rental_option_notes(rented, *src.cloud, q.rental, storage, egress, cur, "");
}

}  // namespace

RecommendAnswer recommend(const Sources& src, const RecommendQuery& q) {
  RecommendAnswer a;
  a.one_gpu_need = estimate(q.request.workload);
  a.ranking = rank(src.catalog, src.rules, src.rates, q.request);
  const auto n = std::min<std::size_t>(static_cast<std::size_t>(q.top), a.ranking.results.size());
  a.top.assign(a.ranking.results.begin(), a.ranking.results.begin() + std::ptrdiff_t(n));
  a.converted_prices = any_converted(a.top);
  if (a.ranking.results.empty()) {
    add_over_budget(q.request, a.ranking, a.remedies);
    add_changes(src, q.request, a.remedies);
  }
  if (q.compare_rent && src.cloud) add_compare_rent(src, q, a);
  return a;
}

RentAnswer rent(const Sources& src, const RankRequest& req, const RentalRequest& rr, int top) {
  RentAnswer a;
  a.one_gpu_need = estimate(req.workload);
  a.ranking = rank_rentals(src.catalog, *src.cloud, src.rules, src.rates, req, rr);
  const auto n = std::min<std::size_t>(static_cast<std::size_t>(top), a.ranking.options.size());
  a.shown.assign(a.ranking.options.begin(), a.ranking.options.begin() + std::ptrdiff_t(n));
  a.converted_prices = std::any_of(a.shown.begin(), a.shown.end(), [&](const RentalOption& o) {
    return o.offer->currency != req.price.currency;
  });
  a.hours = rr.hours;
  a.notes = rental_option_notes(a.shown, *src.cloud, rr, a.ranking.storage_price,
                                a.ranking.egress_price, req.price.currency, "");
  return a;
}

}  // namespace gpusel
