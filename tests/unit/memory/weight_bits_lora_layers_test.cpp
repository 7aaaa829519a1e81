// --weight-bits (quantized linear weights at any bits per weight, EXL2 2.5 bpw) and
// --lora-layers (adapters and backward on the last N blocks): the memory side and the checks.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "estimator_fixtures.hpp"
#include "gpusel/data/models.hpp"
#include "gpusel/memory/estimator.hpp"
#include "gpusel/memory/fit.hpp"

using namespace gpusel;
using test_models::on;

namespace {

Workload served(double bits) {
  Workload w = on(test_models::llama2_7b(), Mode::inference);
  set_precision(w, "int4");
  set_weight_bits(w, bits);
  return w;
}

Workload lora(int layers) {
  Workload w = on(test_models::llama2_7b(), Mode::lora);
  w.grad_ckpt = false, w.seq_len = 512;
  if (layers > 0) set_lora_layers(w, layers);
  return w;
}

}  // namespace

TEST_CASE("option --weight-bits prices the linear matrices at those bits, scales included") {
  const ArchParams p = arch_params(test_models::llama2_7b());
  const Estimate four = estimate(served(4)), eight = estimate(served(8));
  // Each extra bit is linear/8 bytes; embeddings, head and norms are the same 16-bit bytes.
  CHECK(eight.bytes_of("weights") - four.bytes_of("weights") == Approx(p.linear * 0.5));
  CHECK(estimate(served(2.5)).bytes_of("weights") ==
        Approx(four.bytes_of("weights") - p.linear * 1.5 / 8));
  // The bits per weight include the block scales: no separate quantization state.
  CHECK(four.bytes_of("quantization_state") == 0);
  Workload plain = served(4);
  plain.linear_bits = 0;
  CHECK(estimate(plain).bytes_of("quantization_state") > 0);
  CHECK(precision_label(served(2.5)) == "int4 at 2.5 bits");
}

TEST_CASE("option --weight-bits is checked: 1 to 8 bits, quantized inference, not a GGUF type") {
  Workload w = on(test_models::llama2_7b(), Mode::inference);
  CHECK_THROWS_WITH(set_weight_bits(w, 0.5), Catch::Contains("between 1 and 8"));
  CHECK_THROWS_WITH(set_weight_bits(w, 9), Catch::Contains("between 1 and 8"));
  CHECK_THROWS_WITH(set_weight_bits(w, std::nan("")), Catch::Contains("--weight-bits"));
  set_weight_bits(w, 2.5);  // bf16 kernels: no
  CHECK_THROWS_WITH(validate(w), Catch::Contains("--precision int4"));
  set_precision(w, "q4_k_m");
  CHECK_THROWS_WITH(validate(w), Catch::Contains("q4_k_m"));
  set_precision(w, "int8");
  CHECK_NOTHROW(validate(w));
  w.mode = Mode::qlora;
  CHECK_THROWS_WITH(validate(w), Catch::Contains("--mode inference"));
}

TEST_CASE("option --lora-layers keeps adapters and activations for the last N blocks only") {
  const Estimate all = estimate(lora(0)), half = estimate(lora(16)), quarter = estimate(lora(8));
  CHECK(half.bytes_of("lora_adapters") == Approx(all.bytes_of("lora_adapters") / 2));
  CHECK(quarter.bytes_of("lora_adapters") == Approx(all.bytes_of("lora_adapters") / 4));
  // Without checkpointing every block with a gradient keeps its activations: 32 - 8 blocks
  // against 16 - 8.
  const double a32 = all.bytes_of("activations"), a16 = half.bytes_of("activations"),
               a8 = quarter.bytes_of("activations");
  CHECK(a16 < a32);
  CHECK((a32 - a8) / (a16 - a8) == Approx(3));
  // The frozen base is the same.
  CHECK(half.bytes_of("weights") == all.bytes_of("weights"));
}

TEST_CASE("option --lora-layers is checked: 1 to the model's layers, lora or qlora only") {
  Workload w = lora(0);
  CHECK_THROWS_WITH(set_lora_layers(w, 0), Catch::Contains("between 1 and the model's 32"));
  CHECK_THROWS_WITH(set_lora_layers(w, 33), Catch::Contains("(got 33)"));
  set_lora_layers(w, 32);
  CHECK(lora_blocks(w) == 32);
  w.mode = Mode::full;
  CHECK_THROWS_WITH(validate(w), Catch::Contains("--lora-layers applies to --mode lora or qlora"));
  w.mode = Mode::qlora, w.precision = Precision::int4;
  CHECK_NOTHROW(validate(w));
}

TEST_CASE("under --weight-bits the remedies offer fewer bits, not another precision") {
  std::vector<std::string> offered;
  for (const WorkloadChange& c : workload_changes(served(6))) offered.push_back(c.change);
  CHECK(std::find(offered.begin(), offered.end(), "--weight-bits 4") != offered.end());
  CHECK(std::find(offered.begin(), offered.end(), "--weight-bits 2.5") != offered.end());
  for (const std::string& c : offered) CHECK(c.find("--precision") == std::string::npos);
  offered.clear();
  for (const WorkloadChange& c : workload_changes(served(2.5))) offered.push_back(c.change);
  for (const std::string& c : offered) CHECK(c.find("--weight-bits") == std::string::npos);
}
