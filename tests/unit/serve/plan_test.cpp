#include <catch2/catch.hpp>

#include <cmath>

#include "gpusel/answer/answers.hpp"
#include "gpusel/data/cloud.hpp"
#include "gpusel/memory/estimator.hpp"
#include "gpusel/speed/throughput.hpp"
#include "serve_fixtures.hpp"

using namespace gpusel;
using namespace serve_fixtures;

namespace {

const Cloud& plan_cloud() {
  static const Cloud c = load_cloud({});
  return c;
}

ServeRequest request(const std::string& model, std::optional<double> rps, Precision p,
                     std::optional<double> budget = std::nullopt) {
  ServeRequest r;
  r.target.traffic = {{1000, 300}, {200, 100}};
  r.target.rps = rps;
  r.target.targets.ttft_s = 2.0, r.target.targets.tpot_s = 0.1;
  r.rank.workload = served(model, r.target.traffic, p);
  r.rank.budget = budget;
  return r;
}

ServeOption one(const std::string& gpu_id, int count, const ServeRequest& r) {
  return serve_configuration(gpu(gpu_id), count, &plan_cloud(), ranker_fixtures::rules(),
                             ranker_fixtures::rates(), r);
}

}  // namespace

TEST_CASE("plan: replicas are the target over one replica's capacity within the targets",
          "[serve]") {
  const ServeRequest r = request("llama-3.1-70b", 10, Precision::bf16);
  const ServeOption o = one("h100-sxm", 4, r);
  REQUIRE(o.capacity);
  CHECK(o.meets);
  CHECK(o.replicas == int(std::ceil(10 / o.capacity->rate - 1e-9)));
  CHECK(o.cards == 4 * o.replicas);
  CHECK(o.served.rate == Approx(10.0 / o.replicas));
  CHECK(meets(o.served, r.target.targets));
  CHECK(o.tokens_per_s == Approx(10 * 200));
}

TEST_CASE("plan: more load never needs fewer replicas", "[serve]") {
  int last = 0;
  for (double rps : {1.0, 5.0, 20.0, 80.0}) {
    const ServeOption o = one("h100-sxm", 2, request("llama-3.1-70b", rps, Precision::fp8));
    REQUIRE(o.meets);
    CHECK(o.replicas >= last);
    last = o.replicas;
  }
}

TEST_CASE("plan: bought cost = cards + platform amortised + power, rented covers every replica",
          "[serve]") {
  const ServeRequest r = request("llama-3.1-8b", 20, Precision::bf16);
  const ServeOption o = one("h100-sxm", 1, r);
  REQUIRE(o.bought.priced);
  CHECK(o.bought.price == Approx(o.bought.cards_price + o.bought.platform_price));
  // H100 SXM comes on HGX boards of 4 or 8: the replicas' cards bought as whole boards.
  CHECK(o.bought.cards_bought >= o.cards);
  CHECK(o.bought.cards_bought % 4 == 0);
  CHECK(o.bought.cards_bought < o.cards + 4);
  CHECK(o.bought.cards_price == Approx(o.eval.unit_price->amount * o.bought.cards_bought));
  const double hourly =
      o.bought.price / (3 * 8760) +
      o.bought.power_kw * serving_kwh_price("USD", ranker_fixtures::rates()).first;
  CHECK(o.bought.per_hour == Approx(hourly));
  CHECK(o.bought.per_million == Approx(hourly / (o.tokens_per_s * 3600) * 1e6));
  REQUIRE(o.rented);
  CHECK(o.rented->instances * (o.rented->offer->gpus_per_instance / 1) >= o.replicas);
}

TEST_CASE("plan: the ranking honours the budget and the filters", "[serve]") {
  ServeRequest r = request("llama-3.1-8b", 5, Precision::bf16, 60000);
  const ServePlan p = plan_serving(ranker_fixtures::catalog(), &plan_cloud(),
                                   ranker_fixtures::rules(), ranker_fixtures::rates(), r);
  REQUIRE_FALSE(p.options.empty());
  for (const auto& o : p.options) {
    CHECK(o.meets);
    CHECK(o.bought.priced);
    CHECK(o.bought.price <= 60000);
  }
  for (std::size_t i = 1; i < p.options.size(); ++i)
    CHECK(p.options[i - 1].cost(false) <= p.options[i].cost(false));
  r.rank.budget.reset();
  r.rank.filters.vendors = {"amd"};
  for (const auto& o : plan_serving(ranker_fixtures::catalog(), &plan_cloud(),
                                    ranker_fixtures::rules(), ranker_fixtures::rates(), r)
                           .options)
    CHECK(o.eval.config.gpu->vendor == "amd");
}

TEST_CASE("plan: the user's cards are split into replicas that use them all", "[serve]") {
  const ServeRequest r = request("llama-3.1-8b", 50, Precision::bf16);
  const ServeOption o = serve_cards(gpu("h100-sxm"), 4, &plan_cloud(), ranker_fixtures::rules(),
                                    ranker_fixtures::rates(), r);
  CHECK(o.replicas * o.replica.count == 4);
  CHECK(o.cards == 4);
  if (!o.meets) CHECK(o.replicas_needed > o.replicas);
}

TEST_CASE("plan: replicas are laid out as the serving engine lays a model out", "[serve]") {
  // Qwen2.5 7B has 28 heads: vLLM's tensor parallelism splits them over 2 or 4 cards, not 8,
  // whatever engine a batch-1 check would default to (llama.cpp, by layers).
  const ServeRequest r = request("qwen2.5-7b", 5, Precision::bf16);
  const ServePlan p = plan_serving(ranker_fixtures::catalog(), &plan_cloud(),
                                   ranker_fixtures::rules(), ranker_fixtures::rates(), r);
  REQUIRE_FALSE(p.options.empty());
  int split = 0;
  for (const auto& o : p.options) {
    CAPTURE(o.eval.config.gpu->id, o.eval.config.count);
    REQUIRE(o.engine);
    if (o.engine->name != "vllm" || o.eval.config.count == 1) continue;
    ++split;
    CHECK(28 % o.eval.config.count == 0);
    CHECK(o.eval.config.shard == Shard::tp);
  }
  CHECK(split > 0);  // multi-card vLLM replicas were ranked: the checks above ran
  const ServeOption eight = serve_cards(gpu("h100-sxm"), 8, &plan_cloud(), ranker_fixtures::rules(),
                                        ranker_fixtures::rates(), r);
  CHECK(28 % eight.replica.count == 0);
  CHECK(eight.replicas * eight.replica.count == 8);
}

TEST_CASE("plan: more consumer cards than one machine holds serve as separate replicas",
          "[serve]") {
  // Consumer cards cluster over no network: 16 RTX 3090s are replicas of at most a machine's
  // 8, never one 16-card configuration (which would be a usage error).
  const ServeRequest r = request("llama-3.1-8b", 50, Precision::bf16);
  const Gpu& g = gpu("rtx-3090");
  REQUIRE_FALSE(gangs(g, 16));
  const ServeOption o =
      serve_cards(g, 16, &plan_cloud(), ranker_fixtures::rules(), ranker_fixtures::rates(), r);
  CHECK(o.replica.count <= 8);
  CHECK(o.replicas * o.replica.count == 16);
}

TEST_CASE("plan: an engine that does not run on the card is reported, not estimated", "[serve]") {
  ServeRequest r = request("llama-3.1-8b", 1, Precision::bf16);
  r.target.engine = "tensorrt-llm";
  const ServeOption o = one("mi300x", 1, r);
  CHECK(o.engine == nullptr);
  CHECK_FALSE(o.meets);
  CHECK(o.why_not.find("does not run") != std::string::npos);
}

TEST_CASE("plan: a replica's per-card need is check's for the same flags and engine", "[serve]") {
  for (const auto& [model, count] : {std::pair{"llama-3.1-70b", 4}, std::pair{"llama-3.1-8b", 1},
                                     std::pair{"mixtral-8x7b", 2}}) {
    ServeRequest r = request(model, 5, Precision::bf16);
    const Gpu& g = gpu("h100-sxm");
    const ServeOption o = one("h100-sxm", count, r);
    REQUIRE(o.engine);
    // serve runs its serving engine (vLLM here): check with --engine vllm lays the model out
    // the same way (tensor parallel), where check's batch-1 default, llama.cpp, splits layers.
    r.rank.workload.engine = o.engine->name;
    const Sources src{ranker_fixtures::catalog(), [] { return &plan_cloud(); },
                      ranker_fixtures::rules(), ranker_fixtures::rates()};
    const CheckAnswer c = check(src, r.rank, g, count);
    CAPTURE(model, count);
    CHECK(o.eval.need.total_bytes == Approx(c.result.need.total_bytes));
    const Estimate per_card = estimate(workload_for(o.eval.config, r.rank));
    CHECK(o.replica.weight_bytes ==
          Approx(per_card.bytes_of("weights") + per_card.bytes_of("quantization_state")));
    CHECK(o.replica.weight_bytes ==
          Approx(c.result.need.bytes_of("weights") + c.result.need.bytes_of("quantization_state")));
  }
}

TEST_CASE("plan: a replica must hold one request in flight within the targets", "[serve]") {
  // A 70B FP8 service with a TTFT target near the slower cards' unloaded floor: such a card
  // meets it only while nearly idle, and its replicas would multiply into thousands of cards.
  ServeRequest r = request("llama-3.1-70b", 5, Precision::fp8);
  r.target.traffic = {{2000, 0}, {300, 0}};
  r.rank.workload = served("llama-3.1-70b", r.target.traffic, Precision::fp8);
  r.target.targets.ttft_s = 1.5, r.target.targets.tpot_s = 0.06;
  const ServePlan p = plan_serving(ranker_fixtures::catalog(), &plan_cloud(),
                                   ranker_fixtures::rules(), ranker_fixtures::rates(), r);
  REQUIRE_FALSE(p.options.empty());
  for (const auto& o : p.options) {
    CAPTURE(o.eval.config.gpu->id, o.eval.config.count);
    REQUIRE(o.capacity);
    CHECK(o.capacity->users >= 1);
    CHECK(o.replicas <= 64);  // 5 req/s of 70B: a few nodes, never a fleet of thousands
  }
  bool floor = false;
  for (const auto& o : p.too_slow)
    floor = floor || o.why_not.find("one request in flight") != std::string::npos;
  CHECK(floor);
}

TEST_CASE("plan: ranked by rent, configurations nobody rents out come after every rented one",
          "[serve]") {
  ServeRequest r = request("llama-3.1-70b", 5, Precision::fp8);
  r.target.rank_by_rent = true;
  const ServePlan p = plan_serving(ranker_fixtures::catalog(), &plan_cloud(),
                                   ranker_fixtures::rules(), ranker_fixtures::rates(), r);
  bool unrented = false;
  for (const auto& o : p.options) {
    const bool rented = o.rented && o.rented->per_million > 0;
    if (!rented) unrented = true;
    if (unrented) CHECK_FALSE(rented);
  }
}

TEST_CASE("plan: nothing meets a target below every card's latency floor", "[serve]") {
  ServeRequest r = request("llama-3.1-70b", 10, Precision::bf16);
  r.target.targets.tpot_s = 0.0005;  // below any card's weight read time
  const ServePlan p = plan_serving(ranker_fixtures::catalog(), &plan_cloud(),
                                   ranker_fixtures::rules(), ranker_fixtures::rates(), r);
  CHECK(p.options.empty());
  CHECK(p.counts.too_slow > 0);
  for (const auto& o : p.too_slow) CHECK_FALSE(o.capacity);
}
