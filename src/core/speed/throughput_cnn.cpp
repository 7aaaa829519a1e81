// Convolutional networks (ResNet, YOLO): images/s. Their published forward FLOPs per image
// run at the card's achievable matmul rate times the training stack's efficiency, as a
// transformer's GEMMs do (cuDNN lowers convolutions to implicit GEMMs on the same tensor
// cores); the ops between them (batch norm, activations, residual adds, pooling) move every
// activation the network makes, counted from the values autograd saves per image
// (models.json cnn.saved_values_per_image, measured), the same passes per activation as a
// transformer layer's (activation_traffic_passes). Several cards run data-parallel (DDP):
// the gradient all-reduce that does not hide behind the backward pass is added.
#include <algorithm>
#include <cmath>

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

double value_bytes(const Workload& w) { return w.precision == Precision::fp32 && !w.amp ? 4 : 2; }

void describe(const Workload& w, const PerImage& p, double flops, double bytes, double bw,
              double rate, double eff, Throughput& t) {
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
      "M activations/image x " + num(value_bytes(w)) + " B x passes = " + num(bytes / 1e6) +
      " MB/image [activation_traffic_passes] at " + num(bw / 1e9) + " GB/s");
}

}  // namespace

void estimate_cnn(const Workload& w, const Gpu& g, int count, bool linked, const K& k,
                  const Shape& s, Throughput& t, const NodeNetwork* nodes) {
  t.unit = "images";
  const Peaks pk = training_peaks(w, g, k, t);
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
  const double passes = k.activation_forward_passes + (train ? k.activation_backward_passes : 0);
  const double bytes = p.values * value_bytes(w) * passes;
  const double bw = achievable_bandwidth(g, k);
  const double compute_s = flops / (pk.linear * 1e12 * eff);
  const double memory_s = bw > 0 && k.memory_bound_training ? bytes / bw : 0;
  describe(w, p, flops, bytes, bw, pk.linear, eff, t);
  double step_s = w.batch * (compute_s + memory_s);
  double exposed = 0;
  if (train) {
    const double opt = bw > 0 && k.memory_bound_training
                           ? optimizer_traffic(w, s, 1) / bw / std::max(1, w.grad_accum)
                           : 0;
    step_s += opt;
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
  t.bound = compute_s >= memory_s ? "compute" : "memory-bandwidth";
}

}  // namespace gpusel::tput
