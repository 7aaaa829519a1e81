// Scores (compute, budget, ecosystem) and the facts rules see.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/data/engines.hpp"
#include "gpusel/json/embedded.hpp"
#include "ranker_internal.hpp"

namespace gpusel {
namespace {

const ScoringConstants& constants() { return scoring_constants(); }

// Three names and three numbers: anything longer is not a weight list.
constexpr std::size_t kMaxWeightsText = 256;

}  // namespace

const ScoringConstants& scoring_constants() {
  static const ScoringConstants c = [] {
    const auto doc = nlohmann::json::parse(embedded_text("data/scoring.json"));
    ScoringConstants s;
    for (const auto& [eco, v] : doc.at("ecosystem_base").items())
      s.ecosystem_base[eco] = v.at("value").get<double>();
    s.compute_decades = doc.at("compute_decades").at("value").get<double>();
    s.budget_value_share = doc.at("budget_value_share").at("value").get<double>();
    s.job_deadline_days = doc.at("job_deadline_days").at("value").get<double>();
    return s;
  }();
  return c;
}

namespace {

double clamp100(double v) { return std::clamp(v, 0.0, 100.0); }

// 100 at the best, falling 100/decades points per 10x below it.
double log_score(double v, double best) {
  if (!(v > 0) || !(best > 0)) return 0;
  return clamp100(100.0 + 100.0 / constants().compute_decades * std::log10(v / best));
}

// A Result and the ranker's Candidate are scored by the same code (the candidates that are
// shown carry their scores into their Result).
const ScoreDelta& delta_of(const Result& r) { return r.rules.delta; }
const ScoreDelta& delta_of(const detail::Candidate& c) { return c.delta; }
const Gpu& gpu_of(const Result& r) { return *r.config.gpu; }
const Gpu& gpu_of(const detail::Candidate& c) { return *c.gpu; }

int count_of(const Result& r) { return r.config.count; }
int count_of(const detail::Candidate& c) { return c.count; }

// Scores::speed: see there.
template <class T>
double asked_speed(const T& r, const RankRequest& req) {
  const bool spare =
      !req.tokens && is_training(req.workload.mode) && count_of(r) > 1 && r.one_card_fits;
  return spare ? r.tokens_per_s / count_of(r) : r.tokens_per_s;
}

template <class T>
double value_of(const T& r, const RankRequest& req) {
  return r.price > 0 ? asked_speed(r, req) / r.price : 0;
}

// The largest f(r) over `rs` (0 when empty).
template <class T, class F>
double best_of(const std::vector<T>& rs, F f) {
  double best = 0;
  for (const auto& r : rs) best = std::max(best, f(r));
  return best;
}

template <class T>
double budget_score(const T& r, double best_value, const RankRequest& req) {
  if (r.price <= 0) return 0;  // unpriced: nothing to say about value
  const double value = log_score(value_of(r, req), best_value);
  if (!req.budget) return value;
  const double unspent = clamp100(100.0 * (1.0 - r.price / *req.budget));
  const double share = constants().budget_value_share;
  return share * value + (1 - share) * unspent;
}

}  // namespace

Weights parse_weights(const std::string& text) {
  auto bad = [&text]() {
    return usage_error("invalid --weights '" + quote_input(text) +
                       "' (form: compute=0.4,budget=0.4,ecosystem=0.2)");
  };
  if (text.size() > kMaxWeightsText) throw bad();
  Weights w{0, 0, 0};
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string_view part = std::string_view(text).substr(start, end - start);
    const std::size_t eq = part.find('=');
    if (eq == std::string_view::npos) throw bad();
    const std::string_view name = trim(part.substr(0, eq)), number = trim(part.substr(eq + 1));
    // No exponent, sign or trailing dot: "0.4", ".5", "2".
    const auto v = number.empty() || number.back() == '.' ? std::nullopt : parse_decimal(number);
    if (!v) throw bad();
    if (name == "compute") {
      w.compute = *v;
    } else if (name == "budget") {
      w.budget = *v;
    } else if (name == "ecosystem") {
      w.ecosystem = *v;
    } else {
      throw bad();
    }
    start = end + 1;
  }
  const double sum = w.compute + w.budget + w.ecosystem;
  if (!(sum > 0) || !std::isfinite(sum))
    throw usage_error("invalid --weights '" + quote_input(text) + "': they sum to zero");
  return {w.compute / sum, w.budget / sum, w.ecosystem / sum};
}

double own_host_ram_need_gb(const Result& r) {
  if (!(r.need.host_bytes > 0)) return 0;
  return r.need.host_bytes / 1073741824.0 * r.config.count + default_platforms().ram_os_reserve_gb;
}

double own_host_ram_short_gb(const Result& r, const RankRequest& req) {
  if (!(req.host_ram_gb > 0) || r.config.rented) return 0;
  return std::max(0.0, own_host_ram_need_gb(r) - req.host_ram_gb);
}

namespace detail {

namespace {

template <class T>
void score_all(std::vector<T>& results, const RankRequest& req) {
  const double best_speed = best_of(results, [&](const T& r) { return asked_speed(r, req); });
  const double best_value = best_of(results, [&](const T& r) { return value_of(r, req); });
  for (auto& r : results) {
    const ScoreDelta& d = delta_of(r);
    auto base = constants().ecosystem_base.find(gpu_of(r).ecosystem);
    const double eco = base == constants().ecosystem_base.end() ? 0 : base->second;
    r.scores.best_speed = best_speed;
    r.scores.best_value = best_value;
    r.scores.speed = asked_speed(r, req);
    r.scores.compute = log_score(r.scores.speed, best_speed);  // measured speed, no rule moves it
    r.scores.budget = clamp100(budget_score(r, best_value, req) + d.budget);
    r.scores.ecosystem = clamp100(eco + d.ecosystem);
    const Weights& w = req.weights;
    r.scores.total = w.compute * r.scores.compute + w.budget * r.scores.budget +
                     w.ecosystem * r.scores.ecosystem;
  }
}

}  // namespace

void score(std::vector<Result>& results, const RankRequest& req) { score_all(results, req); }
void score(std::vector<Candidate>& results, const RankRequest& req) { score_all(results, req); }

// The card's own facts: its catalog record's (gpu.used_price depends on the price policy and
// is set with the configuration's).
void card_facts(const Gpu& g, FactTable& f) {
  using F = FactId;
  f.text(F::gpu_id, g.id);
  f.text(F::gpu_name, g.name);
  f.text(F::gpu_vendor, g.vendor);
  f.text(F::gpu_segment, g.segment);
  f.text(F::gpu_form_factor, g.form_factor);
  f.number(F::gpu_vram_gb, g.vram_gb);
  f.text(F::gpu_memory_type, g.memory_type);
  f.flag(F::gpu_ecc, g.ecc);
  f.flag(F::gpu_unified_memory, g.unified_memory);
  f.number(F::gpu_tdp_w, g.tdp_w);
  f.text(F::gpu_ecosystem, g.ecosystem);
  f.text(F::gpu_platform_target, g.platform_target);
  f.text(F::gpu_market, g.market.empty() ? std::string_view("global") : std::string_view(g.market));
  f.number(F::gpu_launch_year, double(g.launch_year));
  f.number(F::gpu_bf16_tflops, g.tensor16_tflops());
  f.number(F::gpu_tpp, g.tpp());
  // A card with a published FP4 rate but no FP8 or BF16 one (the RTX 5090 D, whose export
  // limit NVIDIA printed only as FP4 TOPS; DGX Spark's GB10) still has those paths: every
  // architecture with FP4 tensor math has FP8, and every one with FP8 has BF16.
  const bool fp8 = g.fp8_tflops_dense.has_value() || g.fp4_tflops_dense.has_value();
  f.flag(F::gpu_fp8, fp8);
  f.flag(F::gpu_bf16, g.bf16_tflops_dense.has_value() || fp8);
  f.text(F::gpu_interconnect, g.interconnect.kind);
  f.number(F::gpu_interconnect_gbs, g.interconnect.bandwidth_gbs);
  f.number(F::gpu_interconnect_max_gpus, double(g.interconnect.max_gpus));
}

// Whether a purchase is whole boards of its platform (2 of an 8-GPU HGX board is not), and
// the sizes its boards come in. A rental, or cards in a host the user owns, is any count.
void board_facts(const Result& r, const RankRequest& req, ConfigFacts& out) {
  FactTable& f = out.table;
  const Platform* p = r.platform_quote.platform;
  if (!p || p->sold_in.empty()) {
    f.flag(FactId::config_whole_boards, true);
    return;
  }
  std::string& sizes = out.board_sizes;
  sizes.clear();
  for (std::size_t i = 0; i < p->sold_in.size(); ++i)
    sizes += (i == 0                       ? ""
              : i + 1 == p->sold_in.size() ? " or "
                                           : ", ") +
             std::to_string(p->sold_in[i]);
  f.text(FactId::config_board_sizes, sizes);
  f.flag(FactId::config_whole_boards, r.config.rented || req.cards_only || !req.whole_boards ||
                                          r.config.count % p->sold_in.front() == 0);
}

namespace {

// The user's own host (--host-ram): every card's offloaded share in it, with the OS reserve.
void own_host_facts(const Result& r, const RankRequest& req, FactTable& f) {
  f.number(FactId::config_own_host_ram_short_gb, own_host_ram_short_gb(r, req));
  if (req.host_ram_gb > 0 && !r.config.rented && r.need.host_bytes > 0)
    f.number(FactId::config_host_ram_gb, own_host_ram_need_gb(r));
}

}  // namespace

// Set in place by position: a map of string keys cost more than the rules that read it, for
// every configuration ranked. Texts view the card, the platform data and `out`'s own strings.
void facts_for(const Result& r, const Workload& w, const RankRequest& req, ConfigFacts& out) {
  const Gpu& g = *r.config.gpu;
  using F = FactId;
  FactTable& f = out.table;
  card_facts(g, f);
  f.flag(F::gpu_used_price, r.unit_price && r.unit_price->used);
  f.number(F::config_count, double(r.config.count));
  f.flag(F::config_linked, r.config.linked);
  f.number(F::config_price, r.price);
  f.number(F::config_headroom, r.headroom);
  f.number(F::config_total_tdp_w, g.tdp_w * r.config.count);
  f.flag(F::config_one_card_fits, r.one_card_fits);
  f.flag(F::config_rented, r.config.rented);
  f.text(F::config_platform, r.platform_quote.platform
                                 ? std::string_view(r.platform_quote.platform->id)
                                 : std::string_view("none"));
  // A platform whose share is already in the card price (an NVL72 rack) is priced too.
  const Platform* platform = r.platform_quote.platform;
  f.flag(F::config_platform_priced,
         r.platform_price > 0 ||
             (platform && platform->cost.value == 0 && r.unit_price && !req.cards_only));
  board_facts(r, req, out);
  const PlatformQuote& q = r.platform_quote;
  f.number(F::config_host_ram_gb, q.ram_need_gb);
  f.number(F::config_host_ram_short_gb, req.cards_only ? 0 : q.ram_short_gb);
  own_host_facts(r, req, f);
  f.text(F::config_market, req.domestic ? std::string_view("cn") : std::string_view(req.market));
  if (!r.throughput.bound.empty()) f.text(F::config_bound, r.throughput.bound);
  workload_facts(w, req, r.hours, out);
  if (is_training(w.mode)) return;
  out.engine = engine_of(w);
  f.text(F::config_engine, out.engine);
  if (!r.throughput.engine.empty()) f.text(F::config_engine_as, r.throughput.engine);
  // The engine the user named, where it has no backend for the card (MLX on a GeForce).
  if (!w.engine.empty() && w.engine_instead_of.empty()) {
    f.text(F::workload_engine, out.engine);
    f.flag(F::config_engine_runs, engine_runs_on(out.engine, g));
  }
  // Weights whose format needs the engine's own kernels (gpt-oss's MXFP4 on a V100).
  if (const char* format = weights_format(w)) {
    f.text(F::workload_weights_format, format);
    if (const auto loads = engine_loads_weights(out.engine, format, g.ecosystem, g.platform_target))
      f.flag(F::config_weights_kernel, *loads);
  }
}

// The workload's facts (the same for every card of a count, but cheap next to a map).
void workload_facts(const Workload& w, const RankRequest& req, std::optional<double> hours,
                    ConfigFacts& out) {
  using F = FactId;
  FactTable& f = out.table;
  out.mode = to_string(w.mode);
  out.precision = to_string(w.precision);
  out.optimizer = to_string(w.optimizer);
  f.text(F::workload_mode, out.mode);
  f.flag(F::workload_training, is_training(w.mode));
  f.number(F::workload_params_b, w.model.params / 1e9);
  f.text(F::workload_precision, out.precision);
  f.text(F::workload_optimizer, out.optimizer);
  f.flag(F::workload_needs_bitsandbytes, w.mode == Mode::qlora ||
                                             w.optimizer == Optimizer::adamw_8bit ||
                                             w.optimizer == Optimizer::paged_adamw_8bit);
  f.flag(F::workload_flash_attn, w.flash_attn);
  f.flag(F::workload_experts_in_ram, cpu_moe_layers(w) > 0);
  f.flag(F::workload_timed, req.tokens.has_value());
  f.flag(F::workload_domestic, req.domestic);
  f.flag(F::workload_reserve_given, req.reserve.fraction >= 0 || req.reserve.bytes > 0);
  f.number(F::workload_seq_len, double(w.seq_len));
  f.number(F::workload_batch, double(w.batch));
  if (hours) {
    f.flag(F::workload_long_run, *hours > 24);
    if (req.tokens) f.number(F::config_job_days, *hours / 24);
  } else if (req.run_hours)
    f.flag(F::workload_long_run, *req.run_hours > 24);
}

}  // namespace detail
}  // namespace gpusel
