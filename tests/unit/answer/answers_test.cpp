// Properties of the command answers: every suggestion honours every filter, a budget is never
// exceeded by cards + platform, and the same flags give the same per-GPU need everywhere.
#include "gpusel/answer/answers.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/memory/fit.hpp"
#include "ranker_fixtures.hpp"

using namespace ranker_fixtures;

namespace {

const Cloud& cloud() {
  static const Cloud c = load_cloud({});
  return c;
}

Sources sources() {
  return {catalog(), [] { return &cloud(); }, rules(), rates()};
}

struct Filtered {
  std::string name;
  RankRequest request;
};

// Requests that nothing satisfies as asked, under each kind of filter.
std::vector<Filtered> tight_requests() {
  std::vector<Filtered> out;
  auto add = [&](const std::string& name, Workload w, double budget, auto edit) {
    RankRequest r = request(w, budget);
    edit(r);
    out.push_back({name, r});
  };
  const Workload big = preset("llama-3.1-70b", Mode::lora);
  add("70B LoRA, 1,000 USD", big, 1000, [](RankRequest&) {});
  add("70B LoRA, 3,000 USD, AMD only", big, 3000,
      [](RankRequest& r) { r.filters.vendors = {"amd"}; });
  add("70B LoRA, 5,000 USD, consumer only", big, 5000,
      [](RankRequest& r) { r.filters.segments = {"consumer"}; });
  add("70B LoRA, 20,000 USD, domestic", big, 20000, [](RankRequest& r) { r.domestic = true; });
  add("70B LoRA, 4,000 USD, new only", big, 4000, [](RankRequest& r) { r.price.new_only = true; });
  add("8B full, 1,500 USD, no rtx-4090", preset("llama-3.1-8b", Mode::full), 1500,
      [](RankRequest& r) { r.filters.exclude_ids = {"RTX-4090"}; });
  return out;
}

bool allowed(const Result& r, const RankRequest& q) {
  return passes_filters(*r.config.gpu, q.filters) && !r.rules.excluded &&
         r.need.fits_within(r.usable_bytes) &&
         (!q.price.new_only || !r.unit_price || !r.unit_price->used);
}

// DeepSeek-R1 in 4 bits with every routed expert in host RAM (about 330 GiB), any budget.
RankRequest deepseek_experts_in_ram() {
  Workload w = preset("deepseek-r1", Mode::inference);
  w.precision = Precision::int4;
  w.cpu_moe = kCpuMoeAll;
  return request(w, 1e7);
}

}  // namespace

TEST_CASE("nothing fits: every suggestion honours every filter and rule, in the order to try") {
  for (const auto& [name, q] : tight_requests()) {
    CAPTURE(name);
    const RecommendAnswer a = recommend(sources(), {q, 10, false, {}});
    REQUIRE(a.top.empty());
    CHECK_FALSE(a.remedies.empty());
    int last_kind = -1;
    for (const Remedy& m : a.remedies) {
      CAPTURE(m.change, static_cast<int>(m.kind));
      CHECK(static_cast<int>(m.kind) >= last_kind);  // changes, then renting, then over budget
      last_kind = static_cast<int>(m.kind);
      if (m.kind == Remedy::Kind::rent) {
        REQUIRE(m.rental);
        CHECK(allowed(m.rental->eval, q));
        continue;
      }
      REQUIRE(m.purchase);
      CHECK(allowed(*m.purchase, q));
      if (m.kind == Remedy::Kind::change) CHECK(m.purchase->price <= *q.budget);
      if (m.kind == Remedy::Kind::over_budget) CHECK(m.purchase->price > *q.budget);
    }
  }
}

TEST_CASE("a budget is never exceeded by the cards and the platform they need") {
  for (const auto& [name, w] : property_workloads())
    for (double budget : {2000.0, 8000.0, 30000.0, 400000.0}) {
      CAPTURE(name, budget);
      for (bool cards_only : {false, true}) {
        RankRequest q = request(w, budget);
        q.cards_only = cards_only;
        for (const Result& r : run(q).results) {
          CAPTURE(r.config.gpu->id, r.config.count, cards_only);
          CHECK(r.price <= budget);
          CHECK(r.price == Approx(r.cards_price + r.platform_price));
          REQUIRE(r.platform_quote.platform);
          if (cards_only) CHECK(r.platform_price == 0);
          if (!cards_only && r.platform_quote.total_usd > 0) CHECK(r.platform_price > 0);
        }
      }
    }
}

TEST_CASE("the same flags give the same per-GPU need in every command") {
  const Sources src = sources();
  for (const auto& [name, w] : property_workloads())
    for (const char* id : {"rtx-4090", "a100-80gb-sxm", "h100-sxm", "rtx-a6000"})
      for (int count : {1, 2, 4, 8}) {
        const Gpu& g = require_gpu(catalog(), id);
        if (!tensor_parallel_splits(w, count)) continue;
        CAPTURE(name, id, count);
        RankRequest q = request(w);
        const double need = estimate(on_gpus(w, count)).total_bytes;  // estimate --gpus
        CHECK(fit(w, g, count).requested.total_bytes == Approx(need));
        CHECK(check(src, q, g, count).result.need.total_bytes == Approx(need));
        const CompareAnswer c = compare(src, q, {{&g, count}, {&g, 1}});
        CHECK(c.results[0].need.total_bytes == Approx(need));
        CHECK(evaluate(make_config(g, count, w), rules(), rates(), q).need.total_bytes ==
              Approx(need));
        CHECK(c.results[0].config.shard == on_gpus(w, count).shard);  // each echoes it
      }
}

TEST_CASE("a given --shard is kept where it applies and refused where it cannot") {
  Workload w = preset("llama-3.1-8b", Mode::lora);
  w.shard = Shard::ddp;
  w.shard_given = true;
  CHECK(on_gpus(w, 4).shard == Shard::ddp);
  CHECK(on_gpus(w, 1).shard == Shard::ddp);  // one GPU keeps it: ZeRO-Offload style runs exist
  Workload inf = preset("qwen2.5-7b", Mode::inference);  // 28 heads
  inf.shard = Shard::tp;
  inf.shard_given = true;
  CHECK_THROWS_AS(on_gpus(inf, 8), Error);
  inf.shard_given = false;
  // Several GPUs run the batched engine (vLLM) tensor parallel, at batch 1 too; GGUF weights
  // stay on llama.cpp, which splits layers.
  CHECK(on_gpus(inf, 4).shard == Shard::tp);
  Workload gguf = inf;
  gguf.weight_format = "q4_k_m";
  CHECK(on_gpus(gguf, 4).shard == Shard::none);
  inf.engine = "vllm";
  CHECK(on_gpus(inf, 8).shard == Shard::none);  // layer split when TP cannot divide the heads
  CHECK(on_gpus(inf, 4).shard == Shard::tp);
  // --shard tp on an engine without tensor parallelism is refused, not run as another split;
  // without --engine the batched engine (vLLM) runs it.
  inf.shard = Shard::tp, inf.shard_given = true;
  inf.engine = "llama.cpp";
  CHECK_THROWS_AS(on_gpus(inf, 4), Error);
  inf.engine = "";
  CHECK(on_gpus(inf, 4).shard == Shard::tp);
  CHECK(on_gpus(preset("llama-3.1-8b", Mode::full), 4).shard == Shard::fsdp);
}

TEST_CASE("fit suggests only what can be built, and says on which platform") {
  Workload w = preset("llama-3.1-8b", Mode::qlora);
  w.seq_len = 4096;
  const FitResult r = fit(w, require_gpu(catalog(), "rtx-3060-12gb"), 1);
  REQUIRE_FALSE(r.fits);
  for (const auto& c : r.changes) {
    CAPTURE(c.change);
    CHECK(c.workload.gpus <= 2);  // K18: a desktop board takes two consumer cards
    if (c.workload.gpus > 1) CHECK_THAT(c.change, Catch::Contains("desktop"));
  }
  const FitResult big =
      fit(preset("llama-3.1-70b", Mode::lora), require_gpu(catalog(), "a100-80gb-sxm"), 1);
  bool server = false;
  for (const auto& c : big.changes) server = server || c.change.find("server") != std::string::npos;
  CHECK(server);
}

TEST_CASE("weights load only where the engine has kernels for their format") {
  const Sources src = sources();
  auto checked = [&](const char* model, const char* id, int count, const char* engine,
                     std::optional<Precision> p) {
    Workload w = preset(model, Mode::inference);
    w.engine = engine;
    if (p) w.precision = *p;
    use_shipped_weights(w);
    return check(src, request(w), require_gpu(catalog(), id), count);
  };
  // gpt-oss's MXFP4 experts: vLLM from compute capability 8.0, MI300-class and MI355 on ROCm.
  const CheckAnswer turing = checked("gpt-oss-120b", "quadro-rtx-8000", 2, "vllm", {});
  CHECK(turing.room);
  CHECK_FALSE(turing.fits);
  CHECK(turing.result.rules.exclude_rule == "weights-no-kernel");
  // Current vLLM does not run on Volta at all (compute capability 7.5 and up).
  const CheckAnswer v100 = checked("gpt-oss-120b", "v100-sxm2-32gb", 8, "vllm", {});
  CHECK(v100.room);
  CHECK(v100.result.rules.exclude_rule == "engine-not-on-card");
  CHECK(checked("gpt-oss-120b", "a100-80gb-sxm", 2, "vllm", {}).result.rules.exclude_rule !=
        "weights-no-kernel");
  CHECK(checked("gpt-oss-120b", "mi300x", 1, "vllm", {}).result.rules.exclude_rule !=
        "weights-no-kernel");
  // llama.cpp converts them to its own GGUF type: any card.
  CHECK(checked("gpt-oss-20b", "v100-sxm2-32gb", 1, "llama.cpp", {}).fits);
  // FP8: Marlin on Ampere and newer; on ROCm CDNA3/4 and RDNA4, not RDNA2/3.
  CHECK(
      checked("llama-3.1-8b", "rx-7900-xtx", 1, "vllm", Precision::fp8).result.rules.exclude_rule ==
      "weights-no-kernel");
  CHECK(checked("llama-3.1-8b", "t4", 1, "vllm", Precision::fp8).result.rules.exclude_rule ==
        "weights-no-kernel");
  CHECK(checked("llama-3.1-8b", "rtx-3090", 1, "vllm", Precision::fp8).fits);
  CHECK(checked("llama-3.1-8b", "rtx-4090", 1, "vllm", Precision::fp8).fits);
}

TEST_CASE("check's remedy is a change the rules let run on the card, not memory alone") {
  const Sources src = sources();
  auto remedy = [&](const char* model, const char* id) {
    Workload w = preset(model, Mode::inference);
    w.engine = "vllm";
    const CheckAnswer a = check(src, request(w), require_gpu(catalog(), id), 1);
    REQUIRE_FALSE(a.fits);
    REQUIRE(a.remedy);
    return a.remedy->change;
  };
  // vLLM has no FP8 kernels on Intel GPUs: 8-bit weights there are int8.
  CHECK(remedy("llama-3.2-3b", "arc-a380") == "--precision int8");
  // On an Ada card FP8 runs natively and stays the first suggestion.
  CHECK(remedy("llama-3.1-8b", "rtx-4060-ti-16gb") == "--precision fp8");
}

TEST_CASE("a large training micro-batch names the faster configuration accumulation allows") {
  const Sources src = sources();
  Workload w = preset("llama-3.1-8b", Mode::lora);
  w.batch = 8;
  const RecommendAnswer a = recommend(src, {request(w, 3000), 3, false, {}});
  REQUIRE(a.accumulation);
  const auto& x = *a.accumulation;
  CHECK(x.batch * x.grad_accum == 8);  // the same samples per GPU per optimizer step
  CHECK(x.batch < 8);
  CHECK(x.best.price <= 3000);  // it honours the budget as the ranking does
  CHECK(x.best.need.fits_within(x.best.usable_bytes));
  if (!a.top.empty()) {
    CHECK(x.best.tokens_per_s > a.top.front().tokens_per_s);
    CHECK((x.best.config.gpu != a.top.front().config.gpu ||
           x.best.config.count != a.top.front().config.count));
  }
  // Inference has no optimizer step to accumulate towards; a micro-batch of 1 nothing to halve.
  Workload infer = preset("llama-3.1-8b", Mode::inference);
  infer.batch = 8;
  CHECK_FALSE(recommend(src, {request(infer, 3000), 3, false, {}}).accumulation);
  Workload one = preset("llama-3.1-8b", Mode::lora);
  CHECK_FALSE(recommend(src, {request(one, 3000), 3, false, {}}).accumulation);
}

TEST_CASE("a mixture of experts names one card with experts in RAM, cheaper and within filters") {
  const Sources src = sources();
  for (double budget : {1500.0, 3000.0}) {
    CAPTURE(budget);
    Workload w = preset("gpt-oss-120b", Mode::inference);
    use_shipped_weights(w);
    RankRequest q = request(w, budget);
    q.filters.vendors = {"nvidia"};
    const RecommendAnswer a = recommend(src, {q, 3, false, {}});
    REQUIRE(a.experts_in_ram);
    const Result& x = a.experts_in_ram->best;
    CHECK(x.config.count == 1);
    CHECK(x.price > 0);
    CHECK(x.price <= budget);
    if (!a.top.empty()) CHECK(x.price < a.top.front().price);
    CHECK(allowed(x, q));
    CHECK(x.need.host_bytes > 0);
    // The host priced holds the experts and the OS reserve, and its RAM is in the price.
    const PlatformQuote& host = x.platform_quote;
    REQUIRE(host.platform);
    CHECK(host.ram_gb >= x.need.host_bytes / 1073741824.0 + default_platforms().ram_os_reserve_gb);
    CHECK(host.ram_short_gb == 0);
    CHECK(x.price == Approx(x.cards_price + host.total_usd));
    CHECK_FALSE(x.config.gpu->unified_memory);  // one memory: nothing to offload to
    CHECK(x.config.gpu->vendor == "nvidia");
    // The fewest layers that card needs: what check proposes for it.
    const FitResult f = fit(w, *x.config.gpu, 1);
    REQUIRE_FALSE(f.changes.empty());
    CHECK(f.changes.front().change == "--n-cpu-moe " + std::to_string(a.experts_in_ram->cpu_moe));
  }
  // Dense models and models the user already offloads are not offered it.
  CHECK_FALSE(
      recommend(src, {request(preset("llama-3.1-70b", Mode::inference), 1500), 3, false, {}})
          .experts_in_ram);
  Workload given = preset("gpt-oss-120b", Mode::inference);
  use_shipped_weights(given);
  given.cpu_moe = 20;
  CHECK_FALSE(recommend(src, {request(given, 1500), 3, false, {}}).experts_in_ram);
}

TEST_CASE("offload beyond what a host's board takes is excluded, with the reason") {
  const Sources src = sources();
  RankRequest q = deepseek_experts_in_ram();
  q.max_gpus = 1;
  q.filters.segments = {"consumer"};  // desktops at most 256 GB, the EPYC host 768 GB
  const Ranking epyc = rank(src.catalog, src.rules, src.rates, q);
  REQUIRE_FALSE(epyc.results.empty());
  for (const Result& x : epyc.results)
    CHECK(x.platform_quote.platform->id == "epyc-ram-host");
  // Kimi K2's int8 experts (about a terabyte) fit no board a consumer card goes in.
  RankRequest kimi = q;
  kimi.workload = preset("kimi-k2", Mode::inference);
  kimi.workload.precision = Precision::int8;
  kimi.workload.cpu_moe = kCpuMoeAll;
  const Ranking r = rank(src.catalog, src.rules, src.rates, kimi);
  CHECK(r.results.empty());
  CHECK(r.rejected.by_rule.count("host-ram-beyond-board") == 1);
  // A server board holds it: priced with the RAM raised where needed.
  q.filters.segments = {"datacenter"};
  const Ranking servers = rank(src.catalog, src.rules, src.rates, q);
  REQUIRE_FALSE(servers.results.empty());
  for (const Result& x : servers.results) {
    CHECK(x.platform_quote.ram_short_gb == 0);
    CHECK(x.platform_quote.ram_gb >= x.need.host_bytes / 1073741824.0);
  }
}

TEST_CASE("a job's rental line is the cheapest rental of the job, whatever the GPU") {
  const Sources src = sources();
  RankRequest q = request(preset("llama-3.1-8b", Mode::lora), 5000);
  q.tokens = 2e8;
  const RecommendAnswer a = recommend(src, {q, 3, false, {}});
  REQUIRE_FALSE(a.top.empty());
  REQUIRE(a.job_rental);
  const RentAnswer r = rent(src, q, {}, 1);
  REQUIRE_FALSE(r.shown.empty());
  CHECK(a.job_rental->offer == r.shown.front().offer);
  CHECK(a.job_rental->instances == r.shown.front().instances);
  REQUIRE(a.job_rental->on_demand_cost);
  CHECK(*a.job_rental->on_demand_cost < a.top.front().price);
  // No rental of #1's own GPU for the job (--compare-rent's) costs less than the line's.
  const Cloud* cloud = src.offers();
  REQUIRE(cloud);
  const auto same = rent_same_work(a.top.front(), *cloud, src.rules, src.rates, q, {});
  if (same && same->on_demand_cost) CHECK(*a.job_rental->on_demand_cost <= *same->on_demand_cost);
}

TEST_CASE("the RAM of the user's own host (--host-ram) bounds what is offloaded") {
  const Sources src = sources();
  RankRequest q = deepseek_experts_in_ram();
  q.cards_only = true;
  const Gpu& gpu = require_gpu(src.catalog, "rtx-5090");
  q.host_ram_gb = 256;
  const CheckAnswer small = check(src, q, gpu, 1);
  CHECK(small.room);  // the card holds its share: the host does not
  CHECK_FALSE(small.fits);
  CHECK_FALSE(small.purchase_only);  // the user's host is the one asked about, not a purchase
  CHECK(small.result.rules.exclude_rule == "host-ram-short");
  const double need = own_host_ram_need_gb(small.result);
  CHECK(need == Approx(small.result.need.host_bytes / 1073741824.0 + 4));
  CHECK(own_host_ram_short_gb(small.result, q) == Approx(need - 256));
  q.host_ram_gb = std::ceil(need);
  const CheckAnswer enough = check(src, q, gpu, 1);
  CHECK(enough.fits);
  CHECK(own_host_ram_short_gb(enough.result, q) == 0);
  // recommend: every configuration kept holds its offload in the host given.
  q.host_ram_gb = 256;
  q.max_gpus = 8;
  const Ranking r = rank(src.catalog, src.rules, src.rates, q);
  CHECK(r.rejected.by_rule.count("host-ram-short") == 1);
  for (const Result& x : r.results) CHECK(own_host_ram_need_gb(x) <= 256);
}
