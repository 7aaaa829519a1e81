// The shipped throughput data (data/throughput.json) on the shipped catalog: its schema and
// sources, the sanity anchors the issue names (K16 scaling over NVLink, PCIe below it,
// MI300X near H100), engines, clusters and cards without a compute figure.
#include <catch2/catch.hpp>
#include <string>
#include <tuple>

#include "gpusel/base/error.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_schema.hpp"
#include "gpusel/speed/throughput.hpp"
#include "throughput_fixtures.hpp"

using namespace gpusel;
using namespace tput_fixtures;

namespace {

const Catalog& catalog() {
  static const Catalog c = load_catalog({});
  return c;
}

const Gpu& data_gpu(const std::string& id) { return require_gpu(catalog(), id); }

Workload throughput_llama(double params_b, Mode mode) {
  Workload w;
  w.model = decoder(params_b * 1e9, params_b > 30 ? 80 : 32, params_b > 30 ? 8192 : 4096);
  w.mode = mode;
  w.grad_ckpt = true;
  w.precision = mode == Mode::qlora ? Precision::int4 : Precision::bf16;
  return w;
}

double speedup(const Workload& w0, const Gpu& g, int n, bool linked) {
  Workload w = w0;
  w.gpus = n, w.shard = Shard::fsdp;
  Workload one = w0;
  return estimate_throughput(w, g, n, linked).train_tokens_per_s /
         estimate_throughput(one, g, 1, false).train_tokens_per_s;
}

}  // namespace

TEST_CASE("K16 anchor: a communication-heavy fine-tune scales about 3.8x on 4, 6.5x on 8 NVLink") {
  // LoRA of a 7B model sharded with FSDP, one 512-token sequence per card: the weight
  // gathers are as long as the compute they hide behind, as in K16's typical fine-tune.
  // Compiled (no eager host floor, host_floor_test.cpp): eager, this small a step waits for
  // the host, and the host's idle GPU time hides the gathers.
  Workload w = throughput_llama(7, Mode::lora);
  w.seq_len = 512;
  w.framework.compile.value = true;
  const Gpu& a100 = data_gpu("a100-80gb-sxm");
  const double four = speedup(w, a100, 4, true), eight = speedup(w, a100, 8, true);
  CHECK(four == Approx(3.8).epsilon(0.08));
  CHECK(eight == Approx(6.5).epsilon(0.15));
  // PCIe (the same cards without their NVLink) comes out clearly below.
  CHECK(speedup(w, a100, 4, false) < 0.85 * four);
  CHECK(speedup(w, a100, 8, false) < 0.75 * eight);
}

TEST_CASE("PCIe is below NVLink for every sharded recipe, and GeForce without P2P below that") {
  for (Mode mode : {Mode::full, Mode::lora, Mode::qlora})
    for (double b : {7.0, 13.0}) {
      Workload w = throughput_llama(b, mode);
      w.seq_len = 1024;
      CHECK(speedup(w, data_gpu("h100-sxm"), 8, false) < speedup(w, data_gpu("h100-sxm"), 8, true));
    }
  Workload w = throughput_llama(7, Mode::lora);
  w.seq_len = 512;
  // An RTX 4090 and an RTX 6000 Ada pair: both PCIe, but GeForce goes through host memory.
  CHECK(speedup(w, data_gpu("rtx-4090"), 2, false) < speedup(w, data_gpu("rtx-a6000"), 2, false));
}

// Over PCIe alone the 4 -> 8 step is left out: 8 cards span two CPU sockets and the ring's
// hop between them goes through host memory (pcie_gpus_per_socket), so a communication-bound
// FSDP run can lose total throughput there, as NCCL measures (NVIDIA/nccl#1639: 8 cards 28 GB/s
// of bus bandwidth, 4 cards 35).
TEST_CASE("more cards never lower total training throughput within one link") {
  for (Shard shard : {Shard::ddp, Shard::fsdp, Shard::zero2})
    for (double b : {1.0, 7.0, 70.0})
      for (bool linked : {false, true}) {
        Workload w = throughput_llama(b, b > 30 ? Mode::qlora : Mode::full);
        w.shard = shard;
        double last = 0;
        for (int n : {1, 2, 4, 8}) {
          if (n == 8 && !linked) continue;
          w.gpus = n;
          if (n == 1) w.shard = Shard::none;
          const Throughput t = estimate_throughput(w, data_gpu("a100-80gb-sxm"), n, linked);
          CHECK(t.train_tokens_per_s >= last);
          CHECK(t.scaling <= 1.0 + 1e-9);
          last = t.train_tokens_per_s;
          w.shard = shard;
        }
      }
}

TEST_CASE("non-CUDA stacks get what they measure: MI300X trains near an H100, not 1.5x") {
  Workload w = throughput_llama(70, Mode::lora);
  w.gpus = 8, w.shard = Shard::fsdp;
  const double h100 = estimate_throughput(w, data_gpu("h100-sxm"), 8, true).train_tokens_per_s;
  const double mi300 = estimate_throughput(w, data_gpu("mi300x"), 8, true).train_tokens_per_s;
  CHECK(mi300 / h100 == Approx(1.0).margin(0.15));
  Workload q = throughput_llama(7, Mode::qlora);
  const double arc = estimate_throughput(q, data_gpu("arc-a770-16gb"), 1, false).train_tokens_per_s;
  const double ti =
      estimate_throughput(q, data_gpu("rtx-4060-ti-16gb"), 1, false).train_tokens_per_s;
  CHECK(arc / ti < 2.4);  // the A770's measured 91 TFLOPS, not its 137.6 spec
}

TEST_CASE("Apple cards without a catalog compute figure still prefill (measured TFLOPS)") {
  Workload w = inference(7e9);
  w.seq_len = w.prompt_len = 512;
  for (const char* id : {"apple-m4-max", "apple-m3-max", "apple-m4-pro", "apple-m3-ultra"}) {
    INFO(id);
    CHECK(estimate_throughput(w, data_gpu(id), 1, false).prefill_tokens_per_s > 0);
  }
}

TEST_CASE("engines: defaults by batch, aliases, unknown names, HBM efficiency differs") {
  const auto& k = default_throughput_constants();
  Workload w = inference(7e9);
  CHECK(engine_for(w, k).name == "llama.cpp");
  w.batch = 8;
  CHECK(engine_for(w, k).name == "vllm");
  w.engine = "Ollama";
  CHECK(engine_for(w, k).name == "llama.cpp");
  w.engine = "tgi";
  CHECK_THROWS_AS(engine_for(w, k), Error);
  CHECK_NOTHROW(require_engine("exllamav2"));
  CHECK_THROWS_AS(require_engine("nonsense"), Error);
  Workload a = inference(7e9), b = a;
  b.engine = "vllm";
  // llama.cpp reads far less of HBM than a CUDA-graph engine; on GDDR6X they are close.
  const double llama_hbm =
      estimate_throughput(a, data_gpu("h100-sxm"), 1, false).decode_tokens_per_s;
  const double vllm_hbm =
      estimate_throughput(b, data_gpu("h100-sxm"), 1, false).decode_tokens_per_s;
  CHECK(llama_hbm < 0.85 * vllm_hbm);
  CHECK(estimate_throughput(a, data_gpu("rtx-4090"), 1, false).decode_tokens_per_s >
        0.9 * estimate_throughput(b, data_gpu("rtx-4090"), 1, false).decode_tokens_per_s);
}

TEST_CASE("clusters: nodes of eight joined by the card's network, consumer cards do not cluster") {
  Workload w = throughput_llama(70, Mode::full);
  w.shard = Shard::fsdp, w.batch = 4;
  const Gpu& h100 = data_gpu("h100-sxm");
  w.gpus = 8;
  const double eight = estimate_throughput(w, h100, 8, true).train_tokens_per_s;
  w.gpus = 64;
  const Throughput t64 = estimate_throughput(w, h100, 64, true);
  CHECK(t64.train_tokens_per_s > 7 * eight);
  // Per card, only the optimizer step FSDP shards 8x further can gain (70B x 14 B at
  // 3 TB/s: 40 ms -> 5 ms of a ~9.5 s step); the gathers over the network cost.
  CHECK(t64.train_tokens_per_s <= 8 * eight * 1.005);
  CHECK(joined(t64).find("8 nodes over InfiniBand") != std::string::npos);
  w.gpus = 4096;
  CHECK(estimate_throughput(w, h100, 4096, true).train_tokens_per_s > 0);
  CHECK(cluster_network(data_gpu("rtx-4090")) == nullptr);
  w.gpus = 16;
  CHECK_THROWS_AS(estimate_throughput(w, data_gpu("rtx-4090"), 16, false), Error);
  REQUIRE(cluster_network(data_gpu("gaudi-3")) != nullptr);
  CHECK(cluster_network(data_gpu("gaudi-3"))->bytes_per_s_per_gpu == Approx(75e9 * 0.73));
  CHECK(node_size(data_gpu("gb200")) == 72);
  CHECK(node_size(data_gpu("l40s")) == 8);
}

TEST_CASE("every catalog card gets a sourced compute rate, memory type and link") {
  const auto& k = default_throughput_constants();
  Workload w = inference(7e9);
  w.seq_len = w.prompt_len = 256;
  for (const auto& g : catalog().gpus) {
    INFO(g.id);
    CHECK(k.memory_types.count(g.memory_type) == 1);
    if (g.interconnect.kind != "none") CHECK(k.links.count(g.interconnect.kind) == 1);
    const Throughput t = estimate_throughput(w, g, 1, false);
    CHECK(t.prefill_tokens_per_s > 0);
    CHECK(t.decode_tokens_per_s > 0);
  }
}

TEST_CASE("the shipped data parses, carries sources and follows its schema") {
  const auto doc = nlohmann::json::parse(embedded_text("data/throughput.json"));
  const auto schema = nlohmann::json::parse(embedded_text("data/schema/throughput.schema.json"));
  CHECK(check_schema(schema, doc).empty());
  const auto& k = default_throughput_constants();
  CHECK(k.engines.count("llama.cpp") == 1);
  CHECK_FALSE(k.matmul.empty());
  for (const auto& [key, c] : doc["constants"].items()) {
    INFO(key);
    CHECK_FALSE(c["source"].get<std::string>().empty());
  }
}

TEST_CASE("bad throughput data are data errors naming the key") {
  auto doc = nlohmann::json::parse(embedded_text("data/throughput.json"));
  doc["memory_types"]["GDDR6"]["value"] = 1.7;
  try {
    parse_throughput_constants(doc, "t.json");
    FAIL("accepted an achievable fraction of 1.7");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::data);
    CHECK(std::string(e.what()).find("GDDR6") != std::string::npos);
  }
  doc = nlohmann::json::parse(embedded_text("data/throughput.json"));
  doc["constants"]["qlora_dequant_bytes_per_weight"].erase("source");
  CHECK_THROWS_AS(parse_throughput_constants(doc, "t.json"), Error);
  doc = nlohmann::json::parse(embedded_text("data/throughput.json"));
  doc["matmul"][0]["fraction"] = 0.5;  // both tflops and fraction
  CHECK_THROWS_AS(parse_throughput_constants(doc, "t.json"), Error);
  doc = nlohmann::json::parse(embedded_text("data/throughput.json"));
  doc["matmul"][0].erase("tflops");  // no 16-bit rate and no fp32_fraction either
  CHECK_THROWS_AS(parse_throughput_constants(doc, "t.json"), Error);
  // A CNN path without its figure, or out of range, names the constant and the path.
  for (const auto& [phase, key, value] : {std::tuple{"training", "bf16", nlohmann::json()},
                                          {"inference", "fp32", nlohmann::json(-1)}}) {
    doc = nlohmann::json::parse(embedded_text("data/throughput.json"));
    auto& passes = doc["constants"]["cnn_activation_traffic_passes"]["value"][phase];
    if (value.is_null())
      passes.erase(key);
    else
      passes[key] = value;
    CHECK_THROWS_WITH(parse_throughput_constants(doc, "t.json"),
                      Catch::Contains(std::string("cnn_activation_traffic_passes.") + phase) &&
                          Catch::Contains(key));
  }
}

// FP32 training without autocast runs SGEMM on the CUDA cores: Turing GeForce reaches 0.91
// of its FP32 spec, Ampere and later GeForce 0.70 (their doubled FP32 figure shares a
// datapath with INT32); cards with no FP32 measurement keep the 16-bit fraction, at most 1.
TEST_CASE("fp32 without autocast runs at the measured SGEMM fraction of the FP32 rate") {
  Workload w = throughput_llama(7, Mode::full);
  w.precision = Precision::fp32, w.amp = false;
  const Throughput titan = estimate_throughput(w, data_gpu("titan-rtx"), 1, false);
  CHECK(titan.tflops_used == Approx(data_gpu("titan-rtx").fp32_tflops * 0.91));
  CHECK(joined(titan).find("matmul.turing-geforce-fp32.fp32_fraction") != std::string::npos);
  // The 4090's own entry has no FP32 figure: the GeForce family's applies.
  const Throughput ada = estimate_throughput(w, data_gpu("rtx-4090"), 1, false);
  CHECK(ada.tflops_used == Approx(data_gpu("rtx-4090").fp32_tflops * 0.70));
  CHECK(joined(ada).find("matmul.geforce.fp32_fraction") != std::string::npos);
  const Gpu& h100 = data_gpu("h100-sxm");
  CHECK(estimate_throughput(w, h100, 1, false).tflops_used ==
        Approx(h100.fp32_tflops * std::min(1.0, 794.5 / *h100.bf16_tflops_dense)));
  // The 16-bit path is untouched: a 2080 Ti still takes the GeForce 16-bit fraction.
  w.precision = Precision::bf16;
  const Gpu& ti = data_gpu("rtx-2080-ti");
  CHECK(estimate_throughput(w, ti, 1, false).tflops_used ==
        Approx(1.05 * (ti.bf16_tflops_dense ? *ti.bf16_tflops_dense : *ti.fp16_tflops_dense)));
}

TEST_CASE("Gaudi's FP8 gain is its own measured figure, below Transformer Engine's on H100") {
  Workload w = throughput_llama(7, Mode::full);
  w.grad_ckpt = false, w.seq_len = 4096, w.batch = 1;
  const auto gain = [&](const char* id) {
    Workload fp8 = w;
    fp8.precision = Precision::fp8;
    const Throughput t = estimate_throughput(fp8, data_gpu(id), 1, false);
    return std::pair{
        t.train_tokens_per_s / estimate_throughput(w, data_gpu(id), 1, false).train_tokens_per_s,
        joined(t)};
  };
  const auto [gaudi, gaudi_why] = gain("gaudi-2");
  const auto [h100, h100_why] = gain("h100-sxm");
  // Intel measured up to ~1.34x for Llama 2 7B on Gaudi 2 (arXiv 2409.12517).
  // Without its own factor (Transformer Engine's 0.89) Gaudi came out at ~1.5x, above the
  // H100's gain, whose memory-bound share is larger.
  CHECK(gaudi == Approx(1.34).margin(0.06));
  CHECK(h100 > gaudi);
  CHECK(gaudi_why.find("training_efficiency.gaudi.fp8_factor") != std::string::npos);
  CHECK(h100_why.find("[fp8_training_factor]") != std::string::npos);
  auto doc = nlohmann::json::parse(embedded_text("data/throughput.json"));
  for (auto& e : doc["training_efficiency"])
    if (e["id"] == "gaudi") e["fp8_factor"] = 2.5;
  CHECK_THROWS_AS(parse_throughput_constants(doc, "t.json"), Error);
}

// Cards whose vendor publishes no 16-bit tensor figure run at a measured matmul rate, not at
// their FP32 rate x the default fraction: DGX Spark's GB10 (92.3 TFLOPS BF16, huggingface/kernels
// #283), the A10G (69.47, half-rate FP32 accumulate), GeForce Pascal (FP32 SGEMM, 0.87).
TEST_CASE("cards without a vendor 16-bit figure train at their measured matmul rate") {
  const Workload w = throughput_llama(7, Mode::full);
  CHECK(estimate_throughput(w, data_gpu("dgx-spark"), 1, false).tflops_used == Approx(92.3));
  CHECK(estimate_throughput(w, data_gpu("a10g"), 1, false).tflops_used == Approx(69.47));
  const Throughput pascal = estimate_throughput(w, data_gpu("gtx-1080-ti"), 1, false);
  CHECK(pascal.tflops_used == Approx(data_gpu("gtx-1080-ti").fp32_tflops * 0.87));
  CHECK(joined(pascal).find("matmul.pascal-geforce") != std::string::npos);
}
