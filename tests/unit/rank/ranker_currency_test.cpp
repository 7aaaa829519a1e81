// The ranker in another currency: a CNY budget selects what the same USD budget selects, and
// native CNY prices are charged as listed (split from ranker_test.cpp).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "ranker_fixtures.hpp"

using namespace gpusel;
using namespace ranker_fixtures;

namespace {

// The shipped catalog with only its USD prices, so that every CNY price is a conversion.
Catalog usd_only() {
  Catalog c = catalog();
  for (auto& g : c.gpus)
    std::erase_if(g.prices, [](const Price& p) { return p.currency != "USD"; });
  return c;
}

RankRequest in_cny(RankRequest q) {
  q.price.currency = "CNY";
  if (q.budget) q.budget = convert(*q.budget, "USD", "CNY", rates());
  return q;
}

}  // namespace

TEST_CASE("a CNY budget selects what the same USD budget selects, prices converted") {
  const double cny = rates().per_base.at("CNY");  // units per USD, data/rates.json
  REQUIRE(cny > 1);
  const Catalog usd = usd_only();
  for (const auto& [name, w] : property_workloads()) {
    for (double budget : {3000.0, 15000.0, 60000.0}) {
      CAPTURE(name, budget);
      const RankRequest q = request(w, budget);
      const Ranking a = rank(usd, rules(), rates(), q);
      const Ranking b = rank(usd, rules(), rates(), in_cny(q));
      CHECK(*in_cny(q).budget == Approx(budget * cny));
      REQUIRE(a.results.size() == b.results.size());
      CHECK(a.over_budget.size() == b.over_budget.size());
      CHECK(a.rejected.over_budget == b.rejected.over_budget);
      for (std::size_t i = 0; i < a.results.size(); ++i) {
        const Result &ra = a.results[i], &rb = b.results[i];
        CAPTURE(i, ra.config.gpu->id, ra.config.count);
        CHECK(rb.config.gpu->id == ra.config.gpu->id);
        CHECK(rb.config.count == ra.config.count);
        CHECK(rb.price == Approx(ra.price * cny));
        CHECK(rb.unit_price->currency == "CNY");
        CHECK(rb.unit_price->converted);
        CHECK_FALSE(ra.unit_price->converted);
        CHECK(rb.scores.total == Approx(ra.scores.total));
      }
    }
  }
}

TEST_CASE("a native CNY price is charged as listed, others are converted") {
  RankRequest q = request(bare_7b_lora());
  q.price.currency = "CNY";
  // The China-market RTX 5090 D is listed in CNY only: the charge is one of its CNY prices.
  const Gpu& g5090d = require_gpu(catalog(), "rtx-5090-d");
  const Result r = evaluate(make_config(g5090d, 1, q.workload), rules(), rates(), q);
  REQUIRE(r.unit_price);
  CHECK(std::any_of(g5090d.prices.begin(), g5090d.prices.end(), [&](const Price& p) {
    return p.currency == "CNY" && p.amount == r.unit_price->amount;
  }));
  CHECK_FALSE(r.unit_price->converted);

  q.price.currency = "USD";
  const Gpu& g5090d_usd = require_gpu(catalog(), "rtx-5090-d");
  const Result d = evaluate(make_config(g5090d_usd, 2, q.workload), rules(), rates(), q);
  REQUIRE(d.unit_price);
  CHECK(d.unit_price->converted);
  const double cny = rates().per_base.at("CNY");
  CHECK(d.unit_price->amount == Approx(d.unit_price->from->amount / cny));
  CHECK(d.unit_price->from->currency == "CNY");
  CHECK(d.cards_price == Approx(2 * d.unit_price->from->amount / cny));
}

TEST_CASE("on the shipped catalog, CNY and USD budgets agree on every converted card") {
  for (const auto& [name, w] : property_workloads()) {
    for (double budget : {2500.0, 15000.0, 80000.0}) {
      CAPTURE(name, budget);
      const RankRequest q = request(w, budget);
      const Ranking a = run(q), b = run(in_cny(q));
      std::set<std::string> native;  // cards charged a CNY price of their own
      for (const auto& g : catalog().gpus) {
        const auto p = charge(g, {"CNY"}, rates());
        if (p && !p->converted) native.insert(g.id);
      }
      CHECK(native.size() >= 3);
      auto without_native = [&](std::set<std::string> s) {
        for (const auto& id : native) s.erase(id);
        return s;
      };
      CHECK(without_native(cards(a.results)) == without_native(cards(b.results)));
      for (const auto& r : b.results) CHECK(r.price <= *in_cny(q).budget);
    }
  }
}
