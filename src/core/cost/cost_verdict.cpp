// The verdict of `gpusel cost` and the notes beside it: the numbers decide, the notes say
// what they leave out (K25-K28).
#include <fmt/format.h>
#include <algorithm>
#include <set>

#include "cost_internal.hpp"
#include "gpusel/data/validate.hpp"
#include "gpusel/i18n/i18n.hpp"

namespace gpusel::detail {

// Cloud prices move monthly (K29): older offers are flagged, as `catalog validate` does.
constexpr long kStaleOfferDays = 183;

namespace {

// Below this relative gap the verdict is called a close call: the defaults' own ranges
// (resale, spot ratio, power price) move the totals by more than that.
constexpr double kCloseCall = 0.15;
// Past this a break-even is moot: the card is obsolete before it pays off.
constexpr double kLongestMonths = 120;

struct Option {
  std::string choice;
  double total = 0;
  const RentQuote* quote = nullptr;  // null for buying
};

std::string amount(double v, const CostReport& r) {
  return fmt::format("{:.2f} {}", v, r.query.currency);
}

std::string describe(const Option& o) {
  if (!o.quote) return tr("buying");
  return verdict_text(o.choice) + " (" + o.quote->offer->id + ")";
}

// The verdict weighs buying against prices a provider publishes; a price derived from the
// data's defaults is a scenario, shown but never the basis of the verdict.
std::vector<Option> options(const CostReport& r) {
  std::vector<Option> out;
  if (r.own) out.push_back({"buy", r.own->total, nullptr});
  for (const auto& q : r.rent)
    if (q.published) out.push_back({rent_choice(q.kind), q.total, &q});
  std::stable_sort(out.begin(), out.end(),
                   [](const Option& a, const Option& b) { return a.total < b.total; });
  return out;
}

std::string hours_reason(const BreakEven& b, const CostReport& r) {
  const std::string kind = tr(rent_kind_name(b.kind));
  if (b.beyond_a_day)
    return trf("owning cannot beat {} within {:g} months, even at 24 h/day", kind, r.query.months);
  if (!b.hours_per_day)
    return trf(
        "renting {} costs less per hour than the power the cards would draw: owning never "
        "catches up",
        kind);
  if (b.beyond_a_day || *b.hours_per_day > 24)
    return trf("owning cannot beat {} within {:g} months, even at 24 h/day", kind, r.query.months);
  return trf("owning beats {} above {:.1f} h/day over {:g} months (you plan {:g})", kind,
             *b.hours_per_day, r.query.months, r.query.hours_per_day);
}

std::string months_reason(const BreakEven& b, const CostReport& r) {
  const std::string kind = tr(rent_kind_name(b.kind));
  if (!b.months) return trf("at this use owning never beats {}", kind);
  if (*b.months == 0)
    return trf(
        "at {:g} h/day owning is cheaper than {} from the start, counting what the cards "
        "resell for then",
        r.query.hours_per_day, kind);
  if (*b.months > kLongestMonths)
    return trf("at {:g} h/day owning beats {} only after more than {:.0f} years",
               r.query.hours_per_day, kind, kLongestMonths / 12);
  return trf(
      "at {:g} h/day owning beats {} after {:.1f} months, counting what the cards resell "
      "for then (project: {:g})",
      r.query.hours_per_day, kind, *b.months, r.query.months);
}

// A price that no provider publishes (the defaults' spot ratio or commitment discount) is
// named as a scenario to ask a provider about, not chosen: where it is cheaper than the
// verdict, or within a close call of it (a 3-year commitment 3 % above buying weighs more in
// the decision than the on-demand price the verdict names next).
void scenario_reason(CostReport& r, const std::vector<Option>& verdict_options) {
  const double best = verdict_options.front().total;
  const RentQuote* cheapest = nullptr;
  for (const auto& q : r.rent)
    if (!q.published && (!cheapest || q.total < cheapest->total)) cheapest = &q;
  if (!cheapest || cheapest->total >= best * (1 + kCloseCall)) return;
  const RentQuote& q = *cheapest;
  if (q.total < best)
    r.verdict.reasons.push_back(
        trf("scenario, not the verdict: {} at a price no provider publishes ({}) would cost {}; "
            "ask a provider for a quote",
            verdict_text(rent_choice(q.kind)), q.basis, amount(q.total, r)));
  else
    r.verdict.reasons.push_back(
        trf("close to the verdict: {} at a price no provider publishes ({}) would cost {} ({:.0f} "
            "% more); ask a provider for a quote before buying",
            verdict_text(rent_choice(q.kind)), q.basis, amount(q.total, r),
            best > 0 ? (q.total / best - 1) * 100 : 0.0));
}

// "52 % more", or past 100 times "340 times as much": a 300-digit percentage (1e-300 h/day
// of use) says nothing a reader can take in.
std::string how_much_more(double next, double best) {
  if (!(best > 0)) return trf("{:.0f} % more", 0.0);
  const double ratio = next / best;
  if (ratio < 100) return trf("{:.0f} % more", (ratio - 1) * 100);
  if (ratio < 1e6) return trf("{:.0f} times as much", ratio);
  return tr("more than a million times as much");
}

void own_reason(CostReport& r) {
  const OwnCost& o = *r.own;
  if (o.hosted) {
    r.verdict.reasons.push_back(
        trf("buying: {} up front, {} back on resale after {:g} months, {} of power at PUE {:.2f} "
            "and {} of colocation for {:.1f} kW of IT load: {} net",
            amount(o.purchase, r), amount(o.resale, r), r.query.months, amount(o.electricity, r),
            o.pue, amount(o.colocation, r), o.it_kw, amount(o.total, r)));
    return;
  }
  r.verdict.reasons.push_back(
      trf("buying: {} up front, {} back on resale after {:g} months, {} of power: {} net",
          amount(o.purchase, r), amount(o.resale, r), r.query.months, amount(o.electricity, r),
          amount(o.total, r)));
}

}  // namespace

void decide(CostReport& r) {
  const auto opts = options(r);
  if (!r.own)
    r.verdict.reasons.push_back(
        trf("no purchase price for {} in the catalog: pass --card-price to compare buying",
            r.query.own_gpu));
  if (r.rent.empty())
    r.verdict.reasons.push_back(
        r.spot_only_unusable
            ? trf("{} is offered only as spot capacity, with no on-demand to fall back on: it "
                  "cannot serve {:g} h/day (spot capacity exists {:.0f} % of the time), so "
                  "nothing to rent",
                  r.query.rent_gpu, r.query.hours_per_day, r.spot_availability * 100)
            : trf("no cloud offer for {}: nothing to rent", r.query.rent_gpu));
  if (!r.own || r.rent.empty()) return;
  scenario_reason(r, opts);
  const Option& best = opts[0];
  const Option& next = opts[1];
  r.verdict.choice = best.choice;
  r.verdict.reasons.push_back(
      trf("{} is the cheapest at published prices: {}; the next is {} at {} ({})", describe(best),
          amount(best.total, r), describe(next), amount(next.total, r),
          how_much_more(next.total, best.total)));
  own_reason(r);
  for (const auto& b : r.break_even) {
    r.verdict.reasons.push_back(hours_reason(b, r));
    r.verdict.reasons.push_back(months_reason(b, r));
  }
  if (best.quote && best.quote->kind >= RentKind::commit_1y)
    r.verdict.reasons.push_back(
        trf("a commitment bills every hour of its term, used or not: {:.0f} months here",
            best.quote->billed_hours / kHoursPerMonth));
  if (best.total > 0 && next.total / best.total - 1 < kCloseCall)
    r.verdict.reasons.push_back(trf(
        "close call (within {:.0f} %) between {} and {}: the defaults' own ranges (resale, power "
        "price, spot ratio, commitment discount) can tip it; see the notes",
        kCloseCall * 100, verdict_text(best.choice), verdict_text(next.choice)));
}

void add_notes(CostReport& r, const CostData& d) {
  auto& n = r.notes;
  n.push_back(
      tr("Data that must stay on site, one or two cards, and someone to maintain the "
         "machine favour buying (K25); short projects, multi-GPU or multi-node needs, trying "
         "several GPU models and no operations staff favour renting (K26)."));
  if (r.own && r.own->hosted) {
    n.push_back(
        tr("A data-centre server: power is its rated draw, cards and host (the vendor's system "
           "maximum, data/platforms.json host_power_w), for every hour of use (an upper bound), "
           "times the facility's PUE; colocation is billed per kW of it every month, used or not "
           "(data/ownership.json hosting, North American rates; --colo-per-kw-month 0 for a "
           "facility of your own, --pue to set it). The energy is priced at the tariff above; a "
           "data centre buys at a commercial or industrial rate: give it with --kwh-price."));
  } else if (r.own) {
    n.push_back(
        tr("Power is the cards' TDP for every hour of use (an upper bound); the host's own "
           "draw, cooling and noise are not counted (K27)."));
    if (r.own->gpu->tdp_w <= 0)
      n.push_back(trf("The catalog has no TDP for {}: power is not counted.", r.own->gpu->id));
  }
  // Flags for a data-centre server on a host with no stated draw: said, not silently dropped.
  if (r.own && !r.own->hosted && (r.query.pue || r.query.colo_per_kw_month))
    n.push_back(
        trf("--pue and --colo-per-kw-month apply to servers whose host draw "
            "data/platforms.json states (host_power_w: the HGX/OAM and used SXM servers); "
            "{} states none, so neither is counted.",
            r.own->host_basis));
  // The resale figures (data/ownership.json) are first-year measurements; a decade is their
  // extrapolation, and a card that old is several generations behind.
  if (r.own && r.query.months > 60)
    n.push_back(
        trf("A project of {:g} months outlasts the resale data: residual_1y is measured "
            "over a card's first years and only extrapolated past five, and by then the "
            "card is two or three generations old (NVIDIA's data-centre parts: 2020, 2022, "
            "2024); plan a replacement rather than one purchase.",
            r.query.months));
  if (r.query.rent_gpu != r.query.own_gpu || *r.query.rent_count != r.query.own_count)
    n.push_back(
        tr("Bought and rented GPUs differ: costs assume the same hours of use, but the work "
           "done per hour differs (`gpusel recommend --compare-rent` weighs speed)."));
  n.push_back(extras_note(r.query.storage_gb, r.query.egress_gb, r.storage_price, r.egress_price,
                          r.query.currency, d.cloud.origin));
  for (auto& note : rental_notes(r.rent, d.cloud, r.query.today)) n.push_back(std::move(note));
  if (!r.nearest_with_offers.empty()) {
    std::string list;
    for (const auto& id : r.nearest_with_offers) list += (list.empty() ? "" : ", ") + id;
    n.push_back(
        r.spot_only_unusable
            ? trf("{} has only spot-only offers in {}, unusable at this use; the nearest GPUs "
                  "that have on-demand offers: {} (compare with --rent-gpu).",
                  r.query.rent_gpu, d.cloud.origin, list)
            : trf("No cloud offer for {} in {}; the nearest GPUs that have offers: {} (compare "
                  "with --rent-gpu).",
                  r.query.rent_gpu, d.cloud.origin, list));
  }
}

}  // namespace gpusel::detail

namespace gpusel {
namespace {

std::string derived_note(const Cloud& cloud) {
  const auto& d = cloud.defaults;
  return trf(
      "Prices marked 'default' are not published by the provider: spot = {:.2f} x on-demand "
      "(seen {:.2f}-{:.2f}), commitments {:.0f} % / {:.0f} % off for 1 / 3 years "
      "(defaults of {}, with their sources).",
      d.spot_ratio.value, d.spot_ratio.low, d.spot_ratio.high, d.commit_1y_discount.value * 100,
      d.commit_3y_discount.value * 100, cloud.origin);
}

// Several instances: the network a job split across them waits on (data/cloud.json network,
// else defaults.instance_network), the same one recommend's speed model uses.
std::string instances_note(const RentQuote& q, const CloudDefaults& d) {
  const InstanceNetwork net = instance_network(*q.offer, d);
  if (q.instances * q.offer->gpus_per_instance <= net.nvlink_domain)
    return trf(
        "{} has {} GPU(s) per instance: {} instances within one NVLink domain of {} GPUs, "
        "which the provider places together.",
        q.offer->id, q.offer->gpus_per_instance, q.instances, net.nvlink_domain);
  if (!net.published)
    return trf(
        "{} has {} GPU(s) per instance: {} instances, joined by a network the provider does not "
        "publish (assumed {:g} Gbit/s TCP) rather than NVLink; a job split across them waits on "
        "it.",
        q.offer->id, q.offer->gpus_per_instance, q.instances, net.gbps);
  return trf(
      "{} has {} GPU(s) per instance: {} instances, joined by the provider's {:g} Gbit/s {} "
      "network rather than NVLink; a job split across them waits on it.",
      q.offer->id, q.offer->gpus_per_instance, q.instances, net.gbps, net.rdma ? "RDMA" : "TCP");
}

void offer_notes(const RentQuote& q, const Cloud& cloud, const std::string& today,
                 std::vector<std::string>& n) {
  if (q.instances > 1) n.push_back(instances_note(q, cloud.defaults));
  if (q.offer->marketplace)
    n.push_back(trf("{} is a marketplace listing: its price floats.", q.offer->id));
  if (!today.empty() && is_date(q.offer->as_of) && is_date(today) &&
      days_between(q.offer->as_of, today) > detail::kStaleOfferDays)
    n.push_back(trf("{}: price dated {}, over six months old; cloud prices move both ways.",
                    q.offer->id, q.offer->as_of));
}

}  // namespace

std::vector<std::string> rental_notes(const std::vector<RentQuote>& quotes, const Cloud& cloud,
                                      const std::string& today) {
  std::vector<std::string> n;
  std::set<std::string> seen;
  bool derived = false;
  for (const auto& q : quotes) {
    derived |= !q.published;
    if (q.kind == RentKind::spot && seen.insert("spot").second)
      n.push_back(
          tr("Spot instances can be reclaimed at any time: checkpoint often and expect "
             "restarts (K28)."));
    if (seen.insert(q.offer->id + "/" + std::to_string(q.instances)).second)
      offer_notes(q, cloud, today, n);
  }
  if (derived) n.push_back(derived_note(cloud));
  return n;
}

std::string extras_note(double storage_gb, double egress_gb, double storage_price,
                        double egress_price, const std::string& cur, const std::string& origin) {
  if (storage_gb == 0 && egress_gb == 0)
    return trf(
        "Not counted: cloud storage at {:.3f} {}/GB-month and egress at {:.3f} {}/GB "
        "(defaults of {}); add --storage-gb/--egress-gb (K28).",
        storage_price, cur, egress_price, cur, origin);
  return trf(
      "Rentals include {:g} GB of storage at {:.3f} {}/GB-month and {:g} GB of egress at "
      "{:.3f} {}/GB (K28).",
      storage_gb, storage_price, cur, egress_gb, egress_price, cur);
}

}  // namespace gpusel
