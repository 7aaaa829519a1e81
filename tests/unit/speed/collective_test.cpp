// Collectives over PCIe: a ring over more GPUs than one CPU socket hosts crosses the sockets,
// and NCCL sends that hop through host memory (data/throughput.json pcie_gpus_per_socket).
#include <catch2/catch.hpp>

#include "gpusel/speed/throughput.hpp"
#include "ranker_fixtures.hpp"
#include "throughput_fixtures.hpp"

using namespace gpusel;
using tput_fixtures::joined;

namespace {

// Many sequences per step: the all-reduces' bytes, not their latency, set the cost.
Workload batched_tp() {
  Workload w = tput_fixtures::inference(7e9);
  w.batch = 256, w.shard = Shard::tp, w.engine = "vllm";
  return w;
}

double decode(const Workload& w, int n, const ThroughputConstants& k) {
  return estimate_throughput(w, tput_fixtures::card(), n, false, k).decode_tokens_per_s;
}

}  // namespace

TEST_CASE("a PCIe ring beyond one CPU socket's GPUs runs at the host-memory rate") {
  auto split = tput_fixtures::plain();
  split.links["pcie-p2p"] = 0.8, split.links["pcie-host"] = 0.4;
  split.pcie_gpus_per_socket = 4;
  auto p2p_only = split, host_only = split;
  p2p_only.pcie_gpus_per_socket = host_only.pcie_gpus_per_socket = 0;
  host_only.links["pcie-p2p"] = 0.4;
  const Workload w = batched_tp();
  // Within a socket peer-to-peer as before; across, every byte at the host path's rate.
  CHECK(decode(w, 4, split) == Approx(decode(w, 4, p2p_only)));
  CHECK(decode(w, 8, split) == Approx(decode(w, 8, host_only)));
  CHECK(decode(w, 8, split) < decode(w, 8, p2p_only));
  const auto note = [&](int n) {
    return joined(estimate_throughput(w, tput_fixtures::card(), n, false, split));
  };
  CHECK(note(8).find("beyond 4 per CPU socket through host memory") != std::string::npos);
  CHECK(note(4).find("per CPU socket") == std::string::npos);
  // NVLink keeps its own rate at any count.
  CHECK(
      estimate_throughput(w, tput_fixtures::card(), 8, true, split).decode_tokens_per_s ==
      Approx(estimate_throughput(w, tput_fixtures::card(), 8, true, p2p_only).decode_tokens_per_s));
}

TEST_CASE("the shipped data splits PCIe servers 4 + 4 and the host path is the slower") {
  const auto& k = default_throughput_constants();
  CHECK(k.pcie_gpus_per_socket == 4);
  CHECK(k.links.at("pcie-host") < k.links.at("pcie-p2p"));
  // 8 L40S (PCIe, peer-to-peer capable) serving a 70B model: the 8-card ring pays the host
  // path, so 8 cards gain less over 4 than 4 over 2.
  const Gpu& l40s = require_gpu(ranker_fixtures::catalog(), "l40s");
  Workload w = ranker_fixtures::preset("llama-3.1-70b", Mode::inference);
  w.precision = Precision::fp8, w.batch = 256, w.prompt_len = 1000, w.seq_len = 2000;
  w.shard = Shard::tp, w.engine = "tensorrt-llm";
  const auto tok = [&](int n) {
    return estimate_throughput(w, l40s, n, false).decode_tokens_per_s;
  };
  CHECK(tok(8) / tok(4) < tok(4) / tok(2));
  CHECK(joined(estimate_throughput(w, l40s, 8, false)).find("through host memory") !=
        std::string::npos);
}
