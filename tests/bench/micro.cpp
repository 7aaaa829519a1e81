// Micro-benchmarks (Google Benchmark, Debian's libbenchmark-dev): loading data, estimating
// memory and ranking, the three costs every command pays. Run:
//   cmake --preset bench && cmake --build --preset bench -j2 && build-bench/tests/bench_micro
#include <benchmark/benchmark.h>

#include "gpusel/answer/answers.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/data/money.hpp"
#include "gpusel/data/validate.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_source.hpp"
#include "gpusel/memory/estimator.hpp"
#include "gpusel/memory/param_count.hpp"
#include "gpusel/rank/ranker.hpp"

namespace {

using namespace gpusel;

std::string gpus_text() { return std::string(embedded_text("data/gpus.json")); }

const Rates& rates() {
  static const Rates r = parse_rates(
      parse_located(embedded_text("data/rates.json"), "data/rates.json").doc, "data/rates.json");
  return r;
}

Workload lora_7b() {
  Workload w;
  w.model = typical_arch(parse_param_count("7B"));
  w.mode = Mode::lora;
  return w;
}

// The embedded catalog as every command reads it (trusted: no schema).
void BM_LoadEmbeddedCatalog(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(load_catalog({}));
}
BENCHMARK(BM_LoadEmbeddedCatalog)->Unit(benchmark::kMillisecond);

// The same text as a user's --catalog file: schema and semantic checks on every record.
void BM_LoadCheckedCatalog(benchmark::State& state) {
  const std::string text = gpus_text();
  for (auto _ : state) benchmark::DoNotOptimize(catalog_from_text(text, "gpus.json"));
}
BENCHMARK(BM_LoadCheckedCatalog)->Unit(benchmark::kMillisecond);

void BM_ValidateCatalog(benchmark::State& state) {
  const std::string text = gpus_text();
  for (auto _ : state)
    benchmark::DoNotOptimize(validate_document(text, "gpus.json", {"2026-12-02", nullptr}));
}
BENCHMARK(BM_ValidateCatalog)->Unit(benchmark::kMillisecond);

void BM_ParseLocated(benchmark::State& state) {
  const std::string text = gpus_text();
  for (auto _ : state) benchmark::DoNotOptimize(parse_located(text, "gpus.json"));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ParseLocated)->Unit(benchmark::kMillisecond);

void BM_Estimate(benchmark::State& state) {
  const Workload w = lora_7b();
  const auto detail = state.range(0) ? EstimateDetail::full : EstimateDetail::numbers;
  for (auto _ : state) benchmark::DoNotOptimize(estimate(w, detail));
}
BENCHMARK(BM_Estimate)->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond);

void BM_Rank(benchmark::State& state) {
  const Catalog catalog = load_catalog({});
  const RuleSet rules = load_rules();
  RankRequest req;
  req.workload = lora_7b();
  req.budget = 15000;
  for (auto _ : state) benchmark::DoNotOptimize(rank(catalog, rules, rates(), req));
}
BENCHMARK(BM_Rank)->Unit(benchmark::kMillisecond);

void BM_Recommend(benchmark::State& state) {
  const Catalog catalog = load_catalog({});
  const RuleSet rules = load_rules();
  RecommendQuery q;
  q.request.workload = lora_7b();
  q.request.budget = 15000;
  for (auto _ : state) benchmark::DoNotOptimize(recommend({catalog, nullptr, rules, rates()}, q));
}
BENCHMARK(BM_Recommend)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
