// An engine's GDDR decode efficiency was measured on an RTX 4090 (Ada, 72 MB of L2); on
// Ampere GDDR cards (GA10x, 6 MB) an engine with a kernel.gddr_ampere figure runs at that one.
#include <catch2/catch.hpp>

#include "gpusel/speed/throughput.hpp"
#include "throughput_fixtures.hpp"

using namespace gpusel;

namespace {

double decode(const Gpu& g, const ThroughputConstants& k) {
  Workload w = tput_fixtures::inference(7e9);
  w.engine = "vllm";
  return estimate_throughput(w, g, 1, false, k).decode_tokens_per_s;
}

Gpu ampere_with(const std::string& architecture, const std::string& memory) {
  Gpu g = tput_fixtures::card(1e5);  // compute never binds: decode is bytes / bandwidth
  g.architecture = architecture, g.memory_type = memory;
  return g;
}

}  // namespace

TEST_CASE("Ampere GDDR cards decode at the engine's gddr_ampere figure") {
  auto k = tput_fixtures::plain();
  k.memory_types = {{"GDDR6X", 1.0}, {"HBM2e", 1.0}};
  k.engines.at("vllm").kernel_gddr_ampere = 0.6;  // kernel_gddr 0.9, kernel_hbm 0.9
  const double ada = decode(ampere_with("Ada Lovelace (AD102)", "GDDR6X"), k);
  const double ampere = decode(ampere_with("Ampere (GA102)", "GDDR6X"), k);
  CHECK(ampere / ada == Approx(0.6 / 0.9));
  // HBM Ampere (GA100) keeps the hbm figure: the factor is the GDDR cards' alone.
  CHECK(decode(ampere_with("Ampere (GA100)", "HBM2e"), k) == Approx(ada));
  // Without the figure an Ampere GDDR card takes the engine's gddr figure.
  k.engines.at("vllm").kernel_gddr_ampere = 0;
  CHECK(decode(ampere_with("Ampere (GA102)", "GDDR6X"), k) == Approx(ada));
}

TEST_CASE("the shipped data gives every CUDA engine an Ampere GDDR figure below its gddr one") {
  const ThroughputConstants& k = default_throughput_constants();
  for (const char* name : {"llama.cpp", "vllm", "mlc", "tensorrt-llm", "exllamav2"}) {
    const Engine& e = k.engines.at(name);
    CHECK(e.kernel_gddr_ampere > 0);
    CHECK(e.kernel_gddr_ampere < e.kernel_gddr);
  }
}
