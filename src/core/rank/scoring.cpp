// Scores (compute, budget, ecosystem) and the facts rules see.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
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

double best_of(const std::vector<Result>& rs, double (*f)(const Result&)) {
  double best = 0;
  for (const auto& r : rs) best = std::max(best, f(r));
  return best;
}

double value_of(const Result& r) { return r.price > 0 ? r.tokens_per_s / r.price : 0; }
double speed_of(const Result& r) { return r.tokens_per_s; }

double budget_score(const Result& r, double best_value, const RankRequest& req) {
  if (r.price <= 0) return 0;  // unpriced: nothing to say about value
  const double value = log_score(value_of(r), best_value);
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

namespace detail {

void score(std::vector<Result>& results, const RankRequest& req) {
  const double best_speed = best_of(results, speed_of);
  const double best_value = best_of(results, value_of);
  for (auto& r : results) {
    const ScoreDelta& d = r.rules.delta;
    auto base = constants().ecosystem_base.find(r.config.gpu->ecosystem);
    const double eco = base == constants().ecosystem_base.end() ? 0 : base->second;
    r.scores.best_speed = best_speed;
    r.scores.best_value = best_value;
    r.scores.compute = log_score(r.tokens_per_s, best_speed);  // measured speed, no rule moves it
    r.scores.budget = clamp100(budget_score(r, best_value, req) + d.budget);
    r.scores.ecosystem = clamp100(eco + d.ecosystem);
    const Weights& w = req.weights;
    r.scores.total = w.compute * r.scores.compute + w.budget * r.scores.budget +
                     w.ecosystem * r.scores.ecosystem;
  }
}

Facts facts_for(const Result& r, const Workload& w, const RankRequest& req) {
  const Gpu& g = *r.config.gpu;
  // Built in place (key from the literal, value moved): an initializer list would copy every
  // key and text once more, for every configuration ranked.
  Facts f;
  const auto put = [&f](const char* name, FactValue v) { f.emplace(name, std::move(v)); };
  put("gpu.id", g.id);
  put("gpu.name", g.name);
  put("gpu.vendor", g.vendor);
  put("gpu.segment", g.segment);
  put("gpu.form_factor", g.form_factor);
  put("gpu.vram_gb", g.vram_gb);
  put("gpu.memory_type", g.memory_type);
  put("gpu.ecc", g.ecc);
  put("gpu.unified_memory", g.unified_memory);
  put("gpu.tdp_w", g.tdp_w);
  put("gpu.ecosystem", g.ecosystem);
  put("gpu.platform_target", g.platform_target);
  put("gpu.launch_year", double(g.launch_year));
  put("gpu.bf16_tflops", g.tensor16_tflops());
  put("gpu.fp8", g.fp8_tflops_dense.has_value());
  put("gpu.bf16", g.bf16_tflops_dense.has_value());
  put("gpu.interconnect", g.interconnect.kind);
  put("gpu.interconnect_gbs", g.interconnect.bandwidth_gbs);
  put("gpu.interconnect_max_gpus", double(g.interconnect.max_gpus));
  put("gpu.used_price", r.unit_price && r.unit_price->used);
  put("config.count", double(r.config.count));
  put("config.linked", r.config.linked);
  put("config.price", r.price);
  put("config.headroom", r.headroom);
  put("config.total_tdp_w", g.tdp_w * r.config.count);
  put("config.one_card_fits", r.one_card_fits);
  put("config.rented", r.config.rented);
  put("config.platform",
      r.platform_quote.platform ? r.platform_quote.platform->id : std::string("none"));
  put("config.platform_priced", r.platform_price > 0);
  put("workload.mode", to_string(w.mode));
  put("workload.training", is_training(w.mode));
  put("workload.params_b", w.model.params / 1e9);
  put("workload.precision", to_string(w.precision));
  put("workload.optimizer", to_string(w.optimizer));
  put("workload.needs_bitsandbytes", w.mode == Mode::qlora ||
                                         w.optimizer == Optimizer::adamw_8bit ||
                                         w.optimizer == Optimizer::paged_adamw_8bit);
  put("workload.flash_attn", w.flash_attn);
  put("workload.timed", req.tokens.has_value());
  put("workload.domestic", req.domestic);
  put("workload.seq_len", double(w.seq_len));
  put("workload.batch", double(w.batch));
  if (r.hours)
    f["workload.long_run"] = *r.hours > 24;
  else if (req.run_hours)
    f["workload.long_run"] = *req.run_hours > 24;
  return f;
}

}  // namespace detail
}  // namespace gpusel
