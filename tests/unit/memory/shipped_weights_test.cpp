// Models published in 8 or 4 bits (models.json shipped_weights): inference without a
// --precision runs the weights as shipped; training keeps the 16-bit default.
#include <catch2/catch.hpp>

#include "gpusel/base/error.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/data/models.hpp"
#include "gpusel/memory/estimator.hpp"
#include "gpusel/memory/workload.hpp"

using namespace gpusel;

namespace {

Workload shipped_preset(const std::string& id, Mode mode) {
  static const std::vector<ModelArch> models = load_models({});
  Workload w;
  w.model = require_model(models, id);
  w.mode = mode;
  w.seq_len = 2048;
  return w;
}

}  // namespace

TEST_CASE("gpt-oss runs its MXFP4 experts as shipped: 4.25 bits, within one 80 GB card") {
  Workload w = shipped_preset("gpt-oss-120b", Mode::inference);
  use_shipped_weights(w);
  CHECK(w.precision == Precision::int4);
  CHECK(w.linear_bits == 4.25);
  CHECK(w.weights_as_shipped);
  CHECK(precision_label(w) == "int4 at 4.25 bits (as shipped)");
  // The model card: 'fit into a single 80GB GPU'; the bf16 weights alone are 234 GB.
  const double need = estimate(w).need_bytes();
  CHECK(need < 80e9 * 0.9);
  Workload bf16 = shipped_preset("gpt-oss-120b", Mode::inference);
  CHECK(estimate(bf16).need_bytes() > 2.5 * need);
}

TEST_CASE("gpt-oss's MXFP4 covers the experts only: the rest bf16, or Q8_0 in llama.cpp's GGUF") {
  Workload w = shipped_preset("gpt-oss-120b", Mode::inference);
  use_shipped_weights(w);
  w.engine = "vllm";  // the checkpoint: attention, router and head in bf16
  CHECK(w.bits_experts_only);
  const ArchParams a = arch_params(w.model);
  REQUIRE(a.experts > 0.9 * a.linear);  // 128 experts x 36 layers dwarf the attention
  CHECK(a.experts_active == Approx(a.experts * 4 / 128));
  // The mean bytes per linear weight: experts at 4.25 bits, the rest at 2 bytes.
  CHECK(shipped_other_bytes(w) == 2);
  CHECK(linear_weight_bytes(w, 0.5) ==
        Approx((a.experts * 4.25 / 8 + (a.linear - a.experts) * 2) / a.linear));
  // llama.cpp runs ggml-org's GGUF: the rest in Q8_0 (8.5 bits).
  Workload gguf = w;
  gguf.engine = "";  // the default at batch 1 on one card: llama.cpp
  gguf.gpus = 1;
  REQUIRE(engine_of(gguf) == "llama.cpp");
  CHECK(shipped_other_bytes(gguf) == Approx(8.5 / 8));
  CHECK(linear_weight_bytes(gguf, 0.5) ==
        Approx((a.experts * 4.25 / 8 + (a.linear - a.experts) * 8.5 / 8) / a.linear));
  CHECK(estimate(gguf).need_bytes() < estimate(w).need_bytes());
  // Bits the user gives cover every linear matrix.
  Workload mine = w;
  set_weight_bits(mine, 4.25);
  CHECK_FALSE(mine.bits_experts_only);
  CHECK(estimate(mine).need_bytes() < estimate(w).need_bytes());
}

TEST_CASE("the default engine: llama.cpp for one card at batch 1, vLLM for FP8 and several") {
  Workload w = shipped_preset("llama-3.1-8b", Mode::inference);
  w.batch = 1, w.gpus = 1;
  CHECK(engine_of(w) == "llama.cpp");
  Workload fp8 = w;
  fp8.precision = Precision::fp8;  // no GGUF type holds FP8
  CHECK(engine_of(fp8) == "vllm");
  Workload two = w;
  two.gpus = 2;  // tensor parallel where llama.cpp would keep one card busy at a time
  CHECK(engine_of(two) == "vllm");
  CHECK(engine_tensor_parallel(two));
  Workload gguf = two;
  gguf.weight_format = "q4_k_m";
  CHECK(engine_of(gguf) == "llama.cpp");
  Workload rows = two;
  rows.row_split = true;
  CHECK(engine_of(rows) == "llama.cpp");
  Workload named = fp8;
  named.engine = "sglang";
  CHECK(engine_of(named) == "sglang");
  Workload batched = w;
  batched.batch = 8;
  CHECK(engine_of(batched) == "vllm");
}

TEST_CASE("DeepSeek-V3 ships FP8, and a training mode keeps the 16-bit default") {
  Workload w = shipped_preset("deepseek-v3", Mode::inference);
  use_shipped_weights(w);
  CHECK(w.precision == Precision::fp8);
  CHECK(w.linear_bits == 0);
  Workload lora = shipped_preset("deepseek-v3", Mode::lora);
  use_shipped_weights(lora);
  CHECK(lora.precision == Precision::bf16);
  CHECK_FALSE(lora.weights_as_shipped);
  Workload plain = shipped_preset("llama-3.1-8b", Mode::inference);  // ships bf16: nothing changes
  use_shipped_weights(plain);
  CHECK(plain.precision == Precision::bf16);
  CHECK_FALSE(plain.weights_as_shipped);
}

TEST_CASE("shipped_weights is checked at load: a precision outside fp8/int8/int4 is refused") {
  const auto doc = nlohmann::json::parse(R"({"schema_version": 1, "models": [{
    "id": "m", "name": "M", "kind": "decoder", "params": 1e9, "layers": 2, "hidden": 64,
    "heads": 4, "kv_heads": 4, "head_dim": 16, "intermediate": 128, "vocab": 100,
    "tied_embeddings": true, "mlp": "swiglu", "norm": "rmsnorm", "max_context": 128,
    "shipped_weights": {"precision": "fp4", "source": "https://example.org", "as_of": "2026-12-04"},
    "source": "https://example.org", "as_of": "2026-12-04"}]})");
  CHECK_THROWS_WITH(parse_models(doc, "t.json"),
                    Catch::Contains("shipped_weights.precision: expected fp8, int8 or int4"));
  auto scoped = doc;
  auto& shipped = scoped["models"][0]["shipped_weights"];
  shipped["precision"] = "int4";
  shipped["scope"] = "attention";
  CHECK_THROWS_WITH(parse_models(scoped, "t.json"),
                    Catch::Contains("shipped_weights.scope: expected linear or experts"));
  shipped["scope"] = "experts";
  CHECK(parse_models(scoped, "t.json").at(0).shipped->experts_only);
  shipped.erase("source");
  CHECK_THROWS_WITH(parse_models(scoped, "t.json"), Catch::Contains("missing field 'source'"));
}

TEST_CASE("gpt-oss on llama.cpp weighs what ggml-org's GGUF files weigh") {
  // llama.cpp's loader: gpt-oss-20b-mxfp4.gguf 11.27 GiB (ikawrakow/ik_llama.cpp#822's log),
  // the 120b file 59.02 GiB; each within 1 % (the f32 norms, biases and sinks are counted
  // at the checkpoint's 16 bits).
  const std::pair<const char*, double> files[] = {{"gpt-oss-20b", 11.27}, {"gpt-oss-120b", 59.02}};
  for (const auto& [id, gib] : files) {
    CAPTURE(id);
    Workload w = shipped_preset(id, Mode::inference);
    use_shipped_weights(w);
    w.gpus = 1;
    const Estimate e = estimate(w);
    CHECK(e.bytes_of("weights") / 1073741824.0 == Approx(gib).epsilon(0.01));
  }
}
