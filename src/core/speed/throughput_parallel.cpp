// Training over tp x pp x cp x dp GPUs (--tp, --pp, --vpp, --cp), laid out as Megatron-LM
// does: tensor parallel ranks innermost (inside a node), then context parallel, then data
// parallel, pipeline stages outermost (Narayanan et al. SC21, arXiv:2104.04473 s3; Megatron-Core
// parallel_state order "tp-cp-ep-dp-pp"). Each GPU computes 1/n of the model FLOPs; what it adds
// per micro-batch:
// - the pipeline bubble, (pp - 1) / (vpp x m) of the compute for m micro-batches per step
//   (ibid. s2.2: 1F1B and the interleaved schedule);
// - tensor parallel: the existing --shard tp cost with degree tp, 4 all-reduces of the
//   layer's activations per layer (+2 under recompute) on the critical path (Shoeybi et al.
//   arXiv:1909.08053 s3), over the node's link;
// - pipeline point-to-point: a micro-batch's activations forward and their gradient back at
//   each of the vpp stage boundaries, scattered over the tp ranks (Narayanan s4.1);
// - context parallel: ring attention (Liu et al. arXiv:2310.01889; Transformer Engine's
//   AttnFuncWithCPAndKVP2P): each layer's K/V chunks go round the cp ranks once in forward,
//   and K/V plus their gradients once each in backward (+1 forward under recompute), each pass
//   an all-gather's traffic; the sends run beside the attention kernels, so only what
//   outlasts them is exposed;
// - expert parallel: each MoE layer sends its tokens' hidden states to the ranks holding their
//   top-k experts and takes the outputs back, an all-to-all each way, forward and backward
//   (+1 pair under recompute) over the link the ep ranks span (Lepikhin et al. GShard
//   arXiv:2006.16668 s2.2; Megatron-Core's MoEAlltoAllTokenDispatcher);
// - data parallel: the --shard strategy's collectives on the stage's share of the parameters
//   over the link the dp x cp ranks span (the cp ranks hold the same weights), once per
//   optimizer step (ZeRO-3/FSDP: per micro-batch); under --ep the routed experts' share moves
//   only among their dp x cp / ep expert-data-parallel ranks, 1/ep of it on each.
// With --comm-overlap (Megatron-Core/NeMo: tp_comm_overlap, overlap_p2p_comm,
// overlap_param_gather) the tensor-parallel collectives, the pipeline sends and ZeRO-1/2's
// weight all-gather hide behind the micro-batch's compute as far as it lasts; the bubble never
// hides. Bandwidths, latencies and the overlap fraction are data/throughput.json's.
#include <algorithm>
#include <cmath>

#include "gpusel/base/error.hpp"
#include "throughput_model.hpp"

namespace gpusel::tput {
namespace {

struct Frame {
  int tp = 1, pp = 1, vpp = 1, dp = 1, micro = 1, cp = 1;
  double fwd = 0, bwd = 0;  // one GPU's share of one micro-batch's compute, seconds
  double attn = 0;          // of which attention kernels
  // One micro-batch's tokens on one GPU's sequence chunk.
  double tokens(const Workload& w) const { return double(w.batch) * w.seq_len / cp; }
};

// Seconds per micro-batch: `fixed` stays on the critical path whatever the stack does; `comm`
// is communication that sits there too unless the stack overlaps it (--comm-overlap).
struct Cost {
  double fixed = 0, comm = 0;
  Cost& operator+=(const Cost& o) {
    fixed += o.fixed, comm += o.comm;
    return *this;
  }
};

const char* critical(const Workload& w) {
  return w.comm_overlap ? "overlapped (--comm-overlap)" : "on the critical path";
}

// `count` ranks `apart` GPUs apart: a node holds per_node / apart of them.
Fabric spaced_fabric(const Fabric& f, int count, int apart) {
  Fabric d = f;
  d.count = count;
  d.per_node = std::clamp(f.per_node / apart, 1, count);
  d.nodes = (count + d.per_node - 1) / d.per_node;
  return d;
}

Cost tensor_parallel_s(const Workload& w, const Shape& s, const Fabric& f, const Frame& x,
                       const K& k, std::vector<std::string>& notes) {
  if (x.tp < 2) return {};
  Fabric group = f;
  group.count = x.tp, group.nodes = 1;
  const double act = x.tokens(w) * s.hidden * 2;
  const int per_layer = 4 + (w.grad_ckpt ? 2 : 0);
  const double layers = std::ceil(double(s.layers) / x.pp);
  const double t = layers * per_layer * (allreduce_s(group, act) + latency_s(group, x.tp, act, k));
  notes.push_back("tensor parallel " + std::to_string(x.tp) + ": " + num(layers) + " layers x " +
                  std::to_string(per_layer) + " all-reduces of " + num(act / 1e6) + " MB " +
                  critical(w) + " = " + num(t * 1e3) + " ms per micro-batch (latency " +
                  latency_what(group, x.tp, act, k) + ")");
  return {0, t};
}

Cost pipeline_s(const Workload& w, const Shape& s, const Fabric& f, const Frame& x,
                std::vector<std::string>& notes) {
  if (x.pp < 2) return {};
  const double bubble = (x.fwd + x.bwd) * (x.pp - 1) / (double(x.vpp) * x.micro);
  // Stages are tp x cp x dp ranks apart: another node once those fill one.
  const bool across = f.nodes > 1 && x.tp * x.cp * x.dp >= f.per_node;
  const double bw = across ? f.inter : f.intra;
  const double act = x.tokens(w) * s.hidden * 2 / x.tp;
  const double hops = bw > 0 ? 2.0 * x.vpp * act / bw : 0;
  notes.push_back("pipeline " + std::to_string(x.pp) + " stages" +
                  (x.vpp > 1 ? " x " + std::to_string(x.vpp) + " interleaved" : "") + ", " +
                  std::to_string(x.micro) + " micro-batches: bubble (pp-1)/(vpp x m) = " +
                  num(bubble / (x.fwd + x.bwd)) + " of the compute; activations between stages " +
                  num(hops * 1e3) + " ms per micro-batch over " +
                  (across ? "the cluster network" : "the node's link") +
                  (w.comm_overlap ? ", overlapped (--comm-overlap)" : ""));
  return {bubble, hops};
}

// Ring attention over the cp ranks (tp apart): per layer of the stage, the full sequence's K/V
// of this tensor slice as an all-gather, 1 pass forward, 2 backward (K/V again and their
// gradients), 1 more when the forward is recomputed. Exposed past the attention kernels.
Cost context_parallel_s(const Workload& w, const Shape& s, const Fabric& f, const Frame& x,
                        std::vector<std::string>& notes) {
  if (x.cp < 2) return {};
  const Fabric group = spaced_fabric(f, x.cp, x.tp);
  const double kv = double(w.batch) * w.seq_len * 2 * s.kv_dim * 2 / x.tp;
  const int passes = 3 + (w.grad_ckpt ? 1 : 0);
  const double layers = std::ceil(double(s.layers) / x.pp);
  const double ring = layers * passes * gather_s(group, kv);
  const double exposed = std::max(0.0, ring - x.attn);
  notes.push_back("context parallel " + std::to_string(x.cp) + " (" +
                  (group.nodes > 1 ? "over the cluster network" : "inside the node") +
                  "): ring attention, " + num(layers) + " layers x " + std::to_string(passes) +
                  " passes of " + num(kv / 1e6) + " MB of K/V = " + num(ring * 1e3) +
                  " ms beside " + num(x.attn * 1e3) + " ms of attention kernels, " +
                  num(exposed * 1e3) + " ms per micro-batch exposed");
  return {exposed, 0};
}

// All-to-all of `bytes` per GPU over `group`: (n-1)/n of it leaves each GPU, the share bound
// for other nodes over the cluster network, the rest over the node's link.
double all_to_all_s(const Fabric& group, double bytes) {
  const int n = group.count, m = std::min(group.count, group.per_node);
  if (n < 2) return 0;
  const double intra = group.intra > 0 ? bytes * (m - 1) / n / group.intra : 0;
  const double inter = group.nodes > 1 && group.inter > 0 ? bytes * (n - m) / n / group.inter : 0;
  return std::max(intra, inter);
}

// The stage's MoE layers' token exchange per micro-batch (--ep), on the critical path unless
// the stack overlaps it.
Cost expert_parallel_s(const Workload& w, const Shape& s, const Fabric& f, const Frame& x,
                       std::vector<std::string>& notes) {
  if (w.ep < 2 || !w.model.moe) return {};
  // Expert layers have a mesh of their own, tp-ep-dp-pp (Megatron-Core parallel_state's
  // expert RankGenerator, expert tensor parallelism = tp): ep ranks sit tp apart, cp folded in.
  const Fabric group = spaced_fabric(f, w.ep, x.tp);
  // Each token's hidden state goes to its top-k experts; with sequence parallelism a tensor
  // slice dispatches 1/tp of the tokens.
  const double bytes = x.tokens(w) * w.model.moe->active * s.hidden * 2 / x.tp;
  const int passes = 4 + (w.grad_ckpt ? 2 : 0);
  const double layers = std::ceil(double(moe_layer_count(w.model)) / x.pp);
  const double t = layers * passes * all_to_all_s(group, bytes);
  notes.push_back("expert parallel " + std::to_string(w.ep) + " (" +
                  (group.nodes > 1 ? "over the cluster network" : "inside the node") + "): " +
                  num(layers) + " MoE layers x " + std::to_string(passes) + " all-to-alls of " +
                  num(bytes / 1e6) + " MB (top-" + std::to_string(w.model.moe->active) +
                  " tokens) " + critical(w) + " = " + num(t * 1e3) + " ms per micro-batch");
  return {0, t};
}

// The data-parallel strategy's traffic per micro-batch that the overlap window leaves exposed.
Cost data_parallel_s(const Workload& w, const Shape& s, const Fabric& f, const Frame& x, const K& k,
                     std::vector<std::string>& notes) {
  if (x.dp * x.cp < 2) return {};
  const Fabric d = spaced_fabric(f, x.dp * x.cp, x.tp);
  const double share = expert_parallel_share(w) / (x.tp * x.pp);
  const double grads = grad_bytes(w, s) * share;
  const double ov = k.comm_overlap_fraction, m = x.micro;
  double exposed = 0, gather = 0;  // gather: ZeRO-1/2's weight all-gather after the step
  std::string what;
  switch (w.shard) {
    case Shard::zero3:
    case Shard::fsdp: {  // weights gathered every micro-batch, forward and backward
      const double ag = gather_s(d, s.total * 2 * share);
      exposed =
          std::max(0.0, ag - ov * x.fwd) + std::max(0.0, ag - ov * x.bwd) + gather_s(d, grads) / m;
      what = "all-gather of the stage's weights per micro-batch + reduce-scatter of gradients";
      break;
    }
    case Shard::zero1:
    case Shard::zero2:  // reduce-scatter in the last backward, all-gather after the step
      exposed = std::max(0.0, gather_s(d, grads) - ov * x.bwd) / m;
      gather = gather_s(d, s.trainable * 2 * share) / m;
      what = "reduce-scatter of the stage's gradients + all-gather of its updated weights";
      break;
    default:  // ddp: all-reduce in the last micro-batch's backward
      exposed = std::max(0.0, allreduce_s(d, grads) - ov * x.bwd) / m;
      what = "all-reduce of the stage's gradients";
  }
  notes.push_back("data parallel " + std::to_string(x.dp) +
                  (x.cp > 1 ? " x context parallel " + std::to_string(x.cp) : "") + " (" +
                  to_string(w.shard) + ", " + std::to_string(d.per_node) + " per node" +
                  (d.nodes > 1 ? ", over the cluster network" : "") + "): " + what + ", " +
                  num((exposed + gather) * 1e3) + " ms per micro-batch not hidden" +
                  (gather > 0 && w.comm_overlap
                       ? " by the backward (the all-gather " + num(gather * 1e3) +
                             " ms overlaps the next forward)"
                       : ""));
  return {exposed, gather};
}

}  // namespace

double hybrid_exposed_s(const Workload& w, const Shape& s, const Gpu& g, const Fabric& f,
                        double fwd, double bwd, const K& k, std::vector<std::string>& notes) {
  Workload inner = w;
  inner.gpus = w.shard_group, inner.shard_group = 0;
  Fabric group = spaced_fabric(f, w.shard_group, 1);
  // The group's own nodes in the link's words: one node's link alone, or its count of nodes.
  const std::string all = ", " + std::to_string(f.nodes) + " nodes over";
  const std::size_t cut = f.what.find(all);
  if (cut != std::string::npos)
    group.what = group.nodes == 1 ? f.what.substr(0, cut)
                                  : f.what.substr(0, cut) + ", " + std::to_string(group.nodes) +
                                        " nodes over" + f.what.substr(cut + all.size());
  const double within = exposed_step_s(inner, s, g, group, fwd, bwd, k, notes);
  // Replicas are shard_group GPUs apart: each GPU all-reduces its 1/group gradient shard with
  // its peers of the other groups, overlapped with the backward as DDP's is.
  const int replicas = w.gpus / w.shard_group;
  const Fabric across = spaced_fabric(f, replicas, w.shard_group);
  const double shard = grad_bytes(w, s) / w.shard_group;
  const double ar = allreduce_s(across, shard);
  const double exposed =
      std::max(0.0, ar - k.comm_overlap_fraction * bwd) / std::max(1, w.grad_accum);
  notes.push_back("hsdp: FSDP inside groups of " + std::to_string(w.shard_group) + ", " +
                  std::to_string(replicas) + " replicas all-reduce each GPU's " + num(shard / 1e9) +
                  " GB gradient shard" +
                  (across.nodes > 1 ? " over the cluster network" : " inside the node") + " (" +
                  num(ar * 1e3) + " ms per optimizer step beside the backward), " +
                  num(exposed * 1e3) + " ms per micro-batch exposed");
  return within + exposed;
}

double model_parallel_exposed_s(const Workload& w, const Shape& s, const Gpu& g, const Fabric& f,
                                const StepTimes& step, const K& k,
                                std::vector<std::string>& notes) {
  Frame x{w.tp, w.pp, w.vpp, data_parallel(w), std::max(1, w.grad_accum), std::max(1, w.cp)};
  if (x.tp > f.per_node)
    throw usage_error("--tp " + std::to_string(x.tp) + " exceeds the " +
                      std::to_string(f.per_node) + " GPUs of one " + g.id +
                      " node: tensor parallelism runs over the node's own link");
  const double mp = double(x.tp) * x.pp * x.cp;
  x.fwd = step.forward_s / mp, x.bwd = step.backward_s / mp, x.attn = step.attention_s / mp;
  Cost c = tensor_parallel_s(w, s, f, x, k, notes);
  c += pipeline_s(w, s, f, x, notes);
  c += context_parallel_s(w, s, f, x, notes);
  c += expert_parallel_s(w, s, f, x, notes);
  c += data_parallel_s(w, s, f, x, k, notes);
  // Overlapped communication hides behind the micro-batch's compute as far as it lasts.
  const double window = k.comm_overlap_fraction * (x.fwd + x.bwd);
  const double comm = w.comm_overlap ? std::max(0.0, c.comm - window) : c.comm;
  const double real = c.fixed + comm;
  if (w.comm_overlap && c.comm > 0)
    notes.push_back("--comm-overlap: " + num(c.comm * 1e3) +
                    " ms of communication per micro-batch behind " + num((x.fwd + x.bwd) * 1e3) +
                    " ms of compute x " + num(k.comm_overlap_fraction) +
                    " [comm_overlap_fraction]: " + num(comm * 1e3) + " ms left");
  notes.push_back(std::to_string(f.count) + " cards over " + f.what + ": " + num(real * 1e3) +
                  " ms per micro-batch beyond " + num((x.fwd + x.bwd) * 1e3) +
                  " ms of compute per GPU");
  return real * mp;  // in the terms of one card running the whole micro-batch
}

}  // namespace gpusel::tput
