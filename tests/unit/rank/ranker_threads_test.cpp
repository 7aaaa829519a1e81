// A long catalog is judged in slices across threads (ranker.cpp rank_cards): the ranking must
// be the one a single thread gives, order, scores and counts included.
#include <catch2/catch.hpp>
#include <cstdlib>

#include "ranker_fixtures.hpp"

using namespace ranker_fixtures;

namespace {

// The embedded cards repeated under new ids: well past the 2048 cards that are sliced.
Catalog long_catalog() {
  Catalog c;
  for (int copy = 0; c.gpus.size() < 3000; ++copy)
    for (const Gpu& g : catalog().gpus) {
      Gpu x = g;
      x.id = g.id + "-" + std::to_string(copy);
      c.gpus.push_back(std::move(x));
    }
  c.reindex();
  return c;
}

Ranking ranked(const Catalog& c, const RankRequest& req, const char* threads) {
  ::setenv("GPUSEL_THREADS", threads, 1);
  Ranking r = rank(c, rules(), rates(), req);
  ::unsetenv("GPUSEL_THREADS");
  return r;
}

void ranker_same(const Ranking& a, const Ranking& b) {
  CHECK(a.candidates == b.candidates);
  CHECK(a.fitting == b.fitting);
  CHECK(a.ranked == b.ranked);
  CHECK(a.rejected.too_small == b.rejected.too_small);
  CHECK(a.rejected.over_budget == b.rejected.over_budget);
  CHECK(a.rejected.no_price == b.rejected.no_price);
  CHECK(a.rejected.filtered == b.rejected.filtered);
  CHECK(a.rejected.excluded_by_rule == b.rejected.excluded_by_rule);
  CHECK(a.rejected.by_rule == b.rejected.by_rule);
  REQUIRE(a.results.size() == b.results.size());
  for (std::size_t i = 0; i < a.results.size(); ++i) {
    INFO(i);
    CHECK(a.results[i].config.gpu->id == b.results[i].config.gpu->id);
    CHECK(a.results[i].config.count == b.results[i].config.count);
    CHECK(a.results[i].scores.total == b.results[i].scores.total);
  }
  REQUIRE(a.over_budget.size() == b.over_budget.size());
  for (std::size_t i = 0; i < a.over_budget.size(); ++i)
    CHECK(a.over_budget[i].config.gpu->id == b.over_budget[i].config.gpu->id);
}

}  // namespace

TEST_CASE("a long catalog ranks the same on one thread and on several") {
  const Catalog c = long_catalog();
  RankRequest req;
  req.shown = 40;
  SECTION("7B LoRA on a budget: fits, over budget, no price") {
    req.workload = bare_7b_lora();
    req.budget = 15000;
  }
  SECTION("70B inference, filtered to one vendor, up to 8 GPUs") {
    req.workload = preset("llama-2-70b", Mode::inference);
    req.filters.vendors = {"nvidia"};
  }
  const Ranking one = ranked(c, req, "1");
  REQUIRE(one.candidates > 3000);
  ranker_same(ranked(c, req, "2"), one);
  ranker_same(ranked(c, req, "3"), one);
}
