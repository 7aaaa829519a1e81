// `gpusel serve --format json`: every figure the table shows, unrounded, plus the replica's
// memory and the remedies.
#include <cmath>

#include "cli/recommend_view.hpp"
#include "cli/serve_view.hpp"

namespace gpusel::cli {
namespace {

using nlohmann::json;

json finite(double v) { return std::isfinite(v) ? json(v) : json(); }

json percentiles(const Percentiles& p) {
  return {{"p50", finite(p.p50)},
          {"p90", finite(p.p90)},
          {"p99", finite(p.p99)},
          {"mean", finite(p.mean)}};
}

json point(const LoadPoint& p) {
  return {{"rps", p.rate},
          {"users", finite(p.users)},
          {"running", finite(p.running)},
          {"iteration_s", finite(p.iteration_s)},
          {"output_tokens_per_s", p.tokens_per_s},
          {"ttft_s", percentiles(p.ttft)},
          {"tpot_s", percentiles(p.tpot)},
          {"stable", p.stable}};
}

json replica_json(const Replica& r) {
  return {{"cards", r.count},
          {"tensor_parallel", r.tp},
          {"pipeline_stages", r.pp},
          {"linked", r.linked},
          {"card_bytes", r.card_bytes},
          {"weight_bytes", r.weight_bytes},
          {"workspace_bytes", r.workspace_bytes},
          {"kv_pool_bytes", r.kv_pool_bytes},
          {"kv_tokens_per_sequence", r.held_tokens},
          {"kv_bytes_per_sequence", r.seq_kv_bytes},
          {"sequences_in_memory", r.memory_seqs},
          {"max_running", r.max_seqs},
          {"limited_by", r.seq_limit},
          {"assumptions", r.assumptions}};
}

json bought_json(const Deployment& d) {
  if (!d.priced) return nullptr;
  return {{"price", d.price},
          {"cards", d.cards_price},
          {"cards_bought", d.cards_bought},
          {"platform", d.platform_price},
          {"platform_label", d.platform},
          {"hosts", d.hosts},
          {"power_kw", d.power_kw},
          {"per_hour", d.per_hour},
          {"per_million_tokens", d.per_million}};
}

json rented_json(const std::optional<Rental>& r) {
  if (!r) return nullptr;
  return {{"offer", r->offer->id},     {"provider", r->offer->provider},
          {"instances", r->instances}, {"gpus_per_instance", r->offer->gpus_per_instance},
          {"per_hour", r->per_hour},   {"per_million_tokens", r->per_million},
          {"as_of", r->offer->as_of}};
}

json option_json(const ServeOption& o, int rank) {
  json j = {{"rank", rank},
            {"gpu", o.eval.config.gpu->id},
            {"name", o.eval.config.gpu->name},
            {"engine", o.engine ? json(o.engine->name) : json()},
            {"replica", replica_json(o.replica)},
            {"replicas", o.replicas},
            {"replicas_needed", o.replicas_needed},
            {"cards", o.cards},
            {"capacity", o.capacity ? point(*o.capacity) : json()},
            {"capacity_users", o.capacity_users},
            {"served", o.capacity ? point(o.served) : json()},
            {"output_tokens_per_s", o.tokens_per_s},
            {"bought", bought_json(o.bought)},
            {"rented", rented_json(o.rented)},
            {"meets", o.meets},
            {"why_not", o.why_not.empty() ? json() : json(o.why_not)},
            {"warnings", json::array()}};
  for (const auto& m : o.eval.rules.warnings) j["warnings"].push_back(m.text);
  return j;
}

json target_json(const ServeTarget& t) {
  const auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(); };
  return {{"rps", opt(t.rps)},
          {"users", opt(t.users)},
          {"prompt_tokens", {{"mean", t.traffic.prompt.mean}, {"sd", t.traffic.prompt.sd}}},
          {"output_tokens", {{"mean", t.traffic.output.mean}, {"sd", t.traffic.output.sd}}},
          {"ttft_s", opt(t.targets.ttft_s)},
          {"tpot_s", opt(t.targets.tpot_s)},
          {"percentile", t.targets.percentile},
          {"engine", t.engine.empty() ? json() : json(t.engine)}};
}

}  // namespace

json serve_json(const ServeView& v, const std::vector<ServeOption>& rows) {
  const ServeAnswer& a = v.answer;
  json j = {{"schema_version", 1},
            {"workload", workload_json(v.query.request.rank.workload)},
            {"target", target_json(v.query.request.target)},
            {"currency", v.session.request.price.currency},
            {"rates_as_of", v.session.rates.as_of},
            {"amortisation_years", a.plan.years},
            {"kwh_price", a.plan.kwh_price},
            {"kwh_basis", a.plan.kwh_basis},
            {"met", a.met},
            {"purchase_only", a.purchase_only},
            {"results", json::array()},
            {"remedies", json::array()}};
  int rank = 0;
  for (const auto& o : rows) j["results"].push_back(option_json(o, ++rank));
  for (const auto& r : a.remedies)
    j["remedies"].push_back({{"change", r.change}, {"option", option_json(*r.option, 1)}});
  j["lighter"] = a.lighter ? json{{"change", a.lighter->change},
                                  {"option", option_json(*a.lighter->option, 1)}}
                           : json(nullptr);
  if (!v.answer.configuration) {
    const ServeCounts& c = a.plan.counts;
    j["considered"] = {{"candidates", c.candidates},
                       {"meet", a.plan.options.size()},
                       {"too_small", c.too_small},
                       {"too_slow", c.too_slow},
                       {"beyond_fleet", c.beyond_fleet},
                       {"no_engine", c.no_engine},
                       {"excluded_by_rule", c.excluded_by_rule},
                       {"over_budget", c.over_budget},
                       {"no_price", c.no_price},
                       {"filtered", c.filtered}};
  }
  return j;
}

}  // namespace gpusel::cli
