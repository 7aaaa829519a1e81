#include "cli/recommend_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpusel/data/engines.hpp"
#include "gpusel/i18n/i18n.hpp"
#include "gpusel/json/embedded.hpp"

namespace gpusel::cli {
std::string thousands(double v) {
  std::string digits = fmt::format("{:.0f}", v);
  std::string out;
  const int n = static_cast<int>(digits.size());
  for (int i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0 && digits[0] != '-') out += ',';
    out += digits[static_cast<std::size_t>(i)];
  }
  return out;
}

namespace {

// The platform in a word or two: "desktop-2", "2x hgx-server"; "own host" with --cards-only.
std::string platform_cell(const Result& r) {
  const PlatformQuote& q = r.platform_quote;
  if (r.config.rented || !q.platform) return "-";
  const std::string id =
      q.hosts > 1 ? fmt::format("{}x {}", q.hosts, q.platform->id) : q.platform->id;
  const bool owned = r.unit_price && q.total_usd > 0 && r.platform_price == 0;  // --cards-only
  return owned ? id + tr(" (own)") : id;
}

std::string price_cell(const Result& r) {
  if (!r.unit_price) return tr("no price");
  std::string s = money(r.price, r.unit_price->currency);
  if (r.unit_price->converted) s += "*";
  if (r.unit_price->used) s += tr(" used");
  return s;
}

nlohmann::json messages_json(const std::vector<Message>& ms) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& m : ms)
    out.push_back({{"rule", m.rule_id}, {"text", m.text}, {"source", m.source}});
  return out;
}

nlohmann::json price_json(const Result& r) {
  if (!r.unit_price) return nullptr;
  const Price& p = *r.unit_price->from;
  return {
      {"unit", r.unit_price->amount},
      {"cards", r.cards_price},
      {"platform", r.platform_price},
      {"total", r.price},
      {"currency", r.unit_price->currency},
      {"kind", p.kind},
      {"converted_from", r.unit_price->converted ? nlohmann::json(p.currency) : nlohmann::json()},
      {"as_of", p.as_of},
      {"source", p.source}};
}

}  // namespace

std::string money(double amount, const std::string& currency) {
  return thousands(amount) + " " + currency;
}

std::string rate(double tokens_per_s) {
  if (!(tokens_per_s > 0)) return "-";
  if (tokens_per_s >= 100) return thousands(tokens_per_s);
  return fmt::format("{:.1f}", tokens_per_s);
}

std::string money_exact(double amount, const std::string& currency) {
  return fmt::format("{:.2f} {}", amount, currency);
}

std::string config_label(const Config& c) {
  std::string s = fmt::format("{}x {}", c.count, c.gpu->id);
  if (c.count == 1) return s;
  const int nodes = machines_of(c);
  // Under --tp/--pp the split is part of the configuration ("tp 4 x pp 2 x dp 2 zero1").
  const bool model_parallel = c.split.find(" x ") != std::string::npos;
  return s + " (" + (c.linked ? c.gpu->interconnect.kind : std::string("PCIe")) +
         (nodes > 1 ? trf(", {} nodes", nodes) : "") +
         (model_parallel ? ", " + safe_cell(c.split) : "") + ")";
}

std::string duration(double hours) {
  if (!std::isfinite(hours)) return "-";
  if (hours < 1) return trf("{:.0f} min", hours * 60);
  if (hours < 48) return fmt::format("{:.1f} h", hours);
  return trf("{:.1f} days", hours / 24);
}

std::string rate_unit(const std::string& unit) { return unit == "images" ? "img/s" : "tok/s"; }

std::string score_bar(double score) {
  const int full = static_cast<int>(std::lround(std::clamp(score, 0.0, 100.0) / 10));
  std::string s;
  for (int i = 0; i < 10; ++i) s += i < full ? "█" : "░";
  return s;
}

// The recompute the workload names: full checkpointing or torchtitan's selective policy.
static std::string ckpt_words(const Workload& w) {
  if (w.selective_ckpt) return tr(", selective checkpointing");
  return w.grad_ckpt ? tr(", gradient checkpointing") : "";
}

std::string workload_line(const Workload& w) {
  std::string s = trf("{} ({:.2f}B params{}), {} {}",
                      safe_cell(w.model.name.empty() ? w.model.id : w.model.name),
                      w.model.params / 1e9, w.model_from_preset ? "" : tr(", typical architecture"),
                      to_string(w.mode), precision_label(w) + (w.amp ? " AMP" : ""));
  if (w.model.mlm_head) s += tr(", masked-LM head");
  if (image_side(w) > 0) {  // a vision model: images, and a ViT's tokens per image
    s += trf(", batch {} images of {} px", w.batch, image_side(w));
    if (!w.model.cnn) s += trf(" ({} tokens each)", tokens_per_sample(w));
    if (is_training(w.mode)) s += trf(", {} optimizer", to_string(w.optimizer)) + ckpt_words(w);
  } else if (is_training(w.mode))
    s += trf(", {} optimizer, batch {} x {} tokens{}", to_string(w.optimizer), w.batch, w.seq_len,
             ckpt_words(w));
  else
    s += trf(", batch {}, context {} tokens{}", w.batch, w.seq_len,
             w.kv_dtype == KvDtype::compute ? "" : tr(", KV cache ") + to_string(w.kv_dtype));
  if (cpu_moe_layers(w) > 0) s += trf(", experts of {} MoE layers in host RAM", cpu_moe_layers(w));
  if (w.mode == Mode::lora || w.mode == Mode::qlora)
    s += trf(", LoRA r{} on {}", w.lora_rank, to_string(w.lora_targets)) +
         (w.lora_layers > 0 ? trf(", last {} layers", w.lora_layers) : "");
  return s;
}

nlohmann::json workload_json(const Workload& w) {
  nlohmann::json j{{"model", w.model.id.empty() ? nlohmann::json() : nlohmann::json(w.model.id)},
                   {"params", w.model.params},
                   {"from_preset", w.model_from_preset},
                   {"mode", to_string(w.mode)},
                   {"precision", precision_label(w)},
                   {"optimizer", to_string(w.optimizer)},
                   {"batch", w.batch},
                   {"seq_len", w.seq_len},
                   {"grad_ckpt", w.grad_ckpt},
                   {"flash_attn", w.flash_attn},
                   {"lora_rank", w.lora_rank},
                   {"lora_targets", to_string(w.lora_targets)}};
  // Present only when given (--weight-bits, --lora-layers).
  if (w.linear_bits > 0) j["weight_bits"] = w.linear_bits;
  if (w.lora_layers > 0) j["lora_layers"] = w.lora_layers;
  if (w.amp) j["amp"] = true;
  if (cpu_moe_layers(w) > 0) j["cpu_moe_layers"] = cpu_moe_layers(w);  // --n-cpu-moe, --cpu-moe
  if (w.host_memory_bytes_per_s > 0) j["host_memory_gbs"] = w.host_memory_bytes_per_s / 1e9;
  return j;
}

nlohmann::json result_json(const Result& r, int rank) {
  const Throughput& t = r.throughput;
  return {{"rank", rank},
          {"gpu", r.config.gpu->id},
          {"name", r.config.gpu->name},
          {"count", r.config.count},
          {"interconnect", r.config.interconnect},
          {"linked", r.config.linked},
          {"shard", to_string(r.config.shard)},
          {"split", r.config.split},
          {"price", price_json(r)},
          {"currency", r.unit_price ? nlohmann::json(r.unit_price->currency) : nlohmann::json()},
          {"per_gpu_need_bytes", r.need.need_bytes()},
          {"per_gpu_need_low_bytes", r.need.need_low_bytes()},
          {"per_gpu_need_high_bytes", r.need.need_high_bytes()},
          {"usable_bytes", r.usable_bytes},
          {"headroom", r.headroom},
          {"throughput",
           {{"tokens_per_s", r.tokens_per_s},
            {"unit", t.unit},
            {"train_tokens_per_s", t.train_tokens_per_s},
            {"prefill_tokens_per_s", t.prefill_tokens_per_s},
            {"decode_tokens_per_s", t.decode_tokens_per_s},
            {"bound", t.bound},
            {"mfu", t.mfu},
            {"scaling", t.scaling},
            {"engine", t.engine.empty() ? nlohmann::json() : nlohmann::json(t.engine)},
            {"assumptions", t.assumptions}}},
          {"hours", r.hours ? nlohmann::json(*r.hours) : nlohmann::json()},
          {"scores",
           {{"compute", r.scores.compute},
            {"budget", r.scores.budget},
            {"ecosystem", r.scores.ecosystem},
            {"total", r.scores.total}}},
          {"warnings", messages_json(r.rules.warnings)},
          {"notes", messages_json(r.rules.notes)},
          {"platform", r.platform},
          {"platform_id", r.platform_quote.platform ? nlohmann::json(r.platform_quote.platform->id)
                                                    : nlohmann::json()},
          {"hosts", r.platform_quote.hosts}};
}

// On a narrow terminal the per-axis scores and the warning count go first: the total, the
// price and the fit stay.
Table results_table(const std::vector<Result>& rs, bool ranked, bool with_time) {
  Table t;
  if (ranked) t.columns.push_back({"#", true});
  t.columns.insert(t.columns.end(),
                   {{N_("config")},
                    {N_("need/usable GiB"), true},
                    {N_("headroom"), true},
                    {N_("platform"), false, 2},
                    {N_("price")},
                    {rate_unit(rs.empty() ? "" : rs.front().throughput.unit), true}});
  if (with_time) t.columns.push_back({N_("time"), true, 1});
  t.columns.insert(t.columns.end(), {{N_("compute"), true, 3},
                                     {N_("budget"), true, 4},
                                     {N_("eco"), true, 5},
                                     {N_("total")},
                                     {N_("warn"), true, 6}});
  int rank = 0;
  for (const auto& r : rs) {
    std::vector<std::string> row;
    if (ranked) row.push_back(std::to_string(++rank));
    row.insert(row.end(),
               {config_label(r.config), gib(r.need.need_bytes()) + "/" + gib(r.usable_bytes),
                fmt::format("{:.0f}%", r.headroom * 100), platform_cell(r), price_cell(r),
                rate(r.tokens_per_s)});
    if (with_time) row.push_back(r.hours ? duration(*r.hours) : "-");
    row.insert(row.end(),
               {fmt::format("{:.0f}", r.scores.compute), fmt::format("{:.0f}", r.scores.budget),
                fmt::format("{:.0f}", r.scores.ecosystem),
                score_bar(r.scores.total) + fmt::format(" {:.0f}", r.scores.total),
                std::to_string(r.rules.warnings.size())});
    std::vector<Tone> tones(row.size(), Tone::plain);
    tones[ranked ? 3 : 2] = headroom_tone(r.headroom);
    if (!r.rules.warnings.empty()) tones.back() = Tone::warn;
    t.tones.push_back(std::move(tones));
    t.rows.push_back(std::move(row));
  }
  return t;
}

Tone headroom_tone(double headroom) {
  return headroom < 0 ? Tone::bad : headroom < 0.10 ? Tone::warn : Tone::good;
}

const std::vector<CsvColumn>& result_csv_columns() {
  static const std::vector<CsvColumn> c{{"rank", "/rank"},
                                        {"gpu", "/gpu"},
                                        {"count", "/count"},
                                        {"interconnect", "/interconnect"},
                                        {"linked", "/linked"},
                                        {"shard", "/shard"},
                                        {"need_bytes", "/per_gpu_need_bytes"},
                                        {"need_low_bytes", "/per_gpu_need_low_bytes"},
                                        {"need_high_bytes", "/per_gpu_need_high_bytes"},
                                        {"usable_bytes", "/usable_bytes"},
                                        {"headroom_pct", "/headroom", 100},
                                        {"price", "/price/total"},
                                        {"unit_price", "/price/unit"},
                                        {"currency", "/currency"},
                                        {"price_kind", "/price/kind"},
                                        {"price_converted_from", "/price/converted_from"},
                                        {"price_as_of", "/price/as_of"},
                                        {"tokens_per_s", "/throughput/tokens_per_s"},
                                        {"hours", "/hours"},
                                        {"score_compute", "/scores/compute"},
                                        {"score_budget", "/scores/budget"},
                                        {"score_ecosystem", "/scores/ecosystem"},
                                        {"score_total", "/scores/total"},
                                        {"warning_count", "/warnings"},
                                        {"note_count", "/notes"},
                                        {"platform", "/platform"},
                                        {"platform_id", "/platform_id"},
                                        {"hosts", "/hosts"}};
  return c;
}

std::string warnings_text(const std::vector<Result>& rs, std::size_t per_result) {
  std::string out;
  int rank = 0;
  for (const auto& r : rs) {
    ++rank;
    std::size_t shown = 0;
    for (const auto& m : r.rules.warnings) {
      if (shown++ == per_result) break;
      out += fmt::format("  {}. {}: {} [{}]\n", rank, config_label(r.config), safe_cell(m.text),
                         m.rule_id);
    }
    if (r.rules.warnings.size() > per_result)
      out += trf("  {}. ... {} more (--format json or --explain lists all)\n", rank,
                 r.rules.warnings.size() - per_result);
  }
  return out.empty() ? "" : tr("Warnings:") + "\n" + out;
}

std::string converted_note(const Session& s, bool converted) {
  return converted ? trf("* = converted at the rates of {} (data/rates.json)", s.rates.as_of) : "";
}

// The split the request fixes (a given --shard, llama.cpp's row split), else the defaults.
std::string memory_line(const Workload& w, const Estimate& need) {
  const std::string a = gib(need.need_bytes()), lo = gib(need.need_low_bytes()),
                    hi = gib(need.need_high_bytes());
  if (w.row_split)
    return trf(
        "Memory on one GPU: {} GiB (band {}-{} GiB); multi-GPU configurations split every"
        " weight matrix by rows (llama.cpp --split-mode row)",
        a, lo, hi);
  if (w.shard_given)
    return trf(
        "Memory on one GPU: {} GiB (band {}-{} GiB); multi-GPU configurations run"
        " --shard {}",
        a, lo, hi,
        w.shard_group > 0 ? std::string("hsdp") : to_string(w.shard_set_aside.value_or(w.shard)));
  if (w.model.cnn)  // on_gpus: convolutional networks run data-parallel
    return trf(
        "Memory on one GPU: {} GiB (band {}-{} GiB); multi-GPU configurations run"
        " data-parallel (a full copy per GPU)",
        a, lo, hi);
  if (is_training(w.mode))
    return trf(
        "Memory on one GPU: {} GiB (band {}-{} GiB); multi-GPU configurations shard it"
        " (FSDP/ZeRO-3)",
        a, lo, hi);
  // Inference spreads over the cards as its engine does (data/throughput.json multi_gpu).
  // The layout of several cards, as on_gpus places them (the engine default follows the count).
  Workload several = w;
  several.gpus = 2;
  const std::string engine = engine_of(several);
  if (w.cpu_moe != 0)  // llama.cpp's expert offload: no tensor-parallel engine to point to
    return trf(
        "Memory on one GPU: {} GiB (band {}-{} GiB); multi-GPU configurations split it by"
        " layers, one card busy at a time (llama.cpp's layout)",
        a, lo, hi);
  if (!engine_tensor_parallel(several))
    return trf(
        "Memory on one GPU: {} GiB (band {}-{} GiB); multi-GPU configurations split it by"
        " layers, one card busy at a time ({}'s layout; --engine vllm for tensor parallel)",
        a, lo, hi, engine);
  return trf(
      "Memory on one GPU: {} GiB (band {}-{} GiB); multi-GPU configurations run it tensor"
      " parallel ({})",
      a, lo, hi, engine);
}

std::string header_text(const Session& s, const Estimate& need, const std::string& price_note) {
  const RankRequest& r = s.request;
  std::string out = tr("Workload: ") + workload_line(r.workload) + "\n";
  if (model_parallel(r.workload))  // the split is fixed: each row names it
    out += trf("Memory on one GPU: {} GiB (band {}-{} GiB) split as each configuration says",
               gib(need.need_bytes()), gib(need.need_low_bytes()), gib(need.need_high_bytes())) +
           "\n";
  else
    out += memory_line(r.workload, need) + "\n";
  if (need.host_bytes > 0)  // offloaded: the host must hold it (--n-cpu-moe, --offload)
    out += trf("Host RAM for what is offloaded: {} GiB", gib(need.host_bytes)) + "\n";
  out += tr("Prices in ") + r.price.currency;
  if (r.budget) out += tr(", budget ") + money(*r.budget, r.price.currency);
  out += s.currency_origin + (price_note.empty() ? "" : tr("; ") + price_note) + "\n";
  if (!s.budget_note.empty()) out += s.budget_note + "\n";
  for (const auto& a : s.assumptions) out += tr("Assumption: ") + a + "\n";
  return out + "\n";
}

}  // namespace gpusel::cli
