// `recommend`: the ranking, what to do when nothing passes, and renting the same work.
#include <algorithm>

#include "gpusel/answer/answers.hpp"
#include "gpusel/base/error.hpp"

namespace gpusel {
namespace {

bool any_converted(const std::vector<Result>& rs) {
  return std::any_of(rs.begin(), rs.end(),
                     [](const Result& r) { return r.unit_price && r.unit_price->converted; });
}

// The nearest purchases over the budget, cheapest first: the workload as asked, and the
// first lighter workload that still needs more money (often far cheaper).
void add_over_budget(const RankRequest& req, const Ranking& ranking, std::vector<Remedy> lighter,
                     std::vector<Remedy>& out) {
  // A lighter workload is worth naming only when it costs less than the workload as asked.
  if (!lighter.empty() && !ranking.over_budget.empty() &&
      lighter[0].purchase->price >= ranking.over_budget.front().price)
    lighter.clear();
  for (std::size_t i = 0; i < ranking.over_budget.size() && i < 2; ++i) {
    Remedy r;
    r.kind = Remedy::Kind::over_budget;
    r.purchase = ranking.over_budget[i];
    lighter.push_back(std::move(r));
  }
  for (auto& r : lighter) r.over_by = r.purchase->price - req.budget.value_or(0);
  std::stable_sort(lighter.begin(), lighter.end(), [](const Remedy& a, const Remedy& b) {
    return a.purchase->price < b.purchase->price;
  });
  for (std::size_t i = 0; i < lighter.size() && i < 3; ++i) out.push_back(std::move(lighter[i]));
}

// The request with `changes` applied in order; nullopt when they make no valid workload.
std::optional<RankRequest> changed(const RankRequest& req,
                                   const std::vector<const WorkloadChange*>& changes) {
  RankRequest r = req;
  for (const WorkloadChange* c : changes) c->edit(r.workload);
  try {
    validate(r.workload);
  } catch (const Error&) {
    return std::nullopt;
  }
  return r;
}

std::string label_of(const std::vector<const WorkloadChange*>& changes) {
  std::string label;
  for (const WorkloadChange* c : changes)
    label += (label.empty() ? "" : " + ") + c->change.substr(0, c->change.find(" ("));
  return label;
}

// K37's workload changes, least disruptive first, each re-ranked with every filter, rule and
// the budget: the first two that leave something to buy. When no single change does, the
// changes taken together until one does. `over` gets the first lighter workload that fits
// only over the budget.
void add_changes(const Sources& src, const RankRequest& req, std::vector<Remedy>& out,
                 std::vector<Remedy>& over) {
  const std::vector<WorkloadChange> all = workload_changes(req.workload);
  auto try_changes = [&](const std::vector<const WorkloadChange*>& cs) {
    const auto r = changed(req, cs);
    if (!r) return false;
    Ranking rk = rank(src.catalog, src.rules, src.rates, *r);
    Remedy m;
    m.change = label_of(cs);
    if (rk.results.empty()) {  // keep the cheapest lighter purchase over the budget
      const bool cheaper = !rk.over_budget.empty() &&
                           (over.empty() || rk.over_budget.front().price < over[0].purchase->price);
      if (cheaper) {
        m.kind = Remedy::Kind::over_budget;
        m.purchase = std::move(rk.over_budget.front());
        over.clear();
        over.push_back(std::move(m));
      }
      return false;
    }
    m.purchase = std::move(rk.results.front());
    out.push_back(std::move(m));
    return true;
  };
  int found = 0;
  for (const auto& c : all)
    if (found < 2 && try_changes({&c})) ++found;
  if (found > 0) return;
  std::vector<const WorkloadChange*> together;
  for (const auto& c : all) {
    together.push_back(&c);
    if (together.size() > 1 && try_changes(together)) return;
  }
}

// A job of --tokens without the user's deadline gets data/scoring.json's: ranked on cost
// alone, the cheapest job is nearly always the fewest GPUs, however many years it takes.
RentalRequest with_deadline(const RankRequest& req, RentalRequest rr) {
  if (req.tokens && !rr.hours && !rr.deadline_hours) {
    rr.deadline_hours = scoring_constants().job_deadline_days * 24;
    rr.deadline_default = true;
  }
  return rr;
}

// Renting: the cheapest fitting cloud offer for the same workload and filters.
void add_rent(const Sources& src, const RecommendQuery& q, RecommendAnswer& a) {
  const Cloud* cloud = src.offers();
  if (!cloud) return;
  RentalRanking rr = rank_rentals(src.catalog, *cloud, src.rules, src.rates, q.request,
                                  with_deadline(q.request, q.rental), 1);
  if (rr.options.empty()) return;
  Remedy m;
  m.kind = Remedy::Kind::rent;
  m.rental = std::move(rr.options.front());
  a.remedies.push_back(std::move(m));
}

// A job of --tokens bought outright: what renting the same work would cost, said when it is
// less (64 B200s bought for a 1.8-hour job cost thousands of times its rental).
void add_job_rental(const Sources& src, const RecommendQuery& q, RecommendAnswer& a) {
  const Result& bought = a.top.front();
  if (!src.offers() || !(bought.price > 0)) return;
  // The cheapest rental of the job (recommend --rent's first, within its deadline), whatever
  // the GPU: the purchase is weighed against the best way to rent the job, not against renting
  // the same card.
  RentAnswer r = rent(src, q.request, q.rental, 1);
  if (r.shown.empty()) return;
  RentalOption& first = r.shown.front();
  if (first.on_demand_cost && *first.on_demand_cost < bought.price) a.job_rental = std::move(first);
}

// --batch is each GPU's micro-batch: a large one shuts out every card that cannot hold it,
// though accumulating smaller micro-batches takes the same optimizer steps (what an engineer
// does first). Of the halvings whose best configuration is another, faster one, the fastest.
void add_accumulation(const Sources& src, const RecommendQuery& q, RecommendAnswer& a) {
  const Workload& w = q.request.workload;
  if (!is_training(w.mode) || w.batch < 4) return;
  const Result* asked = a.top.empty() ? nullptr : &a.top.front();
  for (int k = 2; k <= w.batch && w.batch % k == 0; k *= 2) {
    RankRequest r = q.request;
    r.workload.batch = w.batch / k;
    r.workload.grad_accum = w.grad_accum * k;
    r.shown = 1, r.shown_over_budget = 0, r.keep_passed = false;
    try {
      validate(r.workload);
    } catch (const Error&) {
      return;
    }
    const Ranking ranked = rank(src.catalog, src.rules, src.rates, r);
    if (ranked.results.empty()) continue;
    const Result& best = ranked.results.front();
    const bool other =
        !asked || best.config.gpu != asked->config.gpu || best.config.count != asked->config.count;
    const double beat = a.accumulation ? a.accumulation->best.tokens_per_s
                        : asked        ? asked->tokens_per_s
                                       : 0;
    if (other && best.tokens_per_s > beat)
      a.accumulation = RecommendAnswer::Accumulation{r.workload.batch, r.workload.grad_accum, best};
  }
}

// The experts-in-RAM request at `n` layers: one card, below `first`'s price.
RankRequest experts_request(const RecommendQuery& q, const Result* first, int n) {
  RankRequest r = q.request;
  if (first) r.budget = first->price * (1 - 1e-9);
  r.workload.cpu_moe = n;
  r.max_gpus = 1, r.shown = 1, r.shown_over_budget = 0, r.keep_passed = false;
  return r;
}

// The fewest layers (down to `lo`) whose experts in RAM let `x`'s card hold the rest, and
// that card's result there: what `check` proposes for it, and the fastest such setting.
void fewest_layers(const Sources& src, const RecommendQuery& q, const Result* first, int lo,
                   RecommendAnswer::ExpertsInRam& x) {
  Workload w = q.request.workload;
  const int asked = std::min(x.cpu_moe, w.model.layers);
  int hi = asked;
  while (lo < hi) {
    w.cpu_moe = lo + (hi - lo) / 2;
    if (estimate(w, EstimateDetail::numbers).fits_within(x.best.usable_bytes))
      hi = w.cpu_moe;
    else
      lo = w.cpu_moe + 1;
  }
  if (hi >= asked) return;
  const RankRequest r = experts_request(q, first, hi);
  Result res = evaluate(make_config(*x.best.config.gpu, 1, r.workload), src.rules, src.rates, r);
  if (!res.rules.excluded && res.need.fits_within(res.usable_bytes) &&
      res.tokens_per_s > x.best.tokens_per_s)
    x = {hi, std::move(res)};
}

// A mixture of experts on llama.cpp: one card with the experts of a quarter, half, three
// quarters or all of its MoE layers in host RAM (--n-cpu-moe, the first N layers), then the
// fewest layers that card needs. The fastest of those that cost less than the first result
// (the whole budget when nothing passes) is named: how gpt-oss-120b runs on a 24 GB card.
void add_experts_in_ram(const Sources& src, const RecommendQuery& q, RecommendAnswer& a) {
  const Workload& w = q.request.workload;
  const int moe = moe_layer_count(w.model);
  if (w.mode != Mode::inference || moe <= 0 || w.cpu_moe != 0) return;
  std::optional<RecommendAnswer::ExpertsInRam> best;
  const Result* first = a.top.empty() ? nullptr : &a.top.front();
  if (first && !(first->price > 0)) return;
  int below = w.model.layers - moe + 1;  // the fewest layers the best depth may come down to
  for (int quarter = 1, last = below; quarter <= 4; ++quarter) {
    const int n = quarter == 4 ? kCpuMoeAll : w.model.layers - moe + moe * quarter / 4;
    const RankRequest r = experts_request(q, first, n);
    try {
      validate(r.workload);
    } catch (const Error&) {
      return;  // not a llama.cpp workload (FP8 weights, --engine vllm)
    }
    const Ranking ranked = rank(src.catalog, src.rules, src.rates, r);
    if (!ranked.results.empty() && ranked.results.front().price > 0 &&
        (!best || ranked.results.front().tokens_per_s > best->best.tokens_per_s))
      best = RecommendAnswer::ExpertsInRam{n, ranked.results.front()}, below = last;
    last = std::min(n, w.model.layers) + 1;
  }
  if (best) fewest_layers(src, q, first, below, *best);
  a.experts_in_ram = std::move(best);
}

void add_compare_rent(const Sources& src, const RecommendQuery& q, RecommendAnswer& a) {
  const Cloud* cloud = src.offers();
  if (!cloud) return;
  std::vector<RentalOption> rented;
  for (const Result& bought : a.top) {
    RentComparison c;
    c.rental = rent_same_work(bought, *cloud, src.rules, src.rates, q.request, q.rental);
    c.offered = !cloud->for_gpu(bought.config.gpu->id).empty();
    if (c.rental) {
      c.hours_to_purchase = rent_hours_to_purchase(bought, *c.rental);
      rented.push_back(*c.rental);
    }
    a.compare_rent.push_back(std::move(c));
  }
  const auto& cur = q.request.price.currency;
  const auto [storage, egress] = extras_prices(*cloud, src.rates, cur, q.rental);
  a.compare_rent_notes = rental_option_notes(rented, *cloud, q.rental, storage, egress, cur, "");
}

}  // namespace

RecommendAnswer recommend(const Sources& src, const RecommendQuery& query) {
  // Only the results shown (and the two nearest over the budget) are built in full.
  RecommendQuery q = query;
  q.request.shown = std::max<std::size_t>(static_cast<std::size_t>(std::max(q.top, 0)), 2);
  q.request.shown_over_budget = 2;  // add_over_budget offers no more
  RecommendAnswer a;
  a.one_gpu_need = estimate(without_model_parallel(q.request.workload));
  a.ranking = rank(src.catalog, src.rules, src.rates, q.request);
  const auto n = std::min<std::size_t>(static_cast<std::size_t>(q.top), a.ranking.results.size());
  a.top.assign(a.ranking.results.begin(), a.ranking.results.begin() + std::ptrdiff_t(n));
  a.converted_prices = any_converted(a.top);
  if (a.ranking.results.empty()) {
    std::vector<Remedy> lighter_over;
    add_changes(src, q.request, a.remedies, lighter_over);
    add_rent(src, q, a);
    add_over_budget(q.request, a.ranking, std::move(lighter_over), a.remedies);
  }
  if (q.compare_rent) add_compare_rent(src, q, a);
  if (q.request.tokens && !a.top.empty()) add_job_rental(src, q, a);
  add_accumulation(src, q, a);
  add_experts_in_ram(src, q, a);
  return a;
}

RentAnswer rent(const Sources& src, const RankRequest& req, const RentalRequest& asked, int top) {
  RentAnswer a;
  const RentalRequest rr = with_deadline(req, asked);
  a.deadline_hours = rr.deadline_hours;
  a.deadline_default = rr.deadline_default;
  a.one_gpu_need = estimate(without_model_parallel(req.workload));
  const Cloud* cloud = src.offers();
  if (!cloud) throw data_error("no cloud offers loaded");
  a.ranking = rank_rentals(src.catalog, *cloud, src.rules, src.rates, req, rr,
                           static_cast<std::size_t>(std::max(top, 0)));
  a.shown = a.ranking.options;  // the `top` cheapest: rank_rentals keeps no more
  a.converted_prices = std::any_of(a.shown.begin(), a.shown.end(), [&](const RentalOption& o) {
    return o.offer->currency != req.price.currency;
  });
  a.hours = rr.hours;
  a.notes = rental_option_notes(a.shown, *cloud, rr, a.ranking.storage_price,
                                a.ranking.egress_price, req.price.currency, "");
  return a;
}

}  // namespace gpusel
