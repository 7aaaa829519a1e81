// `check` (one configuration, a yes/no gate) and `compare` (cards side by side).
#include <algorithm>

#include "gpusel/answer/answers.hpp"
#include "gpusel/i18n/i18n.hpp"

namespace gpusel {
namespace {

bool fits_memory(const Result& r) { return r.need.fits_within(r.usable_bytes); }

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

bool purchase_only(const Result& r, const Sources& src, const RankRequest& req) {
  return excluded_only_as_purchase(r, src.rules, src.rates, req);
}

// The first K37 change that fits and that the rules let run on these cards: the memory stage
// proposes changes without a card (FP8 weights on a Radeon VII or an Arc A380, whose engines
// have no FP8 kernels there), so each is evaluated as the configuration itself was.
std::optional<FitChange> runnable_change(const Sources& src, const RankRequest& req, const Gpu& gpu,
                                         int count, const Config& c) {
  const FitResult f = fit(workload_for(c, req), gpu, count, req.reserve);
  for (const auto& ch : f.changes) {
    if (!ch.fits) continue;
    RankRequest changed = req;
    changed.workload = ch.workload;
    const Result r = evaluate(make_config(gpu, count, ch.workload), src.rules, src.rates, changed);
    if (!r.rules.excluded || purchase_only(r, src, changed)) return ch;
  }
  return std::nullopt;
}

}  // namespace

CheckAnswer check(const Sources& src, const RankRequest& req, const Gpu& gpu, int count) {
  CheckAnswer a;
  const Config c = make_config(gpu, count, req.workload);
  a.result = evaluate(c, src.rules, src.rates, req);
  a.room = fits_memory(a.result);
  // check asks whether the work runs there: an exclusion only as a purchase is said, not a "no".
  // Short of the user's own host RAM is no purchase matter: that host is the one asked about.
  if (a.room && a.result.rules.excluded)
    a.purchase_only =
        purchase_only(a.result, src, req) && !(own_host_ram_short_gb(a.result, req) > 0);
  a.fits = a.room && (!a.result.rules.excluded || a.purchase_only);
  // English (JSON and scripts read it); marked so that the table's translation exists.
  a.verdict = a.fits ? N_("fits") : a.room ? N_("excluded") : N_("does not fit");
  if (!a.fits && !a.result.rules.excluded) a.remedy = runnable_change(src, req, gpu, count, c);
  return a;
}

CompareAnswer compare(const Sources& src, const RankRequest& req,
                      const std::vector<CardCount>& configs) {
  CompareAnswer a;
  a.one_gpu_need = estimate(without_model_parallel(req.workload));
  for (const CardCount& c : configs)
    a.results.push_back(
        evaluate(make_config(*c.gpu, c.count, req.workload), src.rules, src.rates, req));
  score_fitting(a.results, req);
  for (const auto& r : a.results) a.fits.push_back(fits_memory(r));
  a.converted_prices = std::any_of(a.results.begin(), a.results.end(), [](const Result& r) {
    return r.unit_price && r.unit_price->converted;
  });
  return a;
}

}  // namespace gpusel
