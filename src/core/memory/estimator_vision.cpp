// Convolutional networks (kind cnn: ResNet, YOLOv8): what training keeps for backward per
// image, from the values counted on the model itself (data/models.json
// saved_values_per_image at the preset's image size), scaled with the pixels.
#include <algorithm>

#include "estimator_parts.hpp"

namespace gpusel::detail {
namespace {

double side(const Setup& s) {
  const CnnSpec& c = *s.w.model.cnn;
  return s.w.image_size > 0 ? s.w.image_size : c.image_size;
}

// The largest feature map (values per image): the stem's output at stride 2 and the
// widest stage, from the backbone's stages.
double largest_map(const Setup& s) {
  const CnnSpec& c = *s.w.model.cnn;
  double best = 3 * side(s) * side(s);
  for (const CnnStage& st : c.stages) {
    const double px = side(s) / st.stride;
    best = std::max(best, double(std::max(st.channels, st.mid_channels)) * px * px);
  }
  return best;
}

}  // namespace

void add_vision_components(const Setup& s, std::vector<Component>& out) {
  const Workload& w = s.w;
  const CnnSpec& c = *w.model.cnn;
  const double scale = (side(s) / c.image_size) * (side(s) / c.image_size);
  // conv, batch norm and SiLU/ReLU run in 16 bits under CUDA AMP (not on autocast's fp32 list).
  const double vb = w.amp || w.precision != Precision::fp32 ? 2 : 4;
  const double map = largest_map(s);
  if (!is_training(w.mode)) {
    const double bytes = double(w.batch) * 2 * map * vb;
    out.push_back({"prefill_workspace", bytes,
                   num(w.batch) + " images x 2 x largest feature map " + num(map) + " x " +
                       num(vb) + " B (a layer's input and output)"});
    return;
  }
  const double saved = c.saved_values * scale;
  // Backward adds the gradient of the current layer's output and input.
  const double per_image = (saved + 2 * map) * vb;
  out.push_back({"activations", w.batch * per_image,
                 num(w.batch) + " images x (" + num(saved) + " saved values at " + num(side(s)) +
                     " px (" + num(c.saved_values) + " at " + std::to_string(c.image_size) +
                     " px x (side ratio)^2) + 2 x largest map " + num(map) + ") x " + num(vb) +
                     " B"});
}

}  // namespace gpusel::detail
