// Evaluating one configuration (evaluate(): check, compare, serve) and many of one request
// (Evaluator: rank(), recommend --rent), with the same code.
#include "gpusel/rank/evaluator.hpp"

#include "gpusel/i18n/i18n.hpp"
#include "gpusel/memory/fit.hpp"
#include "gpusel/memory/reserve.hpp"
#include "ranker_internal.hpp"
#include "rules_internal.hpp"

namespace gpusel {
namespace {

// Cards + the platform they need (data/platforms.json), unless the user owns the host or the
// configuration is rented. Platform prices are USD, converted like the cards'.
void price_configuration(Result& r, const RankRequest& req, const Rates& rates) {
  const Config& c = r.config;
  r.unit_price = charge(*c.gpu, req.price, rates);
  if (c.rented) return;
  // The RAM offloaded parts need is part of the host bought (r.need: this configuration's).
  r.platform_quote =
      quote_platform(default_platforms(), *c.gpu, c.count, r.unit_price && r.unit_price->used,
                     r.need.host_bytes / 1073741824.0);
  r.platform = r.platform_quote.platform ? r.platform_quote.label : tr("no platform takes it");
  if (!r.unit_price) return;
  r.cards_price = r.unit_price->amount * c.count;
  if (!req.cards_only)
    r.platform_price = convert(r.platform_quote.total_usd, "USD", req.price.currency, rates);
  r.price = r.cards_price + r.platform_price;
}

Estimate one_card_estimate(const Gpu& gpu, const RankRequest& req) {
  if (model_parallel(req.workload))  // one card: no tensor or pipeline split
    return estimate(without_model_parallel(req.workload), EstimateDetail::numbers);
  return estimate(workload_for(make_config(gpu, 1, req.workload), req), EstimateDetail::numbers);
}

// Everything after the memory estimate: price, speed, rules. `w` is workload_for(r.config).
// Price and speed: what the rules and the scores read.
void measure(Result& r, const Workload& w, const Rates& rates, const RankRequest& req) {
  const Config& config = r.config;
  price_configuration(r, req, rates);
  // Experts kept in host RAM are read, and an offloaded optimizer steps, at the RAM of the host
  // priced, where it states its bandwidth and the user gave none (a host the user owns,
  // --cards-only: the default).
  const Platform* host = r.platform_quote.platform;
  Workload on_host;
  const bool host_speed =
      host && host->ram_bandwidth_gbs > 0 && !req.cards_only &&
      (cpu_moe_layers(w) > 0 || w.offload != Offload::none || w.gpu_layers >= 0) &&
      !(w.host_memory_bytes_per_s > 0);
  if (host_speed) {
    on_host = w;
    on_host.host_memory_bytes_per_s = host->ram_bandwidth_gbs * 1e9;
    on_host.host_memory_basis = host->id;
  }
  r.throughput = estimate_throughput(host_speed ? on_host : w, *config.gpu, config.count,
                                     config.linked, config.nodes ? &*config.nodes : nullptr);
  r.tokens_per_s = primary_tokens_per_s(w, r.throughput);
  if (req.tokens && r.tokens_per_s > 0) r.hours = hours_for_tokens(*req.tokens, r.tokens_per_s);
}

void evaluate_rest(Result& r, const Workload& w, const RuleSet& rules, const Rates& rates,
                   const RankRequest& req, bool render) {
  measure(r, w, rates, req);
  detail::ConfigFacts facts;
  detail::facts_for(r, w, req, facts);
  r.rules = apply_rules(rules, facts.table, render);
}

using Texts = Evaluator::Texts;

bool same_facts(const FactTable& a, const FactTable& b) {
  for (std::size_t i = 0; i < kFactCount; ++i) {
    const FactTable::Slot &x = a[i], &y = b[i];
    if (x.known != y.known || x.type != y.type || x.number != y.number || x.flag != y.flag ||
        x.text != y.text)
      return false;
  }
  return true;
}

// One configuration in full, its per-GPU workload `w` (workload_for) and that workload's
// memory estimate given. `one_card`: the card's one-card need.
Result evaluate_placed(const Config& config, const Workload& w, Estimate need, double one_card,
                       const RuleSet& rules, const Rates& rates, const RankRequest& req,
                       Texts texts, const std::vector<std::optional<bool>>* decided) {
  Result r;
  r.config = config;
  r.config.shard = w.shard;
  r.config.split = parallel_label(w);
  r.need = std::move(need);
  r.usable_bytes = usable_for(w, *config.gpu, req.reserve);
  r.need.fit_to(r.usable_bytes);  // elastic parts (Unsloth's loss chunks) as on this card
  r.headroom = (r.usable_bytes - r.need.need_bytes()) / r.usable_bytes;
  r.one_card_fits =
      config.count == 1 ? r.need.fits_within(r.usable_bytes) : one_card <= r.usable_bytes;
  if (texts != Texts::none) {
    evaluate_rest(r, w, rules, rates, req, texts == Texts::all);
  } else {
    const ThroughputTextsOff quiet;
    detail::evaluate_numbers(r, w, rules, rates, req, decided);
  }
  return r;
}

}  // namespace

// No engine named, and the default for this layout does not run on the card: the batch-1
// default (llama.cpp, layers split) runs there instead, as serve does; its speed, not vLLM's,
// is the card's (on_card).
Workload workload_for(const Config& c, const RankRequest& r) {
  return c.gpu ? on_card(*c.gpu, c.count, r.workload) : on_gpus(r.workload, c.count);
}

namespace detail {

// For a configuration that is counted and scored but not returned: of the rules, only their
// score changes and the first exclusion (its id, for Rejections::by_rule).
void evaluate_numbers(Result& r, const Workload& w, const RuleSet& rules, const Rates& rates,
                      const RankRequest& req, const std::vector<std::optional<bool>>* decided,
                      const std::vector<rules_detail::OpenRule>* open) {
  measure(r, w, rates, req);
  ConfigFacts facts;
  facts_for(r, w, req, facts);
  const rules_detail::Judgement j = open ? rules_detail::judge_rules(*open, facts.table)
                                         : rules_detail::judge_rules(rules, facts.table, decided);
  r.rules.delta = j.delta;
  if (j.excluded_by) r.rules.excluded = true, r.rules.exclude_rule = j.excluded_by->id;
}

}  // namespace detail

bool excluded_only_as_purchase(const Result& r, const RuleSet& rules, const Rates& rates,
                               const RankRequest& req) {
  if (!r.rules.excluded) return false;
  Config rented = r.config;
  rented.rented = true;
  return !evaluate(rented, rules, rates, req).rules.excluded;
}

Result evaluate(const Config& config, const RuleSet& rules, const Rates& rates,
                const RankRequest& req) {
  const Workload w = workload_for(config, req);
  Estimate need = estimate(w, EstimateDetail::numbers);
  const double usable = usable_for(w, *config.gpu, req.reserve);
  const double one = config.count == 1 ? 0 : one_card_estimate(*config.gpu, req).need_on(usable);
  return evaluate_placed(config, w, std::move(need), one, rules, rates, req, Texts::all, nullptr);
}

Evaluator::Evaluator(const RuleSet& rules, const Rates& rates, const RankRequest& req)
    : rules_(rules), rates_(rates), req_(req) {}

Evaluator::~Evaluator() = default;

Evaluator::Plan& Evaluator::plan(int count, const Gpu* gpu) {
  auto [it, fresh] = plans_.try_emplace({count, std::string()});
  Plan& p = it->second;
  if (fresh && (p.splits = tensor_parallel_splits(req_.workload, count))) {
    Config c;
    c.count = count;
    p.w = workload_for(c, req_);
  }
  // A card the default engine does not run on has its own plan: the same for every card that
  // swaps to the same engine (the swap depends on the platform alone).
  if (!gpu || !p.splits) return p;
  std::string to = swapped_to(p.w, *gpu);
  if (to.empty()) return p;
  auto [other, made] = plans_.try_emplace({count, std::move(to)});
  if (made) {
    Config c;
    c.gpu = gpu, c.count = count;
    other->second.splits = true;
    other->second.w = workload_for(c, req_);
  }
  return other->second;
}

const Estimate& Evaluator::need(Plan& p) {
  if (!p.need) p.need = estimate(p.w, EstimateDetail::numbers);
  return *p.need;
}

const std::vector<std::optional<bool>>& Evaluator::rules_decided(Plan& p) {
  if (p.rules) return *p.rules;
  // The facts every configuration of the count shares. A known job length (--tokens) makes
  // workload.long_run depend on each configuration's speed: left unknown here.
  RankRequest shared_req;
  const RankRequest* req = &req_;
  if (req_.tokens && req_.run_hours) {
    shared_req = req_;
    shared_req.run_hours.reset();
    req = &shared_req;
  }
  auto facts = std::make_unique<detail::ConfigFacts>();
  detail::workload_facts(p.w, *req, std::nullopt, *facts);
  p.rules = rules_detail::decide_rules(rules_, facts->table);
  p.shared_facts = !shared_ || same_facts(shared_->table, facts->table);
  if (!shared_) shared_ = std::move(facts), shared_rules_ = *p.rules;
  return *p.rules;
}

std::vector<rules_detail::OpenRule> Evaluator::card_rules(const Gpu& gpu) const {
  FactTable table = shared_->table;  // its texts view shared_'s strings and the catalog's
  detail::card_facts(gpu, table);
  return rules_detail::open_rules(rules_,
                                  rules_detail::decide_rules(rules_, table, &shared_rules_));
}

double Evaluator::one_card_need(const Gpu& any, double usable) {
  if (!one_card_) one_card_ = one_card_estimate(any, req_);
  return one_card_->need_on(usable);
}

Config Evaluator::config(const Gpu& gpu, int count) {
  Plan& p = plan(count, &gpu);
  if (!p.splits) return make_config(gpu, count, req_.workload);
  return detail::placed_config(gpu, count, p.w);
}

Result Evaluator::evaluate(const Config& config, Texts texts) {
  Plan& p = plan(config.count, config.gpu);
  if (!p.splits) {  // not a count the ranker builds: its workload and need are not kept
    const Workload w = workload_for(config, req_);
    Estimate need = estimate(w, EstimateDetail::numbers);
    const double usable = usable_for(w, *config.gpu, req_.reserve);
    const double one = config.count == 1 ? 0 : one_card_need(*config.gpu, usable);
    return evaluate_placed(config, w, std::move(need), one, rules_, rates_, req_, texts, nullptr);
  }
  const double usable = usable_for(p.w, *config.gpu, req_.reserve);
  const double one = config.count == 1 ? 0 : one_card_need(*config.gpu, usable);
  return evaluate_placed(config, p.w, need(p), one, rules_, rates_, req_, texts,
                         texts == Texts::none ? &rules_decided(p) : nullptr);
}

}  // namespace gpusel
