// The ranker: which configurations a card is offered in, and properties every ranking over
// the shipped catalog must keep (budget monotonicity, fit, budget, filters; currency in
// ranker_currency_test.cpp).
#include <algorithm>

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <map>
#include "gpusel/memory/reserve.hpp"

#include "ranker_fixtures.hpp"

using namespace gpusel;
using namespace ranker_fixtures;

namespace {

Gpu make_card(const std::string& segment, const std::string& form, const std::string& link_kind,
              int link_max) {
  Gpu g;
  g.id = "test-card";
  g.segment = segment;
  g.form_factor = form;
  g.interconnect = {link_kind, link_kind == "none" ? 0.0 : 600.0, link_max};
  g.pcie_gen = 4;
  g.pcie_lanes = 16;
  return g;
}

std::vector<int> gpu_counts(const std::vector<Config>& cs) {
  std::vector<int> out;
  for (const auto& c : cs) out.push_back(c.count);
  return out;
}

Workload training() { return bare_7b_lora(); }
Workload inference() {
  Workload w = bare_7b_lora();
  w.mode = Mode::inference;
  return w;
}

}  // namespace

TEST_CASE("configurations: consumer boards take two cards at most (K18)") {
  const Gpu bridged = make_card("consumer", "pcie", "nvlink-bridge", 2);
  CHECK(gpu_counts(configurations(bridged, 8, training())) == std::vector<int>{1, 2});
  const Gpu plain = make_card("consumer", "pcie", "none", 1);
  CHECK(gpu_counts(configurations(plain, 8, training())) == std::vector<int>{1, 2});
  CHECK(gpu_counts(configurations(plain, 1, training())) == std::vector<int>{1});
}

TEST_CASE("configurations: an Apple SoC is one GPU, whatever max_gpus") {
  Gpu mac = make_card("workstation", "soc", "none", 1);
  mac.unified_memory = true;
  const auto cs = configurations(mac, 8, inference());
  REQUIRE(cs.size() == 1);
  CHECK(cs[0].count == 1);
  CHECK(cs[0].interconnect == "unified memory");
  CHECK(cs[0].shard == Shard::none);
}

TEST_CASE("configurations: a laptop GPU is one per machine, whatever max_gpus") {
  const Gpu laptop = make_card("consumer", "mobile", "none", 1);
  CHECK(gpu_counts(configurations(laptop, 8, training())) == std::vector<int>{1});
  CHECK(gpu_counts(configurations(laptop, 8, inference())) == std::vector<int>{1});
}

TEST_CASE("configurations: counts 1, 2, 4, 8 up to max_gpus") {
  const Gpu dc = make_card("datacenter", "sxm", "nvlink", 8);
  CHECK(gpu_counts(configurations(dc, 8, training())) == std::vector<int>{1, 2, 4, 8});
  CHECK(gpu_counts(configurations(dc, 7, training())) == std::vector<int>{1, 2, 4});
  CHECK(gpu_counts(configurations(dc, 4, training())) == std::vector<int>{1, 2, 4});
  CHECK(gpu_counts(configurations(dc, 3, training())) == std::vector<int>{1, 2});
  CHECK(gpu_counts(configurations(dc, 1, training())) == std::vector<int>{1});
  const Gpu ws = make_card("workstation", "pcie", "none", 1);
  CHECK(gpu_counts(configurations(ws, 8, training())) == std::vector<int>{1, 2, 4, 8});
}

TEST_CASE("configurations: linked only within the interconnect's group") {
  const Gpu pair = make_card("datacenter", "pcie", "nvlink-bridge", 2);
  const auto cs = configurations(pair, 8, training());
  REQUIRE(gpu_counts(cs) == std::vector<int>{1, 2, 4, 8});
  CHECK_FALSE(cs[0].linked);
  CHECK(cs[0].interconnect == "-");
  CHECK(cs[1].linked);
  CHECK(cs[1].interconnect == "nvlink-bridge 600 GB/s");
  CHECK_FALSE(cs[2].linked);
  CHECK(cs[2].interconnect == "PCIe 4.0 x16");
  CHECK_FALSE(cs[3].linked);

  const Gpu quad = make_card("datacenter", "oam", "infinity-fabric", 4);
  const auto qs = configurations(quad, 8, training());
  CHECK(qs[1].linked);
  CHECK(qs[2].linked);
  CHECK_FALSE(qs[3].linked);

  const Gpu none = make_card("workstation", "pcie", "none", 1);
  for (const auto& c : configurations(none, 8, training())) CHECK_FALSE(c.linked);
}

TEST_CASE("configurations: training shards FSDP, inference as its engine splits, one card none") {
  const Gpu dc = make_card("datacenter", "sxm", "nvlink", 8);
  for (const auto& c : configurations(dc, 8, training()))
    CHECK(c.shard == (c.count == 1 ? Shard::none : Shard::fsdp));
  // Several cards run the batched engine (vLLM) tensor parallel, at batch 1 too; llama.cpp
  // (named, or for GGUF weights) splits layers.
  Workload batched = inference();
  batched.batch = 8;
  for (const Workload& w : {batched, inference()})
    for (const auto& c : configurations(dc, 8, w))
      CHECK(c.shard == (c.count == 1 ? Shard::none : Shard::tp));
  Workload llama = inference();
  llama.engine = "llama.cpp";
  for (const auto& c : configurations(dc, 8, llama)) CHECK(c.shard == Shard::none);
  Workload q = training();
  q.mode = Mode::qlora;
  CHECK(make_config(dc, 4, q).shard == Shard::fsdp);
}

TEST_CASE("configurations over the shipped catalog keep the platform limits") {
  for (const auto& g : catalog().gpus) {
    CAPTURE(g.id);
    for (const auto& c : configurations(g, 8, training())) {
      CHECK(c.gpu == &g);
      if (g.segment == "consumer") CHECK(c.count <= 2);
      if (g.unified_memory) CHECK(c.count == 1);
      CHECK(c.linked ==
            (c.count > 1 && g.interconnect.kind != "none" && c.count <= g.interconnect.max_gpus));
    }
  }
  // The catalog has cards of each kind, so the loop above is not vacuous.
  CHECK(configurations(require_gpu(catalog(), "rtx-3090"), 8, training())[1].linked);
  CHECK(configurations(require_gpu(catalog(), "h100-sxm"), 8, training()).size() == 4);
  CHECK(configurations(require_gpu(catalog(), "apple-m3-ultra"), 8, training()).size() == 1);
}

// ---- properties over the shipped catalog, for each workload ----

namespace {

// Every configuration rank() may show for `q`, before it keeps per card only the best-scoring
// and the fewest-cards configuration: fits, not excluded by a rule, priced within budget.
std::set<Pair> admissible(const RankRequest& q) {
  std::set<Pair> out;
  for (const auto& g : catalog().gpus)
    for (const auto& c : configurations(g, q.max_gpus, q.workload)) {
      const Result r = evaluate(c, rules(), rates(), q);
      if (!r.need.fits_within(r.usable_bytes) || r.rules.excluded) continue;
      if (q.budget && (!r.unit_price || r.price > *q.budget)) continue;
      out.insert({g.id, c.count});
    }
  return out;
}

std::set<std::string> cards(const std::set<Pair>& ps) {
  std::set<std::string> out;
  for (const auto& p : ps) out.insert(p.first);
  return out;
}

std::map<std::string, int> fewest(const std::vector<Result>& rs) {
  std::map<std::string, int> out;
  for (const auto& r : rs) {
    auto [it, fresh] = out.try_emplace(r.config.gpu->id, r.config.count);
    if (!fresh) it->second = std::min(it->second, r.config.count);
  }
  return out;
}

}  // namespace

// rank() shows per card its best-scoring count and its fewest cards, so a (gpu, count) shown
// at B can give way to a larger count of the same card at 2B (4x rtx-a4000 at 5000 USD for a
// 7B LoRA becomes 8x at 10000): monotone are the admissible configurations, the cards shown
// and each card's smallest configuration.
TEST_CASE("raising the budget never removes a configuration or a card") {
  for (const auto& [name, w] : property_workloads()) {
    for (double budget : {2000.0, 5000.0, 15000.0, 60000.0, 250000.0}) {
      CAPTURE(name, budget);
      const RankRequest q_lo = request(w, budget), q_hi = request(w, 2 * budget);
      const std::set<Pair> all_lo = admissible(q_lo), all_hi = admissible(q_hi);
      CHECK(std::includes(all_hi.begin(), all_hi.end(), all_lo.begin(), all_lo.end()));
      const Ranking lo = run(q_lo), hi = run(q_hi);
      const std::set<Pair> shown_lo = pairs(lo.results);
      CHECK(std::includes(all_lo.begin(), all_lo.end(), shown_lo.begin(), shown_lo.end()));
      CHECK(cards(lo.results) == cards(all_lo));  // no card is lost to the per-card pruning
      const auto lo_cards = cards(lo.results), hi_cards = cards(hi.results);
      CHECK(std::includes(hi_cards.begin(), hi_cards.end(), lo_cards.begin(), lo_cards.end()));
      const auto few_lo = fewest(lo.results), few_hi = fewest(hi.results);
      for (const auto& [id, n] : few_lo) {
        CAPTURE(id);
        CHECK(few_hi.at(id) == n);  // cheaper counts were already within the lower budget
      }
      CHECK(lo.candidates == hi.candidates);
    }
  }
}

TEST_CASE("every result fits its cards and its budget, every rejection is over it") {
  for (const auto& [name, w] : property_workloads()) {
    int shown = 0;
    for (std::optional<double> budget : {std::optional<double>{}, {3000.0}, {400000.0}}) {
      CAPTURE(name, budget.value_or(-1));
      const Ranking r = run(request(w, budget));
      shown += int(r.results.size());
      // 3000 USD buys no configuration that trains a 70B model in full.
      if (budget != 3000.0 || name != "llama-3.1-70b full") REQUIRE_FALSE(r.results.empty());
      for (const auto& res : r.results) {
        CAPTURE(res.config.gpu->id, res.config.count);
        CHECK(res.need.fits_within(res.usable_bytes));
        CHECK(res.headroom >= 0);
        // the reserve of the engine that runs it on that card (llama.cpp's 1 GiB margin, else
        // 10 %)
        const Gpu& g = *res.config.gpu;
        CHECK(res.usable_bytes ==
              usable_bytes(g, engine_reserve(on_card(g, res.config.count, w), g, {})));
        CHECK_FALSE(res.rules.excluded);
        if (!budget) continue;
        REQUIRE(res.unit_price.has_value());
        CHECK(res.price <= *budget);
        CHECK(res.cards_price == Approx(res.unit_price->amount * res.config.count));
        CHECK(res.price == Approx(res.cards_price + res.platform_price));
      }
      for (const auto& o : r.over_budget) {
        REQUIRE(budget.has_value());
        CHECK(o.price > *budget);
        CHECK(o.need.fits_within(o.usable_bytes));
      }
      const Rejections& rej = r.rejected;
      const int kept_or_pruned = r.candidates - rej.too_small - rej.over_budget - rej.no_price -
                                 rej.excluded_by_rule - rej.filtered;
      CHECK(kept_or_pruned >= int(r.results.size()));
      if (budget) CHECK(r.rejected.over_budget >= int(r.over_budget.size()));
    }
    CHECK(shown > 0);
  }
}

namespace {

struct FilterCase {
  std::string label;
  std::function<void(Filters&)> set;
  std::function<bool(const Result&)> holds;
};

std::vector<FilterCase> filter_cases() {
  auto is = [](auto field, std::set<std::string> ok) {
    return [=](const Result& r) { return ok.count(field(*r.config.gpu)) == 1; };
  };
  auto vendor = [](const Gpu& g) { return g.vendor; };
  return {
      {"vendor", [](Filters& f) { f.vendors = {"amd"}; }, is(vendor, {"amd"})},
      {"vendor, any case",
       [](Filters& f) {
         f.vendors = {"AMD", "Nvidia"};
       },
       is(vendor, {"amd", "nvidia"})},
      {"segment", [](Filters& f) { f.segments = {"datacenter"}; },
       is([](const Gpu& g) { return g.segment; }, {"datacenter"})},
      {"ecosystem",
       [](Filters& f) {
         f.ecosystems = {"rocm", "synapseai"};
       },
       is([](const Gpu& g) { return g.ecosystem; }, {"rocm", "synapseai"})},
      {"min_vram", [](Filters& f) { f.min_vram_gb = 90; },
       [](const Result& r) { return r.config.gpu->vram_gb >= 90; }},
      {"exclude",
       [](Filters& f) {
         f.exclude_ids = {"h100-sxm", "rtx-4090", "mi300x"};
       },
       [](const Result& r) {
         const std::string& id = r.config.gpu->id;
         return id != "h100-sxm" && id != "rtx-4090" && id != "mi300x";
       }},
      {"require_interconnect", [](Filters& f) { f.require_interconnect = true; },
       [](const Result& r) { return r.config.count == 1 || r.config.linked; }},
  };
}

}  // namespace

TEST_CASE("every candidate is counted once: passed or rejected for one reason") {
  for (const auto& [name, w] : property_workloads()) {
    for (std::optional<double> budget : {std::optional<double>{}, {3000.0}}) {
      CAPTURE(name, budget.value_or(-1));
      RankRequest q = request(w, budget);
      q.filters.vendors = {"nvidia"};
      const Ranking r = run(q);
      const Rejections& x = r.rejected;
      CHECK(r.fitting + x.too_small + x.over_budget + x.no_price + x.excluded_by_rule +
                x.filtered ==
            r.candidates);
      CHECK(int(r.results.size()) <= r.fitting);
      // Scores are measured against the best of everything that passed, ranked or not.
      for (const auto& res : r.results) {
        CHECK(res.scores.speed <= res.scores.best_speed);
        CHECK(res.scores.best_speed == r.results.front().scores.best_speed);
      }
    }
  }
}

TEST_CASE("only a plot's ranking keeps a copy of every fitting configuration") {
  // A catalog of 100,000 cards fits ~100,000 configurations: recommend shows ten of them and
  // does not copy them all for a plot it does not draw.
  RankRequest q = request(property_workloads().front().workload, std::nullopt);
  const Ranking plain = run(q);
  REQUIRE(plain.fitting > 0);
  CHECK(plain.passed.empty());
  q.keep_passed = true;
  const Ranking kept = run(q);
  CHECK(int(kept.passed.size()) == kept.fitting);
  CHECK(kept.results.size() == plain.results.size());
}

TEST_CASE("filters are honoured") {
  std::map<std::string, int> bites;  // filter -> workloads whose open ranking it changes
  for (const auto& [name, w] : property_workloads()) {
    const Ranking open = run(request(w));
    for (const auto& fc : filter_cases()) {
      CAPTURE(name, fc.label);
      RankRequest q = request(w);
      fc.set(q.filters);
      const Ranking r = run(q);
      REQUIRE_FALSE(r.results.empty());
      bites[fc.label] += !std::all_of(open.results.begin(), open.results.end(), fc.holds);
      for (const auto& res : r.results) {
        CAPTURE(res.config.gpu->id, res.config.count);
        CHECK(fc.holds(res));
      }
      CHECK(r.rejected.filtered > open.rejected.filtered);
      CHECK(r.candidates == open.candidates);
    }
  }
  // Not vacuous: each filter removes results the open ranking shows, for most workloads.
  for (const auto& fc : filter_cases()) {
    CAPTURE(fc.label);
    CHECK(bites[fc.label] >= 2);
  }
}

TEST_CASE("require_interconnect removes exactly the unlinked multi-card candidates") {
  const Workload w = preset("llama-3.1-70b", Mode::full);
  RankRequest q = request(w);
  const Ranking open = run(q);
  q.filters.require_interconnect = true;
  const Ranking linked = run(q);
  int unlinked = 0;
  for (const auto& g : catalog().gpus)
    for (const auto& c : configurations(g, 8, w)) unlinked += c.count > 1 && !c.linked;
  CHECK(unlinked > 0);
  CHECK(linked.rejected.filtered == open.rejected.filtered + unlinked);
  CHECK(linked.candidates == open.candidates);
}

TEST_CASE("max_gpus bounds every result") {
  for (const auto& [name, w] : property_workloads()) {
    CAPTURE(name);
    RankRequest q = request(w);
    q.max_gpus = 2;
    const Ranking r = run(q);
    for (const auto& res : r.results) CHECK(res.config.count <= 2);
  }
}
