// `recommend --rent` and `--compare-rent`: cloud instances evaluated like purchases.
#include "gpusel/cost/rent.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "gpusel/rank/evaluator.hpp"

namespace gpusel {
namespace {

bool fits(const Result& r) { return r.need.fits_within(r.usable_bytes) && !r.rules.excluded; }

struct Extras {
  double storage_price = 0, egress_price = 0;
  const RentalRequest* rr = nullptr;
  // Storage is kept for the job's duration, egress paid once.
  double for_hours(double hours) const {
    return rr->storage_gb * storage_price * hours / kHoursPerMonth + rr->egress_gb * egress_price;
  }
};

Extras extras_for(const Cloud& cloud, const Rates& rates, const std::string& cur,
                  const RentalRequest& rr) {
  const auto [storage, egress] = extras_prices(cloud, rates, cur, rr);
  return {storage, egress, &rr};
}

// Prices (all instances, session currency) and, given the job's hours, its costs; without
// a copy of the evaluation (see priced), which only the options kept carry.
RentalOption priced_terms(const Offer& o, int instances, const Result& eval, const Cloud& cloud,
                          const Rates& rates, const std::string& cur, std::optional<double> hours,
                          const Extras& extras) {
  RentalOption r;
  r.offer = &o;
  r.instances = instances;
  r.on_demand_per_hour = convert(*o.on_demand_per_hour * instances, o.currency, cur, rates);
  const auto spot = effective_price(o, RentKind::spot, cloud.defaults);
  r.spot_per_hour = convert(spot->per_hour * instances, o.currency, cur, rates);
  r.spot_published = spot->published;
  if (eval.tokens_per_s > 0)
    r.per_million_tokens = r.on_demand_per_hour / (eval.tokens_per_s * 3600) * 1e6;
  r.hours = hours;
  if (hours && std::isfinite(*hours)) {
    r.extras = extras.for_hours(*hours);
    r.on_demand_cost = r.on_demand_per_hour * *hours + r.extras;
    r.spot_cost = r.spot_per_hour * *hours + r.extras;
  }
  return r;
}

RentalOption priced(const Offer& o, int instances, Result eval, const Cloud& cloud,
                    const Rates& rates, const std::string& cur, std::optional<double> hours,
                    const Extras& extras) {
  RentalOption r = priced_terms(o, instances, eval, cloud, rates, cur, hours, extras);
  r.eval = std::move(eval);
  return r;
}

// What the order of options depends on.
struct CostKey {
  std::optional<double> on_demand_cost;
  double per_million_tokens = 0;
  double tokens_per_s = 0;
  int deadlines = 0;  // a late job: how many deadlines it takes (2 or more); 0: in time
};

// A job that finishes by its deadline before one that does not, and of those the ones that
// take fewer deadlines first (three months against two years matters, 84 days against 88
// does not); then the cheapest job when its length is known, else cheapest per token; then
// the fastest.
bool cheaper(const CostKey& a, const CostKey& b) {
  if (a.deadlines != b.deadlines) return a.deadlines < b.deadlines;
  if (a.on_demand_cost && b.on_demand_cost && *a.on_demand_cost != *b.on_demand_cost)
    return *a.on_demand_cost < *b.on_demand_cost;
  if (a.on_demand_cost.has_value() != b.on_demand_cost.has_value())
    return a.on_demand_cost.has_value();
  if (a.per_million_tokens != b.per_million_tokens)
    return a.per_million_tokens > 0 &&
           (b.per_million_tokens <= 0 || a.per_million_tokens < b.per_million_tokens);
  return a.tokens_per_s > b.tokens_per_s;
}

CostKey key_of(const RentalOption& o) {
  return {o.on_demand_cost, o.per_million_tokens, o.eval.tokens_per_s, 0};
}

bool cheaper(const RentalOption& a, const RentalOption& b) { return cheaper(key_of(a), key_of(b)); }

// "25", "0.1", "3200": a network's rate as providers write it.
std::string gbps_text(double gbps) { return fmt::format("{:g}", gbps); }

// The GPUs of an instance that can work on the job together: all of them, or for tensor
// parallelism the largest power-of-two share that divides the attention heads (an 8-GPU
// instance serves a 28-head model on 4); the instance is paid for in full either way.
int working_gpus(const Workload& w, int gpus) {
  while (gpus > 1 && !tensor_parallel_splits(w, gpus)) gpus /= 2;
  return gpus;
}

// Several instances are separate machines: each keeps its own GPUs' link (an 8-GPU instance
// its NVLink), and between them a job talks over the provider's network (TCP Ethernet unless
// the provider documents GPUDirect RDMA), never as one chassis.
Config across_instances(const Gpu& gpu, int gpus, const Workload& w, const Offer& o,
                        const InstanceNetwork& net) {
  const int per = std::min(gpus, o.gpus_per_instance);
  const int instances = (gpus + per - 1) / per;
  Config c = make_config(gpu, gpus, w);
  c.rented = true;
  c.linked = make_config(gpu, per, w).linked;  // inside one instance
  const std::string kind = net.rdma ? "RDMA" : "TCP";
  c.nodes = NodeNetwork{per, net.gbps, net.rdma,
                        net.published ? o.id + " " + kind + " network"
                                      : "an assumed TCP network [defaults.instance_network]"};
  c.interconnect = fmt::format("{} instances x {}, {} Gbit/s {} network{}", instances, per,
                               gbps_text(net.gbps), kind, net.published ? "" : " (assumed)");
  return c;
}

// `gpus` on instances of offer `o`: inside one NVLink domain (an NVL72 rack sold as 4-GPU
// instances) one machine to the job, else separate machines over the provider's network.
Config instances_config(const Gpu& gpu, int gpus, const Workload& w, const Offer& o,
                        const InstanceNetwork& net) {
  Config c = gpus <= net.nvlink_domain ? make_config(gpu, gpus, w)
                                       : across_instances(gpu, gpus, w, o, net);
  c.rented = true;
  return c;
}

using Evaluation = std::pair<Config, Result>;

// How an offer runs the job: its instances and their evaluation (none when nothing fits).
struct Choice {
  const Evaluation* eval = nullptr;
  int instances = 1;
  bool excluded = false;  // a rule excludes the card: no number of instances helps
};

bool late(const Evaluation* e, std::optional<double> deadline) {
  return deadline && e->second.hours && *e->second.hours > *deadline;
}

// One instance where the job fits; else as many as it needs, up to --max-gpus, joined by the
// provider's network (as a cluster of bought nodes is by its own): where it is GPUDirect RDMA
// (EFA, InfiniBand) or one NVLink domain, never marketplace boxes over TCP (a model split
// across them waits on the network every layer). A job that would miss its deadline doubles
// the instances while that makes it faster, until it is in time.
template <class Evaluated>
Choice choose_instances(const Offer& o, const Gpu& gpu, const RankRequest& req,
                        const InstanceNetwork& net, std::optional<double> deadline,
                        Evaluated&& evaluated) {
  const Evaluation* one =
      &evaluated(gpu, working_gpus(req.workload, o.gpus_per_instance), nullptr, {});
  Choice c{fits(one->second) ? one : nullptr, 1, one->second.rules.excluded};
  const bool clusters = net.rdma || net.nvlink_domain > o.gpus_per_instance;
  if (!clusters || c.excluded) return c;
  auto on = [&](int n) -> const Evaluation* {
    return &evaluated(gpu, working_gpus(req.workload, n * o.gpus_per_instance), &o, net);
  };
  for (int n = 2; !c.eval && n * o.gpus_per_instance <= req.max_gpus; n *= 2)
    if (const Evaluation* more = on(n); fits(more->second)) c.eval = more, c.instances = n;
  for (int n = c.instances * 2;
       c.eval && late(c.eval, deadline) && n * o.gpus_per_instance <= req.max_gpus; n *= 2)
    if (const Evaluation* more = on(n);
        fits(more->second) && more->second.tokens_per_s > c.eval->second.tokens_per_s)
      c.eval = more, c.instances = n;
  return c;
}

}  // namespace

RentalRanking rank_rentals(const Catalog& catalog, const Cloud& cloud, const RuleSet& rules,
                           const Rates& rates, const RankRequest& req, const RentalRequest& rr,
                           std::size_t keep) {
  check_filters(catalog, req.filters);
  RentalRanking out;
  const std::string& cur = req.price.currency;
  const Extras extras = extras_for(cloud, rates, cur, rr);
  out.storage_price = extras.storage_price, out.egress_price = extras.egress_price;
  // A rented configuration's evaluation depends on the card and the GPUs used, not on the
  // offer (its price comes in `priced`): a file of 100,000 offers of 40 cards evaluates each
  // card and instance size once, without texts; the options kept are evaluated again in full.
  Evaluator ev(rules, rates, req);
  auto rented = [&](const Gpu& gpu, int used) {
    Config c = ev.config(gpu, used);
    c.rented = true;
    return c;
  };
  // Keyed by the card, the GPUs used, and for several instances the instance size and network.
  using Key = std::tuple<const Gpu*, int, int, double, bool, int, bool>;
  std::map<Key, Evaluation> evaluations;
  auto evaluated = [&](const Gpu& gpu, int used, const Offer* several,
                       const InstanceNetwork& net) -> const Evaluation& {
    const Key key = several ? Key{&gpu,         used,     several->gpus_per_instance,
                                  net.gbps,     net.rdma, net.nvlink_domain,
                                  net.published}
                            : Key{&gpu, used, 0, 0, false, 0, false};
    auto [it, fresh] = evaluations.try_emplace(key);
    if (fresh) {
      Config c =
          several ? instances_config(gpu, used, req.workload, *several, net) : rented(gpu, used);
      it->second = {c, ev.evaluate(c, Evaluator::Texts::none)};
    }
    return it->second;
  };
  // Every fitting offer is ranked on its cost alone; the options kept are built afterwards.
  struct Fit {
    CostKey key;
    const Offer* offer;
    int instances;
    const Evaluation* eval;  // in `evaluations`, whose nodes do not move
    std::optional<double> hours;
  };
  // A rental window (--hours) has no deadline: it is as long as it was asked to be.
  const std::optional<double> deadline = rr.hours ? std::nullopt : rr.deadline_hours;
  std::vector<Fit> fitting;
  for (const auto& o : cloud.offers) {
    ++out.considered;
    const Gpu* gpu = catalog.find(o.gpu);
    // --max-gpus caps what is rented as it caps what is bought: an instance is paid for
    // whole, so one larger than the cap is filtered out, never used in part.
    if (!gpu || !passes_filters(*gpu, req.filters) || o.gpus_per_instance > req.max_gpus) {
      ++out.filtered;
      continue;
    }
    // Ranked by the job's on-demand cost: a job left to run start to finish is not put on
    // capacity that can be reclaimed with nothing to fall back on.
    if (o.spot_only()) {
      ++out.spot_only;
      continue;
    }
    const Choice ch =
        choose_instances(o, *gpu, req, instance_network(o, cloud.defaults), deadline, evaluated);
    if (ch.excluded)
      ++out.excluded_by_rule;
    else if (!ch.eval)
      ++out.too_small;
    if (!ch.eval) continue;
    const Result& eval = ch.eval->second;
    const auto hours = rr.hours ? rr.hours : eval.hours;
    const RentalOption terms =
        priced_terms(o, ch.instances, eval, cloud, rates, cur, hours, extras);
    // A job of --tokens is ranked by what it costs; a rental window of --hours costs the
    // window on any offer, so it is ranked by what the window buys: cost per token.
    const auto job_cost = rr.hours ? std::nullopt : terms.on_demand_cost;
    // Capped: a job of 10^15 tokens on a slow card takes more deadlines than an int holds.
    const int deadlines = late(ch.eval, deadline)
                              ? static_cast<int>(std::min(std::ceil(*eval.hours / *deadline), 1e9))
                              : 0;
    if (deadlines > 0) ++out.too_slow;
    fitting.push_back({{job_cost, terms.per_million_tokens, eval.tokens_per_s, deadlines},
                       &o,
                       ch.instances,
                       ch.eval,
                       hours});
  }
  std::stable_sort(fitting.begin(), fitting.end(),
                   [](const Fit& a, const Fit& b) { return cheaper(a.key, b.key); });
  out.fitting = static_cast<int>(fitting.size());
  // The kept options' evaluations, with their texts (several instances: the configuration
  // names its own offer's network).
  for (std::size_t i = 0; i < fitting.size() && i < keep; ++i) {
    const Fit& f = fitting[i];
    const Config& shared = f.eval->first;
    const Config c = f.instances == 1
                         ? shared
                         : instances_config(*shared.gpu, shared.count, req.workload, *f.offer,
                                            instance_network(*f.offer, cloud.defaults));
    out.options.push_back(
        priced(*f.offer, f.instances, ev.evaluate(c), cloud, rates, cur, f.hours, extras));
  }
  return out;
}

std::optional<RentalOption> rent_same_work(const Result& bought, const Cloud& cloud,
                                           const RuleSet& rules, const Rates& rates,
                                           const RankRequest& req, const RentalRequest& rr) {
  const Gpu& gpu = *bought.config.gpu;
  const int count = bought.config.count;
  std::optional<double> work = req.tokens;
  if (!work && rr.hours && bought.tokens_per_s > 0) work = *rr.hours * bought.tokens_per_s * 3600;
  const Extras extras = extras_for(cloud, rates, req.price.currency, rr);
  std::optional<RentalOption> best;
  for (const Offer* o : cloud.for_gpu(gpu.id)) {
    if (o->spot_only()) continue;  // the same work, uninterrupted: needs an on-demand price
    const int instances = (count + o->gpus_per_instance - 1) / o->gpus_per_instance;
    const int gpus = working_gpus(req.workload, instances * o->gpus_per_instance);
    // Instances of one NVLink domain (an NVL72 rack) are one machine to the job.
    const InstanceNetwork net = instance_network(*o, cloud.defaults);
    Config c = instances == 1 ? make_config(gpu, gpus, req.workload)
                              : instances_config(gpu, gpus, req.workload, *o, net);
    c.rented = true;
    Result eval = evaluate(c, rules, rates, req);
    if (!fits(eval)) continue;
    std::optional<double> hours;
    if (work && eval.tokens_per_s > 0) hours = hours_for_tokens(*work, eval.tokens_per_s);
    auto option =
        priced(*o, instances, std::move(eval), cloud, rates, req.price.currency, hours, extras);
    if (!best || cheaper(option, *best)) best = std::move(option);
  }
  return best;
}

std::pair<double, double> extras_prices(const Cloud& cloud, const Rates& rates,
                                        const std::string& cur, const RentalRequest& rr) {
  return {rr.storage_price ? *rr.storage_price
                           : convert(cloud.defaults.storage_per_gb_month.value, "USD", cur, rates),
          rr.egress_price ? *rr.egress_price
                          : convert(cloud.defaults.egress_per_gb.value, "USD", cur, rates)};
}

std::optional<double> rent_hours_to_purchase(const Result& bought, const RentalOption& rental) {
  if (!(bought.price > 0) || !(rental.on_demand_per_hour > 0)) return std::nullopt;
  return bought.price / rental.on_demand_per_hour;
}

std::vector<std::string> rental_option_notes(const std::vector<RentalOption>& shown,
                                             const Cloud& cloud, const RentalRequest& rr,
                                             double storage_price, double egress_price,
                                             const std::string& currency,
                                             const std::string& today) {
  std::vector<RentQuote> quotes;
  for (const auto& o : shown) {
    RentQuote q;
    q.kind = RentKind::spot;
    q.offer = o.offer;
    q.instances = o.instances;
    q.published = o.spot_published;
    quotes.push_back(q);
  }
  auto notes = rental_notes(quotes, cloud, today);
  notes.push_back(extras_note(rr.storage_gb, rr.egress_gb, storage_price, egress_price, currency,
                              cloud.origin));
  // A 1-year commitment at discount d costs less than on-demand once the hours used pass
  // (1 - d) of the year: a window that long is a commitment's, not on-demand's or spot's.
  const double d = cloud.defaults.commit_1y_discount.value;
  if (rr.hours && d > 0 && d < 1 && *rr.hours >= (1 - d) * 12 * kHoursPerMonth)
    notes.push_back(fmt::format(
        "{:.0f} h is {:.0f} % of a year: a 1-year commitment (about {:.0f} % below on-demand, "
        "{}) costs less than on-demand, and spot capacity is reclaimed: gpusel cost compares "
        "them",
        *rr.hours, *rr.hours / (12 * kHoursPerMonth) * 100, d * 100, cloud.origin));
  return notes;
}

}  // namespace gpusel
