// The buy-vs-rent arithmetic: resale, break-even points, and the cheapest rental per kind.
#include "gpusel/cost/cost.hpp"
#include "gpusel/i18n/i18n.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpusel {
namespace {

// Whole units of `unit` covering x, tolerant of floating-point noise (6.0000000001 -> 6).
double whole(double x, double unit) { return std::ceil(x / unit - 1e-9) * unit; }

struct Advantage {  // rent - own over `months`: positive once owning is the cheaper
  double purchase, residual_1y, margin_per_hour, hours_per_day, extra_per_month, extra_once;
  double selling_cost;
  double operator()(double months) const {
    const double depreciation =
        purchase * (1 - residual_fraction(residual_1y, months, selling_cost));
    return margin_per_hour * hours_used(hours_per_day, months) + extra_per_month * months +
           extra_once - depreciation;
  }
};

}  // namespace

// Sustained spot use falls back on on-demand while spot capacity is gone (see cheapest_rental);
// a spot-only offer has nothing to fall back on, so it serves a project only as spot and only
// when the hours a day fit within the share of the day spot capacity exists: never 24/7.
bool spot_only_fits(RentKind kind, double hours, double months, double availability) {
  if (kind != RentKind::spot || !(months > 0)) return false;
  return hours / (kDaysPerMonth * months) < 24.0 * availability;
}

double residual_fraction(double residual_1y, double months, double selling_cost) {
  if (months <= 0) return 1;
  return std::pow(residual_1y, months / 12.0) * (1 - selling_cost);
}

double hours_used(double hours_per_day, double months) {
  return hours_per_day * kDaysPerMonth * months;
}

std::optional<double> break_even_hours_per_day(double depreciation, double rent_per_hour,
                                               double power_per_hour, double months,
                                               double rent_fixed) {
  const double margin = rent_per_hour - power_per_hour;  // what each hour used saves by owning
  if (margin <= 0 || months <= 0) return std::nullopt;
  return std::max(0.0, (depreciation - rent_fixed) / (margin * kDaysPerMonth * months));
}

std::optional<double> break_even_months(double purchase, double residual_1y, double rent_per_hour,
                                        double power_per_hour, double hours_per_day,
                                        double extra_per_month, double extra_once,
                                        double selling_cost) {
  const double margin = rent_per_hour - power_per_hour;
  const double slope = margin * hours_per_day * kDaysPerMonth + extra_per_month;
  if (slope <= 0) return std::nullopt;
  const Advantage adv{purchase,        residual_1y, margin,      hours_per_day,
                      extra_per_month, extra_once,  selling_cost};
  // The advantage is convex in months (resale loss is front-loaded) and grows without bound,
  // starting at extra_once >= 0 (egress the renter pays up front). If its minimum is >= 0
  // owning is cheaper throughout; else owning stays cheaper after the crossing past that
  // minimum, no later than when the monthly saving alone has paid the whole purchase price.
  // Starts just after 0: a card bought is worth its price only at the very instant of purchase.
  double lo = 1e-9, hi = purchase / slope + 1;
  for (int i = 0; i < 200 && hi - lo > 1e-9; ++i) {  // ternary search for the minimum
    const double a = lo + (hi - lo) / 3, b = hi - (hi - lo) / 3;
    if (adv(a) < adv(b))
      hi = b;
    else
      lo = a;
  }
  if (adv(lo) >= 0) return 0.0;
  hi = purchase / slope + 1;
  for (int i = 0; i < 200 && hi - lo > 1e-9; ++i) {
    const double mid = (lo + hi) / 2;
    (adv(mid) >= 0 ? hi : lo) = mid;
  }
  return hi;
}

double billed_hours(RentKind kind, double hours, double months) {
  switch (kind) {
    case RentKind::on_demand:
    case RentKind::spot:
      return hours;
    case RentKind::monthly:
      return whole(months, 1) * kHoursPerMonth;
    case RentKind::commit_1y:
      return whole(months, 12) * kHoursPerMonth;
    case RentKind::commit_3y:
      return whole(months, 36) * kHoursPerMonth;
  }
  return hours;
}

namespace {

// The rental closest to the GPUs compared, then the cheapest. Instances the count fills
// exactly come first, the fewest of them first: 8 bought GPUs in one machine are compared
// with an 8-GPU node (one NVLink domain), not with eight 1-GPU instances over a network;
// 2 GPUs never rent a node of 8. Ties go to the published price, then the offer listed first.
bool like_for_like_first(const RentQuote& q, const RentQuote& best, int gpus) {
  const bool whole = gpus % q.offer->gpus_per_instance == 0;
  const bool best_whole = gpus % best.offer->gpus_per_instance == 0;
  if (whole != best_whole) return whole;
  if (whole && q.instances != best.instances) return q.instances < best.instances;
  return q.total < best.total - 1e-9 ||
         (std::abs(q.total - best.total) <= 1e-9 && q.published && !best.published);
}

}  // namespace

std::optional<RentQuote> cheapest_rental(const Cloud& cloud, const std::string& gpu_id, int gpus,
                                         RentKind kind, double hours, double months,
                                         const std::string& currency, const Rates& rates) {
  std::optional<RentQuote> best;
  const double availability =
      cloud.defaults.spot_availability ? cloud.defaults.spot_availability->value : 1.0;
  for (const Offer* o : cloud.for_gpu(gpu_id)) {
    if (o->spot_only() && !spot_only_fits(kind, hours, months, availability)) continue;
    const auto price = effective_price(*o, kind, cloud.defaults);
    if (!price) continue;
    RentQuote q;
    q.kind = kind;
    q.offer = o;
    q.instances = (gpus + o->gpus_per_instance - 1) / o->gpus_per_instance;
    double per_hour = price->per_hour;
    q.basis = price->basis;
    if (o->spot_only()) {
      q.basis +=
          trf("; spot only: no on-demand to fall back on, the {:.1f} h/day must fit in the "
              "{:.0f} % of the time spot capacity exists",
              hours / (kDaysPerMonth * months), availability * 100);
    } else if (kind == RentKind::spot && cloud.defaults.spot_availability) {
      // Spot capacity comes and goes: sustained use runs on on-demand the rest of the time.
      const double a = cloud.defaults.spot_availability->value;
      per_hour = a * price->per_hour + (1 - a) * *o->on_demand_per_hour;
      q.basis +=
          trf("; spot capacity {:.0f} % of the time (measured), on-demand otherwise", a * 100);
    }
    q.rate_per_hour = convert(per_hour * q.instances, o->currency, currency, rates);
    q.published = price->published;
    q.billed_hours = billed_hours(kind, hours, months);
    q.compute = q.total = q.rate_per_hour * q.billed_hours;
    if (!best || like_for_like_first(q, *best, gpus)) best = q;
  }
  return best;
}

}  // namespace gpusel
