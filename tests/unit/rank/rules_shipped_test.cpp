// The shipped data/rules.json: every rule is sourced, fires on a fact set where it should and
// stays quiet where it should not, and its texts render cleanly.
#include <catch2/catch.hpp>
#include <regex>
#include <set>

#include "gpusel/base/text.hpp"
#include "gpusel/data/catalog.hpp"
#include "gpusel/rank/rules.hpp"

using namespace gpusel;
using namespace std::string_literals;

namespace {

const std::string kRulesPath = GPUSEL_SOURCE_DIR "/data/rules.json";

const RuleSet& rules_shipped() {
  static const RuleSet set = load_rules(kRulesPath);
  return set;
}

// A complete fact set: one RTX 4090 for a 7B LoRA. Cases below change what they test.
Facts base() {
  return {{"gpu.id", "rtx-4090"s},
          {"gpu.name", "NVIDIA GeForce RTX 4090"s},
          {"gpu.vendor", "nvidia"s},
          {"gpu.segment", "consumer"s},
          {"gpu.form_factor", "pcie"s},
          {"gpu.vram_gb", 24.0},
          {"gpu.memory_type", "GDDR6X"s},
          {"gpu.ecc", false},
          {"gpu.unified_memory", false},
          {"gpu.tdp_w", 450.0},
          {"gpu.ecosystem", "cuda"s},
          {"gpu.platform_target", "sm_89"s},
          {"gpu.launch_year", 2022.0},
          {"gpu.bf16_tflops", 165.2},
          {"gpu.tpp", 5284.8},
          {"workload.reserve_given", false},
          {"gpu.fp8", true},
          {"gpu.bf16", true},
          {"gpu.interconnect", "none"s},
          {"gpu.interconnect_gbs", 0.0},
          {"gpu.interconnect_max_gpus", 1.0},
          {"gpu.used_price", false},
          {"config.count", 1.0},
          {"config.linked", true},
          {"config.price", 1599.0},
          {"config.headroom", 0.3},
          {"config.total_tdp_w", 450.0},
          {"config.one_card_fits", true},
          {"config.rented", false},
          {"config.platform", "desktop"s},
          {"config.platform_priced", true},
          {"config.bound", "compute"s},
          {"workload.mode", "lora"s},
          {"workload.training", true},
          {"workload.params_b", 7.0},
          {"workload.precision", "bf16"s},
          {"workload.optimizer", "adamw"s},
          {"workload.needs_bitsandbytes", false},
          {"workload.flash_attn", true},
          {"workload.long_run", false},
          {"workload.domestic", false},
          {"workload.seq_len", 2048.0},
          {"workload.batch", 1.0},
          {"workload.timed", false}};
}

using Changes = std::vector<std::pair<std::string, FactValue>>;

Facts rules_with(const Changes& changes) {
  Facts f = base();
  for (const auto& [name, value] : changes) f[name] = value;
  return f;
}

const Changes kTrain2 = {{"config.count", 2.0}, {"config.total_tdp_w", 900.0}};
const Changes kInference = {{"workload.mode", "inference"s}, {"workload.training", false}};
Changes amd(Changes c) {
  c.insert(c.end(), {{"gpu.vendor", "amd"s},
                     {"gpu.ecosystem", "rocm"s},
                     {"gpu.platform_target", "gfx942"s},
                     {"gpu.segment", "datacenter"s}});
  return c;
}
Changes eco(const std::string& e, Changes c = {}) {
  c.push_back({"gpu.ecosystem", e});
  return c;
}
Changes plus(Changes a, const Changes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

struct Case {
  std::string rule;
  std::vector<Changes> fires, quiet;
};

// One entry per shipped rule (a test below fails when a rule has none).
const std::vector<Case>& cases() {
  static const std::vector<Case> all{
      {"k5-under-24gb-llm-fine-tuning",
       {{{"gpu.vram_gb", 16.0}}, {{"gpu.vram_gb", 12.0}, {"workload.mode", "full"s}}},
       {{},
        {{"gpu.vram_gb", 16.0}, {"workload.mode", "qlora"s}},
        plus(kInference, {{"gpu.vram_gb", 16.0}}),
        {{"gpu.vram_gb", 8.0}, {"workload.params_b", 0.3}}}},
      {"k17-pcie-multi-gpu-training",
       {plus(kTrain2, {{"config.linked", false}}),
        {{"config.count", 8.0}, {"config.linked", false}}},
       {kTrain2,
        plus(plus(kTrain2, kInference), {{"config.linked", false}}),
        {{"config.linked", false}}}},
      {"k17-nvlink-multi-gpu-training",
       {plus(kTrain2, {{"gpu.interconnect", "nvlink-bridge"s}, {"gpu.interconnect_gbs", 112.5}})},
       {plus(kTrain2, {{"config.linked", false}}), {}}},
      {"k18-consumer-board-two-cards",
       {kTrain2},
       {{},
        plus(kTrain2, {{"gpu.segment", "workstation"s}}),
        plus(kTrain2, {{"gpu.form_factor", "soc"s}}),
        plus(kTrain2, {{"config.rented", true}})}},
      {"k18-many-cards-need-server-platform",
       {{{"config.count", 4.0}, {"gpu.segment", "workstation"s}}},
       {kTrain2, {{"config.count", 8.0}, {"gpu.form_factor", "sxm"s}}}},
      {"k21-rocm-training", {amd({})}, {amd(kInference), {}}},
      {"k21-rocm-inference", {amd(kInference)}, {amd({}), kInference}},
      {"k22-intel-gpu-training", {eco("oneapi")}, {eco("oneapi", kInference), eco("synapseai")}},
      {"k22-intel-gpu-inference", {eco("oneapi", kInference)}, {eco("oneapi"), kInference}},
      {"k23-ascend-cann", {eco("cann"), eco("cann", kInference)}, {{}}},
      {"gaudi-software-stack", {eco("synapseai")}, {eco("oneapi")}},
      {"gaudi3-training-projected",  // training on Gaudi 3 only: no measurement behind it
       {{{"gpu.id", "gaudi-3"s}}},
       {{}, plus({{"gpu.id", "gaudi-3"s}}, kInference), {{"gpu.id", "gaudi-2"s}}}},
      {"k27-high-power-consumer-card",
       {{}, {{"gpu.tdp_w", 575.0}}},
       {{{"gpu.tdp_w", 350.0}},
        {{"gpu.segment", "workstation"s}, {"gpu.tdp_w", 600.0}},
        kTrain2,
        {{"config.rented", true}}}},
      {"k27-two-high-power-consumer-cards",
       {kTrain2},
       {{},
        plus(kTrain2, {{"gpu.tdp_w", 350.0}}),
        plus(kTrain2, {{"gpu.segment", "workstation"s}})}},
      {"k30-no-ecc-long-run",
       {{{"workload.long_run", true}}},
       {{}, {{"workload.long_run", true}, {"gpu.ecc", true}}}},
      {"k31-used-card",  // purchase advice: not for rented or datacenter cards
       {{{"gpu.used_price", true}}},
       {{},
        {{"gpu.used_price", true}, {"config.rented", true}},
        {{"gpu.used_price", true}, {"gpu.segment", "datacenter"s}},
        {{"gpu.used_price", true}, {"gpu.form_factor", "soc"s}},    // a used Mac: no VBIOS
        {{"gpu.used_price", true}, {"gpu.launch_year", 2024.0}}}},  // after the mining era
      {"experts-in-ram-unified-memory",  // expert offload on a machine with one memory
       {{{"workload.experts_in_ram", true}, {"gpu.unified_memory", true}}},
       {{{"gpu.unified_memory", true}}, {{"workload.experts_in_ram", true}}}},
      {"host-ram-beyond-board",  // offload beyond the board's DIMM slots
       {{{"config.host_ram_short_gb", 12.0}, {"config.host_ram_gb", 140.0}}},
       {{}, {{"config.host_ram_short_gb", 0.0}, {"config.host_ram_gb", 300.0}}}},
      {"no-platform-for-count",  // priced cards no platform takes: the price lacks a host
       {{{"config.platform", "none"s},
         {"config.rented", false},
         {"config.price", 4828.0},
         {"gpu.form_factor", "pcie"s}}},
       {{},
        {{"config.platform", "desktop-2"s},
         {"config.rented", false},
         {"config.price", 4828.0},
         {"gpu.form_factor", "pcie"s}},
        {{"config.platform", "none"s},
         {"config.rented", true},
         {"config.price", 4828.0},
         {"gpu.form_factor", "pcie"s}},
        {{"config.platform", "none"s},
         {"config.rented", false},
         {"config.price", 0.0},
         {"gpu.form_factor", "pcie"s}}}},
      {"china-market-sku",  // China-only SKUs are bought only in China
       {{{"gpu.market", "cn"s}, {"config.market", "global"s}, {"config.rented", false}}},
       {{},
        {{"gpu.market", "cn"s}, {"config.market", "cn"s}, {"config.rented", false}},
        {{"gpu.market", "global"s}, {"config.market", "global"s}, {"config.rented", false}},
        {{"gpu.market", "cn"s}, {"config.market", "global"s}, {"config.rented", true}}}},
      {"host-ram-short",  // inference offload beyond the user's own host's --host-ram
       {{{"config.own_host_ram_short_gb", 70.0},
         {"config.host_ram_gb", 134.0},
         {"workload.training", false}}},
       {{},
        {{"config.own_host_ram_short_gb", 0.0}, {"config.host_ram_gb", 60.0}},
        {{"config.own_host_ram_short_gb", 70.0}, {"workload.training", true}}}},
      {"job-beyond-a-year",  // a bought training job that needs more than a year
       {{{"config.job_days", 819.6}, {"config.rented", false}, {"workload.training", true}}},
       {{},
        {{"config.job_days", 200.0}, {"config.rented", false}, {"workload.training", true}},
        {{"config.job_days", 819.6}, {"config.rented", true}, {"workload.training", true}},
        {{"config.job_days", 819.6}, {"config.rented", false}, {"workload.training", false}}}},
      {"host-ram-short-training",  // training offload beyond --host-ram: pinned RAM fails
       {{{"config.own_host_ram_short_gb", 70.0},
         {"config.host_ram_gb", 134.0},
         {"workload.training", true}}},
       {{},
        {{"config.own_host_ram_short_gb", 0.0}, {"workload.training", true}},
        {{"config.own_host_ram_short_gb", 70.0}, {"workload.training", false}}}},
      {"laptop-gpu-power-limit",  // laptop parts only: not desktop cards nor SoCs
       {{{"gpu.form_factor", "mobile"s}}},
       {{}, {{"gpu.form_factor", "soc"s}}}},
      {"bnb-rocm-recent-backend",
       {amd({{"workload.needs_bitsandbytes", true}})},
       {amd({}), {{"workload.needs_bitsandbytes", true}}}},
      {"bnb-intel-recent-backend",
       {eco("oneapi", {{"workload.needs_bitsandbytes", true}}),
        eco("synapseai", {{"workload.needs_bitsandbytes", true}})},
       {eco("oneapi"), {{"workload.needs_bitsandbytes", true}}}},
      {"bnb-apple-cpu-only",
       {eco("metal", {{"workload.needs_bitsandbytes", true}})},
       {eco("metal"), eco("cann", {{"workload.needs_bitsandbytes", true}})}},
      {"bnb-ascend-unsupported",
       {eco("cann", {{"workload.needs_bitsandbytes", true}})},
       {eco("cann"), eco("metal", {{"workload.needs_bitsandbytes", true}})}},
      {"apple-no-cuda", {eco("metal"), eco("metal", kInference)}, {{}}},
      {"apple-training-beyond-lora",
       {eco("metal", {{"workload.mode", "full"s}}), eco("metal", {{"workload.mode", "freeze"s}})},
       {eco("metal"), eco("metal", {{"workload.mode", "qlora"s}}), {{"workload.mode", "full"s}}}},
      {"apple-one-gpu-per-machine",
       {{{"gpu.unified_memory", true}, {"config.count", 2.0}}},
       {{{"gpu.unified_memory", true}}, kTrain2}},
      {"low-headroom",  // on a Mac only once --reserve says the wired limit was raised
       {{{"config.headroom", 0.05}},
        {{"config.headroom", 0.0}},
        {{"config.headroom", 0.05}, {"gpu.ecosystem", "metal"s}, {"workload.reserve_given", true}}},
       {{},
        {{"config.headroom", 0.10}},
        {{"config.headroom", -0.5}},
        {{"config.headroom", 0.05},
         {"gpu.ecosystem", "metal"s},
         {"workload.reserve_given", false}}}},
      {"low-headroom-apple-wired",  // a Mac's thin margin: raise the wired limit, if not raised
       {{{"config.headroom", 0.002},
         {"gpu.ecosystem", "metal"s},
         {"workload.reserve_given", false}}},
       {{},
        {{"config.headroom", 0.002}},
        {{"config.headroom", 0.2}, {"gpu.ecosystem", "metal"s}},
        {{"config.headroom", 0.002},
         {"gpu.ecosystem", "metal"s},
         {"workload.reserve_given", true}}}},
      {"fp8-training-without-fp8",
       {{{"workload.precision", "fp8"s}, {"gpu.fp8", false}}},
       {{{"workload.precision", "fp8"s}},
        plus(kInference, {{"workload.precision", "fp8"s}, {"gpu.fp8", false}})}},
      {"llama-cpp-no-fp8",  // llama.cpp named with FP8 weights; its GGUF types are fine
       {plus(kInference, {{"workload.engine", "llama.cpp"s}, {"workload.precision", "fp8"s}}),
        plus(kInference, {{"workload.engine", "llama.cpp-sycl"s}, {"workload.precision", "fp8"s}}),
        plus(kInference,
             {{"workload.engine", "llama.cpp-vulkan"s}, {"workload.precision", "fp8"s}})},
       {plus(kInference, {{"workload.engine", "llama.cpp"s}, {"workload.precision", "int8"s}}),
        plus(kInference, {{"workload.engine", "vllm"s}, {"workload.precision", "fp8"s}}),
        plus(kInference, {{"workload.precision", "fp8"s}})}},
      {"rocm-rdna3-vulkan-faster",  // llama.cpp runs as its RDNA 3 ROCm entry on this card
       {plus(kInference,
             {{"config.engine", "llama.cpp"s}, {"config.engine_as", "llama.cpp-hip-rdna3"s}})},
       {kInference,
        plus(kInference, {{"config.engine", "llama.cpp"s}, {"config.engine_as", "llama.cpp"s}}),
        plus(kInference,
             {{"config.engine", "llama.cpp-vulkan"s}, {"config.engine_as", "llama.cpp-vulkan"s}})}},
      {"tensorrt-llm-fp8-needs-fp8-cores",  // TensorRT-LLM named, FP8, a card without FP8 math
       {plus(kInference, {{"workload.engine", "tensorrt-llm"s},
                          {"workload.precision", "fp8"s},
                          {"gpu.fp8", false}})},
       {plus(kInference, {{"workload.precision", "fp8"s}, {"gpu.fp8", false}}),
        plus(kInference, {{"workload.engine", "tensorrt-llm"s},
                          {"workload.precision", "fp8"s},
                          {"gpu.fp8", true}}),
        plus(kInference,
             {{"workload.engine", "vllm"s}, {"workload.precision", "fp8"s}, {"gpu.fp8", false}})}},
      {"fp8-inference-without-fp8",
       {plus(kInference, {{"workload.precision", "fp8"s}, {"gpu.fp8", false}})},
       {{{"workload.precision", "fp8"s}, {"gpu.fp8", false}},
        plus(kInference, {{"gpu.fp8", false}}),
        plus(kInference, {{"workload.precision", "fp8"s}})}},
      {"flash-attn-pre-ampere",
       {{{"gpu.platform_target", "sm_75"s}}, {{"gpu.platform_target", "sm_70"s}}},
       {{{"gpu.platform_target", "sm_80"s}},
        {{"gpu.platform_target", "sm_75"s}, {"workload.flash_attn", false}},
        // inference engines choose their own attention kernels (llama.cpp's run on Pascal)
        {{"gpu.platform_target", "sm_61"s}, {"workload.training", false}}}},
      {"flash-attn-no-package",
       {eco("metal"), eco("cann"), eco("oneapi")},
       {amd({}), eco("metal", {{"workload.flash_attn", false}}), {}}},
      {"k34-domestic-not-huawei",
       {{{"workload.domestic", true}}, amd({{"workload.domestic", true}})},
       {{}, eco("cann", {{"workload.domestic", true}, {"gpu.vendor", "huawei"s}})}},
      {"k34-domestic-ascend",
       {eco("cann", {{"workload.domestic", true}, {"gpu.vendor", "huawei"s}})},
       {eco("cann", {{"gpu.vendor", "huawei"s}}), {{"workload.domestic", true}}}},
      {"module-needs-server",  // only when the server is not in the price, never when rented
       {{{"gpu.form_factor", "sxm"s}, {"config.platform_priced", false}},
        {{"gpu.form_factor", "oam"s}, {"config.platform_priced", false}}},
       {{},
        {{"gpu.form_factor", "sxm"s}},
        {{"gpu.form_factor", "sxm"s}, {"config.platform_priced", false}, {"config.rented", true}}}},
      {"cuda13-drops-pre-turing",
       {{{"gpu.platform_target", "sm_70"s}}, {{"gpu.platform_target", "sm_61"s}}},
       {{}, {{"gpu.platform_target", "sm_75"s}}, eco("rocm", {{"gpu.platform_target", "sm_70"s}})}},
      {"us-export-control-cn",  // a US part at TPP >= 4800 bought in China, not rented
       {{{"config.market", "cn"s},
         {"config.rented", false},
         {"gpu.vendor", "nvidia"s},
         {"gpu.tpp", 5285.0}}},
       {{},
        {{"config.market", "global"s},
         {"config.rented", false},
         {"gpu.vendor", "nvidia"s},
         {"gpu.tpp", 5285.0}},
        {{"config.market", "cn"s},
         {"config.rented", false},
         {"gpu.vendor", "nvidia"s},
         {"gpu.tpp", 4707.0}},
        {{"config.market", "cn"s},
         {"config.rented", true},
         {"gpu.vendor", "nvidia"s},
         {"gpu.tpp", 5285.0}},
        {{"config.market", "cn"s},
         {"config.rented", false},
         {"gpu.vendor", "huawei"s},
         {"gpu.tpp", 12800.0}}}},
      {"china-market-card",  // an export-compliant China SKU bought outside China, not rented
       {{{"gpu.market", "cn"s}, {"config.market", "global"s}, {"config.rented", false}}},
       {{},
        {{"gpu.market", "global"s}, {"config.market", "global"s}},
        {{"gpu.market", "cn"s}, {"config.market", "cn"s}, {"config.rented", false}},
        {{"gpu.market", "cn"s}, {"config.market", "global"s}, {"config.rented", true}}}},
      {"bf16-unsupported",
       {{{"gpu.bf16", false}}, {{"gpu.bf16", false}, {"gpu.platform_target", "sm_70"s}}},
       {{},
        {{"gpu.bf16", false}, {"workload.precision", "fp16"s}},
        {{"gpu.bf16", false}, {"gpu.ecosystem", "metal"s}},
        plus(kInference, {{"gpu.bf16", false}}),
        {{"gpu.bf16", false}, {"gpu.platform_target", "sm_61"s}}}},
      {"bf16-unsupported-inference",  // the inference twin: no loss-scaling advice
       {plus(kInference, {{"gpu.bf16", false}, {"gpu.platform_target", "sm_75"s}})},
       {kInference,
        {{"gpu.bf16", false}, {"gpu.platform_target", "sm_75"s}},
        plus(kInference, {{"gpu.bf16", false}, {"gpu.platform_target", "sm_61"s}})}},
      {"pascal-fp16-slow",  // 1/64-rate FP16 on compute capability 6.1, not on the P100's 6.0
       {{{"gpu.bf16", false}, {"gpu.platform_target", "sm_61"s}},
        plus(kInference, {{"gpu.platform_target", "sm_61"s}, {"workload.precision", "fp16"s}})},
       {{{"gpu.platform_target", "sm_60"s}},
        plus(kInference, {{"gpu.platform_target", "sm_61"s}, {"workload.precision", "int4"s}})}},
      {"apple-bf16-emulated",  // M1/M2 emulate BF16; M3 on and other vendors do not warn
       {{{"gpu.bf16", false}, {"gpu.ecosystem", "metal"s}, {"gpu.platform_target", "apple8"s}}},
       {{},
        {{"gpu.bf16", false}, {"gpu.ecosystem", "metal"s}, {"gpu.platform_target", "apple9"s}},
        {{"gpu.ecosystem", "metal"s},
         {"gpu.platform_target", "apple7"s},
         {"workload.precision", "fp16"s}}}},
      {"engine-not-on-card",  // only where --engine named one that has no backend there
       {plus(kInference, {{"workload.engine", "mlx"s}, {"config.engine_runs", false}})},
       {kInference, plus(kInference, {{"workload.engine", "mlx"s}, {"config.engine_runs", true}})}},
      {"weights-no-kernel",  // only where the engine's kernel table rules the card out
       {plus(kInference, {{"config.engine", "vllm"s},
                          {"workload.weights_format", "mxfp4"s},
                          {"gpu.platform_target", "sm_70"s},
                          {"config.weights_kernel", false}}),
        plus(kInference, {{"config.engine", "vllm"s},
                          {"workload.weights_format", "fp8"s},
                          {"gpu.platform_target", "gfx1030"s},
                          {"config.weights_kernel", false}})},
       {kInference, plus(kInference, {{"config.engine", "vllm"s},
                                      {"workload.weights_format", "mxfp4"s},
                                      {"config.weights_kernel", true}})}},
      {"whole-boards-only",  // a purchase of part of a board or rack; rentals are any count
       {{{"config.rented", false}, {"config.whole_boards", false}, {"config.board_sizes", "8"s}},
        {{"config.rented", false},
         {"config.whole_boards", false},
         {"config.board_sizes", "4 or 8"s},
         {"config.count", 2.0}}},
       {{},
        {{"config.rented", true}, {"config.whole_boards", false}},
        {{"config.rented", false}, {"config.whole_boards", true}}}},
      {"host-bound-decode",  // inference whose step the host sets, on any card
       {plus(kInference, {{"config.bound", "host"s}}),
        plus(kInference, {{"config.bound", "host"s}, {"gpu.vram_gb", 141.0}})},
       {kInference,
        plus(kInference, {{"config.bound", "memory-bandwidth"s}}),
        {{"config.bound", "host"s}}}},
      {"host-bound-training",  // a training step the host sets, on one card or several
       {{{"config.bound", "host"s}}, plus(kTrain2, {{"config.bound", "host"s}})},
       {{}, plus(kInference, {{"config.bound", "host"s}}), {{"config.bound", "compute"s}}}},
      {"multi-gpu-not-needed",
       {kTrain2, plus(kTrain2, kInference)},
       {{},
        plus(kTrain2, {{"config.one_card_fits", false}}),
        plus(kTrain2, {{"workload.timed", true}})}},
  };
  return all;
}

bool fires(const std::string& id, const Facts& facts) {
  const auto fired = apply_rules(rules_shipped(), facts).fired;
  return std::find(fired.begin(), fired.end(), id) != fired.end();
}

}  // namespace

TEST_CASE("each shipped rule fires where it should and only there", "[rules]") {
  std::set<std::string> covered;
  for (const Case& c : cases()) {
    INFO("rule " << c.rule);
    REQUIRE(rules_shipped().find(c.rule) != nullptr);
    covered.insert(c.rule);
    for (std::size_t i = 0; i < c.fires.size(); ++i) {
      INFO("fires case " << i);
      CHECK(fires(c.rule, rules_with(c.fires[i])));
    }
    for (std::size_t i = 0; i < c.quiet.size(); ++i) {
      INFO("quiet case " << i);
      CHECK_FALSE(fires(c.rule, rules_with(c.quiet[i])));
    }
  }
  for (const Rule& r : rules_shipped().rules) {
    INFO("rule without a test case: " << r.id);
    CHECK(covered.count(r.id) == 1);
  }
}

TEST_CASE("a rule about an unknown fact stays quiet", "[rules]") {
  Facts f = base();
  f.erase("workload.long_run");
  CHECK_FALSE(fires("k30-no-ecc-long-run", f));
}

TEST_CASE("fired texts render every placeholder", "[rules]") {
  for (const Case& c : cases())
    for (const Changes& ch : c.fires) {
      const RuleOutcome out = apply_rules(rules_shipped(), rules_with(ch));
      std::vector<std::string> texts{out.exclude_reason};
      for (const auto& m : out.warnings) texts.push_back(m.text);
      for (const auto& m : out.notes) texts.push_back(m.text);
      for (const auto& t : texts) {
        INFO(t);
        CHECK(t.find_first_of("{}") == std::string::npos);
        CHECK(t.find('?') == std::string::npos);
      }
    }
}

TEST_CASE("no shipped rule moves the compute score: it is measured speed", "[rules]") {
  for (const Case& c : cases())
    for (const Changes& ch : c.fires) {
      const RuleOutcome out = apply_rules(rules_shipped(), rules_with(ch));
      CHECK(out.delta.budget <= 0);  // rules only take away, and never compute (no such field)
    }
}

TEST_CASE("shipped rules say concrete things about concrete configurations", "[rules]") {
  const RuleOutcome small = apply_rules(rules_shipped(), rules_with({{"gpu.vram_gb", 16.0}}));
  REQUIRE_FALSE(small.warnings.empty());
  CHECK_THAT(small.warnings.front().text, Catch::StartsWith("16 GB per card is under the 24 GB"));
  CHECK(small.delta.ecosystem == -5);

  const RuleOutcome tight = apply_rules(rules_shipped(), rules_with({{"config.headroom", 0.075}}));
  CHECK_THAT(tight.warnings.front().text, Catch::StartsWith("Only 7.5% of usable memory"));

  const RuleOutcome domestic =
      apply_rules(rules_shipped(), rules_with({{"workload.domestic", true}}));
  CHECK(domestic.excluded);
  CHECK(domestic.exclude_rule == "k34-domestic-not-huawei");
  CHECK_THAT(domestic.exclude_reason, Catch::Contains("NVIDIA GeForce RTX 4090 (nvidia)"));

  const RuleOutcome pcie = apply_rules(
      rules_shipped(),
      rules_with(plus(kTrain2, {{"config.linked", false}, {"config.one_card_fits", false}})));
  CHECK(pcie.delta.ecosystem == -5);  // the PCIe slowdown itself is in the tokens/s
  const RuleOutcome spare =
      apply_rules(rules_shipped(), rules_with(plus(kTrain2, {{"config.linked", false}})));
  CHECK(spare.delta.ecosystem == -5 - 10);  // and one card would have held it
  CHECK_FALSE(pcie.excluded);

  const RuleOutcome qlora_mac =
      apply_rules(rules_shipped(), rules_with(eco("metal", {{"workload.needs_bitsandbytes", true},
                                                            {"workload.mode", "qlora"s}})));
  CHECK_FALSE(qlora_mac.excluded);  // mlx-lm is the way there, so penalise, don't exclude
  CHECK(qlora_mac.delta.ecosystem <= -30);
}
