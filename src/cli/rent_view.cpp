#include "cli/rent_view.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cli/recommend_view.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/i18n/i18n.hpp"

namespace gpusel::cli {
namespace {

std::string amount(const std::optional<double>& v, const std::string& cur) {
  return v ? money(*v, cur) : "-";
}

std::string per_hour(double v, bool published) {
  return fmt::format("{:.2f}{}", v, published ? "" : "~");
}

std::string offer_label(const RentalOption& o) {
  std::string s = o.offer->id;
  if (o.instances > 1) s = fmt::format("{}x {}", o.instances, s);
  return s + " (" + o.offer->as_of + ")";
}

nlohmann::json option_json(const RentalOption& o, const std::string& cur) {
  auto opt = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json();
  };
  nlohmann::json j = result_json(o.eval, 0);
  j.erase("rank");
  j.erase("price");
  j.erase("scores");
  j.erase("platform");  // the host one would buy: not rented
  return {{"offer", o.offer->id},
          {"provider", o.offer->provider},
          {"instances", o.instances},
          {"offer_as_of", o.offer->as_of},
          {"offer_source", o.offer->source},
          {"currency", cur},
          {"on_demand_per_hour", o.on_demand_per_hour},
          {"spot_per_hour", o.spot_per_hour},
          {"spot_published", o.spot_published},
          {"hours", opt(o.hours)},
          {"on_demand_cost", opt(o.on_demand_cost)},
          {"spot_cost", opt(o.spot_cost)},
          {"extras", o.extras},
          {"per_million_tokens", o.per_million_tokens},
          {"configuration", j}};
}

Table rent_table(const std::vector<RentalOption>& shown, const std::string& cur) {
  Table t{{{"#", true},
           {N_("offer")},
           {N_("config")},
           {N_("need/usable GiB"), true, 5},
           {rate_unit(shown.empty() ? "" : shown.front().eval.throughput.unit), true},
           {N_("time"), true, 1},
           {N_("on-demand/h"), true},
           {N_("spot/h"), true, 4},
           {N_("job on-demand"), true},
           {N_("job spot"), true, 3},
           {N_("per 1M tok"), true, 2}},
          {}};
  int rank = 0;
  for (const auto& o : shown)
    t.rows.push_back(
        {std::to_string(++rank), offer_label(o), config_label(o.eval.config),
         gib(o.eval.need.need_bytes()) + "/" + gib(o.eval.usable_bytes),
         fmt::format("{:.0f}", o.eval.tokens_per_s), o.hours ? duration(*o.hours) : "-",
         per_hour(o.on_demand_per_hour, true), per_hour(o.spot_per_hour, o.spot_published),
         amount(o.on_demand_cost, cur), amount(o.spot_cost, cur),
         o.per_million_tokens > 0 ? fmt::format("{:.4f}", o.per_million_tokens) : "-"});
  return t;
}

// Each shown offer's warnings (the rules' verdict on that GPU for this workload), two at most.
std::string offer_warnings(const std::vector<RentalOption>& shown) {
  std::string out;
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const auto& ws = shown[i].eval.rules.warnings;
    for (std::size_t k = 0; k < ws.size() && k < 2; ++k)
      out +=
          fmt::format("  {}. {}: {} [{}]\n", i + 1, shown[i].offer->id, ws[k].text, ws[k].rule_id);
    if (ws.size() > 2)
      out += trf("  {}. ... {} more (--format json lists all)\n", i + 1, ws.size() - 2);
  }
  return out.empty() ? "" : tr("Warnings:") + "\n" + out;
}

// How many fitting offers miss the job's deadline, and where they were ranked.
std::string deadline_line(const RentAnswer& a, int max_gpus) {
  if (!a.deadline_hours || a.ranking.too_slow == 0) return "";
  const double days = *a.deadline_hours / 24;
  return (a.deadline_default
              ? trf("{} of the offers that fit cannot finish the job within {:g} days (the "
                    "default of data/scoring.json; --deadline-days sets it), even on up to {} "
                    "GPUs (--max-gpus): ranked after those that can, those that take fewer "
                    "deadlines first.",
                    a.ranking.too_slow, days, max_gpus)
              : trf("{} of the offers that fit cannot finish the job within {:g} days "
                    "(--deadline-days), even on up to {} GPUs (--max-gpus): ranked after those "
                    "that can, those that take fewer deadlines first.",
                    a.ranking.too_slow, days, max_gpus)) +
         "\n";
}

std::string bullets(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& i : items) s += "  - " + i + "\n";
  return s;
}

}  // namespace

void add_rent_options(CLI::App* cmd, RentArgs& a) {
  cmd->add_flag("--rent", a.rent, "rank cloud offers for the workload instead of purchases");
  cmd->add_flag("--compare-rent", a.compare,
                "add the cost of renting the same work to each result");
  cmd->add_option("--hours", a.hours,
                  "rental hours (with --rent), or hours of use of each "
                  "bought configuration (with --compare-rent)");
  cmd->add_option("--storage-gb", a.storage_gb, "cloud disk kept during the job, GB (K28)");
  cmd->add_option("--egress-gb", a.egress_gb, "data downloaded out of the cloud, GB (K28)");
  cmd->add_option("--storage-price", a.storage_price, "per GB-month (default: data/cloud.json)");
  cmd->add_option("--egress-price", a.egress_price, "per GB (default: data/cloud.json)");
  cmd->add_option("--deadline-days", a.deadline_days,
                  "with --rent and --tokens: the job must finish within this many days (default "
                  "data/scoring.json's job_deadline_days, 30): more RDMA-linked instances where "
                  "that makes it, else ranked after the offers that do");
}

void check_rent_args(const RentArgs& a, const RankArgs& rank) {
  if (a.rent && a.compare) throw usage_error("give --rent or --compare-rent, not both");
  if (a.hours && (!rank.tokens.empty() || !rank.dataset_tokens.empty()))
    throw usage_error("give --hours or --tokens (--dataset-tokens), not both");
  if (a.hours && !(*a.hours > 0))
    throw usage_error(fmt::format("--hours {} must be > 0", *a.hours));
  if (a.hours && !a.rent && !a.compare)
    throw usage_error("--hours goes with --rent or --compare-rent");
  if (a.deadline_days && !(*a.deadline_days > 0 && *a.deadline_days <= 1e6))
    throw usage_error(
        fmt::format("--deadline-days {} must be > 0 and at most 1e6", *a.deadline_days));
  if (a.deadline_days && (!a.rent || (rank.tokens.empty() && rank.dataset_tokens.empty())))
    throw usage_error("--deadline-days goes with --rent and --tokens (--dataset-tokens): a job");
  // Buying has no cloud disk or egress: without a rental the figures would be ignored.
  if ((a.storage_gb != 0 || a.egress_gb != 0 || a.storage_price || a.egress_price) && !a.rent &&
      !a.compare)
    throw usage_error(
        "--storage-gb, --egress-gb and their prices go with --rent or --compare-rent");
  if (a.storage_gb < 0 || a.egress_gb < 0 || (a.storage_price && *a.storage_price < 0) ||
      (a.egress_price && *a.egress_price < 0))
    throw usage_error("storage and egress figures must be >= 0");
}

RentalRequest rental_request(const RentArgs& a) {
  RentalRequest r{a.hours, a.storage_gb, a.egress_gb, a.storage_price, a.egress_price, {}, false};
  if (a.deadline_days) r.deadline_hours = *a.deadline_days * 24;
  return r;
}

Output rent_output(const Session& s, const RentAnswer& answer, const std::string& cloud_origin,
                   Format f) {
  const auto& cur = s.request.price.currency;
  const RentalRanking& ranking = answer.ranking;
  const std::optional<double>& hours = answer.hours;
  // Cloud offers are priced in their own currency (mostly USD): say when they were converted.
  const std::string converted =
      answer.converted_prices
          ? trf("offer prices converted from their own currency at the rates of {} "
                "(data/rates.json)",
                s.rates.as_of)
          : "";
  Output o;
  o.before =
      header_text(s, answer.one_gpu_need, converted) +
      (hours
           ? trf("Rental: {:g} h per job, ranked by on-demand cost per 1M tokens", *hours) + "\n\n"
       : s.request.tokens
           ? ""
           : tr("No --hours or --tokens: ranked by on-demand cost per 1M tokens") + "\n\n");
  o.table = rent_table(answer.shown, cur);
  o.after =
      "\n" +
      trf("Considered {} offers ({}): {} fit; {} too small, {} excluded by rules, {} "
          "filtered. ~ = spot price derived from on-demand.",
          ranking.considered, cloud_origin, ranking.fitting, ranking.too_small,
          ranking.excluded_by_rule, ranking.filtered) +
      (ranking.spot_only > 0 ? " " + trf("{} spot-only offers not ranked: a job is ranked by its "
                                         "uninterrupted on-demand cost.",
                                         ranking.spot_only)
                             : std::string()) +
      "\n";
  o.after += deadline_line(answer, s.request.max_gpus);
  o.after += offer_warnings(answer.shown) + tr("Notes:") + "\n" + bullets(answer.notes);
  if (f != Format::json && f != Format::csv) return o;  // a table shows neither
  o.json = {{"schema_version", 1},
            {"workload", workload_json(s.request.workload)},
            {"currency", cur},
            {"hours", hours ? nlohmann::json(*hours) : nlohmann::json()},
            {"tokens", s.request.tokens ? nlohmann::json(*s.request.tokens) : nlohmann::json()},
            {"offers", nlohmann::json::array()},
            {"notes", answer.notes},
            {"considered", ranking.considered},
            {"too_small", ranking.too_small},
            {"excluded_by_rule", ranking.excluded_by_rule},
            {"filtered", ranking.filtered},
            {"spot_only", ranking.spot_only},
            {"deadline_hours",
             answer.deadline_hours ? nlohmann::json(*answer.deadline_hours) : nlohmann::json()},
            {"too_slow", ranking.too_slow}};
  for (const auto& x : answer.shown) o.json["offers"].push_back(option_json(x, cur));
  o.csv = json_rows(o.json["offers"], {{"offer", "/offer"},
                                       {"provider", "/provider"},
                                       {"instances", "/instances"},
                                       {"offer_as_of", "/offer_as_of"},
                                       {"gpu", "/configuration/gpu"},
                                       {"count", "/configuration/count"},
                                       {"need_bytes", "/configuration/per_gpu_need_bytes"},
                                       {"usable_bytes", "/configuration/usable_bytes"},
                                       {"tokens_per_s", "/configuration/throughput/tokens_per_s"},
                                       {"hours", "/hours"},
                                       {"currency", "/currency"},
                                       {"on_demand_per_hour", "/on_demand_per_hour"},
                                       {"spot_per_hour", "/spot_per_hour"},
                                       {"spot_published", "/spot_published"},
                                       {"on_demand_cost", "/on_demand_cost"},
                                       {"spot_cost", "/spot_cost"},
                                       {"extras", "/extras"},
                                       {"per_million_tokens", "/per_million_tokens"}});
  return o;
}

Table compare_rent_table(const Session& s, const RecommendAnswer& answer) {
  const auto& cur = s.request.price.currency;
  Table t{{{"#", true},
           {N_("buy")},
           {N_("price"), true},
           {N_("rent")},
           {rate_unit(answer.top.empty() ? "" : answer.top.front().throughput.unit), true},
           {N_("time"), true},
           {N_("on-demand"), true},
           {N_("spot"), true},
           {N_("rent = buy after"), true}},
          {}};
  for (std::size_t i = 0; i < answer.compare_rent.size(); ++i) {
    const Result& b = answer.top[i];
    const RentComparison& c = answer.compare_rent[i];
    const std::string rank = std::to_string(i + 1);
    const std::string price = b.price > 0 ? money(b.price, cur) : tr("no price");
    const auto& r = c.rental;
    if (!r)
      t.rows.push_back({rank, config_label(b.config), price,
                        c.offered ? tr("no offer fits") : tr("no offer for this GPU"), "-", "-",
                        "-", "-", "-"});
    else
      t.rows.push_back({rank, config_label(b.config), price, offer_label(*r),
                        fmt::format("{:.0f}", r->eval.tokens_per_s),
                        r->hours ? duration(*r->hours) : "-",
                        r->on_demand_cost ? money(*r->on_demand_cost, cur)
                                          : per_hour(r->on_demand_per_hour, true) + "/h",
                        r->spot_cost ? money(*r->spot_cost, cur)
                                     : per_hour(r->spot_per_hour, r->spot_published) + "/h",
                        c.hours_to_purchase ? duration(*c.hours_to_purchase) : "-"});
  }
  return t;
}

namespace {

// CSV: each result's row carries its rental beside it (the table's second block), as JSON
// does under compare_rent.
void add_compare_rent_csv(Output& o) {
  nlohmann::json rows = o.json["results"];
  const nlohmann::json& rent = o.json["compare_rent"];
  for (std::size_t i = 0; i < rows.size() && i < rent.size(); ++i)
    rows[i]["compare_rent"] = rent[i];
  std::vector<CsvColumn> columns = result_csv_columns();
  for (const CsvColumn& c : std::vector<CsvColumn>{
           {"rent_offer", "/compare_rent/rent/offer"},
           {"rent_instances", "/compare_rent/rent/instances"},
           {"rent_tokens_per_s", "/compare_rent/rent/configuration/throughput/tokens_per_s"},
           {"rent_hours", "/compare_rent/rent/hours"},
           {"rent_on_demand_per_hour", "/compare_rent/rent/on_demand_per_hour"},
           {"rent_on_demand_cost", "/compare_rent/rent/on_demand_cost"},
           {"rent_spot_cost", "/compare_rent/rent/spot_cost"},
           {"rent_hours_to_purchase", "/compare_rent/rent_hours_to_purchase"}})
    columns.push_back(c);
  o.csv = json_rows(rows, columns);
}

}  // namespace

void add_compare_rent(Output& o, const Session& s, const RecommendAnswer& answer) {
  const auto& cur = s.request.price.currency;
  o.json["compare_rent"] = nlohmann::json::array();
  for (std::size_t i = 0; i < answer.compare_rent.size(); ++i) {
    const Result& b = answer.top[i];
    const RentComparison& c = answer.compare_rent[i];
    const auto& r = c.rental;
    o.json["compare_rent"].push_back(
        {{"rank", i + 1},
         {"buy", config_label(b.config)},
         {"buy_price", b.price},
         {"rent", r ? option_json(*r, cur) : nlohmann::json()},
         {"rent_hours_to_purchase",
          c.hours_to_purchase ? nlohmann::json(*c.hours_to_purchase) : nlohmann::json()}});
  }
  o.after += "\n" +
             tr("Renting the same work (cheapest offer of the same GPU; \"rent = buy after\": "
                "on-demand hours that cost the purchase price):") +
             "\n" + render_table(compare_rent_table(s, answer));
  o.after += bullets(answer.compare_rent_notes);
  o.json["compare_rent_notes"] = answer.compare_rent_notes;
  add_compare_rent_csv(o);
}

}  // namespace gpusel::cli
