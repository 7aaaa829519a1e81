// `gpusel estimate` (memory per GPU, part by part) and `gpusel fit` (what fits on a card).
#include "cli/cmd_estimate.hpp"

#include <fmt/format.h>
#include <optional>

#include "cli/cmd_host.hpp"
#include "cli/render.hpp"
#include "cli/workload_options.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/i18n/i18n.hpp"
#include "gpusel/memory/estimator.hpp"
#include "gpusel/memory/fit.hpp"

namespace gpusel::cli {
namespace {

using nlohmann::json;

struct EstimateArgs {
  WorkloadArgs w;
  std::string format = "table", gpu;  // gpu: an id or "local", to say whether it fits
  bool explain = false;
};

struct FitArgs {
  WorkloadArgs w;
  std::string gpu, reserve, os, format = "table";
  int count = kNotGiven;  // then --gpus, else 1
};

std::string share(double part, double total) {
  return total > 0 ? fixed(100 * part / total, 1) + " %" : "-";
}

json estimate_json(const Estimate& e) {
  // low/high_bytes band the peak (total_bytes); need_low/high_bytes band the need, the band
  // the table prints and check and compare report as per_gpu_need_low/high_bytes.
  json j{{"schema_version", 1},
         {"total_bytes", e.total_bytes},
         {"need_bytes", e.need_bytes()},
         {"need_low_bytes", e.need_low_bytes()},
         {"need_high_bytes", e.need_high_bytes()},
         {"low_bytes", e.low_bytes},
         {"high_bytes", e.high_bytes},
         {"components", json::array()},
         {"assumptions", e.assumptions}};
  for (const auto& c : e.components)
    j["components"].push_back({{"name", c.name}, {"bytes", c.bytes}, {"formula", c.formula}});
  return j;
}

Table component_table(const Estimate& e, bool explain) {
  Table t{{{N_("component")}, {"GiB", true}, {N_("share"), true}}, {}};
  if (explain) t.columns.push_back({N_("formula"), false, 0, true});
  for (const auto& c : e.components) {
    // A share of the GPU total only for what the GPU holds: offloaded parts live in host RAM,
    // paged optimizer states in managed memory (a share of the GPU total read as 114 %).
    const std::string where = c.where == "gpu"    ? share(c.bytes, e.total_bytes)
                              : c.where == "host" ? tr("host RAM")
                                                  : tr("managed");
    std::vector<std::string> row{c.name, gib(c.bytes), where};
    if (explain) row.push_back(c.formula);
    t.rows.push_back(row);
  }
  return t;
}

std::string bullet_list(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "  - " + l + "\n";
  return out;
}

// `split`: name the --tp/--pp layout (estimate; fit names it with its own count).
std::string headline(const Workload& w, bool split = false) {
  return trf("{} ({}, {}B params), {}", safe_cell(w.model.name),
             w.model_from_preset ? w.model.id : tr("bare count"), fixed(w.model.params / 1e9, 2),
             to_string(w.mode)) +
         (split && model_parallel(w)
              ? ", " + parallel_label(w) + " over " + std::to_string(w.gpus) + " GPUs"
              : std::string()) +
         "\n";
}

// The card --gpu names (this machine's with "local") and how many: --gpus, else the
// machine's count, else 1.
struct CardChoice {
  const Gpu* gpu = nullptr;
  int count = 1;
  std::string note;  // memory already in use on a local card
};

CardChoice choose_card(Context& ctx, const std::string& id, int count_flag) {
  if (!is_local(id))
    return {&require_gpu(ctx.catalog(), id), count_flag == kNotGiven ? 1 : count_flag, ""};
  const LocalCards local = local_gpus(ctx);
  return {local.gpu, count_flag == kNotGiven ? local.count : count_flag, in_use_note(local)};
}

// estimate --gpu: the need against the card's usable memory (fit's answer, the same reserve).
void add_card(Output& o, const FitResult& r, const CardChoice& c, bool local) {
  o.after += fmt::format("on {}x {}{}: need {} GiB of {} GiB usable per card: {}\n{}", c.count,
                         c.gpu->id, local ? " (this machine)" : "", gib(r.requested.need_bytes()),
                         gib(r.usable_bytes),
                         r.fits ? "fits" : "does not fit (gpusel fit says what would)", c.note);
  o.json["card"] = {{"gpu", c.gpu->id},
                    {"count", c.count},
                    {"local", local},
                    {"usable_bytes", r.usable_bytes},
                    {"fits", r.fits}};
}

int run_estimate(Context& ctx, const EstimateArgs& a) {
  const Format f = parse_format(a.format);
  WorkloadArgs wa = a.w;
  CardChoice card;
  if (!a.gpu.empty()) {
    card = choose_card(ctx, a.gpu, a.w.gpus);
    wa.gpus = card.count;
  }
  const Workload w = resolve_workload(wa);
  // With a card, its fit's estimate: elastic parts (Unsloth's loss chunks) sized as on that
  // card, so the need shown is the one check, compare and recommend hold against it.
  std::optional<FitResult> r;
  if (card.gpu) r = fit(w, *card.gpu, card.count);
  const Estimate e = r ? r->requested : estimate(w);
  Output o;
  o.before = headline(w, true);
  o.table = component_table(e, a.explain);
  // The need leads: it is what check, fit, compare and recommend hold against a card; the
  // total adds the caching allocator's share, what nvidia-smi may show at the peak (llama.cpp
  // has none: its total is the need).
  const std::string peak =
      e.bytes_of("allocator_overhead") > 0
          ? trf("at the peak up to {} GiB ({} GB) reserved, allocator cache included",
                gib(e.total_bytes), fixed(e.total_bytes / 1e9, 2))
          : trf("no caching allocator holds more ({} GB)", fixed(e.total_bytes / 1e9, 2));
  o.after = trf("need per GPU {} GiB, likely {} to {} GiB (what is compared with a card's usable "
                "memory); {}",
                gib(e.need_bytes()), gib(e.need_low_bytes()), gib(e.need_high_bytes()), peak) +
            "\n" + tr("assumptions:") + "\n" + bullet_list(e.assumptions);
  o.json = estimate_json(e);
  o.csv = json_rows(o.json["components"],
                    {{"component", "/name"}, {"bytes", "/bytes"}, {"formula", "/formula"}});
  if (r) {
    add_card(o, *r, card, is_local(a.gpu));
    emit(*ctx.out, o, f);
    return r->fits ? 0 : static_cast<int>(ExitCode::negative);
  }
  emit(*ctx.out, o, f);
  return 0;
}

std::string seq_text(const FitResult& r) {
  if (r.max_seq_len == 0) return tr("none");
  std::string s = std::to_string(r.max_seq_len);
  if (r.max_seq_len == r.seq_len_cap) s += tr(" (the model's context)");
  return s;
}

Table fit_table(const FitResult& r, const Workload& w) {
  Table t{{{N_("question")}, {N_("answer"), true}}, {}};
  t.rows.push_back({tr("usable memory per card (GiB)"), gib(r.usable_bytes)});
  t.rows.push_back({tr("requested workload (GiB)"), gib(r.requested.need_bytes())});
  t.rows.push_back({tr("fits"), r.fits ? tr("yes") : tr("no")});
  const std::string batch = r.max_batch ? std::to_string(r.max_batch) : tr("none");
  if (r.image_side > 0) {  // a vision model: its length is the image's side
    t.rows.push_back({trf("largest batch at {} px", r.image_side), batch});
    t.rows.push_back({trf("largest image side at batch {} (px)", w.batch),
                      r.max_image_side ? std::to_string(r.max_image_side) : tr("none")});
    return t;
  }
  t.rows.push_back({trf("largest batch at seq {}", w.seq_len), batch});
  t.rows.push_back({is_training(w.mode) ? trf("largest sequence length at batch {}", w.batch)
                                        : trf("largest context at batch {}", w.batch),
                    seq_text(r)});
  return t;
}

// "fits" and "too big" padded by display width: a translation may be double-width text.
std::string verdict_cell(bool fits) {
  std::string v = fits ? tr("fits") : tr("too big");
  const std::size_t w = display_width(v);
  return v + std::string(w < 8 ? 8 - w : 1, ' ');
}

std::string changes_text(const FitResult& r) {
  if (r.changes.empty()) return "";
  std::string out = tr("changes that lower memory, each re-estimated:") + "\n";
  for (const auto& c : r.changes) {
    out += fmt::format("  {}{:>7} GiB  {}", verdict_cell(c.fits), gib(c.estimate.need_bytes()),
                       c.change);
    // What an offload moves to the host must fit there too (--n-cpu-moe, --offload params).
    if (c.estimate.host_bytes > 0)
      out += trf(" (+{} GiB host RAM)", gib(c.estimate.host_bytes * c.workload.gpus));
    out += "\n";
  }
  return out;
}

json fit_json(const FitResult& r, const Gpu& g, int count) {
  json j{{"schema_version", 1},
         {"gpu", g.id},
         {"count", count},
         {"shard", to_string(r.requested_workload.shard)},
         {"reserve", describe(r.reserve)},
         {"usable_bytes", r.usable_bytes},
         {"fits", r.fits},
         {"requested", estimate_json(r.requested)},
         {"max_batch", r.max_batch},
         {"max_seq_len", r.max_seq_len},
         {"seq_len_cap", r.seq_len_cap},
         {"image_side", r.image_side},
         {"max_image_side", r.max_image_side},
         {"changes", json::array()}};
  for (const auto& c : r.changes)
    j["changes"].push_back({{"change", c.change},
                            {"total_bytes", c.estimate.total_bytes},
                            {"need_bytes", c.estimate.need_bytes()},
                            {"fits", c.fits}});
  return j;
}

int run_fit(Context& ctx, const FitArgs& a) {
  const Format f = parse_format(a.format);
  const int given =
      a.count == kNotGiven && a.w.gpus == kNotGiven ? kNotGiven : card_count(a.count, a.w);
  const CardChoice card = choose_card(ctx, a.gpu, given);
  const Workload w = resolve_workload(a.w);
  const Gpu& g = *card.gpu;
  Reserve res = a.reserve.empty() ? Reserve{} : parse_reserve(a.reserve);
  if (!a.os.empty()) res.os = parse_os(a.os);
  const int count = card.count;
  const FitResult r = fit(w, g, count, res);
  Output o;
  o.before = headline(w) +
             trf("on {} x {} ({} GB, reserve {})", count, safe_cell(g.name), fixed(g.vram_gb, 0),
                 describe(r.reserve)) +
             (count > 1 ? tr(", sharding ") + parallel_label(r.requested_workload) : "") + "\n";
  o.table = fit_table(r, w);
  o.after = changes_text(r) + card.note;
  o.json = fit_json(r, g, count);
  o.csv = json_rows(nlohmann::json::array({o.json}), {{"gpu", "/gpu"},
                                                      {"count", "/count"},
                                                      {"fits", "/fits"},
                                                      {"usable_bytes", "/usable_bytes"},
                                                      {"need_bytes", "/requested/need_bytes"},
                                                      {"max_batch", "/max_batch"},
                                                      {"max_seq_len", "/max_seq_len"},
                                                      {"seq_len_cap", "/seq_len_cap"},
                                                      {"max_image_side", "/max_image_side"}});
  o.table.tones = {{}, {}, {Tone::plain, r.fits ? Tone::good : Tone::bad}};
  o.highlights = {{"  " + tr("fits") + " ", Tone::good}, {"  " + tr("too big") + " ", Tone::warn}};
  emit(*ctx.out, o, f);
  return r.fits ? 0 : static_cast<int>(ExitCode::negative);
}

void add_estimate(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<EstimateArgs>();
  CLI::App* cmd = app.add_subcommand("estimate", "GPU memory a workload needs, per GPU, by part");
  add_workload_options(cmd, args->w);
  cmd->add_option("--format", args->format, format_help());
  cmd->add_flag("--explain", args->explain, "show each component's formula with its numbers");
  cmd->add_option("--gpu", args->gpu,
                  "also say whether it fits this card: an id, or local (the card(s) in this "
                  "machine; their count unless --gpus); exit 1 when it does not");
  cmd->callback([&ctx, args] { ctx.action = [&ctx, args] { return run_estimate(ctx, *args); }; });
}

void add_fit(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<FitArgs>();
  CLI::App* cmd = app.add_subcommand(
      "fit", "Largest batch and sequence that fit on a card; what to change when nothing does");
  cmd->add_option("--gpu", args->gpu,
                  "GPU id (gpusel catalog list), or local: the card(s) in this machine")
      ->required();
  cmd->add_option("--count", args->count, "number of such cards (default: --gpus, else 1)");
  cmd->add_option("--reserve", args->reserve,
                  "memory kept free per card: 10% (default, engine defaults / K2), 0.15, 2GB");
  cmd->add_option("--os", args->os,
                  "macos|linux|windows: whose GPU share of unified memory applies (default: "
                  "macOS on Apple, Linux on other unified-memory parts)");
  add_workload_options(cmd, args->w);
  cmd->add_option("--format", args->format, format_help());
  cmd->callback([&ctx, args] { ctx.action = [&ctx, args] { return run_fit(ctx, *args); }; });
}

}  // namespace

void add_estimate_commands(CLI::App& app, Context& ctx) {
  add_estimate(app, ctx);
  add_fit(app, ctx);
  add_models_commands(app, ctx);
}

}  // namespace gpusel::cli
