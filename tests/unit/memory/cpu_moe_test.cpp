// llama.cpp's expert offload (--n-cpu-moe N, --cpu-moe): the routed experts of the first N
// layers in host RAM, what stays on the GPU, what decode and prompts pay for it, and the
// remedy that proposes it.
#include <catch2/catch.hpp>
#include <limits>
#include <set>

#include "gpusel/base/error.hpp"
#include "gpusel/data/catalog.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/data/models.hpp"
#include "gpusel/memory/estimator.hpp"
#include "gpusel/memory/fit.hpp"
#include "gpusel/memory/workload.hpp"
#include "gpusel/speed/throughput.hpp"

using namespace gpusel;

namespace {

Workload preset(const std::string& id) {
  static const std::vector<ModelArch> models = load_models({});
  Workload w;
  w.model = require_model(models, id);
  w.mode = Mode::inference;
  w.seq_len = 2048;
  use_shipped_weights(w);
  return w;
}

double component(const Estimate& e, const std::string& name) {
  double sum = 0;
  for (const Component& c : e.components)
    if (c.name == name) sum += c.bytes;
  return sum;
}

const Gpu& gpu(const std::string& id) {
  static const Catalog catalog = load_catalog({});
  return require_gpu(catalog, id);
}

}  // namespace

TEST_CASE("llama.cpp --n-cpu-moe moves the first N MoE layers' routed experts to host RAM") {
  Workload w = preset("gpt-oss-120b");  // 36 MoE layers, 128 experts, MXFP4 experts
  const Estimate whole = estimate(w);
  const double per_layer = routed_expert_params(w.model) / 36 * 4.25 / 8;
  w.cpu_moe = 26;
  const Estimate part = estimate(w);
  CHECK(cpu_moe_layers(w) == 26);
  CHECK(component(part, "weights_offloaded") == Approx(26 * per_layer));
  CHECK(part.host_bytes == Approx(26 * per_layer));
  // What left the GPU is those experts, less the one layer copied in for prompt batches.
  CHECK(component(whole, "weights") - component(part, "weights") == Approx(26 * per_layer));
  CHECK(component(part, "expert_staging") == Approx(per_layer));
  CHECK(component(whole, "expert_staging") == 0);
  // gpt-oss-120b's 128 experts of 24.9M params at MXFP4: about 1.69 GB a layer.
  CHECK(per_layer == Approx(1.69e9).epsilon(0.02));
}

TEST_CASE("llama.cpp --n-cpu-moe: GPU memory never rises as more layers' experts leave it") {
  for (const char* id : {"gpt-oss-120b", "qwen3-30b-a3b", "deepseek-v3", "mixtral-8x7b"}) {
    Workload w = preset(id);
    if (w.precision == Precision::fp8) w.precision = Precision::int4;  // llama.cpp has no FP8
    double last = 1e300, host = -1;
    for (int n = 1; n <= w.model.layers; ++n) {
      w.cpu_moe = n;
      const Estimate e = estimate(w);
      INFO(id << " --n-cpu-moe " << n);
      CHECK(e.need_bytes() <= last + 1);
      CHECK(e.host_bytes >= host);
      last = e.need_bytes(), host = e.host_bytes;
    }
    w.cpu_moe = kCpuMoeAll;
    CHECK(estimate(w).need_bytes() == Approx(last));
  }
}

TEST_CASE(
    "llama.cpp --n-cpu-moe counts dense first layers: DeepSeek-V3's first 3 have no experts") {
  Workload w = preset("deepseek-v3");
  w.precision = Precision::int4;
  w.cpu_moe = 3;
  CHECK(cpu_moe_layers(w) == 0);
  CHECK(estimate(w).host_bytes == 0);
  w.cpu_moe = 4;
  CHECK(cpu_moe_layers(w) == 1);
  w.cpu_moe = kCpuMoeAll;
  CHECK(cpu_moe_layers(w) == w.model.layers - 3);
}

TEST_CASE("expert offload (--n-cpu-moe) is llama.cpp inference of a mixture of experts") {
  Workload w = preset("gpt-oss-120b");
  w.cpu_moe = 10;
  CHECK(engine_of(w) == "llama.cpp");
  w.batch = 8;  // batches default to vLLM, but the experts in RAM are llama.cpp's
  CHECK(engine_of(w) == "llama.cpp");
  CHECK_NOTHROW(validate(w));
  Workload v = w;
  v.engine = "vllm";
  CHECK_THROWS_AS(validate(v), Error);
  Workload dense = preset("llama-3.1-8b");
  dense.cpu_moe = 4;
  CHECK_THROWS_AS(validate(dense), Error);
  Workload big = w;
  big.cpu_moe = 37;
  CHECK_THROWS_AS(validate(big), Error);
  Workload fp8 = preset("deepseek-v3");
  fp8.cpu_moe = 10;
  CHECK_THROWS_AS(validate(fp8), Error);
  Workload lora = w;
  lora.mode = Mode::lora;
  CHECK_THROWS_AS(validate(lora), Error);
  Workload both = preset("gpt-oss-120b");
  CHECK_THROWS_AS(set_cpu_moe(both, 4, true), Error);
  CHECK_THROWS_AS(set_cpu_moe(both, -2, false), Error);
  CHECK_THROWS_AS(set_host_memory_bandwidth(both, 50), Error);  // without --n-cpu-moe
  set_cpu_moe(both, 0, true);
  CHECK(both.cpu_moe == kCpuMoeAll);
  for (double bad : {0.0, -5.0, std::numeric_limits<double>::infinity(), 2e5})
    CHECK_THROWS_AS(set_host_memory_bandwidth(both, bad), Error);
}

TEST_CASE("experts in host RAM: decode reads them at the host's pace, prompts copy them") {
  Workload w = preset("gpt-oss-120b");
  const Gpu& g = gpu("rtx-4090");
  w.cpu_moe = 10;
  const Throughput ten = estimate_throughput(w, g, 1, false);
  w.cpu_moe = 30;
  const Throughput thirty = estimate_throughput(w, g, 1, false);
  CHECK(thirty.decode_tokens_per_s < ten.decode_tokens_per_s);
  CHECK(thirty.prefill_tokens_per_s < ten.prefill_tokens_per_s);
  // 30 layers x 4 of 128 experts x 24.9M params x 4.25 bits = 1.59 GB per token read by the
  // CPU at 89.6 GB/s x 0.5: about 35.5 ms, most of the token.
  CHECK(1 / thirty.decode_tokens_per_s > 0.0355);
  CHECK(1 / thirty.decode_tokens_per_s < 0.0355 + 0.010);
  // Twice the host bandwidth: the CPU's part halves.
  Workload fast = w;
  set_host_memory_bandwidth(fast, 179.2);
  const Throughput f = estimate_throughput(fast, g, 1, false);
  CHECK(1 / thirty.decode_tokens_per_s - 1 / f.decode_tokens_per_s ==
        Approx(0.0355 / 2).epsilon(0.03));
  CHECK(f.prefill_tokens_per_s == Approx(thirty.prefill_tokens_per_s));  // PCIe, not RAM
  // A 512-token micro-batch copies the 30 layers' experts (50.8 GB) over PCIe 4.0 x16 at
  // 31.5 x 0.8 GB/s: 2.0 s, about 250 tokens/s at most.
  CHECK(thirty.prefill_tokens_per_s < 512 / 2.0);
  CHECK(thirty.prefill_tokens_per_s > 0.8 * 512 / 2.0);
}

TEST_CASE("a MoE that does not fit is told the fewest --n-cpu-moe layers, 4-bit first") {
  const Gpu& g = gpu("rtx-4090");
  const FitResult r = fit(preset("gpt-oss-120b"), g, 1);
  REQUIRE_FALSE(r.fits);
  REQUIRE_FALSE(r.changes.empty());
  const FitChange& first = r.changes.front();
  CHECK(first.fits);
  REQUIRE(first.change.rfind("--n-cpu-moe ", 0) == 0);
  const int n = std::stoi(first.change.substr(12));
  Workload fewer = preset("gpt-oss-120b");
  fewer.cpu_moe = n - 1;
  CHECK_FALSE(fit(fewer, g, 1).fits);
  fewer.cpu_moe = n;
  CHECK(fit(fewer, g, 1).fits);
  // A 16-bit MoE is quantized to 4 bits before its experts go to RAM.
  const FitResult bf16 = fit(preset("qwen3-30b-a3b"), gpu("rtx-4060-ti-8gb"), 1);
  REQUIRE_FALSE(bf16.changes.empty());
  CHECK(bf16.changes.front().change.rfind("--precision int4 + --n-cpu-moe ", 0) == 0);
  // A dense model is never offered it.
  for (const FitChange& c : fit(preset("llama-3.1-70b"), g, 1).changes)
    CHECK(c.change.find("cpu-moe") == std::string::npos);
}

TEST_CASE("expert offload remedies: a higher N than given, none where 4 bits fit whole") {
  // --n-cpu-moe 10 on a 12 GB card: more layers, before re-quantizing the shipped MXFP4.
  Workload w = preset("gpt-oss-120b");
  w.cpu_moe = 10;
  const FitResult r = fit(w, gpu("rtx-3060-12gb"), 1);
  REQUIRE_FALSE(r.changes.empty());
  const std::string& first = r.changes.front().change;
  REQUIRE(first.rfind("--n-cpu-moe ", 0) == 0);
  CHECK(std::stoi(first.substr(12)) > 10);
  // Re-quantizing the shipped 4.25-bit MXFP4 to 4.0 bits saves 6 %: not offered.
  for (const FitChange& c : r.changes) CHECK(c.change.find("--weight-bits 4") == std::string::npos);
  // A 16-bit MoE whose 4-bit weights fit a 24 GB card whole is told just that.
  const FitResult whole = fit(preset("qwen3-30b-a3b"), gpu("rtx-4090"), 1);
  REQUIRE_FALSE(whole.changes.empty());
  CHECK(whole.changes.front().change == "--precision int4");
  for (const FitChange& c : whole.changes) CHECK(c.change.find("cpu-moe") == std::string::npos);
}

TEST_CASE("each change fit lists is listed once") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"gpt-oss-120b", "rtx-4090"},
      {"llama-3.1-70b", "rtx-4090"},
      {"qwen3-30b-a3b", "rtx-3060-12gb"}};
  for (const auto& [model, card] : cases) {
    CAPTURE(model, card);
    std::set<std::string> seen;
    for (const FitChange& c : fit(preset(model), gpu(card), 1).changes)
      CHECK(seen.insert(c.change).second);
  }
}
