// `gpusel cloud list` (the offers and their age) and `gpusel catalog status` (how fresh each
// dataset is): parse, call the answer, render.
#include <fmt/format.h>

#include "cli/context.hpp"
#include "cli/render.hpp"
#include "gpusel/answer/data_status.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/data/data_source.hpp"

namespace gpusel::cli {
namespace {

using nlohmann::json;

struct CloudArgs {
  std::string gpu, provider, as_of, format = "table";
};

struct StatusArgs {
  std::string as_of, format = "table";
  bool strict = false;
};

std::string price(const std::optional<double>& v) { return v ? fixed(*v, 2) : "-"; }
json price_json(const std::optional<double>& v) { return v ? json(*v) : json(); }

Table offers_table(const CloudListAnswer& a) {
  Table t{{{"gpu"},
           {"provider"},
           {"offer"},
           {"gpus", true},
           {"region"},
           {"on-demand/h", true},
           {"per GPU/h", true},
           {"spot/h", true},
           {"1y/h", true},
           {"3y/h", true},
           {"currency"},
           {"as_of"},
           {"age (d)", true}},
          {}};
  for (const auto& r : a.offers) {
    const Offer& o = *r.offer;
    t.rows.push_back({o.gpu, o.provider, o.offer, std::to_string(o.gpus_per_instance), o.region,
                      price(o.on_demand_per_hour), price(r.per_gpu_hour), price(o.spot_per_hour),
                      price(o.commit_1y_per_hour), price(o.commit_3y_per_hour), o.currency, o.as_of,
                      std::to_string(r.age_days) + (r.past_limit ? " !" : "")});
  }
  return t;
}

json offers_json(const CloudListAnswer& a) {
  // schema_version 2: on_demand_per_hour and per_gpu_hour became nullable (spot-only offers).
  json j{{"schema_version", 2}, {"as_of", a.as_of},           {"count", a.offers.size()},
         {"total", a.total},    {"past_limit", a.past_limit}, {"offers", json::array()}};
  for (const auto& r : a.offers) {
    const Offer& o = *r.offer;
    j["offers"].push_back({{"id", o.id},
                           {"provider", o.provider},
                           {"offer", o.offer},
                           {"gpu", o.gpu},
                           {"gpus_per_instance", o.gpus_per_instance},
                           {"region", o.region},
                           {"currency", o.currency},
                           {"on_demand_per_hour", price_json(o.on_demand_per_hour)},
                           {"per_gpu_hour", price_json(r.per_gpu_hour)},
                           {"spot_only", o.spot_only()},
                           {"spot_per_hour", price_json(o.spot_per_hour)},
                           {"commit_1y_per_hour", price_json(o.commit_1y_per_hour)},
                           {"commit_3y_per_hour", price_json(o.commit_3y_per_hour)},
                           {"monthly", price_json(o.monthly)},
                           {"billing", o.billing},
                           {"marketplace", o.marketplace},
                           {"as_of", o.as_of},
                           {"age_days", r.age_days},
                           {"past_limit", r.past_limit},
                           {"source", o.source},
                           {"network",
                            {{"gbps", r.network.gbps},
                             {"rdma", r.network.rdma},
                             {"published", r.network.published},
                             {"nvlink_domain", r.network.nvlink_domain}}}});
  }
  return j;
}

int run_cloud_list(Context& ctx, const CloudArgs& a) {
  const Format f = parse_format(a.format);
  const CloudListAnswer ans = list_cloud(ctx.cloud(), ctx.catalog(), {a.gpu, a.provider, a.as_of});
  Output o;
  o.table = offers_table(ans);
  o.after = fmt::format(
      "{} of {} offers ({}, reviewed {}); prices per instance-hour in the offer's currency; "
      "ages as of {}, {} past the {}-day limit (!)\n",
      ans.offers.size(), ans.total, ans.origin, ans.reviewed, ans.as_of, ans.past_limit,
      kOfferMaxAgeDays);
  o.json = offers_json(ans);
  emit(*ctx.out, o, f);
  return 0;
}

std::string age_text(long days) { return days < 0 ? "-" : std::to_string(days); }

Table status_table(const CatalogStatusAnswer& a) {
  Table t{{{"file"},
           {"what"},
           {"reviewed"},
           {"age (d)", true},
           {"dated", true},
           {"oldest"},
           {"limit"},
           {"past limit", true}},
          {}};
  for (const auto& d : a.datasets)
    t.rows.push_back({d.file, d.what, d.reviewed.empty() ? "-" : d.reviewed,
                      age_text(d.review_age_days) + (d.review_due ? " !" : ""),
                      std::to_string(d.dated), d.oldest.empty() ? "-" : d.oldest, d.limit,
                      d.limit_days > 0 ? std::to_string(d.stale.size()) : "-"});
  return t;
}

std::string id_list(const std::vector<std::string>& ids) {
  std::string out;
  for (std::size_t i = 0; i < ids.size() && i < 12; ++i) out += (i ? ", " : "") + safe_cell(ids[i]);
  if (ids.size() > 12) out += fmt::format(" and {} more", ids.size() - 12);
  return out;
}

std::string coverage_text(const Coverage& c) {
  const auto pct = [](int n, int of) { return of > 0 ? 100.0 * n / of : 0.0; };
  std::string out = fmt::format(
      "prices: {} of {} cards ({:.0f} %) carry a current price (street, used, estimate or "
      "quote within {} days, or an MSRP within {} days)\n",
      c.priced, c.cards, pct(c.priced, c.cards), kPriceMaxAgeDays, kMsrpCurrentDays);
  if (!c.unpriced.empty()) out += "  without one: " + id_list(c.unpriced) + "\n";
  out += fmt::format("cloud: {} of {} datacenter cards ({:.0f} %) have an offer\n", c.offered,
                     c.datacenter, pct(c.offered, c.datacenter));
  if (!c.no_offer.empty()) out += "  without one: " + id_list(c.no_offer) + "\n";
  return out;
}

std::string status_text(const CatalogStatusAnswer& a) {
  std::string out;
  for (const auto& d : a.datasets) {
    if (d.stale.empty() && !d.review_due) continue;
    out += fmt::format(
        "{}: {}{}\n", d.file,
        d.review_due
            ? fmt::format("review due (last {})", d.reviewed.empty() ? "never" : d.reviewed)
            : "",
        d.stale.empty()
            ? ""
            : fmt::format("{}{} past the limit", d.review_due ? "; " : "", d.stale.size()));
    for (std::size_t i = 0; i < d.stale.size() && i < 5; ++i)
      out += fmt::format("  {} ({}, {} days)\n", d.stale[i].what, d.stale[i].as_of,
                         d.stale[i].age_days);
    if (d.stale.size() > 5)
      out += fmt::format("  ... and {} more (--format json lists all)\n", d.stale.size() - 5);
    out += "  refresh from: " + d.refresh + "\n";
  }
  out += coverage_text(a.coverage);
  out += a.fresh() ? fmt::format("all data within its limits as of {}\n", a.as_of)
                   : fmt::format(
                         "as of {}: {} entries past their limit, {} reviews due "
                         "(a quarter: {} days); CONTRIBUTING.md says how to refresh\n",
                         a.as_of, a.stale_entries, a.reviews_due, kReviewMaxAgeDays);
  return out;
}

json status_json(const CatalogStatusAnswer& a) {
  json j{{"schema_version", 1},          {"as_of", a.as_of},
         {"fresh", a.fresh()},           {"stale_entries", a.stale_entries},
         {"reviews_due", a.reviews_due}, {"datasets", json::array()}};
  const Coverage& c = a.coverage;
  j["coverage"] = {{"cards", c.cards},       {"priced", c.priced},
                   {"unpriced", c.unpriced}, {"datacenter_cards", c.datacenter},
                   {"offered", c.offered},   {"no_offer", c.no_offer}};
  for (const auto& d : a.datasets) {
    json stale = json::array();
    for (const auto& s : d.stale)
      stale.push_back({{"what", s.what}, {"as_of", s.as_of}, {"age_days", s.age_days}});
    j["datasets"].push_back({{"file", d.file},
                             {"what", d.what},
                             {"reviewed", d.reviewed},
                             {"review_age_days", d.review_age_days},
                             {"review_due", d.review_due},
                             {"dated_entries", d.dated},
                             {"oldest", d.oldest},
                             {"limit_days", d.limit_days},
                             {"limit", d.limit},
                             {"stale", stale},
                             {"refresh", d.refresh}});
  }
  return j;
}

int run_status(Context& ctx, const StatusArgs& a) {
  const Format f = parse_format(a.format);
  StatusInputs in;
  if (!ctx.paths.catalog.empty())
    in.replaced["data/gpus.json"] = {ctx.paths.catalog, read_file(ctx.paths.catalog)};
  if (!ctx.cloud_paths.cloud.empty())
    in.replaced["data/cloud.json"] = {ctx.cloud_paths.cloud, read_file(ctx.cloud_paths.cloud)};
  for (const auto& p : ctx.paths.catalog_add)
    in.added["data/gpus.json"].push_back({p, read_file(p)});
  for (const auto& p : ctx.cloud_paths.cloud_add)
    in.added["data/cloud.json"].push_back({p, read_file(p)});
  const CatalogStatusAnswer ans = catalog_status(a.as_of, in);
  Output o;
  o.table = status_table(ans);
  o.after = status_text(ans);
  o.json = status_json(ans);
  emit(*ctx.out, o, f);
  return a.strict && !ans.fresh() ? static_cast<int>(ExitCode::negative) : 0;
}

}  // namespace

void add_status_command(CLI::App& catalog, Context& ctx) {
  auto a = std::make_shared<StatusArgs>();
  auto* cmd = catalog.add_subcommand(
      "status", "Each dataset's review date and age, what is past its freshness limit");
  cmd->add_option("--as-of", a->as_of, "date ages are measured to: YYYY-MM-DD (default today)");
  cmd->add_flag("--strict", a->strict, "exit 1 when an entry is past its limit or a review is due");
  cmd->add_option("--format", a->format, "table, json or csv")->capture_default_str();
  cmd->callback([&ctx, a] { ctx.action = [&ctx, a] { return run_status(ctx, *a); }; });
}

void add_cloud_commands(CLI::App& app, Context& ctx) {
  auto* cloud = app.add_subcommand("cloud", "The cloud offers gpusel rents from");
  cloud->require_subcommand(1);
  auto a = std::make_shared<CloudArgs>();
  auto* list = cloud->add_subcommand("list", "List the offers with their prices and age");
  list->add_option("--gpu", a->gpu, "only offers of this GPU id (gpusel catalog list)");
  list->add_option("--provider", a->provider, "only this provider's offers (aws, gcp, runpod...)");
  list->add_option("--as-of", a->as_of, "date ages are measured to: YYYY-MM-DD (default today)");
  list->add_option("--format", a->format, "table, json or csv")->capture_default_str();
  list->callback([&ctx, a] { ctx.action = [&ctx, a] { return run_cloud_list(ctx, *a); }; });
}

}  // namespace gpusel::cli
