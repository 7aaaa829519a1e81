#include "gpusel/memory/fit.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/data/models.hpp"
#include "gpusel/memory/param_count.hpp"
#include "gpusel/memory/reserve.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

#include "estimator_fixtures.hpp"
#include "gpusel/base/error.hpp"

using namespace gpusel;
using test_models::on;

namespace {

Gpu card(double gb) {
  Gpu g;
  g.id = "test-" + std::to_string(int(gb));
  g.name = g.id;
  g.vram_gb = gb;
  return g;
}

}  // namespace

TEST_CASE("usable memory is the marketed VRAM less the reserve") {
  const double GiB = 1073741824.0;  // a "24 GB" card has 24 GiB (24576 MiB)
  CHECK(vram_bytes(card(24)) == 24 * GiB);
  CHECK(usable_bytes(card(24)) == Approx(0.9 * 24 * GiB));  // default 10 %
  CHECK(usable_bytes(card(24), parse_reserve("15%")) == Approx(0.85 * 24 * GiB));
  CHECK(usable_bytes(card(24), parse_reserve("0.2")) == Approx(0.8 * 24 * GiB));
  CHECK(usable_bytes(card(24), parse_reserve("2GB")) == Approx(24 * GiB - 2e9));
  CHECK(usable_bytes(card(24), parse_reserve("1GiB")) == Approx(23 * GiB));
  CHECK(usable_bytes(card(24), parse_reserve("0")) == Approx(24 * GiB));
  CHECK(usable_bytes(card(1), parse_reserve("2GB")) == 0);
  // Apple: macOS lets the GPU wire about 75 % of unified memory unless told otherwise.
  Gpu mac = card(128);
  mac.unified_memory = true;
  CHECK(usable_bytes(mac) == Approx(0.75 * 128 * GiB));
  CHECK(usable_bytes(mac, parse_reserve("10%")) == Approx(0.9 * 128 * GiB));
  CHECK(default_reserve(mac).fraction == 0.25);
  // ECC on a datacenter GDDR card takes 1/16 (a T4 shows 15360 of 16384 MiB); HBM's is free.
  Gpu t4 = card(16);
  t4.ecc = true, t4.segment = "datacenter", t4.memory_type = "GDDR6";
  CHECK(vram_bytes(t4) == Approx(15 * GiB));
  Gpu a100 = t4;
  a100.memory_type = "HBM2e";
  CHECK(vram_bytes(a100) == 16 * GiB);
  Gpu a6000 = t4;
  a6000.segment = "workstation";  // ECC available but off by default
  CHECK(vram_bytes(a6000) == 16 * GiB);
  for (const char* bad : {"", "abc", "-1GB", "150%", "2", "5TB", "nan"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_reserve(bad), Error);
  }
}

// One margin: the need (allocated + CUDA context) against usable memory, which already keeps
// the reserve. The allocator allowance is not stacked on it: PyTorch's caching allocator frees
// its unsplit cached blocks and retries before it reports an OOM.
TEST_CASE("the fit verdict compares allocated + context, not the allowance, with usable memory") {
  const Workload w = on(test_models::llama31_8b(), Mode::qlora);
  const Estimate e = estimate(w);
  REQUIRE(e.bytes_of("allocator_overhead") > 0);
  CHECK(e.need_bytes() == Approx(e.allocated_bytes() + e.bytes_of("cuda_context")));
  CHECK(e.total_bytes - e.need_bytes() == Approx(e.bytes_of("allocator_overhead")));
  const Gpu g = card(24);
  Reserve between{0, vram_bytes(g) - (e.need_bytes() + e.total_bytes) / 2, "", ""};
  const FitResult r = fit(w, g, 1, between);
  REQUIRE(r.usable_bytes < e.total_bytes);
  CHECK(r.fits);  // the total with its allowance would not
  CHECK(r.requested.fits_within(r.usable_bytes));
  Reserve below{0, vram_bytes(g) - 0.99 * e.need_bytes(), "", ""};
  CHECK_FALSE(fit(w, g, 1, below).fits);
}

TEST_CASE("fit finds the largest batch and context, right at the edge") {
  const Workload w = on(test_models::llama31_8b(), Mode::inference);
  const Gpu g = card(24);
  const FitResult r = fit(w, g, 1);
  // Batch 1 runs on llama.cpp (its 1 GiB --fit margin), batches on vLLM (10 % reserve).
  const double usable = usable_bytes(g, engine_reserve(w, g, {}));
  CHECK(usable == Approx(vram_bytes(g) - 1073741824.0));
  CHECK(r.usable_bytes == usable);
  REQUIRE(r.fits);
  REQUIRE(r.max_batch >= 2);
  Workload v = w;
  v.batch = r.max_batch;
  const double batched = usable_bytes(g);
  CHECK(estimate(v).need_bytes() <= batched);
  v.batch = r.max_batch + 1;
  CHECK(estimate(v).need_bytes() > batched);
  REQUIRE(r.max_seq_len >= 1);
  v = w;
  v.seq_len = r.max_seq_len;
  CHECK(estimate(v).need_bytes() <= usable);
  if (r.max_seq_len < r.seq_len_cap) {
    v.seq_len = r.max_seq_len + 1;
    CHECK(estimate(v).need_bytes() > usable);
  }
  CHECK(r.changes.empty());
}

TEST_CASE("the context search stops at the model's maximum context") {
  const FitResult r = fit(on(test_models::llama2_7b(), Mode::inference), card(80), 1);
  CHECK(r.seq_len_cap == 4096);
  CHECK(r.max_seq_len == 4096);
}

TEST_CASE("when nothing fits, the K37 changes are re-estimated and the fitting ones come first") {
  Workload w = on(test_models::llama31_8b(), Mode::full);
  w.amp = true, w.batch = 4, w.grad_ckpt = false;
  const FitResult r = fit(w, card(24), 1);
  CHECK_FALSE(r.fits);
  CHECK(r.max_batch == 0);
  REQUIRE_FALSE(r.changes.empty());
  bool seen_too_big = false, adapter_fits = false;
  for (const auto& c : r.changes) {
    INFO(c.change);
    CHECK(c.estimate.total_bytes == Approx(estimate(c.workload).total_bytes));
    CHECK(c.fits == (c.estimate.need_bytes() <= usable_bytes(card(24))));
    if (!c.fits) seen_too_big = true;
    CHECK_FALSE((c.fits && seen_too_big));
    // Full fine-tuning of 8B cannot fit 24 GB: the advice must leave full mode.
    if (c.fits) adapter_fits = c.workload.mode == Mode::lora || c.workload.mode == Mode::qlora;
  }
  CHECK(adapter_fits);
}

TEST_CASE("the first change that fits is the least disruptive one, not the combination") {
  // Llama 3.1 8B LoRA without checkpointing overflows 32 GB on activations: checkpointing
  // alone fixes it, so QLoRA or a combination must not be the first advice.
  Workload w = on(test_models::llama31_8b(), Mode::lora);
  w.grad_ckpt = false;
  const FitResult r = fit(w, card(32), 1);
  REQUIRE_FALSE(r.fits);
  REQUIRE_FALSE(r.changes.empty());
  CHECK(r.changes.front().fits);
  CHECK(r.changes.front().change == "--grad-ckpt");
  CHECK(r.changes.front().workload.mode == Mode::lora);
  for (const auto& c : r.changes)
    if (c.change.rfind("--count", 0) == 0) CHECK(c.workload.gpus > 1);
}

TEST_CASE("when no single change is enough, the fewest that fit together are offered") {
  Workload w = on(test_models::llama31_8b(), Mode::lora);
  w.grad_ckpt = false;
  const FitResult r = fit(w, card(20), 1);
  REQUIRE_FALSE(r.changes.empty());
  const FitChange& first = r.changes.front();
  CHECK(first.fits);
  CHECK(first.change == "--grad-ckpt + --loss chunked");
  CHECK(first.workload.grad_ckpt);
  CHECK(first.workload.loss == Loss::chunked);
  CHECK(first.workload.mode == Mode::lora);  // no QLoRA where it is not needed
  // Every single change of the recipe falls short; a shorter sequence (the search's own
  // answer, which fits by construction) changes the workload instead, and offloading the
  // parameters to the CPU (the heaviest change) is offered after the combination.
  bool combination_seen = false;
  for (const auto& c : r.changes) {
    INFO(c.change);
    combination_seen = combination_seen || c.change.find(" + ") != std::string::npos;
    if (c.change == "--offload params") {
      CHECK(combination_seen);
      CHECK(c.workload.shard == Shard::zero3);
      continue;
    }
    if (c.change.find(" + ") == std::string::npos && c.workload.gpus == 1 &&
        c.change.rfind("--seq-len", 0) != 0)
      CHECK_FALSE(c.fits);
  }
}

TEST_CASE("a 70B model in bf16 needs several 80 GB cards, fit says how many") {
  const Workload w = on(test_models::llama31_8b(), Mode::inference);
  Workload big = on(typical_arch({70e9, 70e9}), Mode::inference);
  big.model_from_preset = true;
  Gpu module = card(80);  // an SXM module: a server takes eight (a desktop board two, K18)
  module.segment = "datacenter";
  module.form_factor = "sxm";
  const FitResult r = fit(big, module, 1);
  CHECK_FALSE(r.fits);
  // More cards, split as the engine splits: llama.cpp (batch 1's default) by layers, vLLM
  // tensor parallel.
  const auto more_cards_fit = [&](const Workload& x, const std::string& shard) {
    bool fits = false;
    for (const auto& c : fit(x, module, 1).changes)
      if (c.change.find("--shard " + shard) != std::string::npos) fits = c.fits;
    return fits;
  };
  CHECK(more_cards_fit(big, "none"));
  Workload served = big;
  served.engine = "vllm";
  CHECK(more_cards_fit(served, "tp"));
  CHECK_FALSE(more_cards_fit(served, "none"));
  CHECK(fit(big, module, 4).fits);
  CHECK_THROWS_AS(fit(w, card(80), 0), Error);
}

TEST_CASE("GPU counts are 1..16384 in every command: the per-GPU workload refuses the rest") {
  Workload w = on(test_models::llama31_8b(), Mode::full);
  w.shard = Shard::zero3;
  w.shard_given = true;
  CHECK(on_gpus(w, kMaxGpuCount).gpus == kMaxGpuCount);
  for (int bad : {0, -1, kMaxGpuCount + 1})
    CHECK_THROWS_WITH(on_gpus(w, bad), Catch::Contains("the GPU count must be"));
  w.gpus = kMaxGpuCount + 1;
  CHECK_THROWS_WITH(validate(w),
                    Catch::Contains("--gpus must be at most " + std::to_string(kMaxGpuCount)));
}

TEST_CASE("fit for a CNN searches the image side, and keeps batch norm's batch with accumulation") {
  static const std::vector<ModelArch> models = load_models({});
  static const Catalog c = load_catalog({});
  Workload w;
  w.model = require_model(models, "resnet-50");
  w.mode = Mode::full;
  w.batch = 512;
  w.grad_ckpt = w.flash_attn = false;
  const FitResult r = fit(w, require_gpu(c, "rtx-4060"), 1);
  REQUIRE_FALSE(r.fits);
  CHECK(r.image_side == 224);
  CHECK(r.max_seq_len == 0);
  REQUIRE(r.max_batch >= 1);
  REQUIRE(r.max_image_side >= 1);
  CHECK(r.max_image_side < 224);
  Workload v = w;
  v.image_size = r.max_image_side + 1;
  CHECK_FALSE(estimate(v).fits_within(r.usable_bytes));
  REQUIRE_FALSE(r.changes.empty());
  const FitChange& first = r.changes.front();
  CHECK(first.fits);
  CHECK(first.workload.batch == r.max_batch);
  CHECK(first.workload.batch * first.workload.grad_accum >= w.batch);
  for (const auto& ch : r.changes) {  // nothing a CNN does not do
    CHECK(ch.change.find("--grad-ckpt") == std::string::npos);
    CHECK(ch.change.find("--mode") == std::string::npos);
    CHECK(ch.change.find("--offload") == std::string::npos);
  }
}

TEST_CASE("where neither a change nor more cards is enough, fit offers both together") {
  // 70B in bf16 on a 24 GB consumer card: 4-bit weights still need 38 GiB, two cards of bf16
  // 66 GiB each; 4-bit weights on two cards fit, split as llama.cpp splits (by layers).
  Workload big = on(typical_arch({70e9, 70e9}), Mode::inference);
  big.model_from_preset = true;
  Gpu desk = card(24);
  desk.segment = "consumer";
  desk.form_factor = "pcie";
  const FitResult r = fit(big, desk, 1);
  REQUIRE_FALSE(r.fits);
  const FitChange* both = nullptr;
  for (const auto& c : r.changes) {
    INFO(c.change);
    if (c.change.find(" + --count ") != std::string::npos)
      both = &c;
    else if (c.change.find("--count") == std::string::npos && c.workload.gpus == 1 &&
             c.change.rfind("--gpu-layers", 0) != 0)
      CHECK_FALSE(c.fits);  // no single change is enough on one card, but for the CPU's help
  }
  // Running layers from host RAM fits, and comes after the cards: the CPU makes it slow.
  const auto at = [&](const char* prefix) {
    return std::find_if(r.changes.begin(), r.changes.end(),
                        [&](const FitChange& c) { return c.change.rfind(prefix, 0) == 0; });
  };
  REQUIRE(at("--gpu-layers ") != r.changes.end());
  CHECK(at("--gpu-layers ")->fits);
  CHECK(at("--gpu-layers ") > at("--precision int4 + --count 2"));
  REQUIRE(both);
  CHECK(both->fits);
  CHECK(both->workload.gpus == 2);
  CHECK(both->workload.shard == Shard::none);
  CHECK(both->change.rfind("--precision int4 + --count 2 --shard none", 0) == 0);
  CHECK(r.changes.front().change == both->change);  // what fits comes first
}

TEST_CASE("fit advises torchtune for full fine-tuning and CPU offload of the parameters") {
  // 8B full fine-tuning on a 24 GB card: torchtune's optimizer-in-backward recipe lowers
  // the need; 70B QLoRA on two 24 GB cards: FSDP with the parameters on the CPU fits.
  Workload full = on(test_models::llama31_8b(), Mode::full);
  const FitResult r = fit(full, card(24), 1);
  bool torchtune = false;
  for (const auto& c : r.changes) {
    CHECK(c.estimate.need_bytes() < r.requested.need_bytes());  // every change saves memory
    torchtune = torchtune || c.change.rfind("--framework torchtune", 0) == 0;
  }
  CHECK(torchtune);
  Workload q = on(test_models::llama2_7b(), Mode::qlora);
  q.model.params = 70e9, q.model.layers = 80, q.model.hidden = 8192, q.model.heads = 64;
  q.model.kv_heads = 8, q.model.intermediate = 28672;
  const FitResult big = fit(q, card(24), 2);
  const auto offload = std::find_if(big.changes.begin(), big.changes.end(), [](const FitChange& c) {
    return c.change == "--offload params";
  });
  REQUIRE(offload != big.changes.end());
  CHECK(offload->workload.offload == Offload::params);
  CHECK(offload->estimate.need_bytes() < big.requested.need_bytes());
}

TEST_CASE("usable_for is usable_bytes under engine_reserve, without its text") {
  const Gpu g = card(24);
  for (Mode m : {Mode::inference, Mode::lora})
    for (int batch : {1, 8}) {
      Workload w = on(test_models::llama31_8b(), m);
      w.batch = batch;
      for (const Reserve& given : {Reserve{}, Reserve{0.2, 0, "", ""}}) {
        CAPTURE(int(m), batch, given.fraction);
        CHECK(usable_for(w, g, given) == usable_bytes(g, engine_reserve(w, g, given)));
      }
    }
}
