// One serving configuration: capacity within the targets, replicas for the load, and what
// the deployment costs bought and rented.
#include "gpusel/serve/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "gpusel/base/error.hpp"
#include "gpusel/data/ownership.hpp"
#include "gpusel/data/platforms.hpp"
#include "serve_internal.hpp"

namespace gpusel {
namespace {

constexpr double kHoursPerYear = 8760;

std::string ms(double s) { return fmt::format("{:.0f} ms", s * 1000); }

// Why an idle replica already misses the targets: the floor that is too high.
std::string floor_text(const Replica& r, const Targets& t) {
  const LoadPoint idle = idle_point(r);
  const int pct = int(std::lround(t.percentile * 100));
  std::string why;
  if (t.tpot_s && idle.tpot.at(t.percentile) > *t.tpot_s)
    why = fmt::format("TPOT p{} {} even unloaded (target {})", pct, ms(idle.tpot.at(t.percentile)),
                      ms(*t.tpot_s));
  if (t.ttft_s && idle.ttft.at(t.percentile) > *t.ttft_s)
    why += fmt::format("{}TTFT p{} {} even unloaded (target {})", why.empty() ? "" : "; ", pct,
                       ms(idle.ttft.at(t.percentile)), ms(*t.ttft_s));
  return why.empty() ? "cannot keep up with any load" : why;
}

// Replicas packed into hosts: as many whole replicas per host as it takes cards; a replica
// larger than a host spans hosts joined by the platform's network. Modules come on boards
// of set sizes (platforms.json sold_in; rule whole-boards-only): a host holding 4 replicas of
// one MI300X is an 8-GPU board bought whole, so cards_bought counts the board's cards.
bool price_platform(const Gpu& g, int count, int replicas, bool used, Deployment& d) {
  const Platforms& p = default_platforms();
  const int per_host = host_limits(p, g).per_host;
  if (per_host == 0) return false;
  const auto add = [&](int cards, int times) {
    const PlatformQuote q = quote_platform(p, g, cards, used);
    if (!q.platform) return false;
    const std::vector<int>& sizes = q.platform->sold_in;
    const int board = sizes.empty() ? 1 : sizes.front();
    d.platform_price += q.total_usd * times;
    d.hosts += q.hosts * times;
    d.cards_bought += (cards + board - 1) / board * board * times;
    if (d.platform.empty()) d.platform = q.label;
    return true;
  };
  if (count > per_host) return add(count, replicas);
  const int per = per_host / count, full = replicas / per, rest = replicas % per;
  return (full == 0 || add(per * count, full)) && (rest == 0 || add(rest * count, 1));
}

}  // namespace

namespace serve_detail {

Deployment buy(const Result& eval, int replicas, double tokens_per_s, const ServeRequest& req,
               const Rates& rates, const PlanEnv& env) {
  Deployment d;
  const Gpu& g = *eval.config.gpu;
  const int count = eval.config.count;
  if (!eval.unit_price) return d;
  d.cards_bought = 0;
  if (!req.rank.cards_only) {
    if (!price_platform(g, count, replicas, eval.unit_price->used, d)) {
      d.platform = "no platform takes it";
      return d;
    }
    d.platform_price = convert(d.platform_price, "USD", req.rank.price.currency, rates);
  } else {
    d.cards_bought = count * replicas;  // cards for hosts the user has: any count
  }
  d.cards_price = eval.unit_price->amount * d.cards_bought;
  d.priced = true;
  d.price = d.cards_price + d.platform_price;
  d.power_kw = g.tdp_w * count * replicas / 1000.0;
  d.per_hour = d.price / (env.years * kHoursPerYear) + d.power_kw * env.kwh_price;
  if (tokens_per_s > 0) d.per_million = d.per_hour / (tokens_per_s * 3600) * 1e6;
  return d;
}

std::optional<Rental> rent(const Gpu& g, int count, int replicas, double tokens_per_s,
                           const Cloud* cloud, const Rates& rates, const std::string& cur) {
  if (!cloud) return std::nullopt;
  std::optional<Rental> best;
  for (const Offer* o : cloud->for_gpu(g.id)) {
    if (o->gpus_per_instance < count) continue;  // tensor parallel stays inside an instance
    if (o->spot_only()) continue;  // a service runs around the clock: never on spot alone
    const int per = o->gpus_per_instance / count;
    Rental r;
    r.offer = o;
    r.instances = (replicas + per - 1) / per;
    r.per_hour = convert(*o->on_demand_per_hour * r.instances, o->currency, cur, rates);
    if (tokens_per_s > 0) r.per_million = r.per_hour / (tokens_per_s * 3600) * 1e6;
    if (!best || r.per_hour < best->per_hour) best = r;
  }
  return best;
}

// Replicas a target needs at `cap` per replica, unbounded (a double: an absurd target over a
// slow replica cannot overflow a count); the caller holds it to the cards gpusel plans.
double replicas_for(const ServeTarget& t, const LoadPoint& cap, double cap_users) {
  const auto need = [](double want, double per) {
    return per > 0 ? std::max(1.0, std::ceil(want / per - 1e-9)) : 1.0;
  };
  if (t.rps) return need(*t.rps, cap.rate);
  if (t.users) return need(*t.users, cap_users);
  return 1;
}

// The per-replica point when `replicas` share the target.
LoadPoint served_point(const Replica& r, const ServeTarget& t, const LoadPoint& cap, int replicas) {
  if (t.rps) return at_rate(r, *t.rps / replicas);
  if (t.users) return at_users(r, *t.users / replicas);
  return cap;
}

ServeOption evaluate_option(const Gpu& g, int count, std::optional<int> fixed_replicas,
                            const Cloud* cloud, const RuleSet& rules, const Rates& rates,
                            const ServeRequest& req, const PlanEnv& env) {
  ServeOption o;
  o.engine = default_serving_data().engine_for(
      g, req.target.engine, !req.rank.workload.weight_format.empty(), req.rank.workload.model.id,
      weights_16bit(req.rank.workload));
  RankRequest rank = req.rank;
  rank.workload = served_by(req.rank.workload, o.engine);
  // A replica is a share of the cards bought: buy() packs the replicas into hosts (whole
  // boards for modules), so the board rule judges the fleet there, not each replica here.
  rank.whole_boards = false;
  o.eval = evaluate(make_config(g, count, rank.workload), rules, rates, rank);
  o.cards = count;
  if (!o.engine) {
    o.why_not = req.target.engine.empty()
                    ? "no serving engine runs on " + g.ecosystem
                    : default_serving_data().engine(req.target.engine).why_not_on(g);
    return o;
  }
  o.replica = build_replica(workload_for(o.eval.config, rank), g, count, o.eval.config.linked,
                            *o.engine, req.target.traffic, req.rank.reserve);
  if (!o.replica.fits()) {
    o.why_not = fmt::format("no room for a sequence: {:.1f} GiB of weights per card of {:.1f} GiB",
                            o.replica.weight_bytes / (1 << 30), o.replica.card_bytes / (1 << 30));
    return o;
  }
  o.capacity = within_targets(o.replica, req.target.targets);
  if (!o.capacity) {
    o.why_not = floor_text(o.replica, req.target.targets);
    return o;
  }
  // A replica that meets the targets only while less than one request is in flight holds no
  // steady load: any queueing breaks them, and replicas of it multiply into fleets of
  // thousands of cards for a few requests a second. It misses the targets.
  if (o.capacity->users < 1) {
    o.why_not = fmt::format(
        "meets the targets only below one request in flight ({:.2g} users): misses them "
        "under any load",
        o.capacity->users);
    o.capacity.reset();
    return o;
  }
  // Concurrent users: the capacity is the closed loop's (its rate, latencies and users), so
  // the columns and the verdict describe one operating point.
  if (req.target.users) o.capacity = users_capacity(o.replica, req.target.targets, *o.capacity);
  o.capacity_users = req.target.users
                         ? o.capacity->users
                         : users_within_targets(o.replica, req.target.targets, *o.capacity);
  // Beyond the 16,384 cards every other command plans (--count, --max-gpus), a fleet is not
  // an answer: it misses the target, and no remedy suggests a count the CLI refuses.
  const double needed = replicas_for(req.target, *o.capacity, o.capacity_users);
  if (needed * count > kMaxGpuCount) {
    o.why_not = fmt::format(
        "the load needs {:.0f} replicas of {} card{}, {:.0f} cards: beyond the {} cards gpusel "
        "plans",
        needed, count, count == 1 ? "" : "s", needed * count, kMaxGpuCount);
    o.beyond_fleet = true;
    return o;
  }
  o.replicas_needed = int(needed);
  o.replicas = fixed_replicas.value_or(o.replicas_needed);
  o.cards = count * o.replicas;
  o.served = served_point(o.replica, req.target, *o.capacity, o.replicas);
  o.tokens_per_s = o.served.stable ? o.served.tokens_per_s * o.replicas : 0;
  o.meets = o.replicas >= o.replicas_needed;
  if (!o.meets)
    o.why_not = fmt::format(
        "{} replica{} of {} card{} carr{} {} within the targets; the load needs {} replicas",
        o.replicas, o.replicas == 1 ? "" : "s", count, count == 1 ? "" : "s",
        o.replicas == 1 ? "ies" : "y",
        req.target.users ? fmt::format("{:.0f} users", o.replicas * o.capacity_users)
                         : fmt::format("{:.3g} req/s", o.replicas * o.capacity->rate),
        o.replicas_needed);
  const double priced_tokens =
      o.tokens_per_s > 0 ? o.tokens_per_s : o.capacity->tokens_per_s * o.replicas;
  o.bought = buy(o.eval, o.replicas, priced_tokens, req, rates, env);
  o.rented = rent(g, count, o.replicas, priced_tokens, cloud, rates, req.rank.price.currency);
  return o;
}

Workload served_by(const Workload& given, const ServingEngine* e) {
  Workload w = given;
  if (e) w.engine = e->name;
  return w;
}

Workload served_on(const Gpu& g, const ServeRequest& req) {
  return served_by(req.rank.workload,
                   default_serving_data().engine_for(
                       g, req.target.engine, !req.rank.workload.weight_format.empty(),
                       req.rank.workload.model.id, weights_16bit(req.rank.workload)));
}

PlanEnv plan_env(const ServeRequest& req, const Rates& rates) {
  PlanEnv env;
  std::tie(env.kwh_price, env.kwh_basis) = serving_kwh_price(req.rank.price.currency, rates);
  env.years = req.target.years > 0 ? req.target.years : default_serving_data().amortisation_years;
  return env;
}

}  // namespace serve_detail

double ServeOption::cost(bool by_rent) const {
  const double inf = std::numeric_limits<double>::infinity();
  const double buy = bought.priced && bought.per_million > 0 ? bought.per_million : inf;
  const double hire = rented && rented->per_million > 0 ? rented->per_million : inf;
  return by_rent ? (std::isfinite(hire) ? hire : buy) : (std::isfinite(buy) ? buy : hire);
}

std::pair<double, std::string> serving_kwh_price(const std::string& currency, const Rates& rates) {
  const std::vector<KwhPrice> prices = load_kwh_prices();
  for (const auto& p : prices)
    if (p.currency == currency) return {p.per_kwh, p.region + ", " + p.as_of};
  for (const auto& p : prices)
    if (p.currency == "USD")
      return {convert(p.per_kwh, "USD", currency, rates),
              p.region + ", " + p.as_of + ", converted from USD"};
  return {0, "no power price in data/kwh_prices.json"};
}

ServeOption serve_configuration(const Gpu& gpu, int count, const Cloud* cloud, const RuleSet& rules,
                                const Rates& rates, const ServeRequest& req) {
  return serve_detail::evaluate_option(gpu, count, std::nullopt, cloud, rules, rates, req,
                                       serve_detail::plan_env(req, rates));
}

ServeOption serve_cards(const Gpu& gpu, int count, const Cloud* cloud, const RuleSet& rules,
                        const Rates& rates, const ServeRequest& req) {
  const serve_detail::PlanEnv env = serve_detail::plan_env(req, rates);
  std::optional<ServeOption> best;
  // What a split carries: its requests/s within the targets; one that only fits ranks above
  // one that does not.
  const auto carries = [](const ServeOption& o) {
    return o.capacity ? 1 + o.capacity->rate * o.replicas : o.replica.fits() ? 0.5 : 0.0;
  };
  const Workload served = serve_detail::served_on(gpu, req);
  // --shard tp: the user's layout, every card one tensor-parallel replica (refused, as check
  // refuses it, where the heads do not split that many ways). Other strategies are training's
  // or llama.cpp's layer split, which serve does not plan.
  const Workload& asked = req.rank.workload;  // placed on one card: its --shard set aside
  const Shard shard = asked.shard_set_aside.value_or(asked.shard);
  if (asked.shard_given && count > 1) {
    if (shard != Shard::tp)
      throw usage_error("serve --shard " + to_string(shard) +
                        ": serve plans tensor-parallel replicas; --shard tp makes all --count "
                        "cards one replica, no --shard picks the split that carries most");
    on_gpus(asked, count);  // the heads must split count ways
    return serve_detail::evaluate_option(gpu, count, 1, cloud, rules, rates, req, env);
  }
  for (int size = 1; size <= count; size *= 2) {
    if (count % size != 0 || !gangs(gpu, size) ||
        (size > 1 && !tensor_parallel_splits(served, size)))
      continue;
    ServeOption o =
        serve_detail::evaluate_option(gpu, size, count / size, cloud, rules, rates, req, env);
    if (!best || carries(o) > carries(*best)) best = std::move(o);
  }
  // No split divides the heads (or count is not a power of two): all cards as one replica,
  // where they can work as one.
  if ((!best || !best->replica.fits()) && gangs(gpu, count))
    best = serve_detail::evaluate_option(gpu, count, 1, cloud, rules, rates, req, env);
  return *best;
}

}  // namespace gpusel
