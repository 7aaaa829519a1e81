// Vision and encoder presets: memory never falls as the image or the batch grows, in
// training and inference, and no component is negative or not finite.
#include <catch2/catch.hpp>

#include <cmath>
#include "ranker_fixtures.hpp"

#include "estimator_fixtures.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_source.hpp"
#include "gpusel/memory/estimator.hpp"

using namespace gpusel;

namespace {

const ModelArch& vision_preset(const char* id) { return ranker_fixtures::model(id); }

double total(const char* id, Mode m, int image, int batch) {
  Workload w = test_models::on(vision_preset(id), m);
  w.image_size = image;
  w.batch = batch;
  // The CLI's default for a preset: its own context (a ViT's patches at its default size).
  if (w.model.max_context > 0) w.seq_len = w.model.max_context;
  const Estimate e = estimate(w);
  for (const auto& c : e.components) {
    INFO(id << " " << c.name);
    CHECK(std::isfinite(c.bytes));
    CHECK(c.bytes >= 0);
  }
  return e.total_bytes;
}

}  // namespace

TEST_CASE("vision memory grows with image size and batch, training and inference") {
  for (const char* id : {"resnet-50", "resnet-101", "yolov8n", "yolov8x", "vit-b-16", "vit-l-16"})
    for (Mode m : {Mode::full, Mode::inference}) {
      INFO(id << " " << to_string(m));
      double last = 0;
      for (int image = 224; image <= 1024; image += 32) {
        const double b = total(id, m, image, 8);
        CHECK(b >= last);
        last = b;
      }
      last = 0;
      for (int batch = 1; batch <= 256; batch *= 2) {
        const double b = total(id, m, 224, batch);
        CHECK(b >= last);
        last = b;
      }
    }
}

// BERT's eager attention, per score: softmax keeps its fp32 output (4 B) and dropout its mask
// (1 B); the product with V keeps its input, under fp16 autocast a 16-bit copy (2 B) of the
// dropout output, which is then freed; in fp32 the dropout output itself (4 B). Only the
// scores grow with seq^2, so A(2s) - 2 A(s) = 2 layers heads probs s^2 at batch 1.
TEST_CASE("an encoder's attention dropout keeps its mask, autocast's copy replaces its output") {
  const auto second_difference = [](bool amp) {
    Workload w = test_models::on(vision_preset("bert-large-uncased"), Mode::full);
    w.precision = amp ? Precision::fp16 : Precision::fp32;
    w.amp = amp;
    w.grad_ckpt = false;
    w.flash_attn = false;
    w.batch = 1;
    const auto act = [&](int s) {
      w.seq_len = s;
      return estimate(w).bytes_of("activations");
    };
    return act(512) - 2 * act(256);
  };
  const double scores = 2.0 * 24 * 16 * 256.0 * 256.0;  // 24 layers, 16 heads
  CHECK(second_difference(true) == Approx(scores * (4 + 1 + 2)));
  CHECK(second_difference(false) == Approx(scores * (4 + 1 + 4)));
}

TEST_CASE("a CNN trains with its reference recipe's optimizer unless one is given") {
  // ResNet: torchvision's classification recipe (SGD); YOLOv8 and ViT: the framework's AdamW.
  for (const auto& [id, expected] : {std::pair{"resnet-50", Optimizer::sgd},
                                     {"resnet-101", Optimizer::sgd},
                                     {"yolov8m", Optimizer::adamw},
                                     {"vit-b-16", Optimizer::adamw}}) {
    Workload w = test_models::on(vision_preset(id), Mode::full);
    apply_framework(w, framework_profile("hf"), false, false);
    INFO(id);
    CHECK(w.optimizer == expected);
  }
  Workload given = test_models::on(vision_preset("resnet-50"), Mode::full);
  given.optimizer = Optimizer::adamw;
  apply_framework(given, framework_profile("hf"), false, true);
  CHECK(given.optimizer == Optimizer::adamw);
  // SGD with momentum keeps one state per parameter where AdamW keeps two.
  Workload sgd = test_models::on(vision_preset("resnet-50"), Mode::full);
  apply_framework(sgd, framework_profile("hf"), false, false);
  const double states_sgd = estimate(sgd).bytes_of("optimizer_states");
  CHECK(states_sgd > 0);
  CHECK(estimate(given).bytes_of("optimizer_states") == Approx(2 * states_sgd).epsilon(0.01));
}
