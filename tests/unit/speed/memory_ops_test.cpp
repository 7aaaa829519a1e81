// The memory-bound part of a training step (throughput_traffic.cpp): the bytes the ops
// between the matmuls and the optimizer step move, at the achievable bandwidth, on the round
// test card (1000 GB/s, 100 TFLOPS, matmul efficiency 0.5) so the sums can be written down.
#include <catch2/catch.hpp>

#include "gpusel/data/data_source.hpp"
#include "gpusel/speed/throughput.hpp"
#include "throughput_fixtures.hpp"

using namespace gpusel;
using namespace tput_fixtures;

namespace {

ThroughputConstants memory_with_memory() {
  ThroughputConstants k = plain();
  k.memory_bound_training = true;
  k.activation_forward_passes = 2, k.activation_backward_passes = 3;
  return k;
}

double tokens_per_s(const Workload& w, const Gpu& g, int n = 1, bool linked = false) {
  return estimate_throughput(w, g, n, linked).train_tokens_per_s;
}

}  // namespace

TEST_CASE("a step adds 34·h bytes per layer and token x 5 passes, the logits and AdamW's 30 B") {
  Workload w = training(Mode::full, 1e9);
  w.amp = true;
  const auto k = memory_with_memory();
  const double per_token_flops = 6e9 + 3 * attention(w);
  const double compute = per_token_flops / (100e12 * 0.5) * w.seq_len;
  const double act = 32 * 5 * 34.0 * 4096 + 4 * 32000.0 * 5;  // flash attention: no scores
  const double step = compute + (act * w.seq_len + 1e9 * 30) / 1000e9;
  CHECK(estimate_throughput(w, card(100), 1, false, k).train_tokens_per_s ==
        Approx(w.seq_len / step));
  // Gradient accumulation runs the optimizer once per 4 micro-batches.
  w.grad_accum = 4;
  const double step4 = compute + (act * w.seq_len + 1e9 * 30 / 4) / 1000e9;
  CHECK(estimate_throughput(w, card(100), 1, false, k).train_tokens_per_s ==
        Approx(w.seq_len / step4));
}

// Eager attention's score ops, measured beyond SDPA on an H200 (data: 48 B forward, 48 B
// backward per score element; a·s elements per token and layer; recompute repeats forward).
TEST_CASE("eager attention moves its measured bytes per score element beyond FlashAttention") {
  Workload flash = training(Mode::lora, 1e9), eager = flash;
  eager.flash_attn = false;
  auto k = memory_with_memory();
  k.eager_forward_bytes = 48, k.eager_backward_bytes = 48;
  const double f = estimate_throughput(flash, card(100), 1, false, k).train_tokens_per_s;
  const double e = estimate_throughput(eager, card(100), 1, false, k).train_tokens_per_s;
  const double extra = 32 * 96.0 * 32 * eager.seq_len / 1000e9;  // seconds per token
  CHECK(1 / e - 1 / f == Approx(extra));
  flash.grad_ckpt = eager.grad_ckpt = true;  // the forward runs twice
  const double fc = estimate_throughput(flash, card(100), 1, false, k).train_tokens_per_s;
  const double ec = estimate_throughput(eager, card(100), 1, false, k).train_tokens_per_s;
  CHECK(1 / ec - 1 / fc == Approx(32 * 144.0 * 32 * eager.seq_len / 1000e9));
}

// Korthikanti's counts in fp32: the 16 activation values of 34·h take 4 B, its two dropout
// masks stay 1 B (66·h); eager attention's measured 16-bit bytes count double.
TEST_CASE("fp32 without autocast moves 66·h bytes per layer and token, eager scores double") {
  Workload flash = training(Mode::full, 1e9);
  flash.precision = Precision::fp32, flash.amp = false;
  Workload eager = flash;
  eager.flash_attn = false;
  auto off = memory_with_memory();
  off.memory_bound_training = false;
  auto k = memory_with_memory();
  k.eager_forward_bytes = 48, k.eager_backward_bytes = 48;
  const double t_off = estimate_throughput(flash, card(100), 1, false, off).train_tokens_per_s;
  const double f = estimate_throughput(flash, card(100), 1, false, k).train_tokens_per_s;
  const double e = estimate_throughput(eager, card(100), 1, false, k).train_tokens_per_s;
  // AdamW in fp32: weight read and written, gradient, two states read and written: 28 B.
  const double act = 32 * 5 * 66.0 * 4096 + 4 * 32000.0 * 5;
  CHECK(1 / f - 1 / t_off == Approx((act + 1e9 * 28 / flash.seq_len) / 1000e9));
  CHECK(1 / e - 1 / f == Approx(32 * 2 * 96.0 * 32 * eager.seq_len / 1000e9));
}

TEST_CASE("the memory-bound share falls as the hidden size grows, and with bandwidth") {
  const auto k = memory_with_memory();
  const auto share = [&](int hidden, double bandwidth) {
    Workload w = training(Mode::full, 1e9);
    w.model = decoder(12.0 * hidden * hidden * 24, 24, hidden);
    w.seq_len = 2048, w.batch = 8;  // the optimizer step amortised over 16k tokens
    Gpu g = card(100);
    g.bandwidth_gbs = bandwidth;
    auto off = k;
    off.memory_bound_training = false;
    return 1 - estimate_throughput(w, g, 1, false, k).train_tokens_per_s /
                   estimate_throughput(w, g, 1, false, off).train_tokens_per_s;
  };
  CHECK(share(1024, 1000) > share(4096, 1000));
  CHECK(share(4096, 1000) > share(8192, 1000));
  CHECK(share(1024, 3000) < share(1024, 1000));
  CHECK(share(8192, 3000) < 0.1);  // large LLMs stay matmul-bound
}

TEST_CASE("shipped data: BERT-large spends far more of its step off the matmuls than a 7B") {
  // The same card, the same tokens per step: a small hidden size (1024) with eager attention
  // moves more bytes per FLOP than a 4096-wide decoder with FlashAttention.
  Workload bert = training(Mode::full, 0.335e9), llm = training(Mode::full, 6.7e9);
  bert.model = decoder(0.335e9, 24, 1024);
  bert.model.heads = 16, bert.model.head_dim = 64;
  bert.flash_attn = false, bert.seq_len = 384, bert.batch = 28, bert.amp = true;
  llm.seq_len = 2048, llm.batch = 4, llm.amp = true;
  const Gpu& g = shipped_gpu("a100-80gb-sxm");
  const double bert_mfu = estimate_throughput(bert, g, 1, false).mfu;
  const double llm_mfu = estimate_throughput(llm, g, 1, false).mfu;
  CHECK(bert_mfu < 0.85 * llm_mfu);
  CHECK(llm_mfu > 0.5);
}

TEST_CASE("shipped data: properties hold with the memory-bound ops") {
  Workload w = training(Mode::full, 6.7e9);
  w.seq_len = 2048, w.batch = 2, w.grad_ckpt = true;
  // A faster card (more matmul rate and bandwidth) is never slower.
  CHECK(tokens_per_s(w, shipped_gpu("h100-sxm")) > tokens_per_s(w, shipped_gpu("a100-80gb-sxm")));
  CHECK(tokens_per_s(w, shipped_gpu("a100-80gb-sxm")) >
        tokens_per_s(w, shipped_gpu("v100-sxm2-32gb")));
  // Tokens/s per card never rise with the batch falling, nor with more cards (DDP: every
  // card runs the whole optimizer step, as one card does).
  Workload small = w;
  small.batch = 1;
  CHECK(tokens_per_s(small, shipped_gpu("h100-sxm")) <= tokens_per_s(w, shipped_gpu("h100-sxm")));
  for (int n : {2, 8, 64}) {
    Workload many = w;
    many.gpus = n, many.shard = Shard::ddp;
    CHECK(tokens_per_s(many, shipped_gpu("h100-sxm"), n, true) / n <=
          tokens_per_s(w, shipped_gpu("h100-sxm")));
  }
}
