// --mlm: an encoder with its masked-LM head (transformers' BertForMaskedLM). The head's
// parameters, its matmul on every position, the logits and the loss it brings, and who may
// ask for it.
#include <catch2/catch.hpp>

#include "gpusel/data/data_source.hpp"
#include "gpusel/data/models.hpp"
#include "gpusel/memory/estimator.hpp"
#include "gpusel/speed/throughput.hpp"
#include "throughput_fixtures.hpp"

using namespace gpusel;
using namespace tput_fixtures;

namespace {

Workload bert(bool mlm, Mode mode = Mode::full) {
  static const std::vector<ModelArch> models = load_models({});
  Workload w;
  w.model = require_model(models, "bert-base-uncased");
  w.model.mlm_head = mlm;
  w.model_from_preset = true;
  w.mode = mode;
  w.precision = Precision::bf16;
  w.amp = mode != Mode::inference;
  w.grad_ckpt = false;
  w.batch = 8, w.seq_len = 512;
  return w;
}

}  // namespace

TEST_CASE("the masked-LM head adds its transform, LayerNorm and output bias, not the tied table") {
  const ModelArch bare = bert(false).model, mlm = bert(true).model;
  const double h = 768, vocab = 30522;
  CHECK(mlm_head_params(bare) == 0);
  CHECK(mlm_head_params(mlm) == h * h + h + 2 * h + vocab);  // 622,650: as BertForMaskedLM's
  CHECK(arch_params(mlm).total - arch_params(bare).total == Approx(h * h + 3 * h + vocab));
  CHECK_FALSE(scores_vocabulary(bare));
  CHECK(scores_vocabulary(mlm));
}

TEST_CASE("the head multiplies by vocab x hidden + hidden x hidden on every trained token") {
  const ThroughputConstants k = plain();
  const Gpu g = card(100);
  const double h = 768, vocab = 30522;
  const Throughput bare = estimate_throughput(bert(false), g, 1, false, k);
  const Throughput mlm = estimate_throughput(bert(true), g, 1, false, k);
  REQUIRE(bare.train_tokens_per_s > 0);
  // Compute-bound at the test card's 100 TFLOPS x 0.5: seconds per token add up exactly
  // (forward + two backward matmuls, no recompute).
  const double head_s = 3 * 2 * (vocab * h + h * h) / (100e12 * 0.5);
  CHECK(1 / mlm.train_tokens_per_s == Approx(1 / bare.train_tokens_per_s + head_s));
}

TEST_CASE("the head's logits and loss are counted, the bare encoder has none") {
  const Estimate bare = estimate(bert(false));
  const Estimate mlm = estimate(bert(true));
  CHECK(bare.bytes_of("logits") == 0);
  // 8 x 512 tokens x 30,522 logits, at least their 16-bit value each.
  CHECK(mlm.bytes_of("logits") >= 8 * 512 * 30522 * 2.0);
  CHECK(mlm.total_bytes > bare.total_bytes + mlm.bytes_of("logits"));
  bool named = false;
  for (const auto& a : mlm.assumptions) named = named || a.find("masked-LM head") == 0;
  CHECK(named);
  // Inference (fill-mask) scores every position too.
  const Estimate infer = estimate(bert(true, Mode::inference));
  CHECK(infer.total_bytes - estimate(bert(false, Mode::inference)).total_bytes >=
        8 * 512 * 30522 * 2.0);
}

TEST_CASE("the head's memory grows with batch and sequence") {
  Workload w = bert(true);
  double last = 0;
  for (int seq : {64, 128, 256, 512}) {
    w.seq_len = seq;
    const double now = estimate(w).total_bytes;
    CHECK(now > last);
    last = now;
  }
}

TEST_CASE("a masked-LM head (--mlm) is refused on models that have none") {
  Workload w = bert(true);
  CHECK_NOTHROW(validate(w));
  w.model = decoder(7e9);
  w.model.mlm_head = true;
  CHECK_THROWS_WITH(validate(w), Catch::Contains("--mlm applies to encoder models"));
  Workload v = bert(true);
  v.model.kind = "vision-encoder";
  CHECK_THROWS_WITH(validate(v), Catch::Contains("is a vision-encoder"));
}
