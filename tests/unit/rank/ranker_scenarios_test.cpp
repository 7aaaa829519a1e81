// The articles' buyer profiles (KNOWLEDGE K32-K35) and the rules a ranking must carry, run
// over the shipped catalog, rules and rates.
#include <algorithm>
#include <catch2/catch.hpp>

#include "ranker_fixtures.hpp"

using namespace gpusel;
using namespace ranker_fixtures;

namespace {

bool is_24_to_32gb_geforce(const Result& r) {
  const Gpu& g = *r.config.gpu;
  return g.vendor == "nvidia" && g.segment == "consumer" && g.vram_gb >= 24 && g.vram_gb <= 32;
}

int count_huawei(const Catalog& c) {
  return int(std::count_if(c.gpus.begin(), c.gpus.end(),
                           [](const Gpu& g) { return g.vendor == "huawei"; }));
}

}  // namespace

TEST_CASE("K32: a 7B LoRA on 15000 USD puts a 24-32 GB GeForce in the top 3") {
  const Ranking r = run(request(bare_7b_lora(), 15000));
  REQUIRE(r.results.size() >= 3);
  const auto top3 = std::vector<Result>(r.results.begin(), r.results.begin() + 3);
  const auto hit = std::find_if(top3.begin(), top3.end(), is_24_to_32gb_geforce);
  REQUIRE(hit != top3.end());
  CHECK(hit->config.count == 1);
  const std::set<std::string> cls = {"rtx-3090",   "rtx-3090-ti", "rtx-4090",
                                     "rtx-4090-d", "rtx-5090",    "rtx-5090-d"};
  CHECK(cls.count(hit->config.gpu->id) == 1);
  CHECK(hit->price <= 15000);
  CHECK(hit->headroom > 0.1);  // fits comfortably, not at the edge
  // And the winner is one card, not a rack: a 7B LoRA needs no multi-GPU server.
  CHECK(r.results[0].config.count <= 2);
}

TEST_CASE("a 70B full fine-tune ranks linked multi-GPU datacenter configurations first") {
  const Ranking r = run(request(preset("llama-3.1-70b", Mode::full)));
  REQUIRE(r.results.size() >= 5);
  // At most one PCIe server among the first five (a value pick: an 8-card PCIe box at a
  // third of the price and, its weight gathers exposed over PCIe, a third of the speed), and
  // then flagged and slower than every linked one.
  int unlinked = 0;
  double slowest_linked = 1e300;
  for (std::size_t i = 0; i < 5; ++i)
    if (r.results[i].config.linked)
      slowest_linked = std::min(slowest_linked, r.results[i].tokens_per_s);
  for (std::size_t i = 0; i < 5; ++i) {
    const Result& res = r.results[i];
    CAPTURE(i, res.config.gpu->id, res.config.count);
    CHECK(res.config.count >= 4);
    CHECK(res.config.shard == Shard::fsdp);
    if (!res.config.linked) {
      ++unlinked;
      CHECK(fired(res, "k17-pcie-multi-gpu-training"));
      CHECK(res.tokens_per_s < slowest_linked);
      continue;
    }
    CHECK(res.config.gpu->segment == "datacenter");
    CHECK(fired(res, "k17-nvlink-multi-gpu-training"));
    CHECK_FALSE(fired(res, "k17-pcie-multi-gpu-training"));
  }
  CHECK(unlinked <= 1);
  CHECK(r.results[0].config.linked);
  // No consumer or single card holds it at all.
  for (const auto& res : r.results) {
    CAPTURE(res.config.gpu->id, res.config.count);
    CHECK(res.config.gpu->segment != "consumer");
    CHECK(res.config.count > 1);
  }
}

TEST_CASE("K34: a domestic requirement yields only Ascend, with its warnings") {
  for (const auto& [name, w] : property_workloads()) {
    if (w.mode == Mode::qlora) continue;  // bitsandbytes has no Ascend backend: nothing left
    CAPTURE(name);
    RankRequest q = request(w);
    q.domestic = true;
    const Ranking r = run(q);
    REQUIRE_FALSE(r.results.empty());
    for (const auto& res : r.results) {
      CAPTURE(res.config.gpu->id, res.config.count);
      CHECK(res.config.gpu->vendor == "huawei");
      CHECK(has_message(res.rules.warnings, "k23-ascend-cann"));
      CHECK(has_message(res.rules.notes, "k34-domestic-ascend"));
    }
    CHECK(r.rejected.by_rule.at("k34-domestic-not-huawei") > 0);
    // Besides the mandate, only the board rule: Ascend 910B modules come 8 to an Atlas 800.
    for (const auto& [rule, n] : r.rejected.by_rule)
      CHECK((rule == "k34-domestic-not-huawei" || rule == "whole-boards-only"));
  }
  // Without the mandate the same request ranks other vendors above Ascend.
  const Ranking open = run(request(bare_7b_lora()));
  CHECK(open.results[0].config.gpu->vendor != "huawei");
  CHECK(count_huawei(catalog()) >= 2);
}

TEST_CASE("a domestic QLoRA has no answer: Ascend lacks bitsandbytes") {
  RankRequest q = request(preset("qwen2.5-72b", Mode::qlora));
  q.domestic = true;
  const Ranking r = run(q);
  CHECK(r.results.empty());
  CHECK(r.rejected.by_rule.at("k34-domestic-not-huawei") > 0);
  CHECK(r.rejected.by_rule.at("bnb-ascend-unsupported") > 0);
}

TEST_CASE("QLoRA never ranks an Ascend card and warns on ROCm") {
  for (const Workload& w : {preset("qwen2.5-72b", Mode::qlora), [] {
                              Workload b = bare_7b_lora();
                              b.mode = Mode::qlora;
                              return b;
                            }()}) {
    for (std::optional<double> budget : {std::optional<double>{}, {50000.0}}) {
      CAPTURE(w.model.params, budget.value_or(-1));
      const Ranking r = run(request(w, budget));
      int rocm = 0;
      for (const auto* list : {&r.results, &r.over_budget})
        for (const auto& res : *list) {
          CAPTURE(res.config.gpu->id, res.config.count);
          CHECK(res.config.gpu->ecosystem != "cann");
          if (res.config.gpu->ecosystem != "rocm") continue;
          ++rocm;
          CHECK(has_message(res.rules.warnings, "bnb-rocm-recent-backend"));
        }
      CHECK(rocm > 0);
      // Only priced configurations meet a budget, and no Ascend card has a price.
      if (!budget) CHECK(r.rejected.by_rule.at("bnb-ascend-unsupported") > 0);
    }
  }
  // The same model in LoRA ranks Ascend: the exclusion is QLoRA's, not the card's.
  const Ranking lora = run(request(preset("qwen2.5-72b", Mode::lora)));
  CHECK(std::any_of(lora.results.begin(), lora.results.end(),
                    [](const Result& r) { return r.config.gpu->ecosystem == "cann"; }));
  CHECK(lora.rejected.by_rule.count("bnb-ascend-unsupported") == 0);
}

TEST_CASE("an Apple GPU is never in a multi-card configuration") {
  int apple = 0;
  for (const auto& [name, w] : property_workloads()) {
    CAPTURE(name);
    const Ranking r = run(request(w));
    for (const auto& res : r.results) {
      if (res.config.gpu->vendor != "apple") continue;
      ++apple;
      CAPTURE(res.config.gpu->id);
      CHECK(res.config.count == 1);
      CHECK(res.config.interconnect == "unified memory");
      CHECK(has_message(res.rules.notes, "apple-no-cuda"));
    }
    CHECK(r.rejected.by_rule.count("apple-one-gpu-per-machine") == 0);
  }
  CHECK(apple >= 3);
}

TEST_CASE("K27: a single consumer card of 450 W or more carries the power note") {
  int noted = 0;
  for (const auto& [name, w] : property_workloads()) {
    for (std::optional<double> budget : {std::optional<double>{}, {15000.0}}) {
      CAPTURE(name, budget.value_or(-1));
      for (const auto& res : run(request(w, budget)).results) {
        const Gpu& g = *res.config.gpu;
        CAPTURE(g.id, res.config.count);
        const bool hot = g.segment == "consumer" && g.tdp_w >= 450;
        CHECK(has_message(res.rules.notes, "k27-high-power-consumer-card") ==
              (hot && res.config.count == 1));
        CHECK(has_message(res.rules.warnings, "k27-two-high-power-consumer-cards") ==
              (hot && res.config.count == 2));
        noted += hot && res.config.count == 1;
      }
    }
  }
  CHECK(noted > 0);
  // The RTX 4090 itself, for the canonical 7B LoRA.
  const Ranking r = run(request(bare_7b_lora(), 15000));
  const auto it = std::find_if(r.results.begin(), r.results.end(), [](const Result& x) {
    return x.config.gpu->id == "rtx-4090" && x.config.count == 1;
  });
  REQUIRE(it != r.results.end());
  CHECK(has_message(it->rules.notes, "k27-high-power-consumer-card"));
}

TEST_CASE("K31: a consumer card charged at its used price carries the used-card warning") {
  for (bool new_only : {false, true}) {
    CAPTURE(new_only);
    RankRequest q = request(bare_7b_lora(), 15000);
    q.price.new_only = new_only;
    int used = 0;
    for (const auto& res : run(q).results) {
      CAPTURE(res.config.gpu->id, res.config.count);
      REQUIRE(res.unit_price);
      // Mining wear and flashed firmware are a discrete card's history, not a Mac's, and not
      // one launched after Ethereum left proof of work (September 2022).
      const bool consumer_used = res.unit_price->used && res.config.gpu->segment == "consumer" &&
                                 res.config.gpu->form_factor == "pcie" &&
                                 res.config.gpu->launch_year <= 2022;
      CHECK(has_message(res.rules.warnings, "k31-used-card") == consumer_used);
      used += res.unit_price->used;
    }
    if (new_only)
      CHECK(used == 0);
    else
      CHECK(used > 0);
  }
  // The RTX 3090 sells used only now: its used price, and its MSRP with --new-only; the
  // configuration adds the desktop it needs.
  const Gpu& g = require_gpu(catalog(), "rtx-3090");
  RankRequest q = request(bare_7b_lora(), 15000);
  const Result used = evaluate(make_config(g, 1, q.workload), rules(), rates(), q);
  REQUIRE(used.unit_price);
  CHECK(used.unit_price->used);
  CHECK(used.unit_price->from->kind == "used");
  CHECK(used.cards_price == used.unit_price->amount);
  CHECK(used.price == Approx(used.cards_price + used.platform_price));
  CHECK(used.platform_quote.platform->id == "desktop");
  CHECK(has_message(used.rules.warnings, "k31-used-card"));
  q.price.new_only = true;
  const Result fresh = evaluate(make_config(g, 1, q.workload), rules(), rates(), q);
  REQUIRE(fresh.unit_price);
  CHECK(fresh.unit_price->from->kind == "msrp");
  CHECK(fresh.cards_price == 1499);
  CHECK_FALSE(has_message(fresh.rules.warnings, "k31-used-card"));
}

TEST_CASE("BF16 and FP8 are facts of the architecture, not of a printed rate") {
  // The RTX 5090 D's limits are printed only as FP4 TOPS, DGX Spark's GB10 likewise: both are
  // Blackwell, with BF16 and FP8 tensor math. Volta and Turing have neither.
  RankRequest q = request(bare_7b_lora(), 15000);
  for (const auto& [id, has] :
       {std::pair{"rtx-5090-d", true}, std::pair{"dgx-spark", true}, std::pair{"rtx-4090", true},
        std::pair{"t4", false}, std::pair{"v100-sxm2-32gb", false}}) {
    CAPTURE(id);
    const Gpu& g = require_gpu(catalog(), id);
    const Result r = evaluate(make_config(g, 1, q.workload), rules(), rates(), q);
    CHECK(has_message(r.rules.warnings, "bf16-unsupported") == !has);
  }
}

TEST_CASE("cards sold only in mainland China are bought only there") {
  for (const auto& [name, w] : property_workloads()) {
    CAPTURE(name);
    RankRequest q = request(w);
    q.keep_passed = true;
    const Ranking global = run(q);
    for (const auto& res : global.passed) CHECK(res.config.gpu->market.empty());
    q.market = "cn";
    const Ranking cn = run(q);
    CHECK(cn.rejected.by_rule.count("china-market-sku") == 0);
    if (global.rejected.by_rule.count("china-market-sku") == 0) continue;
    // What the global buyer lost is back for the buyer in China.
    CHECK(cn.fitting > global.fitting);
  }
  int china_only = 0;
  for (const Gpu& g : catalog().gpus) china_only += g.market == "cn";
  CHECK(china_only >= 6);
}
