#pragma once
// Shared by the ranker tests: the embedded catalog, rules, rates and models, the workloads
// the property and scenario tests run over, and small queries on a Ranking.
#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gpusel/data/catalog.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/data/frameworks.hpp"
#include "gpusel/data/models.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_source.hpp"
#include "gpusel/memory/param_count.hpp"
#include "gpusel/rank/ranker.hpp"

namespace ranker_fixtures {

using namespace gpusel;

inline const Catalog& catalog() {
  static const Catalog c = load_catalog({});
  return c;
}

inline const RuleSet& rules() {
  static const RuleSet r = load_rules();
  return r;
}

inline const Rates& rates() {
  static const Rates r = parse_rates(
      parse_located(embedded_text("data/rates.json"), "data/rates.json").doc, "data/rates.json");
  return r;
}

inline const ModelArch& model(const std::string& id) {
  static const std::vector<ModelArch> models = parse_models(
      parse_located(embedded_text("data/models.json"), "data/models.json").doc, "data/models.json");
  return require_model(models, id);
}

// As the CLI resolves them (workload_options.cpp): seq_len 2048 capped at the context.
inline Workload preset(const std::string& id, Mode mode) {
  Workload w;
  w.model = model(id);
  w.model_from_preset = true;
  w.mode = mode;
  return w;
}

inline Workload bare_7b_lora() {
  Workload w;
  w.model = typical_arch(parse_param_count("7B"));
  w.mode = Mode::lora;
  return w;
}

struct Named {
  std::string name;
  Workload workload;
};

// The property tests' workloads: small to large, inference to full training.
// Unsloth's elastic loss (sized to the card) and experts in host RAM (the host's RAM priced)
// take the ranker's shortcut through the same need and price as evaluate().
inline std::vector<Named> property_workloads() {
  Workload unsloth = preset("llama-3.1-8b", Mode::qlora);
  unsloth.precision = Precision::int4;
  apply_framework(unsloth, framework_profile("unsloth"), false, false);
  Workload moe = preset("qwen3-30b-a3b", Mode::inference);
  moe.precision = Precision::int4;
  moe.cpu_moe = 40;
  return {{"bare 7B LoRA", bare_7b_lora()},
          {"llama-3.1-8b inference", preset("llama-3.1-8b", Mode::inference)},
          {"qwen2.5-72b qlora", preset("qwen2.5-72b", Mode::qlora)},
          {"llama-3.1-70b full", preset("llama-3.1-70b", Mode::full)},
          {"llama-3.1-8b qlora unsloth", unsloth},
          {"qwen3-30b-a3b experts in RAM", moe}};
}

inline RankRequest request(const Workload& w, std::optional<double> budget = std::nullopt) {
  RankRequest r;
  r.workload = w;
  r.budget = budget;
  return r;
}

inline Ranking run(const RankRequest& r) { return rank(catalog(), rules(), rates(), r); }

using Pair = std::pair<std::string, int>;  // (gpu id, count)

inline std::set<Pair> pairs(const std::vector<Result>& rs) {
  std::set<Pair> out;
  for (const auto& r : rs) out.insert({r.config.gpu->id, r.config.count});
  return out;
}

inline std::set<std::string> cards(const std::vector<Result>& rs) {
  std::set<std::string> out;
  for (const auto& r : rs) out.insert(r.config.gpu->id);
  return out;
}

inline bool has_message(const std::vector<Message>& ms, const std::string& rule_id) {
  return std::any_of(ms.begin(), ms.end(), [&](const Message& m) { return m.rule_id == rule_id; });
}

inline bool fired(const Result& r, const std::string& rule_id) {
  return std::find(r.rules.fired.begin(), r.rules.fired.end(), rule_id) != r.rules.fired.end();
}

}  // namespace ranker_fixtures
