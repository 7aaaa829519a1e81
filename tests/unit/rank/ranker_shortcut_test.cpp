// rank() skips work for what it does not show: each GPU count is sized once for all cards,
// a configuration refused by a filter or its memory gets no price, speed or rules, the rest
// are kept as a few numbers (no texts) and only the results returned are evaluated again in
// full. These tests hold it to the plain path: every kept result equals evaluate() on its
// configuration, which computes everything afresh and renders every text.
#include <catch2/catch.hpp>

#include <map>

#include "ranker_fixtures.hpp"

using namespace gpusel;
using namespace ranker_fixtures;

namespace {

void ranker_same_messages(const std::vector<Message>& got, const std::vector<Message>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CHECK(got[i].rule_id == want[i].rule_id);
    CHECK(got[i].text == want[i].text);
    CHECK(got[i].source == want[i].source);
  }
}

void same_as_plain(const Result& got, const RankRequest& req) {
  const Result want = evaluate(got.config, rules(), rates(), req);
  CAPTURE(got.config.gpu->id, got.config.count);
  CHECK(got.need.total_bytes == want.need.total_bytes);
  CHECK(got.one_card_fits == want.one_card_fits);
  CHECK(got.price == want.price);
  CHECK(got.tokens_per_s == want.tokens_per_s);
  CHECK(got.platform == want.platform);
  CHECK(got.rules.fired == want.rules.fired);
  CHECK(got.rules.excluded == want.rules.excluded);
  CHECK(got.rules.exclude_reason == want.rules.exclude_reason);
  ranker_same_messages(got.rules.warnings, want.rules.warnings);
  ranker_same_messages(got.rules.notes, want.rules.notes);
}

}  // namespace

TEST_CASE("every ranked result equals the plain evaluation of its configuration") {
  for (const auto& [name, w] : property_workloads()) {
    for (const std::optional<double> budget :
         {std::optional<double>{}, std::optional<double>{8000}}) {
      CAPTURE(name, budget.value_or(-1));
      RankRequest req = request(w, budget);
      req.tokens = 1e9;  // so time-dependent rules (long runs) fire and render
      const Ranking r = run(req);
      REQUIRE(r.results.size() + r.over_budget.size() > 0);
      for (const auto& res : r.results) same_as_plain(res, req);
      for (const auto& res : r.over_budget) same_as_plain(res, req);
    }
  }
}

TEST_CASE("rendered rule texts are not empty where the rule has a text") {
  // Catches a kept result left with the unrendered (empty) texts of the fast pass.
  const Ranking r = run(request(preset("llama-3.1-70b", Mode::full)));
  REQUIRE_FALSE(r.results.empty());
  std::size_t texts = 0;
  for (const auto& res : r.results)
    for (const auto* list : {&res.rules.warnings, &res.rules.notes})
      for (const auto& m : *list) {
        CHECK_FALSE(m.text.empty());
        ++texts;
      }
  CHECK(texts > 0);
}

// A configuration too small for the workload stops at its memory in rank() (no price, speed
// or rules): every rejection count must still be what the plain evaluation judges, in the
// same order of reasons (too small, excluded by a rule, no price, over budget).
TEST_CASE("rejection counts equal the plain evaluation of every configuration") {
  for (const auto& [name, w] : property_workloads()) {
    CAPTURE(name);
    const RankRequest req = request(w, 8000.0);
    Rejections want;
    int fitting = 0;
    for (const auto& gpu : catalog().gpus)
      for (const auto& config : configurations(gpu, req.max_gpus, req.workload)) {
        const Result r = evaluate(config, rules(), rates(), req);
        if (r.need.need_bytes() > r.usable_bytes)
          ++want.too_small;
        else if (r.rules.excluded)
          ++want.excluded_by_rule;
        else if (!r.unit_price)
          ++want.no_price;
        else if (r.price > *req.budget)
          ++want.over_budget;
        else
          ++fitting;
      }
    const Ranking got = run(req);
    CHECK(got.rejected.too_small == want.too_small);
    CHECK(got.rejected.excluded_by_rule == want.excluded_by_rule);
    CHECK(got.rejected.no_price == want.no_price);
    CHECK(got.rejected.over_budget == want.over_budget);
    CHECK(got.fitting == fitting);
    CHECK(want.too_small > 0);  // the shortcut was taken
  }
}

// rank() sizes each GPU count once for all cards, and once more for the cards the default
// engine does not run on (on_card swaps it): the per-GPU workload (workload_for) and its need
// must not depend on which card of either kind the configuration uses.
TEST_CASE("the per-GPU workload and need of a count are the same on every card") {
  for (const auto& [name, w] : property_workloads()) {
    CAPTURE(name);
    const RankRequest req = request(w);
    // (count, engine swapped to) -> (need, split)
    std::map<std::pair<int, std::string>, std::pair<double, std::string>> by_count;
    for (const auto& gpu : catalog().gpus)
      for (const auto& config : configurations(gpu, req.max_gpus, req.workload)) {
        const Workload placed = workload_for(config, req);
        const std::pair<double, std::string> got{
            estimate(placed, EstimateDetail::numbers).need_bytes(), parallel_label(placed)};
        CAPTURE(gpu.id, config.count);
        const bool swapped = !placed.engine_instead_of.empty();
        CHECK(swapped == !swapped_engine(on_gpus(req.workload, config.count), gpu).empty());
        const std::string to = swapped ? placed.engine : std::string();
        CHECK(to == swapped_to(on_gpus(req.workload, config.count), gpu));
        const auto [it, fresh] = by_count.try_emplace({config.count, to}, got);
        CHECK(it->second == got);
        CHECK(config.split == got.second);
      }
    CHECK(by_count.size() > 1);
  }
}

TEST_CASE(
    "a default engine that does not run on a card is swapped: its older release, else the batch-1 "
    "default") {
  Workload w = preset("llama-3.1-70b", Mode::inference);
  w.precision = Precision::int4;
  const RankRequest req = request(w);
  const Gpu& p100 = require_gpu(catalog(), "tesla-p100-pcie-16gb");
  const Gpu& t4 = require_gpu(catalog(), "t4");
  const Workload on_p100 = workload_for(make_config(p100, 4, req.workload), req);
  CHECK(on_p100.engine == "llama.cpp");  // vLLM needs compute capability 7.5
  CHECK(on_p100.engine_instead_of == "vllm");
  CHECK(on_p100.shard == Shard::none);  // llama.cpp splits layers
  // A V100 runs vLLM 0.5 (its V0 engine ran Volta) on 16-bit weights: tensor parallel kept.
  const RankRequest bf16 = request(preset("llama-3.1-70b", Mode::inference));
  const Gpu& v100 = require_gpu(catalog(), "v100-sxm2-32gb");
  const Workload on_v100 = workload_for(make_config(v100, 8, bf16.workload), bf16);
  CHECK(on_v100.engine == "vllm-0.5");
  CHECK(on_v100.engine_instead_of == "vllm");
  CHECK(on_v100.shard == Shard::tp);
  // Its quantized kernels need Turing or later: int4 weights go to llama.cpp.
  CHECK(workload_for(make_config(v100, 8, req.workload), req).engine == "llama.cpp");
  // ... for the architectures vLLM 0.5 loads: Qwen3 (2025) falls back to llama.cpp.
  const RankRequest qwen3 = request(preset("qwen3-32b", Mode::inference));
  const Workload q3 = workload_for(make_config(v100, 8, qwen3.workload), qwen3);
  CHECK(q3.engine == "llama.cpp");
  CHECK(q3.engine_instead_of == "vllm");
  const Workload on_t4 = workload_for(make_config(t4, 4, req.workload), req);
  CHECK(on_t4.engine.empty());
  CHECK(on_t4.shard == Shard::tp);
  // A named engine is the user's: never swapped (the rule engine-not-on-card judges it).
  RankRequest named = req;
  named.workload.engine = "vllm";
  CHECK(workload_for(make_config(p100, 4, named.workload), named).engine == "vllm");
  // Training runs no serving engine.
  RankRequest train = request(preset("llama-3.1-8b", Mode::lora));
  CHECK(workload_for(make_config(p100, 2, train.workload), train).engine_instead_of.empty());
}

// recommend builds only what it shows: a ranking cut to its first results must hold the
// same results, scores and texts as the whole one, and count the whole.
TEST_CASE("a ranking cut to the shown results keeps them whole and counts the rest") {
  for (const auto& [name, w] : property_workloads()) {
    for (const bool timed : {false, true}) {
      CAPTURE(name, timed);
      RankRequest req = request(w, 8000.0);
      if (timed) req.tokens = 1e9;
      const Ranking whole = run(req);
      req.shown = 3;
      const Ranking cut = run(req);
      CHECK(cut.ranked == whole.ranked);
      CHECK(whole.ranked == static_cast<int>(whole.results.size()));
      CHECK(cut.results.size() == std::min<std::size_t>(3, whole.results.size()));
      CHECK(cut.over_budget.size() == std::min<std::size_t>(3, whole.over_budget.size()));
      CHECK(cut.fitting == whole.fitting);
      CHECK(cut.rejected.by_rule == whole.rejected.by_rule);
      for (const auto* lists : {&cut.results, &cut.over_budget}) {
        const auto& full = lists == &cut.results ? whole.results : whole.over_budget;
        for (std::size_t i = 0; i < lists->size(); ++i) {
          const Result& a = (*lists)[i];
          CHECK(a.config.gpu == full[i].config.gpu);
          CHECK(a.config.count == full[i].config.count);
          CHECK(a.scores.total == full[i].scores.total);
          CHECK(a.throughput.assumptions == full[i].throughput.assumptions);
          CHECK(a.rules.fired == full[i].rules.fired);
          same_as_plain(a, req);
        }
      }
    }
  }
}

TEST_CASE("the plot's passed results equal the plain evaluation, scored") {
  RankRequest req = request(bare_7b_lora());
  req.keep_passed = true;
  const Ranking r = run(req);
  REQUIRE(static_cast<int>(r.passed.size()) == r.fitting);
  for (const auto& res : r.passed) {
    const Result want = evaluate(res.config, rules(), rates(), req);
    CHECK(res.tokens_per_s == want.tokens_per_s);
    CHECK(res.throughput.assumptions == want.throughput.assumptions);
    CHECK(res.scores.best_speed > 0);  // scored with the others
  }
}
