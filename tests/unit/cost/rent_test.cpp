#include "gpusel/cost/rent.hpp"
#include "gpusel/cost/cost.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "rent_fixtures.hpp"

using namespace gpusel;
using namespace rent_fixtures;

TEST_CASE("rented instances are ranked by the job's cost, with its time from the throughput") {
  const RentFixture f;
  const RentalRanking r = rank_rentals(f.catalog, f.cloud, f.rules, f.rates, f.req, {});
  CHECK(r.considered == 5);
  REQUIRE_FALSE(r.options.empty());
  for (std::size_t i = 0; i < r.options.size(); ++i) {
    const RentalOption& o = r.options[i];
    INFO(o.offer->id);
    REQUIRE(o.hours);
    CHECK(*o.hours == Approx(1e9 / o.eval.tokens_per_s / 3600));
    CHECK(*o.on_demand_cost == Approx(o.on_demand_per_hour * *o.hours));
    CHECK(*o.spot_cost <= *o.on_demand_cost);
    CHECK(o.eval.config.count == o.offer->gpus_per_instance);  // the whole instance
    if (i > 0) CHECK(*r.options[i - 1].on_demand_cost <= *o.on_demand_cost);
  }
  // The CNY offer is converted at 7 CNY per USD.
  for (const auto& o : r.options)
    if (o.offer->id == "cn-4090-1x") CHECK(o.on_demand_per_hour == Approx(0.5));
}

TEST_CASE("a fixed rental length prices every offer for those hours, with storage and egress") {
  const RentFixture f;
  RentalRequest rr;
  rr.hours = 100;
  rr.storage_gb = 730;  // 730 GB for 100 h = 100 GB-months
  rr.egress_gb = 10;
  const RentalRanking r = rank_rentals(f.catalog, f.cloud, f.rules, f.rates, f.req, rr);
  const double extras = 100 * 0.08 + 10 * 0.09;
  for (const auto& o : r.options) {
    INFO(o.offer->id);
    CHECK(*o.hours == 100);
    CHECK(o.extras == Approx(extras));
    CHECK(*o.on_demand_cost == Approx(o.on_demand_per_hour * 100 + extras));
  }
  const RentalOption* h100 = nullptr;
  for (const auto& o : r.options)
    if (o.offer->id == "tc-h100-1x") h100 = &o;
  REQUIRE(h100);
  CHECK(h100->spot_published);
  CHECK(*h100->spot_cost == Approx(160 + extras));
}

TEST_CASE("tensor parallel inference uses the instance GPUs that divide the heads") {
  RentFixture f;
  ModelArch odd = test_models::llama2_7b();
  odd.heads = 28, odd.kv_heads = 4;  // Qwen2.5-7B's layout: 8 GPUs cannot split 28 heads
  f.req.workload = test_models::on(odd, Mode::inference);
  f.req.workload.engine = "vllm";
  const RentalRanking r = rank_rentals(f.catalog, f.cloud, f.rules, f.rates, f.req, {});
  bool eight = false;
  for (const auto& o : r.options) {
    INFO(o.offer->id);
    CHECK(28 % o.eval.config.count == 0);
    if (o.offer->gpus_per_instance != 8) continue;
    eight = true;
    CHECK(o.eval.config.count == 4);
  }
  CHECK(eight);
  // llama.cpp (batch 1's default) splits layers: every GPU of the instance holds some.
  f.req.workload.engine = "";
  for (const auto& o : rank_rentals(f.catalog, f.cloud, f.rules, f.rates, f.req, {}).options) {
    INFO(o.offer->id);
    CHECK(o.eval.config.count == o.offer->gpus_per_instance);
  }
}

TEST_CASE("filters and memory decide which offers are considered") {
  RentFixture f;
  f.req.filters.exclude_ids = {"h100-sxm"};
  RentalRanking r = rank_rentals(f.catalog, f.cloud, f.rules, f.rates, f.req, {});
  CHECK(r.filtered == 1);
  for (const auto& o : r.options) CHECK(o.offer->gpu != "h100-sxm");
  // 70B full fine-tuning needs far more than any single instance here has.
  f.req.filters = {};
  ModelArch big = test_models::llama2_7b();
  big.params = 70e9, big.layers = 80, big.hidden = 8192, big.heads = 64, big.kv_heads = 8;
  big.intermediate = 28672;
  f.req.workload = test_models::on(big, Mode::full);
  r = rank_rentals(f.catalog, f.cloud, f.rules, f.rates, f.req, {});
  CHECK(r.too_small >= 3);
  for (const auto& o : r.options) CHECK(o.offer->gpus_per_instance == 8);
}

TEST_CASE("offers of one card and instance size share one evaluation, the ranker's own") {
  // rank_rentals evaluates each (card, GPUs used) once for any number of offers: the shared
  // result must be what evaluating that offer's configuration on its own gives.
  RentFixture f;
  const std::size_t shipped = f.cloud.offers.size();
  for (std::size_t copy = 1; copy < 20; ++copy)
    for (std::size_t i = 0; i < shipped; ++i) {
      Offer o = f.cloud.offers[i];
      o.id += "-" + std::to_string(copy);
      if (o.on_demand_per_hour) *o.on_demand_per_hour *= 1.0 + 0.01 * static_cast<double>(copy);
      f.cloud.offers.push_back(std::move(o));
    }
  f.cloud.reindex();
  const RentalRanking r = rank_rentals(f.catalog, f.cloud, f.rules, f.rates, f.req, {});
  CHECK(r.considered == static_cast<int>(shipped * 20));
  REQUIRE(r.options.size() >= 20);
  for (const auto& o : r.options) {
    Config c = make_config(*f.catalog.find(o.offer->gpu), o.eval.config.count, f.req.workload);
    c.rented = true;
    const Result alone = evaluate(c, f.rules, f.rates, f.req);
    CHECK(o.eval.need.total_bytes == alone.need.total_bytes);
    CHECK(o.eval.tokens_per_s == alone.tokens_per_s);
    CHECK(o.eval.rules.fired == alone.rules.fired);
    CHECK(o.on_demand_per_hour ==
          Approx(convert(*o.offer->on_demand_per_hour, o.offer->currency, "USD", f.rates)));
  }
}

TEST_CASE("rank_rentals counts every fitting offer and builds only the options kept") {
  RentFixture f;
  const RentalRanking all = rank_rentals(f.catalog, f.cloud, f.rules, f.rates, f.req, {});
  REQUIRE(all.options.size() >= 3);
  CHECK(all.fitting == static_cast<int>(all.options.size()));
  const RentalRanking two = rank_rentals(f.catalog, f.cloud, f.rules, f.rates, f.req, {}, 2);
  CHECK(two.fitting == all.fitting);
  CHECK(two.considered == all.considered);
  REQUIRE(two.options.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(two.options[i].offer == all.options[i].offer);
    CHECK(two.options[i].eval.tokens_per_s == all.options[i].eval.tokens_per_s);
    CHECK(two.options[i].on_demand_cost == all.options[i].on_demand_cost);
  }
}

TEST_CASE("renting the same work as a bought configuration") {
  RentFixture f;
  const Gpu& h100 = *f.catalog.find("h100-sxm");
  const Result bought = evaluate(make_config(h100, 1, f.req.workload), f.rules, f.rates, f.req);
  auto r = rent_same_work(bought, f.cloud, f.rules, f.rates, f.req, {});
  REQUIRE(r);
  CHECK(r->offer->id == "tc-h100-1x");
  CHECK(r->instances == 1);
  CHECK(*r->hours == Approx(1e9 / r->eval.tokens_per_s / 3600));
  // Buying means the module and the HGX server it needs (data/platforms.json).
  CHECK(bought.cards_price == Approx(30000.0));
  const double server = quote_platform(default_platforms(), h100, 1, false).total_usd;
  CHECK(bought.platform_quote.platform->id == "hgx-server");
  CHECK(bought.platform_price == Approx(server));
  CHECK(*rent_hours_to_purchase(bought, *r) == Approx((30000.0 + server) / 4.0));

  // Without tokens, --hours is the bought configuration's use: the same tokens elsewhere.
  f.req.tokens.reset();
  RentalRequest rr;
  rr.hours = 10;
  const Result same = evaluate(make_config(h100, 1, f.req.workload), f.rules, f.rates, f.req);
  auto by_hours = rent_same_work(same, f.cloud, f.rules, f.rates, f.req, rr);
  CHECK(*by_hours->hours == Approx(10));  // the same GPU does the same work in the same time
}

TEST_CASE("a job too large for one instance rents as many as it needs, within --max-gpus") {
  RentFixture f;
  ModelArch big = test_models::llama2_7b();
  big.params = 70e9, big.layers = 80, big.hidden = 8192, big.heads = 64, big.kv_heads = 8;
  big.intermediate = 28672;
  f.req.workload = test_models::on(big, Mode::full);
  const RentalRanking within_8 = rank_rentals(f.catalog, f.cloud, f.rules, f.rates, f.req, {});
  for (const auto& o : within_8.options) CHECK(o.instances * o.offer->gpus_per_instance <= 8);
  // Instances join for a job only over GPUDirect RDMA (or one NVLink domain): over TCP
  // (the fixture's assumed default) nothing combines.
  f.req.max_gpus = 64;
  const RentalRanking tcp = rank_rentals(f.catalog, f.cloud, f.rules, f.rates, f.req, {});
  CHECK(tcp.fitting == within_8.fitting);
  with_rdma(f.cloud);
  const RentalRanking r = rank_rentals(f.catalog, f.cloud, f.rules, f.rates, f.req, {});
  CHECK(r.fitting > within_8.fitting);
  CHECK(r.too_small < within_8.too_small);
  bool several = false;
  for (const auto& o : r.options) {
    INFO(o.offer->id);
    CHECK(o.instances * o.offer->gpus_per_instance <= 64);
    CHECK(o.eval.config.count <= o.instances * o.offer->gpus_per_instance);
    CHECK(o.eval.need.fits_within(o.eval.usable_bytes));
    const double usd_per = o.offer->currency == "CNY" ? 1 / 7.0 : 1;
    CHECK(o.on_demand_per_hour == Approx(*o.offer->on_demand_per_hour * usd_per * o.instances));
    if (o.instances > 1) {
      several = true;
      // Separate machines: the job crosses the provider's network, named in the label.
      REQUIRE(o.eval.config.nodes);
      CHECK(o.eval.config.nodes->gpus_per_node == o.offer->gpus_per_instance);
      CHECK(o.eval.config.interconnect.find(std::to_string(o.instances) + " instances") !=
            std::string::npos);
    }
  }
  CHECK(several);
}

TEST_CASE("more GPUs than one instance has: separate instances, linked by the network") {
  RentFixture f;
  std::erase_if(f.cloud.offers, [](const Offer& o) { return o.id == "tc-a100-8x"; });
  const Gpu& a100 = *f.catalog.find("a100-80gb-sxm");
  const Result bought = evaluate(make_config(a100, 2, f.req.workload), f.rules, f.rates, f.req);
  CHECK(bought.config.linked);
  auto r = rent_same_work(bought, f.cloud, f.rules, f.rates, f.req, {});
  REQUIRE(r);
  CHECK(r->instances == 2);
  CHECK_FALSE(r->eval.config.linked);
  CHECK(r->on_demand_per_hour == Approx(4.0));
  CHECK(r->eval.tokens_per_s <= bought.tokens_per_s);
  // A GPU no one rents out.
  const Result mi =
      evaluate(make_config(*f.catalog.find("mi300x"), 1, f.req.workload), f.rules, f.rates, f.req);
  CHECK_FALSE(rent_same_work(mi, f.cloud, f.rules, f.rates, f.req, {}));
}

TEST_CASE("spot-only offers are never ranked for a job nor rent its work") {
  RentFixture f;
  const RentalRanking before = rank_rentals(f.catalog, f.cloud, f.rules, f.rates, f.req, {});
  merge_cloud(f.cloud, parse_cloud(rent_doc("cloud/spot_only.json"), "spot_only.json", true));
  // The H100 spot-only instance (1.20/h) would undercut every on-demand price.
  const RentalRanking r = rank_rentals(f.catalog, f.cloud, f.rules, f.rates, f.req, {});
  CHECK(r.spot_only == 2);
  CHECK(r.considered == before.considered + 2);
  CHECK(r.options.size() == before.options.size());
  for (const auto& o : r.options) CHECK_FALSE(o.offer->spot_only());
  const Result mi =
      evaluate(make_config(*f.catalog.find("mi300x"), 1, f.req.workload), f.rules, f.rates, f.req);
  CHECK_FALSE(rent_same_work(mi, f.cloud, f.rules, f.rates, f.req, {}));
  const Gpu& h100 = *f.catalog.find("h100-sxm");
  const Result bought = evaluate(make_config(h100, 1, f.req.workload), f.rules, f.rates, f.req);
  CHECK(rent_same_work(bought, f.cloud, f.rules, f.rates, f.req, {})->offer->id == "tc-h100-1x");
}

namespace {

// The fixture's H100 rented as 1-GPU instances over a network of `gbps` (TCP).
RentalOption eight_instances(RentFixture& f, const Result& bought, std::optional<double> gbps) {
  for (Offer& o : f.cloud.offers)
    if (o.id == "tc-h100-1x")
      o.network = gbps ? std::optional<InstanceNetwork>(
                             InstanceNetwork{*gbps, false, "test", "2026-12-01", "", true})
                       : std::nullopt;
  auto r = rent_same_work(bought, f.cloud, f.rules, f.rates, f.req, {});
  REQUIRE(r);
  return *r;
}

}  // namespace

TEST_CASE("8 one-GPU instances train over their network, not as one 8-GPU machine") {
  RentFixture f;
  f.req.workload = test_models::on(test_models::llama2_7b(), Mode::lora);
  const Gpu& h100 = *f.catalog.find("h100-sxm");
  const Result nvlink = evaluate(make_config(h100, 8, f.req.workload), f.rules, f.rates, f.req);
  REQUIRE(nvlink.config.linked);
  Config pcie = make_config(h100, 8, f.req.workload);
  pcie.linked = false;
  const Result box = evaluate(pcie, f.rules, f.rates, f.req);
  double slower = nvlink.tokens_per_s;
  for (double gbps : {25.0, 10.0}) {
    INFO(gbps);
    const RentalOption r = eight_instances(f, nvlink, gbps);
    CHECK(r.instances == 8);
    REQUIRE(r.eval.config.nodes);
    CHECK(r.eval.config.nodes->gpus_per_node == 1);
    CHECK(r.eval.config.nodes->gbps == gbps);
    CHECK_FALSE(r.eval.config.nodes->rdma);
    CHECK(r.eval.config.interconnect.find("8 instances x 1") != std::string::npos);
    // Far below one NVLink machine, below 8 PCIe cards in one box, slower on a slower network.
    CHECK(r.eval.tokens_per_s < 0.5 * nvlink.tokens_per_s);
    CHECK(r.eval.tokens_per_s < box.tokens_per_s);
    CHECK(r.eval.tokens_per_s < slower);
    slower = r.eval.tokens_per_s;
    // The same work takes longer, so the job costs the hours this speed needs.
    CHECK(*r.hours == Approx(1e9 / r.eval.tokens_per_s / 3600));
  }
  // An offer without a network of its own runs on the default, said to be assumed.
  const RentalOption assumed = eight_instances(f, nvlink, std::nullopt);
  REQUIRE(assumed.eval.config.nodes);
  CHECK(assumed.eval.config.nodes->gbps == instance_network(*assumed.offer, f.cloud.defaults).gbps);
  CHECK(assumed.eval.config.interconnect.find("(assumed)") != std::string::npos);
}

TEST_CASE("work that fits one instance is evaluated as before: one machine, no network") {
  RentFixture f;
  f.req.workload = test_models::on(test_models::llama2_7b(), Mode::lora);
  const Gpu& a100 = *f.catalog.find("a100-80gb-sxm");
  const Result bought = evaluate(make_config(a100, 8, f.req.workload), f.rules, f.rates, f.req);
  std::erase_if(f.cloud.offers, [](const Offer& o) { return o.id == "tc-a100-1x"; });
  auto r = rent_same_work(bought, f.cloud, f.rules, f.rates, f.req, {});
  REQUIRE(r);
  CHECK(r->instances == 1);
  CHECK_FALSE(r->eval.config.nodes);
  CHECK(r->eval.tokens_per_s == Approx(bought.tokens_per_s));
}

TEST_CASE("a rental is like for like: the count in the fewest whole instances, then the price") {
  RentFixture f;
  const double h = 100, m = 1;
  // The 8-GPU node made dearer than eight 1-GPU instances: 8 bought GPUs in one machine are
  // still compared with the node (one NVLink domain), not with eight machines on a network.
  for (auto& o : f.cloud.offers)
    if (o.id == "tc-a100-8x") o.on_demand_per_hour = 20.0;
  auto a100s = [&](int gpus) {
    return cheapest_rental(f.cloud, "a100-80gb-sxm", gpus, RentKind::on_demand, h, m, "USD",
                           f.rates);
  };
  auto eight = a100s(8);
  REQUIRE(eight);
  CHECK(eight->offer->id == "tc-a100-8x");
  CHECK(eight->instances == 1);
  CHECK(eight->rate_per_hour == Approx(20.0));
  // 16: two nodes, not sixteen single instances.
  auto sixteen = a100s(16);
  CHECK(sixteen->offer->id == "tc-a100-8x");
  CHECK(sixteen->instances == 2);
  // 2 GPUs never rent a node of 8: the 1-GPU instances fill the count exactly.
  auto two = a100s(2);
  CHECK(two->offer->id == "tc-a100-1x");
  CHECK(two->instances == 2);
}

TEST_CASE("a rental window near a year of use notes that a commitment costs less") {
  const RentFixture f;
  const double d = f.cloud.defaults.commit_1y_discount.value;
  REQUIRE(d > 0);
  auto noted = [&](double hours) {
    RentalRequest rr;
    rr.hours = hours;
    for (const auto& n : rental_option_notes({}, f.cloud, rr, 0, 0, "USD", ""))
      if (n.find("1-year commitment") != std::string::npos) return true;
    return false;
  };
  // A commitment at discount d beats on-demand past (1 - d) of the year's hours.
  CHECK(noted(8760));
  CHECK(noted((1 - d) * 8760 + 1));
  CHECK_FALSE(noted((1 - d) * 8760 - 1));
  CHECK_FALSE(noted(100));
}

TEST_CASE(
    "the GPU cap (--max-gpus) limits those rented as those bought, an instance counted whole") {
  RentFixture f;
  const RentalRanking all = rank_rentals(f.catalog, f.cloud, f.rules, f.rates, f.req, {});
  bool eight = false;
  for (const auto& o : all.options) eight = eight || o.offer->gpus_per_instance == 8;
  REQUIRE(eight);  // the 8-GPU A100 instance fits when nothing caps it
  for (int cap : {1, 2, 4}) {
    f.req.max_gpus = cap;
    const RentalRanking r = rank_rentals(f.catalog, f.cloud, f.rules, f.rates, f.req, {});
    INFO(cap);
    CHECK(r.filtered == all.filtered + 1);  // tc-a100-8x
    REQUIRE_FALSE(r.options.empty());
    for (const auto& o : r.options) CHECK(o.offer->gpus_per_instance * o.instances <= cap);
  }
}
