// `gpusel check` (a yes/no gate for scripts and CI) and `gpusel compare` (cards side by side).
#include <fmt/format.h>

#include <algorithm>

#include "cli/cmd_recommend.hpp"
#include "cli/recommend_view.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/memory/fit.hpp"

namespace gpusel::cli {
namespace {

struct CheckArgs {
  RankArgs rank;
  std::vector<std::string> gpus;
  int count = 1;
};

// "12% headroom", or by how much it is short.
std::string room_text(const Result& r) {
  if (r.headroom >= 0) return fmt::format("{:.0f}% headroom", r.headroom * 100);
  return fmt::format("{} GiB short", gib(r.need.total_bytes - r.usable_bytes));
}

// The first K37 change that makes the configuration fit, in words; "" when none does.
std::string remedy(const Session& s, const Config& c) {
  const FitResult f = fit(workload_for(c, s.request), *c.gpu, c.count, s.request.reserve);
  for (const auto& ch : f.changes)
    if (ch.fits)
      return fmt::format("; {} would fit ({} GiB)", ch.change, gib(ch.estimate.total_bytes));
  return "";
}

int run_check(Context& ctx, const CheckArgs& a) {
  if (a.count < 1 || a.count > 64)
    throw usage_error(fmt::format("--count {} must be 1..64", a.count));
  const Session s = resolve_session(a.rank);
  const Gpu& gpu = require_gpu(ctx.catalog(), a.gpus.front());
  const Config c = make_config(gpu, a.count, s.request.workload);
  const Result r = evaluate(c, s.rules, s.rates, s.request);
  const bool room = r.need.total_bytes <= r.usable_bytes;
  const bool fits = room && !r.rules.excluded;
  const std::string verdict = fits ? "fits" : room ? "excluded" : "does not fit";
  Output o;
  std::string line = fmt::format("{}: {} needs {} GiB per GPU of {} GiB usable on {} ({})", verdict,
                                 workload_line(s.request.workload), gib(r.need.total_bytes),
                                 gib(r.usable_bytes), config_label(c), room_text(r));
  if (r.rules.excluded)
    line += "; excluded: " + r.rules.exclude_reason;
  else if (!fits)
    line += remedy(s, c);
  o.before = line + "\n";
  o.table = {{{"verdict"}, {"config"}, {"need_gib", true}, {"usable_gib", true}},
             {{verdict, config_label(c), gib(r.need.total_bytes), gib(r.usable_bytes)}}};
  o.json = result_json(r, 1);
  o.json.erase("rank");
  o.json.erase("scores");  // a score is relative to other candidates; a gate has none
  o.json["schema_version"] = 1;
  o.json["fits"] = fits;
  o.json["verdict"] = line;
  Output text_only = o;
  text_only.table = {};
  emit(*ctx.out, parse_format(a.rank.format) == Format::table ? text_only : o,
       parse_format(a.rank.format));
  return fits ? 0 : static_cast<int>(ExitCode::negative);
}

bool fits_memory(const Result& r) { return r.need.total_bytes <= r.usable_bytes; }

// Scores are relative to the best candidate, so a card that cannot run the workload must not
// set the bar for the others (nor earn points itself).
void score_fitting(std::vector<Result>& rs, const RankRequest& req) {
  std::vector<Result> fitting;
  for (const auto& r : rs)
    if (fits_memory(r)) fitting.push_back(r);
  score_results(fitting, req);
  auto next = fitting.begin();
  for (auto& r : rs) r.scores = fits_memory(r) ? (next++)->scores : Scores{};
}

int run_compare(Context& ctx, const CheckArgs& a) {
  const Format f = parse_format(a.rank.format);
  if (a.gpus.size() < 2) throw usage_error("compare needs at least two GPU ids");
  const Session s = resolve_session(a.rank);
  std::vector<Result> rs;
  for (const auto& id : a.gpus) {
    const Gpu& g = require_gpu(ctx.catalog(), id);
    rs.push_back(
        evaluate(make_config(g, a.count, s.request.workload), s.rules, s.rates, s.request));
  }
  score_fitting(rs, s.request);
  Output o;
  o.before = header_text(s, estimate(s.request.workload), converted_note(s, rs));
  o.table = results_table(rs, false, s.request.tokens.has_value());
  o.table.columns.insert(o.table.columns.begin(), {"fits"});
  for (std::size_t i = 0; i < rs.size(); ++i)
    o.table.rows[i].insert(o.table.rows[i].begin(), fits_memory(rs[i]) ? "yes" : "NO");
  o.after = "\n" + warnings_text(rs, 3);
  if (std::any_of(rs.begin(), rs.end(), [](const Result& r) { return !fits_memory(r); }))
    o.after += "Cards that do not fit are not scored (0): scores compare the ones that do.\n";
  if (a.rank.explain) o.after += "\n" + explain_text(rs, s.request);
  o.json = {{"schema_version", 1},
            {"workload", workload_json(s.request.workload)},
            {"currency", s.request.price.currency},
            {"results", nlohmann::json::array()}};
  for (std::size_t i = 0; i < rs.size(); ++i) {
    auto j = result_json(rs[i], static_cast<int>(i + 1));
    j["fits"] = fits_memory(rs[i]);
    o.json["results"].push_back(j);
  }
  emit(*ctx.out, o, f);
  return 0;
}

}  // namespace

void add_check_compare_commands(CLI::App& app, Context& ctx) {
  auto c = std::make_shared<CheckArgs>();
  auto* check = app.add_subcommand("check", "Exit 0 if the workload fits the GPU(s), 1 if not");
  add_evaluation_options(check, c->rank);
  check->add_option("--gpu", c->gpus, "GPU id, e.g. rtx-4090")->required()->expected(1);
  check->add_option("--count", c->count, "number of cards (default 1)");
  check->callback([&ctx, c] { ctx.action = [&ctx, c] { return run_check(ctx, *c); }; });

  auto m = std::make_shared<CheckArgs>();
  auto* cmp = app.add_subcommand("compare", "Compare GPUs side by side for a workload");
  add_evaluation_options(cmp, m->rank);
  cmp->add_option("gpus", m->gpus, "two or more GPU ids")->required();
  cmp->add_option("--count", m->count, "cards of each (default 1)");
  cmp->callback([&ctx, m] { ctx.action = [&ctx, m] { return run_compare(ctx, *m); }; });
}

}  // namespace gpusel::cli
