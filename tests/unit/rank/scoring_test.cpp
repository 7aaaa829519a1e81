// Scoring: --weights parsing, the score ranges, the order of results, and what the weights
// do to that order.
#include <catch2/catch.hpp>
#include <cmath>

#include "gpusel/base/error.hpp"
#include "ranker_fixtures.hpp"

using namespace gpusel;
using namespace ranker_fixtures;

namespace {

ExitCode scoring_code_of(const std::string& text) {
  try {
    parse_weights(text);
  } catch (const Error& e) {
    return e.code();
  }
  return ExitCode::ok;
}

void check_weights(const Weights& w, double compute, double budget, double ecosystem) {
  CHECK(w.compute == Approx(compute));
  CHECK(w.budget == Approx(budget));
  CHECK(w.ecosystem == Approx(ecosystem));
}

}  // namespace

TEST_CASE("parse_weights reads the documented form and normalises to sum 1") {
  check_weights(parse_weights("compute=0.4,budget=0.4,ecosystem=0.2"), 0.4, 0.4, 0.2);
  check_weights(parse_weights("compute=2,budget=1,ecosystem=1"), 0.5, 0.25, 0.25);
  check_weights(parse_weights("ecosystem=3"), 0, 0, 1);  // a subset: the rest weigh nothing
  check_weights(parse_weights("budget=.5,compute=1.5"), 0.75, 0.25, 0);
  check_weights(parse_weights(" compute = 1 , budget= 1"), 0.5, 0.5, 0);
  check_weights(parse_weights("compute=0,budget=7"), 0, 1, 0);
}

TEST_CASE("the default weights match the documented default") {
  const Weights d;
  check_weights(d, 0.4, 0.4, 0.2);
  const Weights parsed = parse_weights("compute=0.4,budget=0.4,ecosystem=0.2");
  CHECK(parsed.compute == Approx(d.compute));
  CHECK(parsed.budget == Approx(d.budget));
  CHECK(parsed.ecosystem == Approx(d.ecosystem));
}

TEST_CASE("parse_weights rejects bad input as a usage error") {
  for (const char* bad :
       {"", "compute", "compute=", "=0.4", "compute=-1", "compute=1,", ",compute=1",
        "compute=1;budget=1", "speed=1", "Compute=1", "compute=1e2", "compute=abc",
        "compute=0,budget=0,ecosystem=0", "compute=0.4 budget=0.4"}) {
    CAPTURE(bad);
    CHECK(scoring_code_of(bad) == ExitCode::usage);
  }
  CHECK_THROWS_WITH(parse_weights("speed=1"), Catch::Contains("speed=1"));
  CHECK_THROWS_WITH(parse_weights("compute=0"), Catch::Contains("sum to zero"));
}

TEST_CASE("scoring constants come from data/scoring.json") {
  const ScoringConstants& k = scoring_constants();
  CHECK(k.compute_decades == 2);
  CHECK(k.budget_value_share == 0.7);
  CHECK(k.ecosystem_base.at("cuda") == 100);
  CHECK(k.ecosystem_base.at("rocm") == 70);
  CHECK(k.ecosystem_base.at("cann") == 40);
  CHECK(k.ecosystem_base.at("metal") == 35);
}

TEST_CASE("scores lie in [0, 100] and results are sorted by total") {
  for (const auto& [name, w] : property_workloads()) {
    for (std::optional<double> budget : {std::optional<double>{}, {8000.0}, {400000.0}}) {
      CAPTURE(name, budget.value_or(-1));
      const Ranking r = run(request(w, budget));
      if (budget == 8000.0 && name == "llama-3.1-70b full") {
        CHECK(r.results.empty());  // full training of 70B needs several 80 GB-class cards
        continue;
      }
      // A tight budget can leave few configurations once their platform is priced.
      REQUIRE(r.results.size() >= (budget == 8000.0 ? 1u : 3u));
      for (const auto& res : r.results) {
        CAPTURE(res.config.gpu->id, res.config.count);
        for (double s :
             {res.scores.compute, res.scores.budget, res.scores.ecosystem, res.scores.total}) {
          CHECK(s >= 0);
          CHECK(s <= 100);
        }
        const Weights& k = Weights{};
        CHECK(res.scores.total ==
              Approx(k.compute * res.scores.compute + k.budget * res.scores.budget +
                     k.ecosystem * res.scores.ecosystem));
      }
      for (std::size_t i = 1; i < r.results.size(); ++i) {
        CAPTURE(i);
        CHECK(r.results[i - 1].scores.total >= r.results[i].scores.total - 1e-9);
      }
      // Compute is 50 points per decade of speed (compute_decades 2): between two results
      // with unclamped scores (no rule moves compute), the gap is 50 log10(ratio).
      int compared = 0;
      for (const auto& a : r.results)
        for (const auto& b : r.results) {
          const bool inside = a.scores.compute > 0 && a.scores.compute < 100 &&
                              b.scores.compute > 0 && b.scores.compute < 100;
          if (&a == &b || !inside) continue;
          CHECK(a.scores.compute - b.scores.compute ==
                Approx(50 * std::log10(a.scores.speed / b.scores.speed)).margin(1e-6));
          ++compared;
        }
      if (r.results.size() >= 3) CHECK(compared > 0);
    }
  }
}

namespace {

RankRequest weighted(const Workload& w, const std::string& weights,
                     std::optional<double> budget = std::nullopt) {
  RankRequest q = request(w, budget);
  q.weights = parse_weights(weights);
  q.tokens = 1e9;  // speed matters: no "multi-GPU not needed" penalty on fast configurations
  return q;
}

double max_of(const std::vector<Result>& rs, double (*f)(const Result&)) {
  double best = 0;
  for (const auto& r : rs) best = std::max(best, f(r));
  return best;
}

}  // namespace

TEST_CASE("compute-only weights put the fastest configuration first") {
  for (const auto& [name, w] : property_workloads()) {
    for (std::optional<double> budget : {std::optional<double>{}, {400000.0}}) {
      CAPTURE(name, budget.value_or(-1));
      const Ranking r = run(weighted(w, "compute=1", budget));
      REQUIRE_FALSE(r.results.empty());
      const double fastest = max_of(r.results, [](const Result& x) { return x.tokens_per_s; });
      CHECK(r.results[0].tokens_per_s == Approx(fastest));
      CHECK(r.results[0].scores.total == Approx(r.results[0].scores.compute));
    }
  }
}

TEST_CASE("weights change the order: compute-only prefers speed, budget-only value") {
  const Workload w = bare_7b_lora();
  const Ranking balanced = run(weighted(w, "compute=0.4,budget=0.4,ecosystem=0.2", 15000.0));
  const Ranking speed = run(weighted(w, "compute=1", 15000.0));
  const Ranking value = run(weighted(w, "budget=1", 15000.0));
  REQUIRE_FALSE(balanced.results.empty());
  CHECK(cards(balanced.results) == cards(speed.results));  // same cards, in another order
  // Compute-only weights order by measured tokens/s: no rule moves the compute score.
  for (std::size_t i = 1; i < speed.results.size(); ++i)
    CHECK(speed.results[i - 1].tokens_per_s >= speed.results[i].tokens_per_s * (1 - 1e-9));
  CHECK(speed.results[0].price > value.results[0].price);
  const double best_budget = max_of(value.results, [](const Result& x) { return x.scores.budget; });
  CHECK(value.results[0].scores.budget == Approx(best_budget));
  CHECK(value.results[0].config.gpu->id != speed.results[0].config.gpu->id);
}

TEST_CASE("ecosystem-only weights rank CUDA first and break ties by speed, then headroom") {
  for (const auto& [name, w] : property_workloads()) {
    CAPTURE(name);
    const Ranking r = run(weighted(w, "ecosystem=1"));
    REQUIRE(r.results.size() >= 2);
    CHECK(r.results[0].config.gpu->ecosystem == "cuda");
    CHECK(r.results[0].scores.total == Approx(100));
    int ties = 0;
    for (std::size_t i = 1; i < r.results.size(); ++i) {
      const Result &a = r.results[i - 1], &b = r.results[i];
      if (std::abs(a.scores.total - b.scores.total) > 1e-9) continue;
      CAPTURE(a.config.gpu->id, b.config.gpu->id);
      CHECK(a.tokens_per_s >= b.tokens_per_s * (1 - 1e-9));
      if (std::abs(a.tokens_per_s - b.tokens_per_s) <= 1e-9 * a.tokens_per_s)
        CHECK(a.headroom >= b.headroom);
      ++ties;
    }
    CHECK(ties > 0);
  }
}

TEST_CASE("untimed training scores a board's spare cards at one card's share, --tokens all") {
  const Workload w = ranker_fixtures::preset("llama-3.1-8b", Mode::qlora);
  RankRequest q = ranker_fixtures::request(w);
  const Ranking untimed = ranker_fixtures::run(q);
  int spare = 0;
  for (const auto& r : untimed.results) {
    CAPTURE(r.config.gpu->id, r.config.count);
    if (r.config.count > 1 && r.one_card_fits) {
      ++spare;  // a board bought whole (8 B200): the rest's speed was not asked for
      CHECK(r.scores.speed == Approx(r.tokens_per_s / r.config.count));
    } else {
      CHECK(r.scores.speed == r.tokens_per_s);
    }
  }
  CHECK(spare > 0);
  // The top answer for a QLoRA of 8B with no budget and no deadline is not a bought 8-GPU board.
  REQUIRE_FALSE(untimed.results.empty());
  CHECK_FALSE((untimed.results.front().config.count > 1 && untimed.results.front().one_card_fits));
  q.tokens = 1e9;  // an amount of work: every card's speed counts
  for (const auto& r : ranker_fixtures::run(q).results) CHECK(r.scores.speed == r.tokens_per_s);
}
