// Unsloth's fused loss sizes its logits chunks to half the memory it finds free
// (unsloth_zoo fused_losses/cross_entropy_loss.py target_gb): on a tight card the chunk
// shrinks, so the fit verdict takes the loss as it runs there.
#include <catch2/catch.hpp>

#include "gpusel/data/data_source.hpp"
#include "gpusel/data/frameworks.hpp"
#include "gpusel/data/models.hpp"
#include "gpusel/memory/estimator.hpp"
#include "gpusel/memory/workload.hpp"

using namespace gpusel;

namespace {

Workload qlora_8b(const std::string& framework) {
  static const std::vector<ModelArch> models = load_models({});
  Workload w;
  w.model = require_model(models, "llama-3.1-8b");
  w.mode = Mode::qlora;
  w.precision = Precision::int4;
  apply_framework(w, framework_profile(framework), false, false);
  return w;
}

constexpr double GiB = 1073741824.0;

}  // namespace

TEST_CASE("Unsloth's loss chunk takes at most half the memory left free on the card") {
  const Estimate e = estimate(qlora_8b("unsloth"));
  const double chunk = [&] {
    double x = 0;
    for (const Component& c : e.components) x += c.name == "logits" ? c.elastic : 0;
    return x;
  }();
  // 2048 tokens x 128,256 vocab x 4 B fp32: the whole chunk on a roomy card.
  REQUIRE(chunk == Approx(2048.0 * 128256 * 4));
  const double fixed = e.need_bytes() - chunk;
  CHECK(e.need_on(80 * GiB) == Approx(e.need_bytes()));
  // 0.6 GiB left after the rest: the chunk takes 0.3 GiB.
  CHECK(e.need_on(fixed + 0.6 * GiB) == Approx(fixed + 0.3 * GiB));
  CHECK(e.fits_within(fixed + 0.6 * GiB));
  CHECK_FALSE(e.fits_within(fixed * 0.999));  // the rest alone does not fit
  double last = 0;
  for (double u = fixed - GiB; u < fixed + 3 * GiB; u += 0.05 * GiB) {
    CHECK(e.need_on(u) >= last);
    last = e.need_on(u);
  }
  Estimate cut = e;
  cut.fit_to(fixed + 0.6 * GiB);
  CHECK(cut.need_bytes() == Approx(fixed + 0.3 * GiB));
  CHECK(cut.total_bytes == Approx(e.total_bytes - (chunk - 0.3 * GiB)));
  CHECK(cut.need_low_bytes() < cut.need_bytes());
  Estimate roomy = e;
  roomy.fit_to(80 * GiB);
  CHECK(roomy.need_bytes() == Approx(e.need_bytes()));
}

TEST_CASE("losses that do not size themselves to free memory are not elastic") {
  for (const char* f : {"hf", "torchtune", "axolotl"}) {
    const Estimate e = estimate(qlora_8b(f));
    CAPTURE(f);
    for (const Component& c : e.components) CHECK(c.elastic == 0);
    CHECK(e.need_on(e.need_bytes() * 0.9) == Approx(e.need_bytes()));
  }
}
