// `gpusel cost`: owning vs renting for one project, with break-even points and a verdict.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <cmath>
#include <set>

#include "cost_internal.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/cost/cost.hpp"
#include "gpusel/data/platforms.hpp"
#include "gpusel/i18n/i18n.hpp"
#include "gpusel/memory/workload.hpp"

namespace gpusel {
namespace {

constexpr RentKind kKinds[] = {RentKind::on_demand, RentKind::spot, RentKind::monthly,
                               RentKind::commit_1y, RentKind::commit_3y};

void require(bool ok, const std::string& what) {
  if (!ok) throw usage_error(what);
}

void check_query(const CostQuery& q) {
  // 0 h/day uses nothing: renting costs nothing and no comparison is left to make.
  require(std::isfinite(q.hours_per_day) && q.hours_per_day > 0,
          fmt::format("--hours-per-day must be above 0 (got {})", q.hours_per_day));
  require(q.hours_per_day <= 24,
          fmt::format("--hours-per-day must be at most 24 (got {})", q.hours_per_day));
  require(std::isfinite(q.months) && q.months > 0,
          fmt::format("--months must be > 0 (got {})", q.months));
  require(q.own_count >= 0 && q.own_count <= kMaxGpuCount,
          fmt::format("--count must be between 1 and {}", kMaxGpuCount));
  require(!q.rent_count || (*q.rent_count >= 1 && *q.rent_count <= kMaxGpuCount),
          fmt::format("--rent-count must be between 1 and {}", kMaxGpuCount));
  require(!q.resale_1y || (*q.resale_1y >= 0 && *q.resale_1y <= 1),
          "--resale-1y must be a fraction between 0 and 1");
  require(!q.selling_cost || (*q.selling_cost >= 0 && *q.selling_cost < 1),
          "--selling-cost must be a fraction from 0 up to (not including) 1");
  for (const auto& [v, name] : {std::pair{q.kwh_price, "--kwh-price"},
                                {q.card_price, "--card-price"},
                                {q.host_cost, "--host-cost"},
                                {q.storage_price, "--storage-price"},
                                {q.egress_price, "--egress-price"}})
    require(!v || (*v >= 0 && std::isfinite(*v)), std::string(name) + " must be >= 0");
  require(q.storage_gb >= 0 && q.egress_gb >= 0, "--storage-gb and --egress-gb must be >= 0");
  require(
      !q.colo_per_kw_month || (*q.colo_per_kw_month >= 0 && std::isfinite(*q.colo_per_kw_month)),
      "--colo-per-kw-month must be >= 0");
  require(!q.pue || (*q.pue >= 1 && *q.pue <= 5), "--pue must be between 1 and 5");
}

struct Converter {
  const Rates& rates;
  const std::string& to;
  std::set<std::string>* used;
  double operator()(double amount, const std::string& from) const {
    if (from != to) used->insert(from);
    return convert(amount, from, to, rates);
  }
};

std::pair<double, std::string> kwh_price(const CostQuery& q, const CostData& d,
                                         const Converter& conv) {
  if (q.kwh_price) return {*q.kwh_price, "--kwh-price"};
  for (const auto& p : d.kwh)
    if (p.currency == q.currency) return {p.per_kwh, p.region + ", " + p.as_of};
  for (const auto& p : d.kwh)
    if (p.currency == "USD")
      return {conv(p.per_kwh, "USD"), p.region + ", " + p.as_of + ", converted from USD: no " +
                                          q.currency + " price in data/kwh_prices.json"};
  throw data_error("data/kwh_prices.json has no price for " + q.currency + " nor USD");
}

std::pair<double, std::string> card_price(const Gpu& g, const CostQuery& q, const CostData& d,
                                          const Converter& conv, bool& found) {
  found = true;
  if (q.card_price) return {*q.card_price, "--card-price"};
  const auto c = charge(g, PricePolicy{q.currency, false, false, q.today}, d.rates);
  if (!c) return found = false, std::pair{0.0, std::string()};
  conv(c->from->amount, c->from->currency);  // records the conversion, if any
  return {c->amount, fmt::format("{} {:.0f} {} ({})", c->from->kind, c->from->amount,
                                 c->from->currency, c->from->as_of)};
}

// What "--gpu X" alone buys: one card, or one board of the smallest size it is sold on.
int smallest_purchase(const Gpu& g) {
  const Platform* p = quote_platform(default_platforms(), g, 1, false).platform;
  return p && !p->sold_in.empty() ? p->sold_in.front() : 1;
}

// The share of the resale a marketplace's fee takes, item by item (each card, each host):
// the segment's rate up to its threshold of an item's sale, the lower rate above it, so a
// 30,000 USD module pays about 5 % where a 700 USD card pays the full rate.
double selling_share(const OwnCost& o, double r1, double months, const SegmentResale& s,
                     const Converter& conv) {
  if (!s.selling_cost) return 0;
  const double rate = s.selling_cost->value;
  if (!(s.above_usd > 0)) return rate;
  const double keep = residual_fraction(r1, months), limit = conv(s.above_usd, "USD");
  const auto fee = [&](double sale) {
    return rate * std::min(sale, limit) + s.rate_above * std::max(0.0, sale - limit);
  };
  const double cards = o.card_price * keep, host = o.host_price * keep;
  const double sales = cards * o.count + host * o.hosts;
  return sales > 0 ? (fee(cards) * o.count + fee(host) * o.hosts) / sales : rate;
}

// Power, and for a server that lives in a data centre (its platform states host_power_w: an
// HGX board draws 10.2 kW with its host, not the 5.6 kW of its GPUs) the facility's PUE on
// that energy and colocation per kW of IT load, billed every month whatever the hours used.
void add_power(OwnCost& o, const Platform& p, const CostQuery& q, const CostData& d,
               const Converter& conv, double hours) {
  o.hosted = p.host_power_w > 0 && d.ownership.hosting;
  const double host_w = o.hosted ? p.host_power_w * o.count / p.gpus_per_host : 0;
  o.it_kw = (o.gpu->tdp_w * o.count + host_w) / 1000.0;
  o.pue = o.hosted ? q.pue.value_or(d.ownership.hosting->pue.value) : 1;
  o.power_kw = o.it_kw * o.pue;
  o.kwh = o.power_kw * hours;
  o.electricity = o.kwh * o.kwh_price;
  o.power_per_hour = o.power_kw * o.kwh_price;
  if (!o.hosted) return;
  const double colo = q.colo_per_kw_month
                          ? *q.colo_per_kw_month
                          : conv(d.ownership.hosting->colocation_per_kw_month.value, "USD");
  o.colocation_per_month = colo * o.it_kw;
  o.colocation = o.colocation_per_month * q.months;
}

std::optional<OwnCost> owning(const Gpu& g, const CostQuery& q, double hours, const CostData& d,
                              const Converter& conv) {
  bool found = false;
  auto [price, basis] = card_price(g, q, d, conv, found);
  if (!found) return std::nullopt;
  const SegmentResale& resale = d.ownership.for_segment(g.segment);
  const bool used = !q.card_price && basis.rfind("used", 0) == 0;
  const PlatformQuote platform = quote_platform(default_platforms(), g, q.own_count, used);
  if (!platform.platform)
    throw usage_error(
        fmt::format("no platform takes {} x {} (data/platforms.json: a desktop "
                    "board takes two consumer cards)",
                    q.own_count, g.id));
  // Modules are sold on boards of set sizes (rule whole-boards-only): 2 of an 8-GPU HGX board
  // or 1 GPU of an NVL72 rack buys nothing anyone sells, unless the user prices the host.
  const std::vector<int>& sizes = platform.platform->sold_in;
  if (!q.host_cost && !sizes.empty() && q.own_count % sizes.front() != 0)
    throw usage_error(fmt::format(
        "--count {}: {} is sold only on boards of {} GPUs ({}); give a count of whole boards, "
        "or --host-cost for a server you own",
        q.own_count, g.id, fmt::join(sizes, " or "), platform.platform->id));
  OwnCost o;
  o.gpu = &g;
  o.count = q.own_count;
  o.card_price = price, o.card_basis = basis, o.cards = price * q.own_count;
  o.hosts = platform.hosts;
  o.host_total = q.host_cost ? *q.host_cost * o.hosts : conv(platform.total_usd, "USD");
  o.host_price = o.host_total / o.hosts;
  o.host_basis = q.host_cost ? "--host-cost" : platform.label + " (data/platforms.json)";
  o.purchase = o.cards + o.host_total;
  const double r1 = q.resale_1y ? *q.resale_1y : resale.residual_1y.value;
  o.resale_basis = q.resale_1y
                       ? trf("{:.0f} % left after a year (--resale-1y)", r1 * 100)
                       : trf("{:.0f} % left after a year, {} default", r1 * 100, tr(g.segment));
  o.residual_1y = r1;
  o.selling_cost = q.selling_cost ? *q.selling_cost : selling_share(o, r1, q.months, resale, conv);
  if (o.selling_cost > 0)
    o.resale_basis += trf(", less {:.1f} % of the sale to sell it", o.selling_cost * 100) +
                      (q.selling_cost ? " (--selling-cost)" : "");
  o.residual = residual_fraction(r1, q.months, o.selling_cost);
  o.resale = o.purchase * o.residual;
  o.depreciation = o.purchase - o.resale;
  std::tie(o.kwh_price, o.kwh_basis) = kwh_price(q, d, conv);
  add_power(o, *platform.platform, q, d, conv, hours);
  o.total = o.depreciation + o.electricity + o.colocation;
  return o;
}

// GPUs with offers, nearest in memory and tensor throughput to `g` (log-distance).
std::vector<std::string> nearest_offered(const Gpu& g, const CostData& d) {
  std::set<std::string> ids;  // spot-only offers cannot stand in for a sustained project
  for (const auto& o : d.cloud.offers)
    if (!o.spot_only()) ids.insert(o.gpu);
  auto dist = [&](const Gpu& c) {
    auto lg = [](double a, double b) { return a > 0 && b > 0 ? std::abs(std::log(a / b)) : 9.0; };
    return lg(c.vram_gb, g.vram_gb) + lg(c.tensor16_tflops(), g.tensor16_tflops());
  };
  std::vector<std::pair<double, std::string>> scored;
  for (const auto& id : ids)
    if (const Gpu* c = d.catalog.find(id); c && id != g.id) scored.emplace_back(dist(*c), id);
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < 3; ++i) out.push_back(scored[i].second);
  return out;
}

double resolve_extra(const std::optional<double>& set, double usd_default, const Converter& conv) {
  return set ? *set : conv(usd_default, "USD");
}

void add_rentals(CostReport& r, const CostData& d, const Converter& conv) {
  const auto& q = r.query;
  r.storage_price =
      resolve_extra(q.storage_price, d.cloud.defaults.storage_per_gb_month.value, conv);
  r.egress_price = resolve_extra(q.egress_price, d.cloud.defaults.egress_per_gb.value, conv);
  const double extras = q.storage_gb * r.storage_price * q.months + q.egress_gb * r.egress_price;
  for (RentKind k : kKinds) {
    auto quote = cheapest_rental(d.cloud, q.rent_gpu, *q.rent_count, k, r.hours, q.months,
                                 q.currency, d.rates);
    if (!quote) continue;
    conv(1, quote->offer->currency);
    quote->extras = extras;
    quote->total = quote->compute + extras;
    r.rent.push_back(*quote);
  }
}

void add_break_even(CostReport& r) {
  if (!r.own) return;
  const OwnCost& o = *r.own;
  const auto& qy = r.query;
  // Storage and egress are billed whatever the hours, so they count as the renter's fixed costs.
  const double storage_month = qy.storage_gb * r.storage_price,
               egress = qy.egress_gb * r.egress_price;
  for (const auto& q : r.rent) {
    // Against prices a provider publishes only: a derived price is a scenario, not a basis.
    if ((q.kind != RentKind::on_demand && q.kind != RentKind::spot) || !q.published) continue;
    // Colocation is billed whatever the hours: a fixed cost of owning, as depreciation is.
    auto hours = break_even_hours_per_day(o.depreciation + o.colocation, q.rate_per_hour,
                                          o.power_per_hour, qy.months, q.extras);
    const bool beyond_a_day = hours && *hours > 24;  // cannot exist: owning never wins here
    r.break_even.push_back(
        {q.kind, beyond_a_day ? std::nullopt : hours,
         break_even_months(o.purchase, o.residual_1y, q.rate_per_hour, o.power_per_hour,
                           qy.hours_per_day, storage_month - o.colocation_per_month, egress,
                           o.selling_cost),
         beyond_a_day});
  }
}

}  // namespace

std::string rent_choice(RentKind k) {
  const std::string kind = rent_kind_name(k);  // commitments already say what they are
  return kind.rfind("commit", 0) == 0 ? kind : "rent-" + kind;
}

// The choices in words, as verdict_text writes them: marked so their translations exist.
[[maybe_unused]] constexpr const char* kChoiceWords[] = {N_("buy"),       N_("rent on-demand"),
                                                         N_("rent spot"), N_("rent monthly"),
                                                         N_("commit 1y"), N_("commit 3y")};
// Market segments (gpus.schema.json), named in the resale basis.
[[maybe_unused]] constexpr const char* kSegmentWords[] = {N_("consumer"), N_("workstation"),
                                                          N_("datacenter")};

std::string verdict_text(const std::string& choice) {
  std::string s = choice;  // only the first hyphen: "rent-on-demand" -> "rent on-demand"
  if (auto dash = s.find('-'); dash != std::string::npos) s[dash] = ' ';
  return tr(s);
}

CostReport compare_costs(const CostQuery& query, const CostData& d) {
  check_query(query);
  CostReport r;
  r.query = query;
  if (r.query.rent_gpu.empty()) r.query.rent_gpu = query.own_gpu;
  const Gpu& own = require_gpu(d.catalog, r.query.own_gpu);
  if (r.query.own_count == 0) r.query.own_count = smallest_purchase(own);
  r.query.rent_count = query.rent_count.value_or(r.query.own_count);
  const Gpu& rented = require_gpu(d.catalog, r.query.rent_gpu);
  r.hours = hours_used(query.hours_per_day, query.months);
  std::set<std::string> used;
  Converter conv{d.rates, r.query.currency, &used};
  r.own = owning(own, r.query, r.hours, d, conv);
  add_rentals(r, d, conv);
  if (r.rent.empty()) {
    r.nearest_with_offers = nearest_offered(rented, d);
    // Said only when every offer is spot-only: an empty rent list has other causes too (no
    // price of the asked kind), which must not read as "spot only".
    const auto offers = d.cloud.for_gpu(rented.id);
    r.spot_only_unusable =
        !offers.empty() &&
        std::all_of(offers.begin(), offers.end(), [](const Offer* o) { return o->spot_only(); });
    if (d.cloud.defaults.spot_availability)
      r.spot_availability = d.cloud.defaults.spot_availability->value;
  }
  add_break_even(r);
  detail::decide(r);
  detail::add_notes(r, d);
  for (const auto& from : used)
    r.conversions.push_back(trf("{} -> {} at {:.4f} per {} (rates of {}, {})", from,
                                r.query.currency, convert(1, from, r.query.currency, d.rates), from,
                                d.rates.as_of, d.rates.source));
  return r;
}

}  // namespace gpusel
