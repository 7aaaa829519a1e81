// `gpusel check` (a yes/no gate for scripts and CI) and `gpusel compare` (cards side by side).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "cli/cmd_host.hpp"
#include "cli/cmd_recommend.hpp"
#include "cli/recommend_view.hpp"
#include "gpusel/answer/answers.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/i18n/i18n.hpp"

namespace gpusel::cli {
namespace {

struct CheckArgs {
  RankArgs rank;
  std::vector<std::string> gpus;
  int count = kNotGiven;  // then --gpus, else 1
};

constexpr int kMaxCards = kMaxGpus;  // clusters of nodes (rank_options.hpp)

int checked_count(int n, const std::string& what) {
  if (n < 1 || n > kMaxCards)
    throw usage_error(fmt::format("{} {} must be 1..{}", what, n, kMaxCards));
  return n;
}

// The leading count of "2x", "2xrtx-3090" or "2x rtx-3090" as one quoted argument (0 when
// `text` has none) and where the id starts. Five digits hold every count up to kMaxCards
// (16384); checked_count refuses the rest with the range.
std::pair<int, std::size_t> leading_count(const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits >= text.size() || text[digits] != 'x') return {0, 0};
  if (digits > 5)
    throw usage_error(fmt::format("count in '{}': must be 1..{}", quote_input(text), kMaxCards));
  std::size_t start = digits + 1;
  while (start < text.size() && text[start] == ' ') ++start;
  return {checked_count(std::stoi(text.substr(0, digits)), "count in '" + quote_input(text) + "':"),
          start};
}

// One card id, or "local": this machine's card, as many as it holds unless a count is written.
// `note` gets the memory other processes hold on the local card (fit and estimate say it too).
CardCount card(Context& ctx, const std::string& id, int count, std::string& note) {
  if (!is_local(id)) return {&require_gpu(ctx.catalog(), id), count};
  const LocalCards local = local_gpus(ctx);
  note += in_use_note(local);
  return {local.gpu, count == kNotGiven ? local.count : count};
}

// "rtx-a6000", "2x rtx-3090" (two arguments) or "2xrtx-3090": the cards and how many of each
// (`count` where none is written; kNotGiven: 1, or the machine's count for "local").
std::vector<CardCount> parse_cards(Context& ctx, const std::vector<std::string>& args, int count,
                                   std::string& note) {
  std::vector<CardCount> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto [n, start] = leading_count(args[i]);
    if (n == 0) {
      out.push_back(card(ctx, args[i], count, note));
      if (out.back().count == kNotGiven) out.back().count = 1;
    } else if (start < args[i].size()) {
      out.push_back(card(ctx, args[i].substr(start), n, note));
    } else if (i + 1 < args.size()) {
      out.push_back(card(ctx, args[++i], n, note));
    } else {
      throw usage_error("'" + quote_input(args[i]) + "' names no GPU: write 2x rtx-3090");
    }
  }
  return out;
}

// "12% headroom", or by how much it is short.
std::string room_text(const Result& r) {
  if (r.headroom >= 0) return trf("{:.0f}% headroom", r.headroom * 100);
  return trf("{} GiB short", gib(r.need.need_bytes() - r.usable_bytes));
}

const std::vector<CsvColumn>& check_csv_columns() {
  static const std::vector<CsvColumn> c{{"fits", "/fits"},
                                        {"gpu", "/gpu"},
                                        {"count", "/count"},
                                        {"shard", "/shard"},
                                        {"need_bytes", "/per_gpu_need_bytes"},
                                        {"need_low_bytes", "/per_gpu_need_low_bytes"},
                                        {"need_high_bytes", "/per_gpu_need_high_bytes"},
                                        {"usable_bytes", "/usable_bytes"},
                                        {"headroom_pct", "/headroom", 100},
                                        {"tokens_per_s", "/throughput/tokens_per_s"},
                                        {"warning_count", "/warnings"}};
  return c;
}

// --count, else --gpus, else the machine's count with --gpu local, else 1.
int given_count(const CheckArgs& a) {
  return a.count == kNotGiven && a.rank.workload.gpus == kNotGiven
             ? kNotGiven
             : checked_count(card_count(a.count, a.rank.workload), "--count");
}

int run_check(Context& ctx, const CheckArgs& a) {
  std::string in_use;
  const CardCount c = card(ctx, a.gpus.front(), given_count(a), in_use);
  const int count = c.count == kNotGiven ? 1 : c.count;
  const Session s = resolve_session(a.rank);
  const Gpu& gpu = *c.gpu;
  const CheckAnswer ans = check({ctx.catalog(), {}, s.rules, s.rates}, s.request, gpu, count);
  const Result& r = ans.result;
  Output o;
  const std::string verdict = tr(ans.verdict);
  std::string line =
      trf("{}: {} needs {} GiB per GPU of {} GiB usable on {}{} ({})", verdict,
          workload_line(s.request.workload), gib(r.need.need_bytes()), gib(r.usable_bytes),
          config_label(r.config),
          // A --tp/--pp layout is already in the configuration's label.
          r.config.count > 1 && r.config.split.find(" x ") == std::string::npos
              ? tr(", sharding ") +
                    (r.config.split.empty() ? to_string(r.config.shard) : r.config.split)
              : "",
          room_text(r));
  // Offloaded parts live in the host's RAM: a verdict that fits on the card says what the host
  // must hold beside it (ZeRO-3 offload of a 30B model: over 100 GiB pinned).
  if (r.need.host_bytes > 0 && r.config.count == 1)
    line += trf("; plus {} GiB of host RAM for what is offloaded", gib(r.need.host_bytes));
  else if (r.need.host_bytes > 0)
    line += trf("; plus {} GiB of host RAM for what is offloaded ({} GiB per GPU x {})",
                gib(r.need.host_bytes * r.config.count), gib(r.need.host_bytes), r.config.count);
  if (ans.purchase_only)
    line += tr("; as a purchase: ") + safe_cell(r.rules.exclude_reason);
  else if (r.rules.excluded)
    line += tr("; excluded: ") + safe_cell(r.rules.exclude_reason);
  else if (ans.remedy && ans.remedy->estimate.host_bytes > 0)
    line += trf("; {} would fit ({} GiB, with {} GiB in host RAM)", ans.remedy->change,
                gib(ans.remedy->estimate.need_bytes()),
                gib(ans.remedy->estimate.host_bytes * ans.remedy->workload.gpus));
  else if (ans.remedy)
    line +=
        trf("; {} would fit ({} GiB)", ans.remedy->change, gib(ans.remedy->estimate.need_bytes()));
  o.before = line + "\n" + in_use;
  // The rules' warnings (no BF16 on a P40, bitsandbytes on a Mac): a gate that says "fits"
  // says what it fits with.
  if (!r.rules.warnings.empty()) o.after = "\n" + warnings_text({r}, r.rules.warnings.size());
  o.table = {{{"verdict"}, {"config"}, {"need_gib", true}, {"usable_gib", true}},
             {{verdict, config_label(r.config), gib(r.need.need_bytes()), gib(r.usable_bytes)}}};
  o.json = result_json(r, 1);
  o.json.erase("rank");
  o.json.erase("scores");  // a score is relative to other candidates; a gate has none
  o.json["schema_version"] = 1;
  o.json["fits"] = ans.fits;
  o.json["purchase_only"] = ans.purchase_only;
  o.json["verdict"] = line;
  o.csv = json_rows(nlohmann::json::array({o.json}), check_csv_columns());
  o.highlights = {{verdict + ":", ans.fits ? Tone::good : Tone::bad}};
  Output text_only = o;
  text_only.table = {};
  emit(*ctx.out, parse_format(a.rank.format) == Format::table ? text_only : o,
       parse_format(a.rank.format));
  return ans.fits ? 0 : static_cast<int>(ExitCode::negative);
}

int run_compare(Context& ctx, const CheckArgs& a) {
  const Format f = parse_format(a.rank.format);
  const Session s = resolve_session(a.rank);
  std::string in_use;
  const std::vector<CardCount> configs = parse_cards(ctx, a.gpus, given_count(a), in_use);
  if (configs.size() < 2) throw usage_error("compare needs at least two configurations");
  const CompareAnswer ans = compare({ctx.catalog(), {}, s.rules, s.rates}, s.request, configs);
  const auto& rs = ans.results;
  Output o;
  o.before = header_text(s, ans.one_gpu_need, converted_note(s, ans.converted_prices));
  o.table = results_table(rs, false, s.request.tokens.has_value());
  o.table.columns.insert(o.table.columns.begin(), {N_("fits")});
  std::string excluded;  // a rule's exclusion (engine without a backend, part of a board)
  for (std::size_t i = 0; i < rs.size(); ++i) {
    const bool out = rs[i].rules.excluded;
    o.table.rows[i].insert(o.table.rows[i].begin(), out           ? tr("excluded")
                                                    : ans.fits[i] ? tr("yes")
                                                                  : tr("NO"));
    o.table.tones[i].insert(o.table.tones[i].begin(), ans.fits[i] && !out ? Tone::good : Tone::bad);
    if (out)
      excluded += fmt::format("  {}: {} [{}]\n", config_label(rs[i].config),
                              safe_cell(rs[i].rules.exclude_reason), rs[i].rules.exclude_rule);
  }
  // A card that does not hold the workload runs it at no speed: its rate is not shown as one
  // it would reach (JSON keeps the figure, with fits false beside it).
  for (std::size_t c = 0; c < o.table.columns.size(); ++c)
    if (o.table.columns[c].header == "tok/s" || o.table.columns[c].header == "img/s")
      for (std::size_t i = 0; i < rs.size(); ++i)
        if (!ans.fits[i]) o.table.rows[i][c] = "-";
  o.after = "\n" + (excluded.empty() ? "" : tr("Excluded:") + "\n" + excluded) +
            warnings_text(rs, 3) + in_use;
  if (std::find(ans.fits.begin(), ans.fits.end(), false) != ans.fits.end())
    o.after +=
        tr("Cards that do not fit are not scored (0): scores compare the ones that do.") + "\n";
  if (a.rank.explain) o.after += "\n" + explain_text(rs, s.request);
  o.json = {{"schema_version", 1},
            {"workload", workload_json(s.request.workload)},
            {"currency", s.request.price.currency},
            {"results", nlohmann::json::array()}};
  for (std::size_t i = 0; i < rs.size(); ++i) {
    auto j = result_json(rs[i], static_cast<int>(i + 1));
    j["fits"] = static_cast<bool>(ans.fits[i]);
    if (rs[i].rules.excluded)
      j["excluded"] = {{"rule", rs[i].rules.exclude_rule},
                       {"reason", safe_cell(rs[i].rules.exclude_reason)}};
    o.json["results"].push_back(j);
  }
  std::vector<CsvColumn> csv{{"fits", "/fits"}};
  csv.insert(csv.end(), result_csv_columns().begin(), result_csv_columns().end());
  o.csv = json_rows(o.json["results"], csv);
  o.highlights = {{tr("Warnings:"), Tone::warn}};
  emit(*ctx.out, o, f);
  return 0;
}

}  // namespace

void add_check_compare_commands(CLI::App& app, Context& ctx) {
  auto c = std::make_shared<CheckArgs>();
  auto* check = app.add_subcommand("check", "Exit 0 if the workload fits the GPU(s), 1 if not");
  add_evaluation_options(check, c->rank);
  check
      ->add_option("--gpu", c->gpus,
                   "GPU id, e.g. rtx-4090, or local: the card(s) in this machine (gpusel detect)")
      ->required()
      ->expected(1);
  check->add_option("--count", c->count, "number of cards (default: --gpus, else 1)");
  check->callback([&ctx, c] { ctx.action = [&ctx, c] { return run_check(ctx, *c); }; });

  auto m = std::make_shared<CheckArgs>();
  auto* cmp = app.add_subcommand("compare", "Compare GPUs side by side for a workload");
  add_evaluation_options(cmp, m->rank);
  cmp->add_option("gpus", m->gpus,
                  "two or more GPU ids, each optionally as Nx ID (2x rtx-3090); local = the "
                  "card(s) in this machine")
      ->required();
  cmp->add_option("--count", m->count, "cards of each not given as Nx ID (default 1)");
  cmp->callback([&ctx, m] { ctx.action = [&ctx, m] { return run_compare(ctx, *m); }; });
}

}  // namespace gpusel::cli
