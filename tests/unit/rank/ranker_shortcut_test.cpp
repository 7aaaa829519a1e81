// rank() skips work for what it does not show: rule texts are written only for the kept
// configurations and a card's one-card need is estimated once for all its counts. These
// tests hold it to the plain path: every kept result equals evaluate() on its configuration,
// which computes everything afresh and renders every text.
#include <catch2/catch.hpp>

#include "ranker_fixtures.hpp"

using namespace gpusel;
using namespace ranker_fixtures;

namespace {

void same_messages(const std::vector<Message>& got, const std::vector<Message>& want) {
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
  same_messages(got.rules.warnings, want.rules.warnings);
  same_messages(got.rules.notes, want.rules.notes);
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
        if (r.need.total_bytes > r.usable_bytes)
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
