// `gpusel serve`: rank serving configurations or evaluate the user's cards, and when nothing
// meets the target, the changes a user would try, each re-evaluated.
#include "gpusel/answer/serve.hpp"

#include "gpusel/base/error.hpp"

#include "gpusel/speed/throughput.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

namespace gpusel {
namespace {

// The best option the query gives: the top of the ranking, or the user's cards when they
// meet the target; nullopt otherwise.
std::optional<ServeOption> best(const Sources& src, const ServeQuery& q) {
  if (q.gpu) {
    ServeOption o = serve_cards(*q.gpu, q.count, src.offers(), src.rules, src.rates, q.request);
    if (o.meets && !o.eval.rules.excluded) return o;
    return std::nullopt;
  }
  ServePlan p = plan_serving(src.catalog, src.offers(), src.rules, src.rates, q.request);
  if (p.options.empty()) return std::nullopt;
  return std::move(p.options.front());
}

void try_change(std::vector<ServeRemedy>& out, const Sources& src, ServeQuery q,
                const std::string& change) {
  if (auto o = best(src, q)) out.push_back({change, std::move(o)});
}

std::string ms_flag(const char* flag, double s) {
  return fmt::format("{} {:.0f}", flag, std::ceil(s * 100) * 10);  // up to the next 10 ms
}

// The largest preset of the same family with fewer parameters and at least the model's
// context window: a family spans generations (LLaMA 1's 2k-token 7B is no stand-in for
// Llama 3.1 8B; Llama 3.2 3B, with the same 128k window, is).
const ModelArch* smaller_model(const ServeQuery& q) {
  if (!q.models) return nullptr;
  const ModelArch& m = q.request.rank.workload.model;
  const ModelArch* pick = nullptr;
  for (const auto& c : *q.models)
    if (c.family == m.family && !c.family.empty() && c.kind == m.kind &&
        c.max_context >= m.max_context && arch_params(c).total < arch_params(m).total &&
        (!pick || arch_params(c).total > arch_params(*pick).total))
      pick = &c;
  return pick;
}

// Targets a configuration whose floor misses them would meet: 1.25x its unloaded
// percentiles (room for some load), for the targets that miss.
std::optional<Targets> relaxed(const ServeOption& o, const Targets& t) {
  if (!o.replica.fits()) return std::nullopt;
  const LoadPoint idle = idle_point(o.replica);
  Targets r = t;
  const double pct = t.percentile;
  if (t.tpot_s && idle.tpot.at(pct) > *t.tpot_s)
    r.tpot_s = std::ceil(idle.tpot.at(pct) * 125) / 100;
  if (t.ttft_s && idle.ttft.at(pct) > *t.ttft_s)
    r.ttft_s = std::ceil(idle.ttft.at(pct) * 125) / 100;
  return r;
}

void workload_remedies(std::vector<ServeRemedy>& out, const Sources& src, const ServeQuery& q) {
  const Workload& w = q.request.rank.workload;
  if (w.kv_dtype == KvDtype::compute || w.kv_dtype == KvDtype::bf16 ||
      w.kv_dtype == KvDtype::fp16) {
    ServeQuery k = q;
    k.request.rank.workload.kv_dtype = w.weight_format.empty() ? KvDtype::fp8 : KvDtype::q8_0;
    try_change(out, src, k, w.weight_format.empty() ? "--kv-dtype fp8" : "--kv-dtype q8_0");
  }
  if (w.weight_format.empty() && !is_quantized(w.precision) && w.precision != Precision::fp8) {
    for (const char* p : {"fp8", "int4"}) {
      ServeQuery k = q;
      set_precision(k.request.rank.workload, p);
      try_change(out, src, k, std::string("--precision ") + p);
      if (!out.empty() && out.back().change == std::string("--precision ") + p) break;
    }
  }
  if (const ModelArch* m = smaller_model(q)) {
    ServeQuery k = q;
    k.request.rank.workload.model = *m;
    try_change(out, src, k, "--model " + m->id);
  }
}

void target_remedies(std::vector<ServeRemedy>& out, const Sources& src, const ServeQuery& q,
                     const std::vector<ServeOption>& too_slow) {
  for (const ServeOption& o : too_slow) {
    const auto t = relaxed(o, q.request.target.targets);
    if (!t) continue;
    ServeQuery k = q;
    k.request.target.targets = *t;
    std::string flags;
    if (t->ttft_s != q.request.target.targets.ttft_s) flags += ms_flag("--ttft-ms", *t->ttft_s);
    if (t->tpot_s != q.request.target.targets.tpot_s)
      flags += (flags.empty() ? "" : " ") + ms_flag("--tpot-ms", *t->tpot_s);
    try_change(out, src, k, flags);
    return;
  }
}

void card_remedies(std::vector<ServeRemedy>& out, const Sources& src, const ServeQuery& q,
                   const ServeOption& mine) {
  // An engine that does not run on the card runs on no number of them.
  if (!mine.engine) return;
  if (mine.capacity && mine.replicas_needed > mine.replicas) {  // the cards are too few
    const int cards = mine.replicas_needed * mine.replica.count;
    ServeQuery k = q;
    k.count = cards;
    try_change(out, src, k, fmt::format("--count {}", cards));
  } else if (!mine.capacity && q.count < 8 && gangs(*q.gpu, q.count * 2)) {
    // a wider replica: more bandwidth per token
    ServeQuery k = q;
    k.count = q.count * 2;
    try_change(out, src, k, fmt::format("--count {}", k.count));
  }
}

// 16-bit weights that met the target: the cheaper per million tokens of FP8 and int4 weights,
// where it beats the first option (a team serving a 30B coder runs it quantized).
std::optional<ServeRemedy> lighter_weights(const Sources& src, const ServeQuery& q,
                                           const ServeOption& first) {
  const Workload& w = q.request.rank.workload;
  if (!w.weight_format.empty() || is_quantized(w.precision) || w.precision == Precision::fp8 ||
      w.weights_as_shipped || !first.bought.priced)
    return std::nullopt;
  std::optional<ServeRemedy> pick;
  for (const char* p : {"fp8", "int4"}) {
    ServeQuery k = q;
    set_precision(k.request.rank.workload, p);
    auto o = best(src, k);
    if (!o || !o->bought.priced || !(o->bought.per_million < first.bought.per_million)) continue;
    if (!pick || o->bought.per_million < pick->option->bought.per_million)
      pick = ServeRemedy{std::string("--precision ") + p, std::move(o)};
  }
  return pick;
}

}  // namespace

ServeAnswer serve(const Sources& src, const ServeQuery& q) {
  // Serving plans prompt processing and token generation: a decoder LLM's work.
  const ModelArch& m = q.request.rank.workload.model;
  if (m.kind != "decoder")
    throw usage_error("serve plans token generation for decoder LLMs; '" + m.id +
                      "' is a model of kind " + m.kind +
                      ": recommend or compare --mode inference give its throughput");
  // Serving engines batch many users on the GPUs; experts in host RAM are a batch-1 setup.
  if (q.request.rank.workload.cpu_moe != 0)
    throw usage_error(
        "serve plans the serving engines (vLLM, llama.cpp's server) with the model on the GPUs; "
        "--n-cpu-moe/--cpu-moe (experts in host RAM) is for one user: check, compare or "
        "recommend give its speed");
  ServeAnswer a;
  std::vector<ServeOption> too_slow;
  if (q.gpu) {
    a.configuration = serve_cards(*q.gpu, q.count, src.offers(), src.rules, src.rates, q.request);
    const ServeOption& mine = *a.configuration;
    a.purchase_only =
        mine.meets && excluded_only_as_purchase(mine.eval, src.rules, src.rates, q.request.rank);
    a.met = mine.meets && (!mine.eval.rules.excluded || a.purchase_only);
    if (!a.configuration->capacity && a.configuration->replica.fits())
      too_slow.push_back(*a.configuration);
    std::tie(a.plan.kwh_price, a.plan.kwh_basis) =
        serving_kwh_price(q.request.rank.price.currency, src.rates);
    a.plan.years = q.request.target.years > 0 ? q.request.target.years
                                              : default_serving_data().amortisation_years;
  } else {
    a.plan = plan_serving(src.catalog, src.offers(), src.rules, src.rates, q.request);
    const std::size_t n = std::min<std::size_t>(q.top, a.plan.options.size());
    a.top.assign(a.plan.options.begin(), a.plan.options.begin() + long(n));
    a.met = !a.plan.options.empty();
    too_slow = a.plan.too_slow;
    if (a.met) a.lighter = lighter_weights(src, q, a.plan.options.front());
  }
  if (!a.met) {
    if (q.gpu) card_remedies(a.remedies, src, q, *a.configuration);
    workload_remedies(a.remedies, src, q);
    target_remedies(a.remedies, src, q, too_slow);
  }
  const auto converted = [](const ServeOption& o) {
    return o.eval.unit_price && o.eval.unit_price->converted;
  };
  a.converted_prices = std::any_of(a.top.begin(), a.top.end(), converted) ||
                       (a.configuration && converted(*a.configuration));
  return a;
}

}  // namespace gpusel
