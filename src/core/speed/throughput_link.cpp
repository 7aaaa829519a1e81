// Multi-GPU: the fabric between the cards (a fast link or PCIe inside a node, a cluster
// network between nodes), ring-collective times over it, and what each training strategy
// sends per step that does not hide behind compute.
#include <algorithm>
#include <cmath>

#include "gpusel/base/error.hpp"
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

int gen_of(const Gpu& g) { return g.pcie_gen > 0 ? g.pcie_gen : 4; }
int lanes_of(const Gpu& g) { return g.pcie_lanes > 0 ? g.pcie_lanes : 16; }

// GeForce 40 and 50 series drivers disable peer-to-peer over PCIe: NCCL then copies through
// host memory (NVIDIA/nccl#1639; tinygrad/open-gpu-kernel-modules README).
bool peer_to_peer(const Gpu& g) {
  const bool geforce = g.vendor == "nvidia" && g.segment == "consumer";
  const bool newer = g.architecture.find("Ada") != std::string::npos ||
                     g.architecture.find("Blackwell") != std::string::npos;
  return !(geforce && newer);
}

double value_at(const std::map<int, double>& table, int key) {  // nearest key at or below
  auto it = table.upper_bound(key);
  return it == table.begin() ? it->second : std::prev(it)->second;
}

bool shards_params(Shard s) { return s == Shard::zero3 || s == Shard::fsdp; }

}  // namespace

// Gradients as they are reduced: fp32 for LoRA adapters (PEFT keeps them fp32), AMP and
// fp32 training; the weights' 16-bit dtype for pure bf16/fp16 training.
double grad_bytes(const Workload& w, const Shape& s) {
  const bool fp32 = w.amp || w.precision == Precision::fp32 || adapters(w.mode);
  return s.trainable * (fp32 ? 4 : 2);
}

namespace {

// Parameters as FSDP/ZeRO-3 gathers them: a frozen base in its storage dtype (NF4 for
// QLoRA), trained weights in the 16-bit compute dtype (FSDP param_dtype; FP8 runs gather
// the bf16 weights and cast after).
double gathered_param_bytes(const Workload& w, const Shape& s) {
  if (w.mode == Mode::qlora) return s.total * 0.5;
  if (adapters(w.mode)) return s.total * bytes_per_value(w.precision);
  return s.total * (w.precision == Precision::fp32 && !w.amp ? 4 : 2);
}

struct CommTime {
  double overlapped_fwd = 0, overlapped_bwd = 0, exposed = 0;
};

// Megatron tensor parallelism: 2 all-reduces of the layer's activations per layer forward,
// 2 backward, 2 more under recompute; on the critical path unless the stack overlaps them
// with the GEMMs (--comm-overlap). Beyond a node the tp groups' replicas all-reduce gradients.
CommTime tp_traffic(const Workload& w, const Shape& s, const Fabric& f, double grads, const K& k,
                    std::string& what) {
  CommTime p;
  const int tp = std::min(f.count, f.per_node);
  Fabric group = f;
  group.count = tp, group.nodes = 1;
  const double act = double(w.batch) * w.seq_len * s.hidden * 2;
  const int per_layer = 4 + (w.grad_ckpt ? 2 : 0);
  const double one = allreduce_s(group, act) + latency_s(group, tp, act, k);
  const double all = tp * s.layers * per_layer * one;  // per card, in one card's step terms
  if (f.count > tp) p.overlapped_bwd = allreduce_s(f, grads / tp);
  if (w.comm_overlap) {  // 2 of the layer's all-reduces run in forward, the rest backward
    p.overlapped_fwd += all * 2 / per_layer;
    p.overlapped_bwd += all * (per_layer - 2) / per_layer;
  } else {
    p.exposed = all;
  }
  if (texts_on())
    what =
        "tensor parallel over " + std::to_string(tp) + ": " + std::to_string(per_layer) +
        " all-reduces of " + num(act / 1e6) + " MB per layer " +
        (w.comm_overlap ? "overlapped with the GEMMs (--comm-overlap)" : "on the critical path") +
        " (latency " + latency_what(group, tp, act, k) + ")";
  return p;
}

// DDP all-reduces its buckets in index order, the parameters bucketed in reverse
// registration order (the order backward readies them); the input embedding's gradient
// is ready only when backward ends, and a bucket closes once it reaches the cap, so the
// last bucket holds at least the whole embedding gradient: that all-reduce overlaps
// nothing. (Tied embeddings: the LM head's gradient accumulates into the same tensor.)
double ddp_last_bucket(const Workload& w, const Shape& s, const K& k) {
  const double grads = grad_bytes(w, s);
  const double emb = s.trainable > 0 ? s.embedding * grads / s.trainable : 0;
  return std::min(grads, std::max(k.ddp_bucket_bytes, emb));
}

CommTime strategy_traffic(const Workload& w, const Shape& s, const Fabric& f, double fwd,
                          double bwd, const K& k, std::string& what) {
  CommTime p;
  const int n = f.count;
  const double grads = grad_bytes(w, s), last_bucket = std::min(1.0, k.ddp_bucket_bytes / grads);
  switch (w.shard) {
    case Shard::none: {  // layers split: one card works at a time, activations hop between
      const double act = double(w.batch) * w.seq_len * s.hidden * 2;
      p.exposed = (n - 1) * (fwd + bwd) + 2 * (n - 1) * act / f.intra;
      if (texts_on())
        what = "layers split over " + std::to_string(n) + " cards: one works at a time";
      return p;
    }
    case Shard::ddp: {
      const double last = ddp_last_bucket(w, s, k);
      p.overlapped_bwd = allreduce_s(f, grads - last);
      p.exposed = allreduce_s(f, last);
      if (texts_on())
        what = "DDP all-reduce of " + num(grads / 1e9) + " GB of gradients, the last bucket's " +
               num(last / 1e6) + " MB after backward" +
               (last > k.ddp_bucket_bytes ? " (the input embedding's gradient, ready last)" : "");
      return p;
    }
    case Shard::zero1:
    case Shard::zero2: {
      p.overlapped_bwd = gather_s(f, grads);
      p.exposed = p.overlapped_bwd * last_bucket;
      // After the step, unless the stack gathers the weights during the next forward
      // (--comm-overlap: Megatron's overlap_param_gather).
      (w.comm_overlap ? p.overlapped_fwd : p.exposed) += gather_s(f, s.trainable * 2);
      if (texts_on())
        what = "ZeRO reduce-scatter of " + num(grads / 1e9) +
               " GB of gradients + all-gather of the updated weights " +
               (w.comm_overlap ? "during the next forward (--comm-overlap)" : "after the step");
      return p;
    }
    case Shard::zero3:
    case Shard::fsdp: {
      const double params = gathered_param_bytes(w, s), ag = gather_s(f, params);
      p.overlapped_fwd = ag;
      p.overlapped_bwd = ag + gather_s(f, grads);
      p.exposed = ag / std::max(1, s.layers);  // the first gather overlaps nothing
      if (texts_on())
        what = "FSDP/ZeRO-3 all-gather of " + num(params / 1e9) +
               " GB of weights in forward and backward + reduce-scatter of " + num(grads / 1e9) +
               " GB of gradients";
      return p;
    }
    case Shard::tp:
      return tp_traffic(w, s, f, grads, k, what);
  }
  return p;
}

// ZeRO-Offload / FSDP CPU offload: what crosses PCIe to the host per step.
CommTime offload_traffic(const Workload& w, const Shape& s, const Gpu& g, const Fabric& f,
                         const K& k, std::string& what) {
  CommTime p;
  if (w.offload == Offload::none) return p;
  const double host = host_bytes_per_s(g, k);
  const double share = shards_params(w.shard) || w.shard == Shard::zero1 || w.shard == Shard::zero2
                           ? 1.0 / f.count
                           : 1.0;
  const double down = grad_bytes(w, s) * share, up = s.trainable * 2 * share;
  double moved = down + up;
  if (w.offload == Offload::optimizer) {  // gradients down during backward, weights back up
    p.overlapped_bwd = down / host;
    p.exposed = up / host;
  } else {  // params: each step brings the weight shard up twice and the gradients down
    const double weights = gathered_param_bytes(w, s) * share;
    p.overlapped_fwd = weights / host;
    p.overlapped_bwd = (weights + down) / host;
    moved = 2 * weights + down;
  }
  // The optimizer steps on the CPU, once per optimizer step, the GPUs waiting: the host's
  // processes stream their partitions' states through its one memory.
  const double mem =
      w.host_memory_bytes_per_s > 0 ? w.host_memory_bytes_per_s : k.host_memory_bytes_per_s;
  const double stepped = s.trainable * share * std::min(f.count, f.per_node);
  const double cpu = stepped * k.cpu_adam_bytes_per_param / mem;
  p.exposed += cpu / std::max(1, w.grad_accum);
  if (texts_on())
    what = "offload " + to_string(w.offload) + ": " + num(moved / 1e9) +
           " GB per step over PCIe at " + num(host / 1e9) +
           " GB/s [host_copy_fraction]; the optimizer step on the CPU: " + num(stepped / 1e9) +
           "B params x " + num(k.cpu_adam_bytes_per_param) + " B [cpu_adam_bytes_per_param] at " +
           num(mem / 1e9) + " GB/s of host memory" +
           (w.host_memory_bytes_per_s <= 0 ? " [host_memory_gbs]"
            : w.host_memory_basis.empty()  ? " [--host-mem-bw]"
                                           : " [the " + w.host_memory_basis + " platform's RAM]") +
           " = " + num(cpu * 1e3) + " ms per optimizer step, at least";
  return p;
}

// Separate machines (rented instances) over their own network: every GPU of a machine shares
// its NIC, at the fraction of the line rate NCCL reaches over RDMA or over TCP sockets.
void join_by_network(Fabric& f, const NodeNetwork& n, const K& k) {
  const char* link = n.rdma ? "nic-rdma" : "nic-tcp";
  const double frac = k.links.at(link);
  f.inter = n.gbps * 1e9 / 8 * frac / std::min(f.count, f.per_node);
  if (!texts_on()) return;
  const std::string over = std::to_string(f.nodes) + " machines of " + std::to_string(f.per_node) +
                           " over " + n.label + " " + num(n.gbps) + " Gbit/s x " + num(frac) +
                           " [links." + link + "]";
  f.what = f.per_node == 1 ? over : f.what + ", " + over;  // one GPU each: no link inside
}

}  // namespace

Fabric fabric_of(const Gpu& g, int count, bool linked, const K& k, const NodeNetwork* nodes) {
  Fabric f;
  f.count = count, f.linked = linked;
  f.per_node = nodes ? std::max(1, nodes->gpus_per_node) : node_size(g);
  f.nodes = (count + f.per_node - 1) / f.per_node;
  const bool p2p = peer_to_peer(g);
  const double pcie =
      pcie_bytes_per_s(gen_of(g), lanes_of(g)) * k.links.at(p2p ? "pcie-p2p" : "pcie-host");
  const auto kind = k.links.find(g.interconnect.kind);
  const double link = linked && kind != k.links.end()
                          ? g.interconnect.bandwidth_gbs * 1e9 / 2 * kind->second
                          : 0;  // vendors quote both directions added; a ring uses one
  f.intra = std::max(link, pcie);
  if (texts_on())
    f.what = link > pcie ? g.interconnect.kind + " " + num(g.interconnect.bandwidth_gbs) +
                               " GB/s x " + num(kind->second) + " [links." + kind->first + "]"
                         : "PCIe " + std::to_string(gen_of(g)) + ".0 x" +
                               std::to_string(lanes_of(g)) + (p2p ? "" : " without peer-to-peer") +
                               " [links." + (p2p ? "pcie-p2p" : "pcie-host") + "]";
  if (link <= pcie && k.pcie_gpus_per_socket > 0) {
    // PCIe servers hang 4 GPUs off each CPU socket; NCCL does not use peer-to-peer across
    // the sockets' link (nor through the CPU on Intel hosts) and copies through host memory.
    f.socket = k.pcie_gpus_per_socket;
    f.cross = pcie_bytes_per_s(gen_of(g), lanes_of(g)) * k.links.at("pcie-host");
    if (std::min(count, f.per_node) > f.socket && p2p && texts_on())
      f.what += ", beyond " + std::to_string(f.socket) +
                " per CPU socket through host memory [pcie_gpus_per_socket, links.pcie-host]";
  }
  if (f.nodes > 1 && nodes) {
    join_by_network(f, *nodes, k);
  } else if (f.nodes > 1) {
    const ClusterNetwork* net = cluster_network(g, k);
    if (!net)
      throw usage_error(g.id + " does not cluster: at most " + std::to_string(f.per_node) +
                        " in one machine, and no network joins machines of " + g.segment +
                        " cards (asked for " + std::to_string(count) + ")");
    f.inter = net->bytes_per_s_per_gpu;
    if (texts_on())
      f.what += ", " + std::to_string(f.nodes) + " nodes over " + net->label +
                " [cluster_networks." + net->id + "]";
  }
  return f;
}

double allreduce_s(const Fabric& f, double bytes) {
  const int m = std::min(f.count, f.per_node), n = f.nodes;
  // A ring runs at its slowest hop: the one between CPU sockets once it spans them.
  const double bw = f.socket > 0 && m > f.socket ? std::min(f.intra, f.cross) : f.intra;
  const double intra = m > 1 ? 2.0 * (m - 1) / m * bytes / bw : 0;
  // Hierarchical/multi-ring NCCL: every GPU's NIC carries 1/m of what crosses nodes.
  const double inter = n > 1 ? 2.0 * (n - 1) / n * bytes / (m * f.inter) : 0;
  return std::max(intra, inter);
}

double gather_s(const Fabric& f, double bytes) { return allreduce_s(f, bytes) / 2; }

namespace {

// Linear in log2(x) between the neighbouring keys; the end values beyond them.
double interp_log2(const std::map<int, double>& tab, double x) {
  const auto hi = tab.lower_bound(int(std::ceil(x)));
  if (hi == tab.end()) return tab.rbegin()->second;
  if (hi == tab.begin() || hi->first == x) return hi->second;
  const auto lo = std::prev(hi);
  const double t = std::log2(x / lo->first) / std::log2(double(hi->first) / lo->first);
  return lo->second + t * (hi->second - lo->second);
}

// A ring over more PCIe GPUs than one socket hosts: its hops between the sockets go through
// host memory, and a small all-reduce over it was measured several times slower.
bool crosses_sockets(const Fabric& f, int group, const K& k) {
  return f.socket > 0 && std::min(group, f.per_node) > f.socket &&
         !k.allreduce_latency_pcie_cross_s.empty();
}

bool linked_table(const Fabric& f, const K& k) {
  return f.linked && !k.allreduce_latency_linked_s.empty();
}

}  // namespace

double latency_s(const Fabric& f, int group, double bytes, const K& k) {
  const int in_node = std::min(group, f.per_node);
  double t = k.allreduce_latency_pcie_s;
  if (linked_table(f, k))
    t = interp_log2(k.allreduce_latency_linked_s, in_node);
  else if (crosses_sockets(f, group, k))
    t = interp_log2(k.allreduce_latency_pcie_cross_s, std::max(1.0, bytes));
  const int nodes = (group + f.per_node - 1) / f.per_node;
  const double hop =
      k.allreduce_latency_linked_s.empty() ? t : k.allreduce_latency_linked_s.rbegin()->second;
  return t + (nodes - 1) * hop;
}

std::string latency_what(const Fabric& f, int group, double bytes, const K& k) {
  const char* key = linked_table(f, k)             ? "allreduce_latency_linked_us"
                    : crosses_sockets(f, group, k) ? "allreduce_latency_pcie_cross_socket_us"
                                                   : "allreduce_latency_pcie_us";
  return num(latency_s(f, group, bytes, k) * 1e6) + " us per all-reduce of " + num(bytes / 1e3) +
         " kB [" + key + "]";
}

double host_bytes_per_s(const Gpu& g, const K& k) {
  const double frac = k.host_copy_fraction.empty() ? 1 : value_at(k.host_copy_fraction, gen_of(g));
  return pcie_bytes_per_s(gen_of(g), lanes_of(g)) * frac;
}

// Strategies whose traffic happens once per optimizer step rather than per micro-batch:
// gradients reduced (and ZeRO-1/2 weights gathered) only at the accumulation boundary
// (DDP no_sync, pytorch/pytorch#21736; Accelerate's accumulate(); DeepSpeed's
// gradient-accumulation boundary). FSDP/ZeRO-3 gather weights every micro-batch, a layer
// split passes activations every micro-batch; offload traffic is kept per micro-batch (ZeRO-
// Offload's per-micro-batch gradient copies are not modelled apart).
namespace {
bool once_per_step(const Workload& w, const Fabric& f) {
  if (w.offload != Offload::none || f.count <= 1) return false;
  return w.shard == Shard::ddp || w.shard == Shard::zero1 || w.shard == Shard::zero2;
}
}  // namespace

double exposed_step_s(const Workload& w, const Shape& s, const Gpu& g, const Fabric& f, double fwd,
                      double bwd, const K& k, std::vector<std::string>& notes) {
  if (hybrid_sharded(w)) return hybrid_exposed_s(w, s, g, f, fwd, bwd, k, notes);
  std::string what, off_what;
  const CommTime p = f.count > 1 ? strategy_traffic(w, s, f, fwd, bwd, k, what) : CommTime{};
  const CommTime o = offload_traffic(w, s, g, f, k, off_what);
  const double ov = k.comm_overlap_fraction;
  double exposed = p.exposed + o.exposed +
                   std::max(0.0, p.overlapped_fwd + o.overlapped_fwd - ov * fwd) +
                   std::max(0.0, p.overlapped_bwd + o.overlapped_bwd - ov * bwd);
  // Accumulating micro-batches, DDP (no_sync) and ZeRO-1/2 move their bytes once per
  // optimizer step, in the last micro-batch's backward: spread over all of them.
  const int per_step = once_per_step(w, f) ? std::max(1, w.grad_accum) : 1;
  exposed /= per_step;
  if (!texts_on()) return exposed;
  if (f.count > 1) notes.push_back(std::to_string(f.count) + " cards over " + f.what + ": " + what);
  if (!off_what.empty()) notes.push_back(off_what);
  if (f.count > 1 || !off_what.empty())
    notes.push_back(
        "communication not hidden behind compute: " + num(exposed * 1e3) + " ms per step of " +
        num((fwd + bwd) * 1e3) + " ms compute [comm_overlap_fraction " + num(ov) + "]" +
        (per_step > 1
             ? ", sent once per " + std::to_string(per_step) + " micro-batches [ddp_bucket_mb]"
             : ""));
  return exposed;
}

}  // namespace gpusel::tput
