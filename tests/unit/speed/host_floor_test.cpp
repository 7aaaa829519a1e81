// Eager PyTorch training's host floor (eager_training_host): a step launches a known number of
// kernels per transformer layer or CNN block and the host spends a measured time on each, so
// no step is shorter than their product, however fast the card.
#include <catch2/catch.hpp>

#include "gpusel/data/data_source.hpp"
#include "gpusel/data/models.hpp"
#include "gpusel/speed/throughput.hpp"
#include "throughput_fixtures.hpp"

using namespace gpusel;
using namespace tput_fixtures;

namespace {

// 1 us of host time per kernel, 10 kernels per layer, 4 per CNN block.
ThroughputConstants floored() {
  ThroughputConstants k = plain();
  k.host_kernel_s = 1e-6, k.kernels_per_layer = 10, k.kernels_per_cnn_block = 4;
  return k;
}

// 1B params over 32 layers: 6 GFLOP a token at 100 TFLOPS x 0.5 = 120 us a token of compute.
Workload small(int batch, int seq) {
  Workload w;
  w.model = decoder(1e9);
  w.mode = Mode::full;
  w.precision = Precision::bf16;
  w.grad_ckpt = false;
  w.batch = batch, w.seq_len = seq;
  return w;
}

double host_step_s(const Workload& w, const Throughput& t) {
  return w.batch * w.seq_len / t.train_tokens_per_s;
}

}  // namespace

TEST_CASE("a training step takes at least its kernels x the host's cost each") {
  ThroughputConstants k = floored();
  k.host_kernel_s = 1e-3;  // 320 ms a step for 32 layers x 10 kernels
  const Workload w = small(1, 16);
  const Throughput t = estimate_throughput(w, card(100), 1, false, k);
  CHECK(host_step_s(w, t) == Approx(0.320));
  CHECK(t.bound == "host");
  // Checkpointing replays the forward: a third more kernels.
  Workload ckpt = w;
  ckpt.grad_ckpt = true;
  CHECK(host_step_s(ckpt, estimate_throughput(ckpt, card(100), 1, false, k)) ==
        Approx(0.320 * 4 / 3));
  // A faster card changes nothing while the host is the slower.
  CHECK(estimate_throughput(w, card(400), 1, false, k).train_tokens_per_s ==
        Approx(t.train_tokens_per_s));
  // torch.compile fuses the step's kernels: no floor.
  Workload compiled = w;
  compiled.framework.compile.value = true;
  const Throughput c = estimate_throughput(compiled, card(100), 1, false, k);
  CHECK(c.bound == "compute");
  CHECK(c.train_tokens_per_s > 100 * t.train_tokens_per_s);
}

TEST_CASE("a step the card runs longer than the host's floor keeps the card's time") {
  const Workload w = small(8, 2048);  // 16k tokens: ~2 s of compute against a 320 us floor
  const Throughput with = estimate_throughput(w, card(100), 1, false, floored());
  const Throughput without = estimate_throughput(w, card(100), 1, false, plain());
  CHECK(with.train_tokens_per_s == Approx(without.train_tokens_per_s));
  CHECK(with.bound == "compute");
}

TEST_CASE("a CNN's floor counts its blocks: ResNet-50's 17 on the shipped constants") {
  static const std::vector<ModelArch> models = load_models({});
  Workload w;
  w.model = require_model(models, "resnet-50");
  w.mode = Mode::full;
  w.precision = Precision::fp16;
  w.amp = true;
  w.optimizer = Optimizer::sgd;
  w.grad_ckpt = w.flash_attn = false;
  const Catalog catalog = load_catalog({});
  const Gpu& h200 = require_gpu(catalog, "h200-sxm");
  // Batch 64: 17 blocks x 49 kernels x 38 us = 31.7 ms, above the card's ~11 ms.
  w.batch = 64;
  const Throughput small_batch = estimate_throughput(w, h200, 1, false);
  CHECK(small_batch.bound == "host");
  CHECK(64 / small_batch.train_tokens_per_s == Approx(17 * 49 * 38e-6).epsilon(1e-3));
  // Batch 256: the card's ~41 ms is longer; the measured 6,106 img/s (row H36) within 10 %.
  w.batch = 256;
  const Throughput big_batch = estimate_throughput(w, h200, 1, false);
  CHECK(big_batch.bound != "host");
  CHECK(big_batch.train_tokens_per_s == Approx(6106).epsilon(0.10));
  // Inference has no floor modelled.
  w.mode = Mode::inference;
  CHECK(estimate_throughput(w, h200, 1, false).bound != "host");
}
