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

const ModelArch& preset(const char* id) { return ranker_fixtures::model(id); }

double total(const char* id, Mode m, int image, int batch) {
  Workload w = test_models::on(preset(id), m);
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
