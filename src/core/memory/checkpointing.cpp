// torchtitan's op-level selective activation checkpointing, counted on the block's matmuls:
// _custom_policy saves a matmul's output when its count in the block is odd and recomputes it
// when even (pytorch/torchtitan torchtitan/distributed/activation_checkpoint.py, "Saves output
// of all compute ops, except every second mm"); SDPA's output is always saved, so attention is
// never recomputed.
#include "gpusel/memory/checkpointing.hpp"

#include <vector>

#include "estimator_parts.hpp"
#include "gpusel/base/error.hpp"
#include "workload_internal.hpp"

namespace gpusel {

namespace {

struct Matmul {
  double in, out;  // elements per token
};

// The block's matmuls in forward order.
std::vector<Matmul> block_matmuls(const ModelArch& m, bool fused_qkv) {
  const detail::Widths d = detail::widths(m);
  std::vector<Matmul> mm;
  if (fused_qkv)
    mm.push_back({d.h, d.q + 2 * d.kv});
  else
    mm.insert(mm.end(), {{d.h, d.q}, {d.h, d.kv}, {d.h, d.kv}});
  mm.push_back({d.q, d.h});
  if (m.mlp != "gelu") mm.push_back({d.h, d.i});  // gate
  mm.insert(mm.end(), {{d.h, d.i}, {d.i, d.h}});  // up (or fc1), down (or fc2)
  return mm;
}

}  // namespace

SelectiveCkpt selective_ckpt(const ModelArch& m, bool fused_qkv) {
  const detail::Widths d = detail::widths(m);
  SelectiveCkpt c;
  c.saved_elements = d.q;  // SDPA's output
  double all = 0, redone = 0;
  const std::vector<Matmul> mm = block_matmuls(m, fused_qkv);
  for (std::size_t i = 0; i < mm.size(); ++i) {
    const double flops = mm[i].in * mm[i].out;
    all += flops;
    if ((i + 1) % 2 == 1)
      c.saved_elements += mm[i].out;
    else
      redone += flops;
  }
  c.recompute_share = all > 0 ? redone / all : 0;
  return c;
}

namespace detail {

// torchtitan's op-level policy as modelled: a dense decoder's blocks trained whole.
void validate_selective_ckpt(const Workload& w) {
  if (!w.selective_ckpt) return;
  if (w.grad_ckpt)
    throw usage_error(
        "--selective-ckpt saves part of each block where --grad-ckpt saves its "
        "input alone: give one of them");
  if (w.mode != Mode::full && w.mode != Mode::freeze)
    throw usage_error(
        "--selective-ckpt is torchtitan's policy for training the weights: "
        "--mode full or freeze");
  if (w.model.kind != "decoder" || w.model.cnn || moe_layer_count(w.model) > 0)
    throw usage_error(
        "--selective-ckpt is modelled for dense decoders (a mixture of experts runs "
        "its experts' grouped GEMMs outside the policy's count of matmuls)");
}

}  // namespace detail

}  // namespace gpusel
