// Multi-GPU: the link between the cards and what data-parallel training sends over it.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gpusel/data/models.hpp"
#include "throughput_model.hpp"

namespace gpusel::tput {
namespace {

// Per-direction PCIe bandwidth in bytes/s: lanes x transfer rate x line-code efficiency
// (8b/10b up to gen 2, 128b/130b from gen 3; PCI-SIG base specifications).
double pcie_bytes_per_s(int gen, int lanes) {
  static const double gt_per_s[] = {0, 2.5, 5, 8, 16, 32, 64};
  gen = std::clamp(gen, 1, 6);
  const double code = gen <= 2 ? 0.8 : 128.0 / 130.0;
  return gt_per_s[gen] * 1e9 * code / 8 * lanes;
}

// The tabulated efficiency at `count`: exact, interpolated in log2(count) between entries,
// or extended past the last entry by the per-doubling factor (multi-node).
double table_efficiency(const std::map<int, double>& table, int count, double per_doubling) {
  if (count <= 1 || table.empty()) return 1;
  auto hi = table.lower_bound(count);
  if (hi != table.end() && hi->first == count) return hi->second;
  if (hi == table.end()) {
    const auto& [last, eff] = *table.rbegin();
    return eff * std::pow(per_doubling, std::log2(double(count) / last));
  }
  const double lo_n = hi == table.begin() ? 1 : std::prev(hi)->first;
  const double lo_e = hi == table.begin() ? 1 : std::prev(hi)->second;
  const double f = std::log2(count / lo_n) / std::log2(hi->first / lo_n);
  return lo_e + f * (hi->second - lo_e);
}

bool shards_params(Shard s) { return s == Shard::zero3 || s == Shard::fsdp; }

// Bytes each card sends per micro-batch step (ring collectives: 2(n-1)/n of the buffer for
// an all-reduce, (n-1)/n for a gather or a reduce-scatter). Data parallel syncs gradients;
// tensor parallel (Megatron, Shoeybi et al. 2019 Sec. 3) instead all-reduces activations,
// two per layer forward and two backward, within a node.
double step_bytes(const Workload& w, const Shape& s, int n) {
  const double ring = double(n - 1) / n;
  if (w.shard == Shard::tp) {
    const int tp = std::min(n, 8);
    return 4.0 * s.layers * w.batch * w.seq_len * s.hidden * 2 * 2 * double(tp - 1) / tp;
  }
  const double grad_bytes = (w.precision == Precision::fp32 && !w.amp ? 4 : 2) * s.trainable;
  if (!shards_params(w.shard)) return 2 * ring * grad_bytes;
  const bool frozen_base = w.mode == Mode::lora || w.mode == Mode::qlora;
  const double param_bytes = s.total * (frozen_base ? bytes_per_value(w.precision) : 2.0);
  return 2 * ring * param_bytes + ring * grad_bytes;  // gather fwd + bwd, reduce-scatter
}

}  // namespace

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, std::fabs(v) >= 1000 ? "%.0f" : "%.3g", v);
  return buf;
}

double busbw_bytes_per_s(const Gpu& g, bool linked, const ThroughputConstants& k,
                         std::string* what) {
  const int gen = g.pcie_gen > 0 ? g.pcie_gen : 4;
  const int lanes = g.pcie_lanes > 0 ? g.pcie_lanes : 16;
  const double pcie = pcie_bytes_per_s(gen, lanes) * k.busbw_fraction_pcie;
  // Vendors quote NVLink as the total of both directions; a ring uses one direction.
  const double link = g.interconnect.bandwidth_gbs * 1e9 / 2 * k.busbw_fraction_linked;
  if (linked && link > pcie) {  // linked cards still have PCIe: the faster path carries
    if (what) *what = g.interconnect.kind + " " + num(g.interconnect.bandwidth_gbs) + " GB/s";
    return link;
  }
  if (what)
    *what = "PCIe gen" + std::to_string(gen) + " x" + std::to_string(lanes) +
            (g.pcie_gen > 0 ? "" : " (not in the catalog: gen4 x16 assumed)");
  return pcie;
}

double training_scaling(const Workload& w, const Shape& s, const Gpu& g, int count, bool linked,
                        double step_compute_s, const ThroughputConstants& k,
                        std::vector<std::string>& notes) {
  if (count <= 1) return 1;
  // A faster link cannot make scaling worse: where the measured linked table dips below
  // the PCIe one (different machines in the measurements), the PCIe figure holds.
  const double pcie = table_efficiency(k.scaling_pcie, count, k.scaling_per_doubling_beyond);
  const double base =
      linked
          ? std::max(pcie, table_efficiency(k.scaling_linked, count, k.scaling_per_doubling_beyond))
          : pcie;
  std::string link;
  const double busbw = busbw_bytes_per_s(g, linked, k, &link);
  const double comm_s = step_bytes(w, s, count) / busbw;
  // DDP overlaps the all-reduce with the backward pass (2/3 of the FLOPs); sharded
  // training also prefetches the forward gathers.
  // tensor-parallel all-reduces sit on the critical path: no overlap.
  const double window =
      w.shard == Shard::tp ? 0.0 : step_compute_s * (shards_params(w.shard) ? 1.0 : 2.0 / 3.0);
  const double exposed = std::max(0.0, comm_s - window);
  const double comm_factor = step_compute_s / (step_compute_s + exposed);
  notes.push_back("multi-GPU: " + std::to_string(count) + " cards over " + link +
                  ", data-parallel efficiency " + num(base) + " [" +
                  (linked ? "scaling_linked" : "scaling_pcie") + "], " + num(comm_s * 1e3) +
                  " ms of gradient/parameter traffic per step vs " + num(step_compute_s * 1e3) +
                  " ms compute -> x" + num(comm_factor) + " [busbw_fraction_" +
                  (linked ? "linked" : "pcie") + "]");
  return base * comm_factor;
}

}  // namespace gpusel::tput
