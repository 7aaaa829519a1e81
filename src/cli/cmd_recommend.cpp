// `gpusel recommend`: ranked configurations for a workload, with reasons.
#include <fmt/format.h>

#include "cli/cmd_recommend.hpp"
#include "cli/recommend_html.hpp"
#include "cli/recommend_view.hpp"
#include "cli/rent_view.hpp"
#include "gpusel/answer/answers.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/base/output_file.hpp"
#include "gpusel/i18n/i18n.hpp"

namespace gpusel::cli {
namespace {

struct RecommendArgs {
  RankArgs rank;
  RentArgs rent;
  int top = 10;
  std::string output = "-";  // -o: a file written in one piece, or "-" for stdout
};

// stdout, or the -o file written atomically (temporary file, then rename).
void write_out(Context& ctx, const Output& o, Format f, const std::string& path) {
  if (path == "-") return emit(*ctx.out, o, f);
  write_file_atomic(path, render(o, f, false));
}

std::string rejected_text(const Ranking& r, bool timed) {
  const Rejections& x = r.rejected;
  std::string s =
      trf(r.fitting == 1 ? N_("Considered {} configurations: {} passes; rejected {} too small, {} "
                              "over budget, {} without a price, {} by rules, {} by filters.")
                         : N_("Considered {} configurations: {} pass; rejected {} too small, {} "
                              "over budget, {} without a price, {} by rules, {} by filters."),
          r.candidates, r.fitting, x.too_small, x.over_budget, x.no_price, x.excluded_by_rule,
          x.filtered) +
      "\n";
  if (r.ranked < r.fitting)
    s += trf("Of those that pass, {} are ranked: per card, {}.", r.ranked,
             timed ? tr("the best-scoring count and the fewest cards that fit")
                   : tr("the fewest cards that fit (more only add speed: give --tokens to weigh "
                        "them against a deadline)")) +
         "\n";
  for (const auto& [rule, n] : x.by_rule) s += trf("  excluded by {}: {}\n", rule, n);
  return s;
}

nlohmann::json rejected_json(const Ranking& r) {
  const Rejections& x = r.rejected;
  return {{"considered", r.candidates},
          {"passed", r.fitting},
          {"ranked", r.ranked},
          {"too_small", x.too_small},
          {"over_budget", x.over_budget},
          {"no_price", x.no_price},
          {"excluded_by_rule", x.excluded_by_rule},
          {"by_rule", x.by_rule},
          {"filtered", x.filtered}};
}

// A rental in words: the offer, its hourly price and, with --hours/--tokens, the job.
std::string rental_text(const RentalOption& o, const std::string& cur) {
  std::string s = trf("rent {} ({}, {} {}) at {}/h on-demand", o.offer->id,
                      config_label(o.eval.config), rate(o.eval.tokens_per_s),
                      rate_unit(o.eval.throughput.unit), money_exact(o.on_demand_per_hour, cur));
  if (o.on_demand_cost && o.hours)
    s += trf(": {} for the job, {}", money(*o.on_demand_cost, cur), duration(*o.hours));
  return s;
}

// A remedy in words, in the order a user tries them.
std::string remedy_text(const Remedy& r, const std::string& cur) {
  switch (r.kind) {
    case Remedy::Kind::change:
      return trf("{}: then {} fits ({} of {} GiB per GPU, {} {}{}) for {}", r.change,
                 config_label(r.purchase->config), gib(r.purchase->need.need_bytes()),
                 gib(r.purchase->usable_bytes), rate(r.purchase->tokens_per_s),
                 rate_unit(r.purchase->throughput.unit),
                 r.purchase->hours ? ", " + duration(*r.purchase->hours) : "",
                 money(r.purchase->price, cur));
    case Remedy::Kind::rent:
      return rental_text(*r.rental, cur);
    case Remedy::Kind::over_budget:
      break;
  }
  return trf("{}{} fits for {} (over the budget by {})",
             r.change.empty() ? "" : r.change + tr(": then "), config_label(r.purchase->config),
             money(r.purchase->price, cur), money(r.over_by, cur));
}

// What was considered and rejected, and when nothing fits, what would.
std::string summary_text(const Session& s, const RecommendAnswer& ans,
                         const std::vector<std::string>& fixes) {
  std::string out = rejected_text(ans.ranking, s.request.tokens.has_value());
  if (!ans.ranking.results.empty()) return out;
  out += "\n" +
         (fixes.empty() ? tr("Nothing fits, and no lighter workload, rental or larger budget "
                             "within the filters would.")
                        : tr("Nothing fits. What would, in the order to try:")) +
         "\n";
  for (const auto& f : fixes) out += "  - " + f + "\n";
  return out;
}

// A job bought outright that costs less rented: said under the ranking.
std::string job_rental_text(const Session& s, const RecommendAnswer& ans) {
  if (!ans.job_rental || ans.top.empty()) return "";
  const RentalOption& r = *ans.job_rental;
  const Result& b = ans.top.front();
  const std::string& cur = s.request.price.currency;
  return "\n" +
         trf("Renting the job instead: {} x{} ({}) does it in {} for {} on-demand, against {} "
             "to buy #1 ({:.0f}x): a one-off job is cheaper rented (--rent ranks the offers, "
             "--compare-rent rents each row's own GPU).",
             r.offer->id, r.instances, config_label(r.eval.config), duration(*r.hours),
             money(*r.on_demand_cost, cur), money(b.price, cur), b.price / *r.on_demand_cost) +
         "\n";
}

// Smaller micro-batches accumulated to the same step, where another configuration is faster.
std::string accumulation_text(const Session& s, const RecommendAnswer& ans) {
  if (!ans.accumulation) return "";
  const auto& x = *ans.accumulation;
  const Result& b = x.best;
  return "\n" +
         trf("--batch is per GPU: with --batch {} --grad-accum {} (the same {} samples per GPU "
             "per optimizer step), {} ranks first at {} {} for {}.",
             x.batch, x.grad_accum, x.batch * x.grad_accum, config_label(b.config),
             rate(b.tokens_per_s), rate_unit(b.throughput.unit),
             b.price > 0 ? money(b.price, s.request.price.currency) : tr("no price")) +
         "\n";
}

// A mixture of experts with its experts in host RAM on one card, where that is cheaper.
std::string experts_in_ram_text(const Session& s, const RecommendAnswer& ans) {
  if (!ans.experts_in_ram) return "";
  const auto& x = *ans.experts_in_ram;
  const Result& b = x.best;
  const std::string flag =
      x.cpu_moe == kCpuMoeAll ? "--cpu-moe" : "--n-cpu-moe " + std::to_string(x.cpu_moe);
  const std::string price = b.price > 0 ? money(b.price, s.request.price.currency) : tr("no price");
  // The host priced with it holds that RAM (data/platforms.json host_memory): say which.
  if (b.platform_price > 0)
    return "\n" +
           trf("With experts in host RAM (llama.cpp {}): {} runs it at {} tok/s for {} ({}), "
               "with {} GiB of the model in system RAM.",
               flag, config_label(b.config), rate(b.tokens_per_s), price, safe_cell(b.platform),
               gib(b.need.host_bytes)) +
           "\n";
  return "\n" +
         trf("With experts in host RAM (llama.cpp {}): {} runs it at {} tok/s for {}, with {} "
             "GiB of the model in system RAM.",
             flag, config_label(b.config), rate(b.tokens_per_s), price, gib(b.need.host_bytes)) +
         "\n";
}

nlohmann::json experts_in_ram_json(const RecommendAnswer& ans) {
  if (!ans.experts_in_ram) return nullptr;
  const auto& x = *ans.experts_in_ram;
  return {{"cpu_moe", x.cpu_moe == kCpuMoeAll ? nlohmann::json("all") : nlohmann::json(x.cpu_moe)},
          {"gpu", x.best.config.gpu->id},
          {"rate", x.best.tokens_per_s},
          {"price", x.best.price},
          {"host_ram_gib", x.best.need.host_bytes / 1073741824.0},
          {"platform", x.best.platform},
          {"platform_ram_gb", x.best.platform_quote.ram_gb}};
}

nlohmann::json accumulation_json(const RecommendAnswer& ans) {
  if (!ans.accumulation) return nullptr;
  const auto& x = *ans.accumulation;
  return {{"batch", x.batch},
          {"grad_accum", x.grad_accum},
          {"gpu", x.best.config.gpu->id},
          {"count", x.best.config.count},
          {"rate", x.best.tokens_per_s},
          {"price", x.best.price}};
}

nlohmann::json job_rental_json(const RecommendAnswer& ans) {
  if (!ans.job_rental) return nullptr;
  const RentalOption& r = *ans.job_rental;
  return {{"offer", r.offer->id},
          {"instances", r.instances},
          {"gpu", r.eval.config.gpu->id},
          {"count", r.eval.config.count},
          {"hours", *r.hours},
          {"on_demand_cost", *r.on_demand_cost}};
}

std::vector<std::string> remedies(const Session& s, const RecommendAnswer& ans) {
  std::vector<std::string> fixes;
  for (const auto& r : ans.remedies) fixes.push_back(remedy_text(r, s.request.price.currency));
  return fixes;
}

// The JSON document and its CSV rows are built only for those formats: a table or a page
// shows neither (both cost more than the table itself).
Output build_output(const Session& s, const RecommendAnswer& ans, const RecommendArgs& a,
                    Format f) {
  const Ranking& ranking = ans.ranking;
  const std::vector<std::string> fixes = remedies(s, ans);
  Output o;
  o.before = header_text(s, ans.one_gpu_need, converted_note(s, ans.converted_prices));
  o.table = results_table(ans.top, true, s.request.tokens.has_value());
  o.after = "\n" + warnings_text(ans.top, 2) + summary_text(s, ans, fixes) +
            accumulation_text(s, ans) + experts_in_ram_text(s, ans) + job_rental_text(s, ans);
  if (a.rank.explain) o.after += "\n" + explain_text(ans.top, s.request);
  o.highlights = {{tr("Warnings:"), Tone::warn}, {tr("Nothing fits."), Tone::bad}};
  if (f != Format::json && f != Format::csv) return o;
  o.json = {{"schema_version", 1},
            {"workload", workload_json(s.request.workload)},
            {"currency", s.request.price.currency},
            {"rates_as_of", s.rates.as_of},
            {"budget", s.request.budget ? nlohmann::json(*s.request.budget) : nlohmann::json()},
            {"weights",
             {{"compute", s.request.weights.compute},
              {"budget", s.request.weights.budget},
              {"ecosystem", s.request.weights.ecosystem}}},
            {"results", nlohmann::json::array()},
            {"rejected", rejected_json(ranking)},
            {"suggestions", fixes},
            {"job_rental", job_rental_json(ans)},
            {"accumulation", accumulation_json(ans)},
            {"experts_in_ram", experts_in_ram_json(ans)}};
  int rank = 0;
  for (const auto& r : ans.top) o.json["results"].push_back(result_json(r, ++rank));
  o.csv = json_rows(o.json["results"], result_csv_columns());
  return o;
}

const std::vector<Format> kRecommendFormats{Format::table, Format::json, Format::csv, Format::html};

int run_recommend(Context& ctx, const RecommendArgs& a) {
  const Format f = parse_format(a.rank.format, kRecommendFormats);
  if (a.top < 1) throw usage_error(fmt::format("--top {} must be at least 1", a.top));
  check_rent_args(a.rent, a.rank);
  const Session s = resolve_session(a.rank);
  // The offers load only when used: --rent, --compare-rent, or renting as a remedy.
  const Sources src{ctx.catalog(), [&ctx]() -> const Cloud* { return &ctx.cloud(); }, s.rules,
                    s.rates};
  if (a.rent.rent) {
    if (f == Format::html)
      throw usage_error("--format html reports a purchase ranking: drop --rent");
    const RentAnswer ans = rent(src, s.request, rental_request(a.rent), a.top);
    write_out(ctx, rent_output(s, ans, ctx.cloud().origin, f), f, a.output);
    return ans.ranking.fitting == 0 ? static_cast<int>(ExitCode::negative) : 0;
  }
  // The page always weighs buying against renting the same work.
  const bool compare = a.rent.compare || f == Format::html;
  const RecommendAnswer ans = recommend(src, {s.request, a.top, compare, rental_request(a.rent)});
  Output o = build_output(s, ans, a, f);
  if (compare) add_compare_rent(o, s, ans);
  if (f == Format::html)
    o.html = recommend_html(ctx, s, ans,
                            summary_text(s, ans, remedies(s, ans)) + accumulation_text(s, ans) +
                                experts_in_ram_text(s, ans) + job_rental_text(s, ans));
  write_out(ctx, o, f, a.output);
  return ans.ranking.results.empty() ? static_cast<int>(ExitCode::negative) : 0;
}

}  // namespace

void add_recommend_command(CLI::App& app, Context& ctx) {
  auto a = std::make_shared<RecommendArgs>();
  auto* cmd =
      app.add_subcommand("recommend", "Rank GPUs and multi-GPU configurations for a workload");
  add_evaluation_options(cmd, a->rank);
  add_search_options(cmd, a->rank);
  // recommend alone also writes a whole HTML page (report/html).
  if (auto* format = cmd->get_option_no_throw("--format"))
    format->description(format_help(kRecommendFormats));
  cmd->add_option("--top", a->top, "how many configurations to show (default 10)");
  cmd->add_option("-o,--output", a->output,
                  "write the output to this file, in one piece (default -: standard output)");
  add_rent_options(cmd, a->rent);
  cmd->callback([&ctx, a] { ctx.action = [&ctx, a] { return run_recommend(ctx, *a); }; });
}

}  // namespace gpusel::cli
