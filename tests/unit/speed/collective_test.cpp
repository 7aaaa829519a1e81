// Collectives over PCIe: a ring over more GPUs than one CPU socket hosts crosses the sockets,
// and NCCL sends that hop through host memory (data/throughput.json pcie_gpus_per_socket).
#include <catch2/catch.hpp>

#include <cmath>

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

double collective_decode(const Workload& w, int n, const ThroughputConstants& k) {
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
  CHECK(collective_decode(w, 4, split) == Approx(collective_decode(w, 4, p2p_only)));
  CHECK(collective_decode(w, 8, split) == Approx(collective_decode(w, 8, host_only)));
  CHECK(collective_decode(w, 8, split) < collective_decode(w, 8, p2p_only));
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

// Separate machines (rented instances) over their own network: NCCL over TCP reaches
// links.nic-tcp of the line rate, and every GPU of a machine shares its NIC.
TEST_CASE("instances joined by a TCP network: the all-reduce runs at the network's rate") {
  auto k = tput_fixtures::plain();
  k.links["nic-tcp"] = 0.5, k.links["nic-rdma"] = 1.0;
  k.comm_overlap_fraction = 0;  // nothing hides: the step is compute + the whole all-reduce
  Workload w = tput_fixtures::training(Mode::full, 1e9);
  w.shard = Shard::ddp;
  const Gpu g = tput_fixtures::card();
  const double one = estimate_throughput(w, g, 1, false, k).train_tokens_per_s;
  const NodeNetwork ten{1, 10, false, "test"};
  const Throughput eight = estimate_throughput(w, g, 8, true, k, &ten);
  // Ring all-reduce of 2 GB of bf16 gradients over 10 Gbit/s x 0.5: 2 x 7/8 x 2e9 / 0.625e9.
  const double allreduce_s = 2.0 * 7 / 8 * 2e9 / (10e9 / 8 * 0.5);
  const double tokens = w.batch * w.seq_len;
  CHECK(eight.train_tokens_per_s == Approx(8 * tokens / (tokens / one + allreduce_s)));
  CHECK(joined(eight).find("8 machines of 1 over test 10 Gbit/s x 0.5 [links.nic-tcp]") !=
        std::string::npos);
  // A faster network, and RDMA's higher fraction, only help; one machine is unchanged.
  const NodeNetwork hundred{1, 100, false, "test"}, rdma{1, 10, true, "test"};
  CHECK(estimate_throughput(w, g, 8, true, k, &hundred).train_tokens_per_s >
        eight.train_tokens_per_s);
  CHECK(estimate_throughput(w, g, 8, true, k, &rdma).train_tokens_per_s > eight.train_tokens_per_s);
  const NodeNetwork box{8, 10, false, "test"};
  CHECK(estimate_throughput(w, g, 8, true, k, &box).train_tokens_per_s ==
        Approx(estimate_throughput(w, g, 8, true, k).train_tokens_per_s));
}

TEST_CASE("two 8-GPU instances over RDMA at the cluster network's rate match that cluster") {
  auto k = tput_fixtures::plain();
  k.links["nic-tcp"] = 0.5, k.links["nic-rdma"] = 1.0;
  k.comm_overlap_fraction = 0;
  Workload w = tput_fixtures::training(Mode::full, 1e9);
  w.shard = Shard::ddp;
  const Gpu g = tput_fixtures::card();
  // The fixture's cluster network gives each GPU 50 GB/s: 8 x 50 GB/s = 3200 Gbit/s a machine.
  const NodeNetwork efa{8, 3200, true, "test"};
  CHECK(estimate_throughput(w, g, 16, true, k, &efa).train_tokens_per_s ==
        Approx(estimate_throughput(w, g, 16, true, k).train_tokens_per_s));
}

// DDP all-reduces its buckets in order and the input embedding's gradient is ready only
// when backward ends: its bucket (at least the whole embedding) overlaps nothing.
TEST_CASE("DDP's last bucket holds the embedding gradient and is paid after backward") {
  auto k = tput_fixtures::plain();
  Workload w = tput_fixtures::training(Mode::full, 1e9);
  w.shard = Shard::ddp;
  const Gpu g = tput_fixtures::card();
  const Throughput one = estimate_throughput(w, g, 1, false, k);
  const Throughput two = estimate_throughput(w, g, 2, true, k);
  // 32000 x 4096 bf16 gradients, a 2-card ring over NVLink's 300 GB/s one way: 2 x 1/2 x B / bw.
  const double last_s = 32000.0 * 4096 * 2 / 300e9;
  const double step_s = w.batch * w.seq_len / one.train_tokens_per_s;
  CHECK(two.train_tokens_per_s == Approx(2 * one.train_tokens_per_s * step_s / (step_s + last_s)));
  CHECK(joined(two).find("the input embedding's gradient, ready last") != std::string::npos);
  // LoRA trains no embedding: only the bucket cap is exposed (0 in the fixture).
  w.mode = Mode::lora;
  CHECK(estimate_throughput(w, g, 2, true, k).train_tokens_per_s ==
        Approx(2 * estimate_throughput(w, g, 1, false, k).train_tokens_per_s));
  // A cap above the embedding's bytes is the last bucket instead.
  w.mode = Mode::full;
  k.ddp_bucket_bytes = 500e6;
  const double capped = estimate_throughput(w, g, 2, true, k).train_tokens_per_s;
  CHECK(capped == Approx(2 * one.train_tokens_per_s * step_s / (step_s + 500e6 / 300e9)));
}

// A small all-reduce over a PCIe ring that crosses the sockets takes the time measured on such
// a box at the message's size (allreduce_latency_pcie_cross_socket_us); within a socket the
// flat PCIe figure stays. Batch-1 decode sends one token's hidden x 2 bytes per all-reduce.
TEST_CASE("a PCIe ring across the sockets pays the cross-socket all-reduce time by size") {
  auto flat = tput_fixtures::plain();
  flat.pcie_gpus_per_socket = 4, flat.allreduce_latency_pcie_s = 42e-6;
  auto sized = flat;
  sized.allreduce_latency_pcie_cross_s = {{8192, 100e-6}, {16384, 200e-6}};
  const auto step_s = [](int hidden, int n, const ThroughputConstants& k) {
    Workload w = tput_fixtures::inference(7e9);
    w.model = tput_fixtures::decoder(7e9, 32, hidden);
    w.shard = Shard::tp, w.engine = "vllm";
    return 1 / collective_decode(w, n, k);
  };
  // Within a socket: the flat figure, table or not.
  CHECK(step_s(4096, 4, sized) == Approx(step_s(4096, 4, flat)));
  // Two all-reduces per layer, 32 layers: 8 kB messages at 100 us, 16 kB at 200 us, and
  // 12 kB between them in log2 of the size.
  CHECK(step_s(4096, 8, sized) - step_s(4096, 8, flat) == Approx(64 * 58e-6));
  CHECK(step_s(8192, 8, sized) - step_s(8192, 8, flat) == Approx(64 * 158e-6));
  const double mid = 100e-6 + std::log2(1.5) * 100e-6;
  CHECK(step_s(6144, 8, sized) - step_s(6144, 8, flat) == Approx(64 * (mid - 42e-6)));
  Workload w = batched_tp();
  w.batch = 1;
  CHECK(joined(estimate_throughput(w, tput_fixtures::card(), 8, false, sized))
            .find("100 us per all-reduce of 8.19 kB [allreduce_latency_pcie_cross_socket_us]") !=
        std::string::npos);
  CHECK(joined(estimate_throughput(w, tput_fixtures::card(), 4, false, sized))
            .find("42 us per all-reduce of 8.19 kB [allreduce_latency_pcie_us]") !=
        std::string::npos);
}
