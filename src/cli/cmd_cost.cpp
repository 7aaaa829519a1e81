// `gpusel cost`: buy or rent, with the numbers behind the verdict.
#include "cli/cmd_cost.hpp"

#include <fmt/format.h>

#include "cli/currency.hpp"
#include "cli/render.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/cost/cost.hpp"
#include "gpusel/data/validate.hpp"
#include "gpusel/i18n/i18n.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/memory/workload.hpp"

namespace gpusel::cli {
namespace {

struct CostArgs {
  CostQuery q;
  std::optional<int> count;  // --count; none: the core's default (one card, or one board)
  std::string format = "table", currency, card_price, host_cost, ownership, as_of;
};

// "1500", "1500 USD", "¥12000": an amount in the session currency unless it names another.
double amount_in(const std::string& text, const std::string& flag, const std::string& currency,
                 const Rates& rates) {
  const Budget b = parse_amount(text, flag);
  return b.currency.empty() ? b.amount : convert(b.amount, b.currency, currency, rates);
}

Rates embedded_rates() {
  const std::string origin = "embedded data/rates.json";
  return parse_rates(parse_json_text(std::string(embedded_text("data/rates.json")), origin),
                     origin);
}

std::string own_lines(const OwnCost& o, const CostReport& r) {
  const auto& cur = r.query.currency;
  // The label padded by display width: a translated label is double-width text.
  auto line = [](const std::string& label, double v, const std::string& how) {
    const std::size_t w = display_width(label);
    std::string s =
        fmt::format("  {}{} {:>11.2f}  {}", label, std::string(w < 12 ? 12 - w : 0, ' '), v, how);
    return s.erase(s.find_last_not_of(' ') + 1) + "\n";
  };
  std::string s = trf("Owning {} x {} ({})", o.count, o.gpu->id, safe_cell(o.gpu->name)) + "\n";
  s += line(tr("cards"), o.cards,
            fmt::format("{} x {:.2f} {}: {}", o.count, o.card_price, cur, o.card_basis));
  s += line(tr("host system"), o.host_total,
            fmt::format("{} x {:.2f} {}: {}", o.hosts, o.host_price, cur, o.host_basis));
  s += line(tr("resale"), o.resale > 0 ? -o.resale : 0.0,
            trf("{:.1f} % of {:.2f} after {:g} months ({})", o.residual * 100, o.purchase,
                r.query.months, o.resale_basis));
  if (o.hosted) {
    s += line(tr("power"), o.electricity,
              trf("{:.2f} kW of IT load x PUE {:.2f} x {:.0f} h = {:.0f} kWh at {:.4f} {}/kWh ({})",
                  o.it_kw, o.pue, r.hours, o.kwh, o.kwh_price, cur, o.kwh_basis));
    s += line(tr("colocation"), o.colocation,
              trf("{:.2f} kW x {:.2f} {} per kW-month x {:g} months", o.it_kw,
                  o.it_kw > 0 ? o.colocation_per_month / o.it_kw : 0.0, cur, r.query.months));
  } else {
    s += line(tr("power"), o.electricity,
              trf("{:.2f} kW x {:.0f} h = {:.0f} kWh at {:.4f} {}/kWh ({})", o.power_kw, r.hours,
                  o.kwh, o.kwh_price, cur, o.kwh_basis));
  }
  s += line(tr("net cost"), o.total, "");
  return s + "\n";
}

struct Row {
  double total;
  std::vector<std::string> cells;
};

// The table people read (2 decimals), or with `raw` the one a spreadsheet reads: every
// number unrounded and the currency in its own column.
Table options_table(const CostReport& r, bool raw) {
  auto cell = [raw](double v, int decimals) { return raw ? raw_number(v) : fixed(v, decimals); };
  Table t{{{N_("option")},
           {N_("offer")},
           {N_("gpus"), true},
           {N_("rate/h"), true},
           {N_("price"), false, 1},
           {N_("billed h"), true},
           {N_("compute"), true, 2},
           {N_("extras"), true, 3},
           {N_("total"), true}},
          {}};
  if (raw)
    for (auto& [c, name] : std::vector<std::pair<std::size_t, const char*>>{
             {3, "rate_per_hour"}, {4, "basis"}, {5, "billed_hours"}})
      t.columns[c].header = name;
  std::vector<Row> rows;
  if (r.own)
    rows.push_back(
        {r.own->total,
         {tr("buy"), fmt::format("{} x {}", r.own->count, r.own->gpu->id),
          std::to_string(r.own->count), cell(r.own->power_per_hour, 3), tr("power only"),
          cell(r.hours, 0), cell(r.own->total, 2), raw ? "" : "-", cell(r.own->total, 2)}});
  for (const auto& q : r.rent)
    rows.push_back({q.total,
                    {verdict_text(rent_choice(q.kind)),
                     fmt::format("{} x {} ({})", q.instances, q.offer->id, q.offer->as_of),
                     std::to_string(q.instances * q.offer->gpus_per_instance),
                     cell(q.rate_per_hour, 3), q.basis, cell(q.billed_hours, 0), cell(q.compute, 2),
                     cell(q.extras, 2), cell(q.total, 2)}});
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.total < b.total; });
  for (auto& row : rows) t.rows.push_back(std::move(row.cells));
  if (raw) {
    t.columns.push_back({"currency"});
    for (auto& row : t.rows) row.push_back(r.query.currency);
  }
  return t;
}

std::string bullets(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& i : items) s += "  - " + i + "\n";
  return s;
}

std::string after_text(const CostReport& r) {
  std::string s = "\n" + tr("Verdict: ") +
                  (r.verdict.choice.empty() ? tr("none (nothing to compare)")
                                            : verdict_text(r.verdict.choice)) +
                  "\n" + bullets(r.verdict.reasons);
  s += tr("Notes:") + "\n" + bullets(r.notes);
  if (!r.conversions.empty()) s += tr("Converted:") + "\n" + bullets(r.conversions);
  return s;
}

nlohmann::json own_json(const OwnCost& o) {
  return {{"gpu", o.gpu->id},
          {"count", o.count},
          {"card_price", o.card_price},
          {"card_basis", o.card_basis},
          {"hosts", o.hosts},
          {"host_price", o.host_price},
          {"host_basis", o.host_basis},
          {"purchase", o.purchase},
          {"residual_1y", o.residual_1y},
          {"selling_cost", o.selling_cost},
          {"residual", o.residual},
          {"resale", o.resale},
          {"depreciation", o.depreciation},
          {"power_kw", o.power_kw},
          {"kwh", o.kwh},
          {"kwh_price", o.kwh_price},
          {"kwh_basis", o.kwh_basis},
          {"electricity", o.electricity},
          {"it_kw", o.it_kw},
          {"pue", o.pue},
          {"colocation_per_month", o.colocation_per_month},
          {"colocation", o.colocation},
          {"total", o.total}};
}

nlohmann::json rent_json(const RentQuote& q) {
  return {{"kind", rent_kind_name(q.kind)},
          {"offer", q.offer->id},
          {"provider", q.offer->provider},
          {"gpu", q.offer->gpu},
          {"gpus_per_instance", q.offer->gpus_per_instance},
          {"instances", q.instances},
          {"rate_per_hour", q.rate_per_hour},
          {"published", q.published},
          {"basis", q.basis},
          {"billed_hours", q.billed_hours},
          {"compute", q.compute},
          {"extras", q.extras},
          {"total", q.total},
          {"as_of", q.offer->as_of},
          {"source", q.offer->source}};
}

nlohmann::json report_json(const CostReport& r) {
  using nlohmann::json;
  const auto& q = r.query;
  json j{{"schema_version", 1},
         {"currency", q.currency},
         {"query",
          {{"gpu", q.own_gpu},
           {"count", q.own_count},
           {"rent_gpu", q.rent_gpu},
           {"rent_count", q.rent_count.value_or(q.own_count)},
           {"hours_per_day", q.hours_per_day},
           {"months", q.months},
           {"storage_gb", q.storage_gb},
           {"egress_gb", q.egress_gb}}},
         {"hours_used", r.hours},
         {"own", r.own ? own_json(*r.own) : json(nullptr)},
         {"rent", json::array()},
         {"break_even", json::array()},
         {"verdict",
          {{"choice", r.verdict.choice.empty() ? json(nullptr) : json(r.verdict.choice)},
           {"reasons", r.verdict.reasons}}},
         {"nearest_with_offers", r.nearest_with_offers},
         {"notes", r.notes},
         {"conversions", r.conversions}};
  for (const auto& x : r.rent) j["rent"].push_back(rent_json(x));
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  for (const auto& b : r.break_even)
    j["break_even"].push_back({{"kind", rent_kind_name(b.kind)},
                               {"hours_per_day", opt(b.hours_per_day)},
                               {"months", opt(b.months)}});
  return j;
}

int run_cost(Context& ctx, CostArgs& a) {
  const Format f = parse_format(a.format);
  CostQuery& q = a.q;
  // 0 is the query's "not given": a given 0 is refused as the core refuses other counts.
  if (a.count && *a.count < 1)
    throw usage_error(fmt::format("--count must be between 1 and {}", kMaxGpuCount));
  q.own_count = a.count.value_or(0);
  const CurrencyChoice currency = choose_currency(a.currency, "");
  q.currency = currency.code;
  if (!a.as_of.empty() && !is_date(a.as_of))
    throw usage_error("--as-of '" + quote_input(a.as_of) + "' is not a date (YYYY-MM-DD)");
  q.today = a.as_of.empty() ? today_iso() : a.as_of;
  const Rates rates = embedded_rates();
  if (!a.card_price.empty())
    q.card_price = amount_in(a.card_price, "--card-price", q.currency, rates);
  if (!a.host_cost.empty()) q.host_cost = amount_in(a.host_cost, "--host-cost", q.currency, rates);
  const Ownership own = load_ownership(a.ownership);
  const auto kwh = load_kwh_prices();
  const CostReport r = compare_costs(q, {ctx.catalog(), ctx.cloud(), own, kwh, rates});
  Output o;
  o.before = trf("{} x {} bought, or {} x {} rented: {:g} h/day for {:g} months = {:.0f} h of "
                 "use; amounts in {}{}",
                 r.query.own_count, q.own_gpu, *r.query.rent_count, r.query.rent_gpu,
                 q.hours_per_day, q.months, r.hours, q.currency, origin_note(currency)) +
             "\n\n" + (r.own ? own_lines(*r.own, r) : "");
  if (!r.rent.empty() || r.own) o.table = options_table(r, false);
  if (!r.rent.empty() || r.own) o.csv = options_table(r, true);
  o.highlights = {{tr("Verdict:"), Tone::good}};
  o.after = after_text(r);
  o.json = report_json(r);
  emit(*ctx.out, o, f);
  return 0;
}

void add_options(CLI::App& cmd, CostArgs& a) {
  cmd.add_option("--gpu", a.q.own_gpu, "GPU to buy, a catalog id (e.g. rtx-4090)")->required();
  cmd.add_option("--count", a.count,
                 "how many cards (default: one, or one board of the smallest size the card is sold "
                 "on: 4 H100 SXM, 8 MI300X)");
  cmd.add_option("--hours-per-day", a.q.hours_per_day, "hours of use a day, 0-24")->required();
  cmd.add_option("--months", a.q.months, "project length in months")->required();
  cmd.add_option("--rent-gpu", a.q.rent_gpu, "GPU to rent instead (default: the --gpu card)");
  cmd.add_option("--rent-count", a.q.rent_count, "GPUs to rent (default: --count)");
  cmd.add_option("--kwh-price", a.q.kwh_price, "power price per kWh in the session currency");
  cmd.add_option("--currency", a.currency, "ISO code (default: GPUSEL_CURRENCY, locale, USD)");
  cmd.add_option("--card-price", a.card_price, "price of one card (e.g. 1800, 12999CNY)");
  cmd.add_option("--host-cost", a.host_cost, "price of one host system without GPUs");
  cmd.add_option("--resale-1y", a.q.resale_1y, "share of the price a card fetches after a year");
  cmd.add_option("--selling-cost", a.q.selling_cost,
                 "share of the sale price lost to selling it (default: data/ownership.json, "
                 "eBay's final value fee)");
  cmd.add_option("--colo-per-kw-month", a.q.colo_per_kw_month,
                 "data-centre servers: colocation per kW of IT load a month (0: your own "
                 "facility; default data/ownership.json)");
  cmd.add_option("--pue", a.q.pue, "data-centre servers: the facility's PUE, 1-5 (default 1.58)");
  cmd.add_option("--storage-gb", a.q.storage_gb, "cloud disk kept for the project, GB");
  cmd.add_option("--egress-gb", a.q.egress_gb, "data downloaded out of the cloud, GB");
  cmd.add_option("--storage-price", a.q.storage_price, "per GB-month (default: data/cloud.json)");
  cmd.add_option("--egress-price", a.q.egress_price, "per GB (default: data/cloud.json)");
  cmd.add_option("--ownership", a.ownership, "owning-cost defaults replacing data/ownership.json");
  cmd.add_option("--as-of", a.as_of, "date offer prices are aged against (default today)");
  cmd.add_option("--format", a.format, format_help());
}

}  // namespace

void add_cost_command(CLI::App& app, Context& ctx) {
  auto a = std::make_shared<CostArgs>();
  auto* cmd = app.add_subcommand(
      "cost", "Buy or rent: owning cards vs renting GPUs on-demand, spot or committed");
  add_options(*cmd, *a);
  cmd->callback([&ctx, a] { ctx.action = [&ctx, a] { return run_cost(ctx, *a); }; });
}

}  // namespace gpusel::cli
