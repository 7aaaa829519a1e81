// Rented jobs and their deadline: more RDMA-linked instances to meet it, late ones ranked last.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "rent_fixtures.hpp"

using namespace gpusel;
using namespace rent_fixtures;

TEST_CASE("a job past its deadline spreads over more RDMA-linked instances until it is in time") {
  RentFixture f;
  f.req.workload = test_models::on(test_models::llama2_7b(), Mode::lora);
  f.req.tokens = 20e9;
  f.req.max_gpus = 64;
  with_rdma(f.cloud);
  const RentalRanking free_of_time = rank_rentals(f.catalog, f.cloud, f.rules, f.rates, f.req, {});
  REQUIRE_FALSE(free_of_time.options.empty());
  // Without a deadline the cheapest job is one instance (more only cost the scaling loss).
  for (const auto& o : free_of_time.options) CHECK(o.instances == 1);
  CHECK(free_of_time.too_slow == 0);
  // A deadline at a third of the fastest single instance's time: one instance is late.
  double fastest = 1e300;
  for (const auto& o : free_of_time.options) fastest = std::min(fastest, *o.hours);
  RentalRequest rr;
  rr.deadline_hours = fastest / 3;
  const RentalRanking r = rank_rentals(f.catalog, f.cloud, f.rules, f.rates, f.req, rr);
  REQUIRE_FALSE(r.options.empty());
  CHECK(r.fitting == free_of_time.fitting);  // the same offers, more of some of them
  bool spread = false, seen_late = false;
  int late = 0;
  for (const auto& o : r.options) {
    INFO(o.offer->id << " x" << o.instances);
    CHECK(o.instances * o.offer->gpus_per_instance <= f.req.max_gpus);
    const bool in_time = *o.hours <= *rr.deadline_hours;
    if (o.instances > 1) spread = true;
    if (!in_time) seen_late = true, ++late;
    if (in_time) CHECK_FALSE(seen_late);  // every job in time ranks before every late one
  }
  CHECK(spread);
  CHECK(r.options.front().hours <= rr.deadline_hours);
  CHECK(r.too_slow == late);
  // A rental window (--hours) is as long as it was asked to be: no deadline applies.
  rr.hours = 10;
  const RentalRanking window = rank_rentals(f.catalog, f.cloud, f.rules, f.rates, f.req, rr);
  CHECK(window.too_slow == 0);
  for (const auto& o : window.options) CHECK(o.instances == 1);
}

TEST_CASE("jobs that cannot meet the deadline rank by how many deadlines they take, then cost") {
  RentFixture f;
  f.req.workload = test_models::on(test_models::llama2_7b(), Mode::lora);
  f.req.tokens = 20e9;  // over TCP (the fixture's default) no instances join
  const RentalRanking free_of_time = rank_rentals(f.catalog, f.cloud, f.rules, f.rates, f.req, {});
  double slowest = 0;
  for (const auto& o : free_of_time.options) slowest = std::max(slowest, *o.hours);
  RentalRequest rr;
  rr.deadline_hours = slowest / 40;  // every offer late
  const RentalRanking r = rank_rentals(f.catalog, f.cloud, f.rules, f.rates, f.req, rr);
  CHECK(r.too_slow == r.fitting);
  for (std::size_t i = 1; i < r.options.size(); ++i) {
    const auto& a = r.options[i - 1];
    const auto& b = r.options[i];
    const int da = static_cast<int>(std::ceil(*a.hours / *rr.deadline_hours));
    const int db = static_cast<int>(std::ceil(*b.hours / *rr.deadline_hours));
    INFO(a.offer->id << " then " << b.offer->id);
    CHECK(da <= db);
    if (da == db) CHECK(*a.on_demand_cost <= *b.on_demand_cost);
  }
}
