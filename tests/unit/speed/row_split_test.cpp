// llama.cpp's row split (--split-mode row) and its builds before CUDA graphs
// (llama.cpp-nograph): what each changes in a decode step, and where they are refused.
#include <catch2/catch.hpp>

#include "gpusel/base/error.hpp"
#include "gpusel/speed/step.hpp"
#include "gpusel/speed/throughput.hpp"
#include "ranker_fixtures.hpp"

using namespace gpusel;

namespace {

Workload llama70(bool row, const std::string& engine = "llama.cpp-nograph") {
  Workload w = ranker_fixtures::preset("llama-2-70b", Mode::inference);
  w.precision = Precision::fp16;
  w.batch = 1, w.prompt_len = 16, w.seq_len = 144, w.shard = Shard::none;
  w.engine = engine, w.row_split = row, w.gpus = 2;
  return w;
}

const Gpu& row_card(const std::string& id) { return require_gpu(ranker_fixtures::catalog(), id); }

double row_decode(const Workload& w, int n) {
  return estimate_throughput(w, row_card("a100-80gb-pcie"), n, false).decode_tokens_per_s;
}

}  // namespace

TEST_CASE("llama.cpp pays 91 us per layer before CUDA graphs, 66 in 2024 and 24 today") {
  const auto& k = default_throughput_constants();
  const Engine& old = k.engines.at("llama.cpp-nograph");
  const Engine& graphed2024 = k.engines.at("llama.cpp-2024");
  const Engine& now = k.engines.at("llama.cpp");
  CHECK(old.layer_overhead_s == Approx(91e-6));
  CHECK(graphed2024.layer_overhead_s == Approx(66e-6));
  CHECK(now.layer_overhead_s == Approx(24e-6));
  // The same kernels: both are "like": "llama.cpp".
  CHECK(old.kernel_hbm == now.kernel_hbm);
  CHECK(graphed2024.kernel_gddr == now.kernel_gddr);
  CHECK(graphed2024.int4_factor == now.int4_factor);
  Workload a = llama70(false, "llama.cpp"), b = llama70(false),
           c = llama70(false, "llama.cpp-2024");
  a.gpus = b.gpus = c.gpus = 1;
  const Gpu& g = row_card("a100-80gb-pcie");
  const double ta = 1 / estimate_throughput(a, g, 1, false).decode_tokens_per_s;
  const double tb = 1 / estimate_throughput(b, g, 1, false).decode_tokens_per_s;
  const double tc = 1 / estimate_throughput(c, g, 1, false).decode_tokens_per_s;
  CHECK(tb - tc == Approx(80 * 25e-6).epsilon(1e-6));
  CHECK(tc - ta == Approx(80 * 42e-6).epsilon(1e-6));
}

TEST_CASE("the row split reads each card's rows at once, unlike the layer split") {
  const double layer2 = row_decode(llama70(false), 2), row2 = row_decode(llama70(true), 2);
  // The layer split runs one card at a time: no faster than one card's bandwidth allows.
  CHECK(row2 > 1.3 * layer2);
  // Every split matmul forks and joins over PCIe and the host issues each card's calls:
  // the row split stays well below 2 cards' bandwidth.
  Workload one = llama70(false);
  one.gpus = 1;
  CHECK(row2 < 1.9 * row_decode(one, 1));
  const Gpu& g = row_card("a100-80gb-pcie");
  const StepModel m = step_model(llama70(true), g, 2, false);
  CHECK(m.tp == 2);
  CHECK(m.host_floor_s > 0);
  CHECK(m.fixed_s > 561 * 40e-6);  // 80 x 7 + 1 split matmuls x the PCIe latency (42 us)
  // More cards: the host's calls grow with the count and become the floor of the step.
  const StepModel m8 = step_model(llama70(true), g, 8, false);
  CHECK(m8.host_floor_s > 3 * m.host_floor_s);
  CHECK(step_seconds(m8, 1, 0) >= m8.host_floor_s);
}

TEST_CASE("the row split (split-mode row) is refused outside llama.cpp inference") {
  Workload w = llama70(true, "vllm");
  CHECK_THROWS_AS(require_split_mode(w), Error);
  CHECK_NOTHROW(require_split_mode(llama70(true, "ollama")));
  CHECK_NOTHROW(require_split_mode(llama70(true, "llama.cpp")));
  Workload tp = llama70(true, "llama.cpp");
  tp.shard = Shard::tp, tp.shard_given = true;
  CHECK_THROWS_AS(validate(tp), Error);
  Workload train = llama70(true, "llama.cpp");
  train.mode = Mode::lora;
  CHECK_THROWS_AS(validate(train), Error);
  // Without --shard, several cards keep the row split's own layout (no tensor parallel).
  Workload free = llama70(true, "llama.cpp");
  CHECK(on_gpus(free, 4).shard == Shard::none);
  free.row_split = false;
  CHECK(on_gpus(free, 4).shard == Shard::none);  // llama.cpp's default: the layer split
  free.engine = "vllm";
  CHECK(on_gpus(free, 4).shard == Shard::tp);
}
