// Convolutional networks (throughput_cnn.cpp): images/s from the published forward FLOPs
// per image and the activations they move, on the round test card (100 TFLOPS BF16 dense,
// 1000 GB/s, training efficiency 0.5) so the sums can be written down; then the shipped
// presets on catalog cards.
#include <catch2/catch.hpp>

#include "gpusel/data/data_source.hpp"
#include "gpusel/data/models.hpp"
#include "gpusel/speed/throughput.hpp"
#include "throughput_fixtures.hpp"

using namespace gpusel;
using namespace tput_fixtures;

namespace {

// 4 G multiply-adds (8 GFLOP) and 20M activations per 224-px image.
Workload cnn(Mode mode, bool macs = true) {
  Workload w;
  w.model.id = w.model.name = "convnet";
  w.model.kind = "cnn";
  w.model.params = 1e3;  // a negligible optimizer step
  w.model.vocab = 1000;
  w.model.cnn = CnnSpec{224, 4, macs, 20e6, {{32, 2048, 512, 3}}, ""};
  w.mode = mode;
  w.precision = Precision::bf16;
  w.grad_ckpt = w.flash_attn = false;
  w.batch = 32;
  return w;
}

ThroughputConstants with_memory() {
  ThroughputConstants k = plain();
  k.memory_bound_training = true;
  k.cnn_train_passes = {5, 5, 5}, k.cnn_infer_passes = {2, 2, 2};
  return k;
}

Workload cnn_preset(const std::string& id, Mode mode, int batch) {
  static const std::vector<ModelArch> models = load_models({});
  Workload w;
  w.model = require_model(models, id);
  w.mode = mode;
  w.precision = Precision::bf16;
  w.grad_ckpt = w.flash_attn = false;
  w.batch = batch;
  return w;
}

}  // namespace

TEST_CASE("a CNN trains at 3 x its forward FLOPs per image, multiply-adds counted twice") {
  const Throughput t = estimate_throughput(cnn(Mode::full), card(100), 1, false, plain());
  CHECK(t.unit == "images");
  CHECK(t.train_tokens_per_s == Approx(100e12 * 0.5 / (3 * 8e9)));
  CHECK(t.bound == "compute");
  // The same figure published as FLOPs (Ultralytics' convention) is half the work.
  const Throughput f = estimate_throughput(cnn(Mode::full, false), card(100), 1, false, plain());
  CHECK(f.train_tokens_per_s == Approx(2 * t.train_tokens_per_s));
}

TEST_CASE("a CNN's activations cost their measured passes of 2 bytes at the card's bandwidth") {
  const Workload w = cnn(Mode::full);
  const double compute = 3 * 8e9 / (100e12 * 0.5);
  const double memory = 20e6 * 2 * 5 / 1000e9;  // 200 us per image
  const Throughput t = estimate_throughput(w, card(100), 1, false, with_memory());
  CHECK(1 / t.train_tokens_per_s == Approx(compute + memory).epsilon(1e-4));
  CHECK(t.bound == "compute");  // 480 us of matmuls against 200 us of traffic
  // Inference: one forward pass, its passes over the activations, images/s in both rates.
  const Throughput i =
      estimate_throughput(cnn(Mode::inference), card(100), 1, false, with_memory());
  CHECK(1 / i.decode_tokens_per_s == Approx(8e9 / 50e12 + 20e6 * 2 * 2 / 1000e9));
  CHECK(i.prefill_tokens_per_s == i.decode_tokens_per_s);
  CHECK(i.train_tokens_per_s == 0);
}

TEST_CASE("a CNN's traffic follows its precision's path: bf16 batch norm, fp32 values") {
  ThroughputConstants k = with_memory();
  k.cnn_train_passes = {10, 15, 16};  // fp16 (cuDNN), bf16 (PyTorch's kernels), fp32 (NCHW)
  const double compute = 3 * 8e9 / (100e12 * 0.5);
  Workload w = cnn(Mode::full);
  w.precision = Precision::fp16;
  const double fp16 = estimate_throughput(w, card(100), 1, false, k).train_tokens_per_s;
  CHECK(1 / fp16 == Approx(compute + 20e6 * 2 * 10 / 1000e9).epsilon(1e-4));
  w.precision = Precision::bf16;
  const double bf16 = estimate_throughput(w, card(100), 1, false, k).train_tokens_per_s;
  CHECK(1 / bf16 == Approx(compute + 20e6 * 2 * 15 / 1000e9).epsilon(1e-4));
  // AMP keeps the 16-bit path whatever the stored weights.
  w.amp = true;
  CHECK(estimate_throughput(w, card(100), 1, false, k).train_tokens_per_s == Approx(bf16));
  // fp32 without AMP: 4-byte values over the fp32 passes, at the FP32 rate (25 TFLOPS).
  w.amp = false, w.precision = Precision::fp32;
  const double fp32 = estimate_throughput(w, card(100), 1, false, k).train_tokens_per_s;
  CHECK(1 / fp32 == Approx(3 * 8e9 / 12.5e12 + 20e6 * 4 * 16 / 1000e9).epsilon(1e-4));
}

TEST_CASE("fp32 convolutions run in TF32 from compute capability 8.0, as PyTorch defaults") {
  ThroughputConstants k = plain();
  k.tf32_fraction = 0.5;
  Workload w = cnn(Mode::full);
  w.precision = Precision::fp32;
  Gpu g = card(100);  // FP32 25 TFLOPS, 16-bit 100
  const auto rate = [&](const Gpu& c) {
    return estimate_throughput(w, c, 1, false, k).train_tokens_per_s;
  };
  g.platform_target = "sm_70";  // Volta: no TF32, the FP32 rate
  CHECK(rate(g) == Approx(25e12 * 0.5 / (3 * 8e9)));
  for (const char* sm : {"sm_80", "sm_89", "sm_90", "sm_120"}) {
    g.platform_target = sm;
    CHECK(rate(g) == Approx(50e12 * 0.5 / (3 * 8e9)));
  }
  g.vendor = "amd", g.platform_target = "gfx942";
  CHECK(rate(g) == Approx(25e12 * 0.5 / (3 * 8e9)));
  // Transformers keep FP32 matmuls (PyTorch leaves TF32 off for them): no change there.
  k.tf32_fraction = 0;
  g.vendor = "nvidia", g.platform_target = "sm_90";
  CHECK(rate(g) == Approx(25e12 * 0.5 / (3 * 8e9)));
}

TEST_CASE("shipped data: the measured H200 ResNet-50 rates within 10 %") {
  // tests/calibration/h200-2026-12-04/results-6.jsonl (rows H35-H37): the constants come from
  // the same run's kernel profile, so this pins the arithmetic, not a held-out check.
  Workload w = cnn_preset("resnet-50", Mode::full, 256);
  w.optimizer = Optimizer::sgd;
  const Gpu& h200 = shipped_gpu("h200-sxm");
  w.amp = true;
  CHECK(estimate_throughput(w, h200, 1, false).train_tokens_per_s == Approx(4705).epsilon(0.10));
  w.precision = Precision::fp16;
  CHECK(estimate_throughput(w, h200, 1, false).train_tokens_per_s == Approx(6106).epsilon(0.10));
  w.amp = false, w.precision = Precision::fp32;
  CHECK(estimate_throughput(w, h200, 1, false).train_tokens_per_s == Approx(2215).epsilon(0.10));
}

TEST_CASE("a CNN's work grows with the pixel count of --image-size") {
  Workload w = cnn(Mode::full);
  const double base = estimate_throughput(w, card(100), 1, false, with_memory()).train_tokens_per_s;
  w.image_size = 448;
  const double big = estimate_throughput(w, card(100), 1, false, with_memory()).train_tokens_per_s;
  CHECK(big == Approx(base / 4).epsilon(1e-3));
}

TEST_CASE("several cards train a CNN data-parallel: near-linear on NVLink") {
  const Workload w = cnn(Mode::full);
  const Throughput one = estimate_throughput(on_gpus(w, 1), card(100), 1, true, with_memory());
  const Workload dp = on_gpus(w, 8);
  CHECK(dp.shard == Shard::ddp);
  const Throughput eight = estimate_throughput(dp, card(100), 8, true, with_memory());
  CHECK(eight.train_tokens_per_s <= 8 * one.train_tokens_per_s);
  CHECK(eight.train_tokens_per_s > 7 * one.train_tokens_per_s);
}

TEST_CASE("shipped CNN presets: images/s rank the cards by their compute and bandwidth") {
  // Batch 256 keeps every card's step above the host's floor (host_floor_test.cpp).
  for (const char* id : {"resnet-50", "yolov8m"}) {
    const Workload w = cnn_preset(id, Mode::full, 256);
    const double v100 =
        estimate_throughput(w, shipped_gpu("v100-sxm2-32gb"), 1, false).train_tokens_per_s;
    const double a100 =
        estimate_throughput(w, shipped_gpu("a100-80gb-sxm"), 1, false).train_tokens_per_s;
    const double h100 =
        estimate_throughput(w, shipped_gpu("h100-sxm"), 1, false).train_tokens_per_s;
    CHECK(v100 < a100);
    CHECK(a100 < h100);
    // Not a token rate: images per second of the order published benchmarks give (ResNet-50
    // on one A100: thousands; YOLOv8m at 640 px: hundreds).
    CHECK(a100 < 10000);
    CHECK(a100 > 100);
  }
  const Throughput t = estimate_throughput(cnn_preset("resnet-50", Mode::inference, 64),
                                           shipped_gpu("t4"), 1, false);
  CHECK(t.unit == "images");
  CHECK(t.decode_tokens_per_s > 0);
}

TEST_CASE("an encoder's inference rate is its encode (prompt) rate: it generates nothing") {
  Workload w = cnn_preset("bert-base-uncased", Mode::inference, 32);
  w.seq_len = 128;
  const Throughput t = estimate_throughput(w, shipped_gpu("a100-80gb-sxm"), 1, false);
  CHECK(t.unit == "tokens");
  CHECK(t.decode_tokens_per_s == t.prefill_tokens_per_s);
  CHECK(t.decode_tokens_per_s > 0);
}

TEST_CASE("a ViT is rated in images/s, its sequence the patches of --image-size") {
  Workload w = cnn_preset("vit-b-16", Mode::full, 64);
  w.seq_len = 197;
  const Throughput small = estimate_throughput(w, shipped_gpu("a100-80gb-sxm"), 1, false);
  CHECK(small.unit == "images");
  w.image_size = 448;  // 28 x 28 patches + the class token
  CHECK(tokens_per_sample(w) == 785);
  const Throughput big = estimate_throughput(w, shipped_gpu("a100-80gb-sxm"), 1, false);
  // Four times the tokens per image, and attention grows faster: at most a quarter the rate;
  // each token attending to four times as many bounds the work per image at 16 times.
  CHECK(big.train_tokens_per_s < small.train_tokens_per_s / 4);
  CHECK(big.train_tokens_per_s > small.train_tokens_per_s / 16);
}

TEST_CASE("an image size starts at the smallest input a vision model takes") {
  CHECK(min_image_side(cnn_preset("resnet-50", Mode::full, 1).model) == 32);
  CHECK(min_image_side(cnn_preset("yolov8n", Mode::full, 1).model) == 32);
  CHECK(min_image_side(cnn_preset("vit-b-16", Mode::full, 1).model) == 16);
  CHECK(min_image_side(cnn_preset("bert-base-uncased", Mode::full, 1).model) == 0);
  Workload w = cnn_preset("yolov8n", Mode::inference, 1);
  w.image_size = 16;
  CHECK_THROWS_WITH(validate(w), Catch::Contains("below the 32 px"));
  w.image_size = 32;
  CHECK_NOTHROW(validate(w));
  Workload v = cnn_preset("vit-b-16", Mode::inference, 1);
  v.seq_len = 197;
  v.image_size = 15;
  CHECK_THROWS_WITH(validate(v), Catch::Contains("takes as one patch"));
}
