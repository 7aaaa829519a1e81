// `recommend --explain`: how each configuration's need, speed and scores were computed.
#include <fmt/format.h>

#include "cli/recommend_view.hpp"
#include "gpusel/i18n/i18n.hpp"

namespace gpusel::cli {
namespace {

std::string explain_one(const Result& r, const RankRequest& req) {
  const double best_speed = r.scores.best_speed, best_value = r.scores.best_value;
  const ScoringConstants& k = scoring_constants();
  const double slope = 100 / k.compute_decades;
  std::string out = trf("  need per GPU {} GiB:", gib(r.need.need_bytes()));
  for (const auto& c : r.need.components)  // the parts of the need (the allowance is not one)
    if (c.bytes > 0 && c.name != "allocator_overhead")
      out += fmt::format(" {} {}", c.name, gib(c.bytes));
  // MFU is 0 where it does not apply: inference, or a card with no published peak.
  const std::string mfu = r.throughput.mfu > 0 ? fmt::format("{:.2g}", r.throughput.mfu) : "n/a";
  out += trf("\n  throughput {} {} ({}-bound, MFU {}, scaling {:.2f})\n", rate(r.tokens_per_s),
             rate_unit(r.throughput.unit), r.throughput.bound, mfu, r.throughput.scaling);
  for (const auto& a : r.throughput.assumptions) out += "    " + a + "\n";
  if (r.scores.speed < r.tokens_per_s)
    out +=
        trf("  scored at one card's share, {} of {}: one card holds the work and no --tokens "
            "asks for the rest's speed\n",
            rate(r.scores.speed), rate(r.tokens_per_s));
  out += trf("  compute   = 100 + {:.0f} x log10({} / best {}) = {:.1f}\n", slope,
             rate(r.scores.speed), rate(best_speed), r.scores.compute);
  const double value = r.price > 0 ? r.scores.speed / r.price : 0;
  out += trf("  budget    = value: 100 + {:.0f} x log10({:.4g} / best {:.4g} tok/s per {})", slope,
             value, best_value, req.price.currency);
  if (req.budget)
    out += trf(" x {:.1f} + unspent: 100 x (1 - {} / {}) x {:.1f}", k.budget_value_share,
               thousands(r.price), thousands(*req.budget), 1 - k.budget_value_share);
  out += trf(" {:+.0f} by rules = {:.1f}\n", r.rules.delta.budget, r.scores.budget);
  auto base = k.ecosystem_base.find(r.config.gpu->ecosystem);
  out += trf("  ecosystem = {} base {:.0f} {:+.0f} by rules = {:.1f}\n", r.config.gpu->ecosystem,
             base == k.ecosystem_base.end() ? 0.0 : base->second, r.rules.delta.ecosystem,
             r.scores.ecosystem);
  const Weights& w = req.weights;
  out += trf("  total     = {:.2f} x {:.1f} + {:.2f} x {:.1f} + {:.2f} x {:.1f} = {:.1f}\n",
             w.compute, r.scores.compute, w.budget, r.scores.budget, w.ecosystem,
             r.scores.ecosystem, r.scores.total);
  for (const auto& m : r.rules.warnings)
    out += tr("  warning: ") + safe_cell(m.text) + " [" + m.rule_id + "]\n";
  for (const auto& m : r.rules.notes)
    out += tr("  note: ") + safe_cell(m.text) + " [" + m.rule_id + "]\n";
  out += tr("  platform: ") + r.platform +
         (r.platform_price > 0 ? trf(" ({} of the {})", money(r.platform_price, req.price.currency),
                                     money(r.price, req.price.currency))
                               : "") +
         "\n";
  return out;
}

}  // namespace

std::string explain_text(const std::vector<Result>& rs, const RankRequest& req) {
  std::string out = tr("How each score was computed:") + "\n";
  int rank = 0;
  for (const auto& r : rs)
    out += fmt::format("{}. {}\n", ++rank, config_label(r.config)) + explain_one(r, req);
  return out;
}

}  // namespace gpusel::cli
