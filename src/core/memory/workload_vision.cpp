// Vision models' length is the input image: its side, a ViT's patches, the smallest side a
// network takes. Memory, speed and fit read them here, so the stages agree.
#include <algorithm>
#include <cmath>

#include "gpusel/base/error.hpp"
#include "workload_internal.hpp"

namespace gpusel {
namespace {

// A ViT's patch side: its published input side over the patches per side.
double patch_side(const ModelArch& m) {
  const int patches = m.image_tokens ? *m.image_tokens - 1 : 0;
  return patches > 0 ? m.image_size.value_or(224) / std::sqrt(double(patches)) : 0;
}

}  // namespace

int image_side(const Workload& w) {
  if (w.image_size > 0) return w.image_size;
  if (w.model.cnn) return w.model.cnn->image_size;
  return w.model.kind == "vision-encoder" ? w.model.image_size.value_or(224) : 0;
}

int min_image_side(const ModelArch& m) {
  if (m.cnn) {
    int stride = 1;
    for (const auto& s : m.cnn->stages) stride = std::max(stride, s.stride);
    return stride;
  }
  return m.kind == "vision-encoder" ? std::max(1, int(std::lround(patch_side(m)))) : 0;
}

int tokens_per_sample(const Workload& w) {
  const ModelArch& m = w.model;
  if (m.kind != "vision-encoder" || !m.image_tokens) return w.seq_len;
  const double patch = patch_side(m);
  if (w.image_size <= 0 || patch <= 0) return *m.image_tokens;
  const double per_side = std::floor(w.image_size / patch);
  return int(per_side * per_side) + 1;
}

namespace detail {

void validate_image_size(const Workload& w) {
  const int least = min_image_side(w.model);
  if (w.image_size < 0 || (w.image_size > 0 && least == 0))
    throw usage_error("--image-size applies to vision models (CNNs, ViT), from 1 pixel up");
  if (w.image_size > kMaxImageSize)
    throw usage_error("--image-size above " + std::to_string(kMaxImageSize) +
                      " pixels is not modelled");
  if (w.image_size > 0 && w.image_size < least)
    throw usage_error(
        "--image-size " + std::to_string(w.image_size) + " is below the " + std::to_string(least) +
        " px that " + w.model.id +
        (w.model.cnn ? " downsamples by (its last stage's stride)" : " takes as one patch"));
}

void validate_mlm_head(const Workload& w) {
  if (!w.model.mlm_head) return;
  if (w.model.kind != "encoder" || w.model.vocab <= 0)
    throw usage_error("--mlm applies to encoder models (BERT-style) with a vocabulary: '" +
                      w.model.id + "' is a " + w.model.kind +
                      (w.model.kind == "decoder" ? " (its LM head is always counted)" : ""));
}

}  // namespace detail
}  // namespace gpusel
