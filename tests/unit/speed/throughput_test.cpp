#include "gpusel/speed/throughput.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "gpusel/json/embedded.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/json/json_schema.hpp"

using namespace gpusel;

namespace {

// Constants with every refinement switched off, so that hand-computed values are exact.
ThroughputConstants plain() {
  ThroughputConstants k;
  k.train_utilisation = 0.5, k.prefill_utilisation = 0.5;
  k.balance_reference = 150, k.balance_exponent = 0, k.utilisation_cap = 1;
  k.prefill_quantized_factor = 1, k.prefill_fp16_accumulate = true;
  k.decode_bandwidth_efficiency = 0.8, k.decode_layer_overhead_s = 0;
  k.int4_bits_per_weight = 4, k.int8_bits_per_weight = 8, k.kv_cache_bytes_per_value = 0;
  k.qlora_step_time_factor = 1.5;
  k.scaling_linked = {{2, 1.0}, {4, 1.0}, {8, 1.0}};
  k.scaling_pcie = {{2, 0.9}, {4, 0.8}, {8, 0.7}};
  k.scaling_per_doubling_beyond = 0.9;
  k.busbw_fraction_linked = 1, k.busbw_fraction_pcie = 1;
  return k;
}

// A decoder whose matmul parameter count is exactly `params`: tied embeddings, so the LM
// head's multiply is the embedding table already counted in `params`.
ModelArch decoder(double params, int layers = 32, int hidden = 4096) {
  ModelArch m;
  m.id = m.name = "test";
  m.params = params;
  m.layers = layers, m.hidden = hidden, m.heads = 32, m.kv_heads = 8;
  m.head_dim = hidden / 32, m.intermediate = 4 * hidden, m.vocab = 32000;
  m.tied_embeddings = true;
  return m;
}

Workload inference(double params, Precision p = Precision::bf16) {
  Workload w;
  w.model = decoder(params);
  w.mode = Mode::inference;
  w.precision = p;
  w.seq_len = 2, w.prompt_len = 1;
  return w;
}

Workload training(Mode mode, double params) {
  Workload w;
  w.model = decoder(params);
  w.mode = mode;
  w.precision = mode == Mode::qlora ? Precision::int4 : Precision::bf16;
  w.grad_ckpt = false;
  w.seq_len = 100, w.batch = 1;
  return w;
}

// 1000 GB/s, 100 TFLOPS dense BF16: a round card.
Gpu card(double bf16 = 100, std::optional<double> acc16 = std::nullopt) {
  Gpu g;
  g.id = "round";
  g.bandwidth_gbs = 1000, g.fp32_tflops = bf16 / 4;
  g.bf16_tflops_dense = g.fp16_tflops_dense = bf16;
  g.fp16_acc16_tflops_dense = acc16;
  g.pcie_gen = 4, g.pcie_lanes = 16;
  g.interconnect = {"nvlink", 600, 8};
  return g;
}

// Attention FLOPs per token, forward: 4·L·d·s.
double attention(const Workload& w) {
  return 4.0 * w.model.layers * w.model.heads * w.model.head_dim * w.seq_len;
}

}  // namespace

TEST_CASE("decode of a 7B bf16 model is bandwidth x efficiency / bytes per token") {
  const Throughput t = estimate_throughput(inference(7e9), card(1e6), 1, false, plain());
  CHECK(t.decode_tokens_per_s == Approx(1000e9 * 0.8 / (2 * 7e9)));
  CHECK(t.bound == "memory-bandwidth");
  CHECK(t.mfu == Approx(0.5));
}

TEST_CASE("int4 weights read a quarter of the bytes of bf16 on the same card") {
  const auto k = plain();
  const double bf16 =
      estimate_throughput(inference(7e9), card(1e6), 1, false, k).decode_tokens_per_s;
  // The LM head (32000 x 4096) stays 16-bit; the rest is read at 4 bits.
  const double head = 32000.0 * 4096, body = 7e9 - head;
  const double int4 = estimate_throughput(inference(7e9, Precision::int4), card(1e6), 1, false, k)
                          .decode_tokens_per_s;
  CHECK(int4 == Approx(1000e9 * 0.8 / (body * 0.5 + head * 2)));
  CHECK(int4 > 3 * bf16);
  CHECK(estimate_throughput(inference(7e9, Precision::int4), card(), 1, false).decode_tokens_per_s >
        estimate_throughput(inference(7e9), card(), 1, false).decode_tokens_per_s);
}

TEST_CASE("the per-layer decode overhead adds to every step") {
  auto k = plain();
  k.decode_layer_overhead_s = 100e-6;
  const double t_step = 2 * 7e9 / (1000e9 * 0.8) + 32 * 100e-6;
  CHECK(estimate_throughput(inference(7e9), card(1e6), 1, false, k).decode_tokens_per_s ==
        Approx(1 / t_step));
}

TEST_CASE("a large batch turns decode compute-bound") {
  Workload w = inference(7e9);
  w.batch = 4096;
  const Throughput t = estimate_throughput(w, card(100), 1, false, plain());
  CHECK(t.bound == "compute");
  const double flops = 2 * 7e9 + 4.0 * 32 * 32 * 128 * 1.5;  // decode context 1.5 tokens
  CHECK(t.decode_tokens_per_s == Approx(100e12 * 0.5 / flops));
}

TEST_CASE("full training costs 6 x params + 12·L·d·s FLOPs per token") {
  const Workload w = training(Mode::full, 1e9);
  const Throughput t = estimate_throughput(w, card(100), 1, false, plain());
  CHECK(t.train_tokens_per_s == Approx(100e12 * 0.5 / (6e9 + 3 * attention(w))));
  CHECK(t.tflops_used == 100);
  CHECK(t.bound == "compute");
  CHECK(t.decode_tokens_per_s == 0);
}

TEST_CASE("LoRA skips weight gradients; recompute adds a forward; QLoRA pays dequantization") {
  Workload w = training(Mode::lora, 1e9);
  const auto k = plain();
  CHECK(estimate_throughput(w, card(100), 1, false, k).train_tokens_per_s ==
        Approx(100e12 * 0.5 / (4e9 + 3 * attention(w))));
  w.grad_ckpt = true;
  const double with_ckpt = 100e12 * 0.5 / (6e9 + 4 * attention(w));
  CHECK(estimate_throughput(w, card(100), 1, false, k).train_tokens_per_s == Approx(with_ckpt));
  w.mode = Mode::qlora, w.precision = Precision::int4;
  CHECK(estimate_throughput(w, card(100), 1, false, k).train_tokens_per_s ==
        Approx(with_ckpt / 1.5));
}

TEST_CASE("MoE training and decode use the active parameters only") {
  Workload dense = training(Mode::full, 47e9), moe = dense;
  moe.model.active_params = 13e9;
  moe.model.moe = MoeSpec{8, 2, 0, 14336, 0};
  const auto k = plain();
  CHECK(estimate_throughput(moe, card(100), 1, false, k).train_tokens_per_s >
        3 * estimate_throughput(dense, card(100), 1, false, k).train_tokens_per_s);
  Workload dense_inf = inference(47e9), moe_inf = dense_inf;
  moe_inf.model.active_params = 13e9;
  moe_inf.model.moe = moe.model.moe;
  CHECK(estimate_throughput(moe_inf, card(), 1, false, k).decode_tokens_per_s >
        3 * estimate_throughput(dense_inf, card(), 1, false, k).decode_tokens_per_s);
}

TEST_CASE("GeForce trains at half its FP16-accumulate rate, but prefill may use it") {
  const auto k = plain();
  const Gpu geforce = card(165.2, 330.3), full_rate = card(330.3);
  const Workload w = training(Mode::lora, 7e9);
  const double half = estimate_throughput(w, geforce, 1, false, k).train_tokens_per_s;
  const double full = estimate_throughput(w, full_rate, 1, false, k).train_tokens_per_s;
  CHECK(half / full == Approx(165.2 / 330.3));
  CHECK(estimate_throughput(w, geforce, 1, false, k).tflops_used == Approx(165.2));

  Workload prompt = inference(7e9);
  prompt.seq_len = prompt.prompt_len = 512;
  CHECK(estimate_throughput(prompt, geforce, 1, false, k).prefill_tokens_per_s ==
        Approx(estimate_throughput(prompt, full_rate, 1, false, k).prefill_tokens_per_s));
  auto no_acc16 = k;
  no_acc16.prefill_fp16_accumulate = false;
  CHECK(estimate_throughput(prompt, geforce, 1, false, no_acc16).prefill_tokens_per_s <
        0.51 * estimate_throughput(prompt, full_rate, 1, false, k).prefill_tokens_per_s);
}

TEST_CASE("utilisation falls with FLOPs per byte and never passes the cap") {
  auto k = plain();
  k.balance_exponent = 0.5, k.utilisation_cap = 0.7;
  Gpu g = card(150);  // 150 TFLOPS / 1000 GB/s = the reference balance
  const Workload w = training(Mode::full, 1e9);
  CHECK(estimate_throughput(w, g, 1, false, k).mfu == Approx(0.5));
  g.bf16_tflops_dense = 600;  // 4x the reference: u = 0.5 x (1/4)^0.5
  CHECK(estimate_throughput(w, g, 1, false, k).mfu == Approx(0.25));
  g.bf16_tflops_dense = 15;  // 0.1x: 0.5 x 10^0.5 = 1.58, capped
  CHECK(estimate_throughput(w, g, 1, false, k).mfu == Approx(0.7));
}

TEST_CASE("the GPU count: more cards never lower total training throughput; links help") {
  for (Shard shard : {Shard::ddp, Shard::fsdp})
    for (double params : {1e9, 7e9, 70e9})
      for (bool linked : {false, true}) {
        Workload w = training(Mode::full, params);
        w.shard = shard;
        w.seq_len = 2048;  // a real recipe's step: tiny steps over PCIe are comm-bound
        double last = 0;
        for (int n = 1; n <= 8; ++n) {
          const Throughput t = estimate_throughput(w, card(), n, linked);
          CHECK(t.train_tokens_per_s >= last);
          CHECK(t.scaling <= 1.2);
          last = t.train_tokens_per_s;
          if (n > 1)
            CHECK(estimate_throughput(w, card(), n, true).train_tokens_per_s >=
                  estimate_throughput(w, card(), n, false).train_tokens_per_s);
        }
      }
}

TEST_CASE("PCIe makes large-model sharded training pay for its traffic") {
  Workload w = training(Mode::full, 70e9);
  w.shard = Shard::fsdp;
  w.batch = 8;  // 6.7 s of compute per step against 10 s of gathers over PCIe, 1 s over NVLink
  const auto k = plain();
  const Throughput pcie = estimate_throughput(w, card(), 4, false, k);
  const Throughput nvlink = estimate_throughput(w, card(), 4, true, k);
  CHECK(pcie.scaling < 0.8 * 0.8);  // table 0.8, and the gathers do not hide
  CHECK(nvlink.scaling == Approx(1.0));
}

TEST_CASE("multi-GPU inference: tensor parallel adds bandwidth, a layer split does not") {
  Workload w = inference(70e9);
  const auto k = plain();
  const double one = estimate_throughput(w, card(), 1, true, k).decode_tokens_per_s;
  CHECK(estimate_throughput(w, card(), 4, true, k).decode_tokens_per_s == Approx(one));
  w.shard = Shard::tp;
  const Throughput tp = estimate_throughput(w, card(), 4, true, k);
  CHECK(tp.decode_tokens_per_s == Approx(4 * one));  // zero latency in plain()
  CHECK(tp.scaling == Approx(1.0));
  CHECK(estimate_throughput(w, card(), 4, true).decode_tokens_per_s >
        estimate_throughput(w, card(), 4, false).decode_tokens_per_s);
}

TEST_CASE("a bigger model is slower everywhere") {
  for (Mode mode : {Mode::full, Mode::lora, Mode::qlora}) {
    CHECK(estimate_throughput(training(mode, 13e9), card(), 1, false).train_tokens_per_s <
          estimate_throughput(training(mode, 7e9), card(), 1, false).train_tokens_per_s);
  }
  CHECK(estimate_throughput(inference(13e9), card(), 1, false).decode_tokens_per_s <
        estimate_throughput(inference(7e9), card(), 1, false).decode_tokens_per_s);
}

TEST_CASE("a card without a compute figure still decodes, but cannot train") {
  Gpu apple = card();
  apple.bf16_tflops_dense = apple.fp16_tflops_dense = std::nullopt;
  apple.fp32_tflops = 0;
  const Throughput train = estimate_throughput(training(Mode::lora, 7e9), apple, 1, false);
  CHECK(train.train_tokens_per_s == 0);
  CHECK_FALSE(train.assumptions.empty());
  const Throughput inf = estimate_throughput(inference(7e9), apple, 1, false);
  CHECK(inf.decode_tokens_per_s > 0);
  CHECK(inf.prefill_tokens_per_s == 0);
}

TEST_CASE("assumptions name the constants they used") {
  const Throughput t = estimate_throughput(training(Mode::lora, 7e9), card(), 2, false);
  std::string all;
  for (const auto& a : t.assumptions) all += a + "\n";
  CHECK(all.find("[train_utilisation]") != std::string::npos);
  CHECK(all.find("[scaling_pcie]") != std::string::npos);
  CHECK(all.find("[balance_exponent]") != std::string::npos);
}

TEST_CASE("primary throughput and time to finish") {
  Throughput t;
  t.train_tokens_per_s = 1000, t.decode_tokens_per_s = 50;
  CHECK(primary_tokens_per_s(training(Mode::lora, 7e9), t) == 1000);
  CHECK(primary_tokens_per_s(inference(7e9), t) == 50);
  CHECK(hours_for_tokens(3.6e6, 1000) == Approx(1.0));
  CHECK(hours_for_tokens(0, 0) == 0);
  CHECK(std::isinf(hours_for_tokens(1, 0)));
  CHECK_THROWS_AS(hours_for_tokens(-1, 10), Error);
  CHECK_THROWS_AS(estimate_throughput(inference(7e9), card(), 0, false), Error);
}

TEST_CASE("the shipped constants parse, carry sources and follow their schema") {
  const auto& k = default_throughput_constants();
  CHECK(k.train_utilisation > 0);
  CHECK(k.decode_bandwidth_efficiency <= 1);
  CHECK(k.scaling_pcie.count(2) == 1);
  const auto doc = nlohmann::json::parse(embedded_text("data/throughput.json"));
  const auto schema = nlohmann::json::parse(embedded_text("data/schema/throughput.schema.json"));
  CHECK(check_schema(schema, doc).empty());
  for (const auto& [key, c] : doc["constants"].items()) {
    INFO(key);
    CHECK_FALSE(c["source"].get<std::string>().empty());
  }
}

TEST_CASE("bad constants are data errors naming the key") {
  auto doc = nlohmann::json::parse(embedded_text("data/throughput.json"));
  doc["constants"]["decode_bandwidth_efficiency"]["value"] = 1.7;
  try {
    parse_throughput_constants(doc, "t.json");
    FAIL("accepted an efficiency above 1");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::data);
    CHECK(std::string(e.what()).find("decode_bandwidth_efficiency") != std::string::npos);
  }
  doc = nlohmann::json::parse(embedded_text("data/throughput.json"));
  doc["constants"]["qlora_step_time_factor"].erase("source");
  CHECK_THROWS_AS(parse_throughput_constants(doc, "t.json"), Error);
}
