// data/serving.json -> ServingData. The schema checks shape, ranges and that every fact has
// a source and a date; this file turns the records into the typed structs.
#include "gpusel/serve/serving_data.hpp"
#include "serve_internal.hpp"

#include <algorithm>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/data/card_memory.hpp"
#include "gpusel/data/engines.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_schema.hpp"
#include "gpusel/speed/throughput.hpp"

namespace gpusel {
namespace {

using nlohmann::json;

double value(const json& fact) { return fact.at("value").get<double>(); }

std::vector<std::string> strings(const json& j, const char* key) {
  return j.contains(key) ? j.at(key).get<std::vector<std::string>>() : std::vector<std::string>{};
}

std::vector<EngineTier> tiers(const json& list) {
  std::vector<EngineTier> out;
  for (const json& t : list) {
    EngineTier e;
    e.min_card_gib = t.at("min_card_gib").get<double>();
    e.except_gpus = strings(t, "except_gpus");
    e.value = t.value("value", 0.0);
    e.max_seqs = t.value("max_seqs", 0);
    e.batched_tokens = t.value("batched_tokens", 0);
    e.graph_max_batch = t.value("graph_max_batch", 0);
    out.push_back(std::move(e));
  }
  return out;
}

MemoryPolicy policy(const std::string& s) {
  if (s == "fraction_of_total") return MemoryPolicy::fraction_of_total;
  if (s == "fraction_of_free") return MemoryPolicy::fraction_of_free;
  if (s == "reserved") return MemoryPolicy::reserved;
  return MemoryPolicy::usable;
}

void parse_memory(const json& m, ServingEngine& e, const std::string& at) {
  e.policy = policy(m.at("policy").get<std::string>());
  const bool fraction =
      e.policy == MemoryPolicy::fraction_of_total || e.policy == MemoryPolicy::fraction_of_free;
  if (fraction && !m.contains("fraction")) throw data_error(at + ".memory: needs a 'fraction'");
  if (fraction) e.memory_fraction = value(m.at("fraction"));
  if (e.policy == MemoryPolicy::reserved && !m.contains("reserved"))
    throw data_error(at + ".memory: the 'reserved' policy needs 'reserved' tiers");
  if (m.contains("workspace_gib")) e.workspace = tiers(m.at("workspace_gib"));
  if (m.contains("reserved"))
    for (const json& t : m.at("reserved"))
      e.reserved.push_back({t.at("below_card_gib").get<double>(), t.at("base_gib").get<double>(),
                            t.at("per_gpu_gib").get<double>()});
}

ServingEngine parse_engine(const std::string& name, const json& j, const std::string& at) {
  ServingEngine e;
  e.name = name;
  e.label = j.at("label").get<std::string>();
  e.version = j.at("version").get<std::string>();
  e.aliases = strings(j, "aliases");
  e.runs_on = strings(j, "runs_on");
  e.kv_block_tokens = std::max(1, static_cast<int>(value(j.at("kv_block_tokens"))));
  e.reservation = j.at("kv_reservation").at("value") == "whole_request"
                      ? KvReservation::whole_request
                      : KvReservation::on_demand;
  parse_memory(j.at("memory"), e, at);
  e.limits = tiers(j.at("limits"));
  e.eager_layer_overhead_s = value(j.at("eager_layer_overhead_us")) * 1e-6;
  if (j.contains("host_us_per_seq")) e.host_s_per_seq = value(j.at("host_us_per_seq")) * 1e-6;
  if (j.contains("api_host_us_per_seq"))
    e.api_host_s_per_seq = value(j.at("api_host_us_per_seq")) * 1e-6;
  if (j.contains("newest_launch_year")) {
    const json& n = j.at("newest_launch_year");
    e.newest_launch_year = static_cast<int>(value(n));
    e.not_on = strings(n, "not_on");
  }
  return e;
}

bool excepted(const EngineTier& t, const Gpu& g) {
  return std::find(t.except_gpus.begin(), t.except_gpus.end(), g.id) != t.except_gpus.end();
}

double card_gib(const Gpu& g) { return vram_bytes(g) / serve_detail::kGiB; }

const EngineTier* tier_for(const std::vector<EngineTier>& list, const Gpu& g) {
  for (const auto& t : list)
    if (card_gib(g) >= t.min_card_gib && !excepted(t, g)) return &t;
  return list.empty() ? nullptr : &list.back();
}

}  // namespace

bool ServingEngine::predates(const Gpu& g) const {
  if (newest_launch_year > 0 && g.launch_year > newest_launch_year) return true;
  return std::find(not_on.begin(), not_on.end(), g.id) != not_on.end();
}

// Its own platforms, and the speed stage's engine's supported cards (vLLM: compute
// capability 7.5 and listed ROCm targets, data/throughput.json engines.*.targets).
bool ServingEngine::runs(const Gpu& g) const {
  if (predates(g)) return false;
  return std::find(runs_on.begin(), runs_on.end(), g.ecosystem) != runs_on.end() &&
         engine_runs_on(name, g);
}

std::string ServingEngine::why_not_on(const Gpu& g) const {
  if (predates(g))
    return name + " (" + version + ") predates " + g.id + " (launched " +
           std::to_string(g.launch_year) + "): no kernels for its architecture";
  if (std::find(runs_on.begin(), runs_on.end(), g.ecosystem) != runs_on.end())
    return name + " does not support " + g.id + " (" + g.platform_target +
           "): not among its supported GPUs [engines." + name + ".targets]";
  return name + " does not run on " + g.ecosystem;
}

const EngineTier& ServingEngine::limits_for(const Gpu& g) const { return *tier_for(limits, g); }

double ServingEngine::workspace_bytes(const Gpu& g) const {
  const EngineTier* t = tier_for(workspace, g);
  return t ? t->value * serve_detail::kGiB : 0;
}

double ServingEngine::reserved_bytes(const Gpu& g, int cards) const {
  for (const auto& t : reserved)
    if (card_gib(g) < t.below_card_gib)
      return (t.base_gib + t.per_gpu_gib * cards) * serve_detail::kGiB;
  return reserved.empty() ? 0
                          : (reserved.back().base_gib + reserved.back().per_gpu_gib * cards) *
                                serve_detail::kGiB;
}

const ServingEngine& ServingData::engine(std::string_view name) const {
  const std::string want = to_lower(name);
  for (const auto& [id, e] : engines) {
    if (id == want) return e;
    for (const auto& a : e.aliases)
      if (to_lower(a) == want) return e;
  }
  std::string known;
  for (const auto& n : engine_names()) known += (known.empty() ? "" : ", ") + n;
  throw usage_error("--engine '" + std::string(name) + "' has no serving data (" + origin + ")" +
                    did_you_mean(want, engine_names()) + "; serve models: " + known);
}

std::vector<std::string> ServingData::engine_names() const {
  std::vector<std::string> out;
  for (const auto& [id, e] : engines) out.push_back(id);
  for (const auto& [id, e] : engines) out.insert(out.end(), e.aliases.begin(), e.aliases.end());
  return out;
}

const ServingEngine* ServingData::engine_for(const Gpu& g, const std::string& asked, bool gguf,
                                             const std::string& model_id,
                                             bool weights_16bit) const {
  if (!asked.empty()) {
    const ServingEngine& e = engine(asked);
    return e.runs(g) ? &e : nullptr;
  }
  const std::string llama = "llama.cpp";
  const std::string older =
      older_batched_engine_loads(model_id, weights_16bit) ? older_batched_engine() : "";
  const std::vector<std::string> order =
      gguf ? std::vector<std::string>{llama, default_engine}
           : std::vector<std::string>{default_engine, older, llama};
  for (const std::string& id : order) {
    auto it = engines.find(id);
    if (it != engines.end() && it->second.runs(g)) return &it->second;
  }
  return nullptr;
}

ServingData parse_serving_data(const json& doc, const std::string& origin) {
  static const json schema = json::parse(embedded_text("data/schema/serving.schema.json"));
  require_schema(schema, doc, origin);
  ServingData d;
  d.origin = origin;
  const std::vector<std::string> speed = engine_names();  // data/throughput.json's
  for (const auto& [name, e] : doc.at("engines").items()) {
    if (std::find(speed.begin(), speed.end(), name) == speed.end())
      throw data_error(origin + ": engines." + name +
                       ": not an engine of data/throughput.json (its speed comes from there)");
    d.engines[name] = parse_engine(name, e, origin + ": engines." + name);
  }
  d.default_engine = doc.at("default_engine").at("value").get<std::string>();
  if (!d.engines.count(d.default_engine))
    throw data_error(origin + ": default_engine '" + d.default_engine + "' is not an engine");
  d.amortisation_years = value(doc.at("amortisation_years"));
  return d;
}

const ServingData& default_serving_data() {
  static const ServingData d = [] {
    const std::string origin = "data/serving.json";
    // Shipped text: built once without the position scan (its syntax is checked by the tests).
    return parse_serving_data(embedded_json(origin), origin);
  }();
  return d;
}

}  // namespace gpusel
