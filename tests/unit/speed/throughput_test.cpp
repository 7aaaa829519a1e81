// The throughput model's arithmetic, on hand-made constants where every factor is 1 or a
// round number, so that the expected values can be written down exactly.
#include "gpusel/speed/throughput.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "gpusel/base/error.hpp"
#include "throughput_fixtures.hpp"

using namespace gpusel;
using namespace tput_fixtures;

TEST_CASE("decode of a 7B bf16 model is bandwidth x efficiency / bytes per token") {
  const Throughput t = estimate_throughput(inference(7e9), card(1e6), 1, false, plain());
  CHECK(t.decode_tokens_per_s == Approx(1000e9 * 0.8 / (2 * 7e9)));
  CHECK(t.bound == "memory-bandwidth");
  CHECK(t.engine == "llama.cpp");
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
}

TEST_CASE("the engine's dequantization factor and per-layer overhead add to every step") {
  auto k = plain();
  k.engines.at("llama.cpp").layer_overhead_s = 100e-6;
  k.engines.at("llama.cpp").int8_factor = 0.5;
  const double t_step = 2 * 7e9 / (1000e9 * 0.8) + 32 * 100e-6;
  CHECK(estimate_throughput(inference(7e9), card(1e6), 1, false, k).decode_tokens_per_s ==
        Approx(1 / t_step));
  const double head = 32000.0 * 4096, body = 7e9 - head;
  const double t8 = (body + head * 2) / (1000e9 * 0.8 * 0.5) + 32 * 100e-6;
  CHECK(estimate_throughput(inference(7e9, Precision::int8), card(1e6), 1, false, k)
            .decode_tokens_per_s == Approx(1 / t8));
}

TEST_CASE("the memory type's achievable fraction and the engine's kernel multiply") {
  auto k = plain();
  k.memory_types["HBM3e"] = 0.5;
  Gpu g = card(1e6);
  g.memory_type = "HBM3e";
  const double hbm = estimate_throughput(inference(7e9), g, 1, false, k).decode_tokens_per_s;
  CHECK(hbm == Approx(1000e9 * 0.5 * 0.6 / (2 * 7e9)));  // kernel_hbm 0.6 in plain()
  Workload w = inference(7e9);
  w.engine = "vllm";
  CHECK(estimate_throughput(w, g, 1, false, k).decode_tokens_per_s ==
        Approx(1000e9 * 0.5 * 0.9 / (2 * 7e9)));
}

TEST_CASE("a large batch turns decode compute-bound at the engine's prompt efficiency") {
  Workload w = inference(7e9);
  w.batch = 4096;
  w.engine = "vllm";
  const Throughput t = estimate_throughput(w, card(100), 1, false, plain());
  CHECK(t.bound == "compute");
  const double flops = 2 * 7e9 + 4.0 * 32 * 32 * 128 * 1.5;  // decode context 1.5 tokens
  CHECK(t.decode_tokens_per_s == Approx(4096 / (4096 * flops / (100e12 * 0.5))));
}

TEST_CASE("full training costs 6 x params + 12·L·d·s FLOPs per token at the stack's efficiency") {
  const Workload w = training(Mode::full, 1e9);
  const Throughput t = estimate_throughput(w, card(100), 1, false, plain());
  CHECK(t.train_tokens_per_s == Approx(100e12 * 0.5 / (6e9 + 3 * attention(w))));
  CHECK(t.tflops_used == 100);
  CHECK(t.mfu == Approx(0.5));
  CHECK(t.bound == "compute");
  CHECK(t.decode_tokens_per_s == 0);
}

TEST_CASE("LoRA skips weight gradients, recompute adds a forward, QLoRA pays dequantization") {
  Workload w = training(Mode::lora, 1e9);
  auto k = plain();
  CHECK(estimate_throughput(w, card(100), 1, false, k).train_tokens_per_s ==
        Approx(100e12 * 0.5 / (4e9 + 3 * attention(w))));
  w.grad_ckpt = true;
  const double per_token = (6e9 + 4 * attention(w)) / (100e12 * 0.5);
  CHECK(estimate_throughput(w, card(100), 1, false, k).train_tokens_per_s == Approx(1 / per_token));
  w.mode = Mode::qlora, w.precision = Precision::int4;
  k.qlora_dequant_bytes = 2.5;  // 3 passes x (1e9 - head) weights x 2.5 B at 1000 GB/s
  const double dequant = 3 * (1e9 - 32000.0 * 4096) * 2.5 / 1000e9;
  const double step = per_token * w.batch * w.seq_len + dequant;
  CHECK(estimate_throughput(w, card(100), 1, false, k).train_tokens_per_s ==
        Approx(w.batch * w.seq_len / step));
  w.batch = 64;  // the dequantization is per step: a big batch hides it
  CHECK(estimate_throughput(w, card(100), 1, false, k).train_tokens_per_s > 0.95 / per_token);
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

TEST_CASE("a MoE decode step at batch B reads the experts its tokens touch, and says so") {
  const auto k = plain();
  Workload moe = inference(47e9);
  moe.model.active_params = 13e9;
  moe.model.moe = MoeSpec{8, 2, 0, 14336, 0};
  const Throughput one = estimate_throughput(moe, card(), 1, false, k);
  moe.batch = 64;  // 1 - (6/8)^64: every expert is read each step
  const Throughput many = estimate_throughput(moe, card(), 1, false, k);
  // Per sequence, a step of 64 reads every expert once: well below 64x the batch-1 rate.
  CHECK(many.decode_tokens_per_s < 0.5 * 64 * one.decode_tokens_per_s);
  bool said = false;
  for (const auto& a : many.assumptions)
    said = said || a.find("at batch 64: the experts its tokens touch") != std::string::npos;
  CHECK(said);
}

TEST_CASE("GeForce trains at its FP32-accumulate rate, llama.cpp prompts use FP16 accumulate") {
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
  prompt.engine = "vllm";  // PyTorch GEMMs accumulate in FP32: half the rate on GeForce
  CHECK(estimate_throughput(prompt, geforce, 1, false, k).prefill_tokens_per_s <
        0.51 * estimate_throughput(prompt, full_rate, 1, false, k).prefill_tokens_per_s);
}

TEST_CASE("FP8 runs the linear layers at FP8 speed only on cards with FP8 tensor cores") {
  const auto k = plain();
  Workload w = training(Mode::full, 7e9);
  w.precision = Precision::fp8;
  Gpu with = card(100), without = card(100);
  with.fp8_tflops_dense = 200;
  const Throughput fast = estimate_throughput(w, with, 1, false, k);
  const Throughput slow = estimate_throughput(w, without, 1, false, k);
  Workload bf16 = w;
  bf16.precision = Precision::bf16;
  CHECK(fast.train_tokens_per_s > 1.8 * slow.train_tokens_per_s);
  CHECK(slow.train_tokens_per_s ==
        Approx(estimate_throughput(bf16, without, 1, false, k).train_tokens_per_s));
  CHECK(joined(slow).find("no FP8 tensor cores") != std::string::npos);
  CHECK(joined(fast).find("no FP8 tensor cores") == std::string::npos);
  // LoRA over the same base (MLPerf's Llama 2 70B LoRA recipe): the frozen linears' forward
  // and input-gradient GEMMs run at FP8 speed where the card has it, 16-bit speed elsewhere.
  Workload lora = w;
  lora.mode = Mode::lora;
  Workload lora16 = lora;
  lora16.precision = Precision::bf16;
  CHECK(estimate_throughput(lora, with, 1, false, k).train_tokens_per_s >
        1.5 * estimate_throughput(lora16, with, 1, false, k).train_tokens_per_s);
  CHECK(estimate_throughput(lora, without, 1, false, k).train_tokens_per_s ==
        Approx(estimate_throughput(lora16, without, 1, false, k).train_tokens_per_s));
}

TEST_CASE("the achievable matmul rate: measured per card, else a family fraction, else default") {
  auto k = plain();
  k.matmul_default_fraction = 0.5;
  Gpu g = card(100);
  const Workload w = training(Mode::full, 1e9);
  const double at_default = estimate_throughput(w, g, 1, false, k).tflops_used;
  CHECK(at_default == Approx(50));
  MatmulEntry family;
  family.id = "family", family.stack = "test", family.match.vendor = "testvendor";
  family.fraction = 0.8;
  k.matmul.push_back(family);
  g.vendor = "testvendor";
  CHECK(estimate_throughput(w, g, 1, false, k).tflops_used == Approx(80));
  MatmulEntry exact;
  exact.id = "round", exact.stack = "test", exact.match.gpus = {"round"};
  exact.tflops = 70;
  k.matmul.insert(k.matmul.begin(), exact);
  CHECK(estimate_throughput(w, g, 1, false, k).tflops_used == Approx(70));
}

TEST_CASE("several cards: tensor parallel adds bandwidth, a layer split does not") {
  Workload w = inference(70e9);
  const auto k = plain();
  const double one = estimate_throughput(w, card(), 1, true, k).decode_tokens_per_s;
  CHECK(estimate_throughput(w, card(), 4, true, k).decode_tokens_per_s == Approx(one));
  w.shard = Shard::tp;
  const Throughput tp = estimate_throughput(w, card(), 4, true, k);
  // Zero latency in plain(); what remains is one token's all-reduce transfer per layer,
  // on the critical path: a hair under 4x.
  CHECK(tp.decode_tokens_per_s < 4 * one);
  CHECK(tp.decode_tokens_per_s == Approx(4 * one).epsilon(1e-3));
  CHECK(tp.scaling == Approx(1.0).epsilon(1e-3));
}

TEST_CASE("training with layers split keeps one card busy: the total is one card's") {
  Workload w = training(Mode::lora, 7e9);
  const auto k = plain();
  const double one = estimate_throughput(w, card(), 1, false, k).train_tokens_per_s;
  w.shard = Shard::none;
  const Throughput split = estimate_throughput(w, card(), 4, false, k);
  CHECK(split.train_tokens_per_s <= one);
  CHECK(split.train_tokens_per_s > 0.9 * one);
  w.shard = Shard::ddp;
  CHECK(estimate_throughput(w, card(), 4, false, k).train_tokens_per_s > 3 * one);
}

TEST_CASE("communication that exceeds the compute it overlaps is paid") {
  Workload w = training(Mode::full, 70e9);
  w.shard = Shard::fsdp;
  w.batch = 1, w.seq_len = 512;
  auto k = plain();
  k.links["pcie-p2p"] = 0.1;  // a slow link: gathers outlast the compute
  const Throughput slow = estimate_throughput(w, card(), 4, false, k);
  const Throughput fast = estimate_throughput(w, card(), 4, true, k);
  CHECK(slow.scaling < 0.7);
  CHECK(fast.scaling > slow.scaling);
  CHECK(joined(slow).find("FSDP/ZeRO-3 all-gather") != std::string::npos);
}

// Exposed communication per micro-batch step, from the scaling the estimate reports.
static double exposed_share(const Throughput& t) { return 1 / t.scaling - 1; }

TEST_CASE("DDP and ZeRO-1/2 reduce once per optimizer step, FSDP gathers every micro-batch") {
  Workload w = training(Mode::full, 7e9);
  w.batch = 1, w.seq_len = 512;
  auto k = plain();
  k.links["pcie-p2p"] = 0.1;  // slow enough that the reduction is not hidden
  for (const Shard s : {Shard::ddp, Shard::zero1, Shard::zero2}) {
    w.shard = s, w.grad_accum = 1;
    const Throughput one = estimate_throughput(w, card(), 4, false, k);
    REQUIRE(exposed_share(one) > 0.1);
    w.grad_accum = 4;
    const Throughput four = estimate_throughput(w, card(), 4, false, k);
    CHECK(exposed_share(four) == Approx(exposed_share(one) / 4));
    CHECK(joined(four).find("sent once per 4 micro-batches") != std::string::npos);
    w.grad_accum = 16;
    CHECK(estimate_throughput(w, card(), 4, false, k).train_tokens_per_s > four.train_tokens_per_s);
  }
  w.shard = Shard::fsdp, w.grad_accum = 1;
  const double fsdp1 = exposed_share(estimate_throughput(w, card(), 4, false, k));
  w.grad_accum = 4;
  CHECK(exposed_share(estimate_throughput(w, card(), 4, false, k)) == Approx(fsdp1));
}

TEST_CASE("offloading to the host costs the PCIe traffic it moves") {
  Workload w = training(Mode::full, 7e9);
  w.shard = Shard::zero3, w.batch = 1, w.seq_len = 256;
  const auto k = plain();
  const double none = estimate_throughput(w, card(), 2, true, k).train_tokens_per_s;
  w.offload = Offload::optimizer;
  const double opt = estimate_throughput(w, card(), 2, true, k).train_tokens_per_s;
  CHECK(opt < none);
  w.offload = Offload::params;
  CHECK(estimate_throughput(w, card(), 2, true, k).train_tokens_per_s < none);
  // Each card brings its 7 GB weight shard up for forward and again for backward and sends
  // its 7 GB of gradients down: 21 GB, the figure the assumption states.
  CHECK(joined(estimate_throughput(w, card(), 2, true, k)).find("offload params: 21 GB per step") !=
        std::string::npos);
}

TEST_CASE("an offloaded optimizer steps on the host's memory, once per optimizer step") {
  const auto k = plain();
  Workload w = training(Mode::full, 7e9);
  w.shard = Shard::zero3, w.seq_len = 2048, w.offload = Offload::optimizer;
  // Two cards of one host step 7B params between them: 7e9 x 28 B through the host memory.
  const Throughput t = estimate_throughput(w, card(), 2, true, k);
  const double cpu_s = 7e9 * k.cpu_adam_bytes_per_param / k.host_memory_bytes_per_s;
  CHECK(joined(t).find("the optimizer step on the CPU: 7B params x 28 B") != std::string::npos);
  // A faster host memory and more micro-batches per optimizer step both shorten it per token,
  // and never past the run without offload.
  Workload fast = w;
  fast.host_memory_bytes_per_s = 10 * k.host_memory_bytes_per_s;
  Workload accumulating = w;
  accumulating.grad_accum = 16;
  Workload none = w;
  none.offload = Offload::none;
  const double base = t.train_tokens_per_s;
  const double ceiling = estimate_throughput(none, card(), 2, true, k).train_tokens_per_s;
  for (const Workload& v : {fast, accumulating}) {
    const double r = estimate_throughput(v, card(), 2, true, k).train_tokens_per_s;
    CHECK(r > base);
    CHECK(r <= ceiling);
  }
  // The step's time at least: 2 x 2048 tokens a step take no less than cpu_s.
  CHECK(2.0 * 2048 / base >= cpu_s);
  // LoRA's few trainable parameters step in next to no time beside a 2048-token step.
  Workload lora = training(Mode::lora, 7e9);
  lora.shard = Shard::zero3, lora.offload = Offload::optimizer, lora.seq_len = 2048;
  Workload lora_none = lora;
  lora_none.offload = Offload::none;
  CHECK(estimate_throughput(lora, card(), 2, true, k).train_tokens_per_s >
        0.95 * estimate_throughput(lora_none, card(), 2, true, k).train_tokens_per_s);
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
