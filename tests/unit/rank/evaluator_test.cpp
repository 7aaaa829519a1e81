// rank() and recommend --rent evaluate through an Evaluator that keeps each GPU count's
// workload, memory estimate and one-card need, decides rules from the workload's and the card's
// facts before a configuration's, and builds texts only for what is returned. These tests rank
// with that memo and evaluate every returned configuration again without it (evaluate(): all
// afresh, every text rendered), comparing every field of the two results.
#include "gpusel/rank/evaluator.hpp"

#include <catch2/catch.hpp>

#include "gpusel/cost/rent.hpp"
#include "gpusel/data/cloud.hpp"
#include "model_parallel_fixtures.hpp"
#include "ranker_fixtures.hpp"

using namespace gpusel;
using namespace ranker_fixtures;

namespace {

void same_estimate(const Estimate& a, const Estimate& b) {
  CHECK(a.total_bytes == b.total_bytes);
  CHECK(a.host_bytes == b.host_bytes);
  CHECK(a.managed_bytes == b.managed_bytes);
  CHECK(a.low_bytes == b.low_bytes);
  CHECK(a.high_bytes == b.high_bytes);
  CHECK(a.assumptions == b.assumptions);
  REQUIRE(a.components.size() == b.components.size());
  for (std::size_t i = 0; i < a.components.size(); ++i) {
    CHECK(a.components[i].name == b.components[i].name);
    CHECK(a.components[i].bytes == b.components[i].bytes);
    CHECK(a.components[i].formula == b.components[i].formula);
    CHECK(a.components[i].where == b.components[i].where);
  }
}

void same_config(const Config& a, const Config& b) {
  CHECK(a.gpu == b.gpu);
  CHECK(a.count == b.count);
  CHECK(a.linked == b.linked);
  CHECK(a.interconnect == b.interconnect);
  CHECK(a.shard == b.shard);
  CHECK(a.rented == b.rented);
  CHECK(a.split == b.split);
  REQUIRE(a.nodes.has_value() == b.nodes.has_value());
  if (a.nodes) {
    CHECK(a.nodes->gpus_per_node == b.nodes->gpus_per_node);
    CHECK(a.nodes->gbps == b.nodes->gbps);
    CHECK(a.nodes->rdma == b.nodes->rdma);
    CHECK(a.nodes->label == b.nodes->label);
  }
}

void same_messages(const std::vector<Message>& a, const std::vector<Message>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].rule_id == b[i].rule_id);
    CHECK(a[i].text == b[i].text);
    CHECK(a[i].source == b[i].source);
  }
}

// Every field of a Result but its scores (rank() sets them; evaluate() leaves them).
void same_result(const Result& a, const Result& b) {
  CAPTURE(a.config.gpu->id, a.config.count);
  same_config(a.config, b.config);
  same_estimate(a.need, b.need);
  CHECK(a.usable_bytes == b.usable_bytes);
  CHECK(a.headroom == b.headroom);
  CHECK(a.one_card_fits == b.one_card_fits);
  REQUIRE(a.unit_price.has_value() == b.unit_price.has_value());
  if (a.unit_price) {
    CHECK(a.unit_price->amount == b.unit_price->amount);
    CHECK(a.unit_price->currency == b.unit_price->currency);
    CHECK(a.unit_price->from == b.unit_price->from);
    CHECK(a.unit_price->converted == b.unit_price->converted);
    CHECK(a.unit_price->used == b.unit_price->used);
  }
  CHECK(a.cards_price == b.cards_price);
  CHECK(a.platform_price == b.platform_price);
  CHECK(a.price == b.price);
  const PlatformQuote &p = a.platform_quote, &q = b.platform_quote;
  CHECK(p.platform == q.platform);
  CHECK(p.hosts == q.hosts);
  CHECK(p.psu_watts == q.psu_watts);
  CHECK(p.hosts_usd == q.hosts_usd);
  CHECK(p.network_usd == q.network_usd);
  CHECK(p.network == q.network);
  CHECK(p.total_usd == q.total_usd);
  CHECK(p.label == q.label);
  const Throughput &s = a.throughput, &t = b.throughput;
  CHECK(s.train_tokens_per_s == t.train_tokens_per_s);
  CHECK(s.prefill_tokens_per_s == t.prefill_tokens_per_s);
  CHECK(s.decode_tokens_per_s == t.decode_tokens_per_s);
  CHECK(s.tflops_used == t.tflops_used);
  CHECK(s.mfu == t.mfu);
  CHECK(s.scaling == t.scaling);
  CHECK(s.bound == t.bound);
  CHECK(s.engine == t.engine);
  CHECK(s.assumptions == t.assumptions);
  CHECK_FALSE(s.assumptions.empty());  // built with its texts
  CHECK(a.tokens_per_s == b.tokens_per_s);
  CHECK(a.hours == b.hours);
  same_messages(a.rules.warnings, b.rules.warnings);
  same_messages(a.rules.notes, b.rules.notes);
  CHECK(a.rules.delta == b.rules.delta);
  CHECK(a.rules.excluded == b.rules.excluded);
  CHECK(a.rules.exclude_reason == b.rules.exclude_reason);
  CHECK(a.rules.exclude_rule == b.rules.exclude_rule);
  CHECK(a.rules.fired == b.rules.fired);
  CHECK(a.platform == b.platform);
}

// The property workloads, and the same with a job length in tokens and in hours (rules on
// long runs read it per configuration) and one under --tp/--pp.
std::vector<std::pair<std::string, RankRequest>> requests() {
  std::vector<std::pair<std::string, RankRequest>> out;
  for (const auto& [name, w] : property_workloads()) {
    out.emplace_back(name, request(w, 8000.0));
    RankRequest timed = request(w);
    timed.tokens = 1e10;
    timed.run_hours = 10;
    out.emplace_back(name + ", timed", timed);
    RankRequest hours = request(w, 30000.0);
    hours.run_hours = 100;
    out.emplace_back(name + ", long run", hours);
  }
  out.emplace_back("70b full tp 2 pp 2 zero1",
                   request(model_parallel_fixtures::training(Mode::full, Shard::zero1, 2, 2)));
  return out;
}

}  // namespace

TEST_CASE("ranking with the evaluator's memo equals evaluating each result without it") {
  for (const auto& [name, req] : requests()) {
    CAPTURE(name);
    RankRequest r = req;
    r.shown = 6;
    const Ranking got = run(r);
    REQUIRE(got.results.size() + got.over_budget.size() > 0);
    for (const auto* list : {&got.results, &got.over_budget})
      for (const Result& res : *list) same_result(res, evaluate(res.config, rules(), rates(), r));
  }
}

TEST_CASE("an evaluator gives evaluate()'s result on every configuration, memo warm or cold") {
  const RankRequest req = request(preset("qwen2.5-72b", Mode::qlora), 20000.0);
  Evaluator warm(rules(), rates(), req);
  for (const auto& gpu : catalog().gpus)
    for (const auto& config : configurations(gpu, req.max_gpus, req.workload)) {
      Evaluator cold(rules(), rates(), req);
      const Result want = evaluate(config, rules(), rates(), req);
      same_config(warm.config(gpu, config.count), config);
      same_result(warm.evaluate(config), want);
      same_result(cold.evaluate(config), want);
      // Without texts: the same numbers and the same judgement of the rules.
      const Result quiet = warm.evaluate(config, Evaluator::Texts::none);
      CHECK(quiet.tokens_per_s == want.tokens_per_s);
      CHECK(quiet.price == want.price);
      CHECK(quiet.need.total_bytes == want.need.total_bytes);
      CHECK(quiet.rules.delta == want.rules.delta);
      CHECK(quiet.rules.excluded == want.rules.excluded);
      CHECK(quiet.rules.exclude_rule == want.rules.exclude_rule);
    }
}

TEST_CASE("recommend --rent's kept options equal their plain evaluation") {
  const Cloud cloud = load_cloud({});
  for (const auto& [name, w] : property_workloads()) {
    CAPTURE(name);
    RankRequest req = request(w);
    req.tokens = 1e9;
    const RentalRanking got = rank_rentals(catalog(), cloud, rules(), rates(), req, {}, 8);
    REQUIRE_FALSE(got.options.empty());
    for (const RentalOption& o : got.options) {
      Config c = make_config(*o.eval.config.gpu, o.eval.config.count, req.workload);
      c.rented = true;
      same_result(o.eval, evaluate(c, rules(), rates(), req));
    }
  }
}

// The configurations counted and not shown are judged without texts, their rules decided
// from the workload's and the card's facts first: every score and every rejection count must
// still be what the plain evaluation of every configuration gives.
TEST_CASE("rank()'s scores and counts equal those of every configuration evaluated plainly") {
  for (const auto& [name, base] : requests()) {
    CAPTURE(name);
    RankRequest req = base;
    req.keep_passed = true;
    std::vector<Result> plain;
    Rejections want;
    for (const auto& gpu : catalog().gpus)
      for (const auto& config : configurations(gpu, req.max_gpus, req.workload)) {
        Result r = evaluate(config, rules(), rates(), req);
        if (!r.need.fits_within(r.usable_bytes))
          ++want.too_small;
        else if (r.rules.excluded)
          ++want.excluded_by_rule, ++want.by_rule[r.rules.exclude_rule];
        else if (req.budget && !r.unit_price)
          ++want.no_price;
        else if (req.budget && r.price > *req.budget)
          ++want.over_budget;
        else
          plain.push_back(std::move(r));
      }
    score_results(plain, req);
    const Ranking got = run(req);
    CHECK(got.rejected.too_small == want.too_small);
    CHECK(got.rejected.excluded_by_rule == want.excluded_by_rule);
    CHECK(got.rejected.by_rule == want.by_rule);
    CHECK(got.rejected.no_price == want.no_price);
    CHECK(got.rejected.over_budget == want.over_budget);
    REQUIRE(got.passed.size() == plain.size());
    for (std::size_t i = 0; i < plain.size(); ++i) {
      const Result &a = got.passed[i], &b = plain[i];
      CAPTURE(b.config.gpu->id, b.config.count);
      REQUIRE(a.config.gpu == b.config.gpu);
      REQUIRE(a.config.count == b.config.count);
      CHECK(a.scores.total == b.scores.total);
      CHECK(a.scores.compute == b.scores.compute);
      CHECK(a.scores.budget == b.scores.budget);
      CHECK(a.scores.ecosystem == b.scores.ecosystem);
      CHECK(a.scores.best_speed == b.scores.best_speed);
      CHECK(a.scores.best_value == b.scores.best_value);
      CHECK(a.rules.delta == b.rules.delta);
    }
  }
}
