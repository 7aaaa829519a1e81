// Convolutional networks (ResNet, YOLO): images/s. Their published forward FLOPs per image
// run at the card's achievable matmul rate times the training stack's efficiency, as a
// transformer's GEMMs do (cuDNN lowers convolutions to implicit GEMMs on the same tensor
// cores); fp32 convolutions run in TF32 where the card has it, as PyTorch does by default. The
// ops between them (batch norm, activations, residual adds, pooling) move every activation
// the network makes, counted from the values autograd saves per image
// (models.json cnn.saved_values_per_image, measured), the passes over each measured on
// ResNet-50 for each precision's PyTorch path (cnn_activation_traffic_passes). Several cards
// run data-parallel (DDP): the gradient all-reduce that does not hide behind the backward
// pass is added.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "throughput_model.hpp"

namespace gpusel::tput {
namespace {

struct PerImage {
  double forward_flops = 0;  // one image's forward pass
  double values = 0;         // activations it makes (autograd's saved values)
  double side = 0;           // input side, pixels
};

// FLOPs and activations scale with the pixel count from the published input side.
PerImage per_image(const Workload& w) {
  const CnnSpec& c = *w.model.cnn;
  PerImage p;
  p.side = w.image_size > 0 ? w.image_size : c.image_size;
  const double area = std::pow(p.side / c.image_size, 2);
  p.forward_flops = c.gflops * 1e9 * (c.gflops_are_macs ? 2 : 1) * area;
  p.values = c.saved_values * area;
  return p;
}

// The network's blocks: its stages' (a ResNet bottleneck, a YOLO stage block; the stem is
// the first stage's one block).
double blocks(const CnnSpec& c) {
  double n = 0;
  for (const auto& stage : c.stages) n += stage.blocks;
  return n;
}

bool fp32(const Workload& w) { return w.precision == Precision::fp32 && !w.amp; }
double value_bytes(const Workload& w) { return fp32(w) ? 4 : 2; }

// The measured passes of the precision's path: fp32 (NCHW, cuDNN batch norm), bf16 (PyTorch's
// own batch norm: cuDNN's refuses bfloat16), anything else fp16's (cuDNN NHWC).
double passes(const Workload& w, const K& k) {
  const K::CnnPasses& p = is_training(w.mode) ? k.cnn_train_passes : k.cnn_infer_passes;
  return fp32(w) ? p.fp32 : w.precision == Precision::bf16 ? p.bf16 : p.fp16;
}

// NVIDIA compute capability 8.0 and later (platform target "sm_80" and up) has TF32.
bool has_tf32(const Gpu& g) {
  return g.vendor == "nvidia" && compute_capability(g.platform_target) >= 80;
}

// fp32 convolutions run in TF32 (torch.backends.cudnn.allow_tf32 defaults to True) at a
// fraction of the achievable 16-bit rate, where that beats the card's FP32 rate.
void tf32_convolutions(const Workload& w, const Gpu& g, const K& k, Peaks& pk, Throughput& t) {
  if (!fp32(w) || k.tf32_fraction <= 0 || !has_tf32(g)) return;
  const double tf32 = achievable(g, k).tflops16 * k.tf32_fraction;
  if (tf32 <= pk.linear) return;
  pk.linear = tf32;
  if (texts_on())
    t.assumptions.push_back(
        "fp32 convolutions run in TF32 (PyTorch's default for cuDNN): " + num(k.tf32_fraction) +
        " x the achievable 16-bit rate = " + num(tf32) + " TFLOPS [tf32_fraction_of_16bit]");
}

void describe(const Workload& w, const K& k, const PerImage& p, double flops, double bytes,
              double bw, double rate, double eff, Throughput& t) {
  if (!texts_on()) return;
  const CnnSpec& c = *w.model.cnn;
  t.assumptions.push_back("FLOPs/image " + num(flops / 1e9) +
                          " GFLOP: " + (is_training(w.mode) ? "3 x " : "") +
                          num(p.forward_flops / 1e9) + " forward at " + num(p.side) + " px (" +
                          num(c.gflops) + (c.gflops_are_macs ? " G multiply-adds x 2" : " GFLOPs") +
                          " at " + std::to_string(c.image_size) + " px, x pixels) at " + num(rate) +
                          " TFLOPS x " + num(eff) + " training stack efficiency");
  t.assumptions.push_back(
      "memory-bound ops (batch norm, activations, residuals, pooling): " + num(p.values / 1e6) +
      "M activations/image x " + num(value_bytes(w)) + " B x " + num(passes(w, k)) + " passes = " +
      num(bytes / 1e6) + " MB/image [cnn_activation_traffic_passes] at " + num(bw / 1e9) + " GB/s");
}

}  // namespace

void estimate_cnn(const Workload& w, const Gpu& g, int count, bool linked, const K& k,
                  const Shape& s, Throughput& t, const NodeNetwork* nodes) {
  t.unit = "images";
  Peaks pk = training_peaks(w, g, k, t);
  tf32_convolutions(w, g, k, pk, t);
  if (pk.linear <= 0) {
    if (texts_on()) t.assumptions.push_back(g.id + " has no compute figure: images/s unknown");
    t.bound = "compute";
    return;
  }
  std::string id;
  const double eff = training_efficiency(g, k, id);
  const PerImage p = per_image(w);
  const bool train = is_training(w.mode);
  const double flops = (train ? 3 : 1) * p.forward_flops;
  const double bytes = p.values * value_bytes(w) * passes(w, k);
  const double bw = achievable_bandwidth(g, k);
  const double compute_s = flops / (pk.linear * 1e12 * eff);
  const double memory_s = bw > 0 && k.memory_bound_training ? bytes / bw : 0;
  describe(w, k, p, flops, bytes, bw, pk.linear, eff, t);
  double step_s = w.batch * (compute_s + memory_s);
  double exposed = 0;
  if (train) {
    const double opt = bw > 0 && k.memory_bound_training
                           ? optimizer_traffic(w, s, 1) / bw / std::max(1, w.grad_accum)
                           : 0;
    step_s += opt;
    step_s = apply_host_floor(w, blocks(*w.model.cnn) * k.kernels_per_cnn_block, step_s, k, t);
    const Fabric f = fabric_of(g, count, linked, k, nodes);
    exposed = exposed_step_s(w, s, g, f, step_s / 3, step_s * 2 / 3, k, t.assumptions);
  } else if (count > 1 && texts_on()) {
    t.assumptions.push_back(std::to_string(count) + " cards each run their own batches");
  }
  t.scaling = step_s / (step_s + exposed);
  const double images_per_s = count * t.scaling * w.batch / step_s;
  if (train) {
    t.train_tokens_per_s = images_per_s;
  } else {
    t.prefill_tokens_per_s = t.decode_tokens_per_s = images_per_s;
  }
  t.tflops_used = pk.linear;
  t.mfu = pk.spec > 0 ? flops * images_per_s / count / 1e12 / pk.spec : 0;
  if (t.bound != "host") t.bound = compute_s >= memory_s ? "compute" : "memory-bandwidth";
}

}  // namespace gpusel::tput
