// llama.cpp's row split (--split-mode row): every weight matrix of a layer (the attention
// projections, the MLP's and the LM head) is cut by rows over the cards; norms, attention
// and the KV cache stay with one card at a time. ggml-cuda's split-buffer matmul
// (ggml_cuda_op_mul_mat, ggml-org/llama.cpp@9476b01 ggml-cuda.cu) forks and joins at every
// split matmul: the main card records an event; each other card waits for it, copies the
// activations in, multiplies its rows and copies its slice of the result back to the main
// card, which waits for every card before the next op. The host issues those calls card by
// card, without CUDA graphs.
#include <algorithm>
#include <string>

#include "throughput_infer.hpp"

namespace gpusel::tput {

RowSplit row_split_costs(const Shape& s, const Fabric& f, int cards, const K& k, bool quantized) {
  RowSplit r;
  if (cards < 2) return r;
  const double h = s.hidden, a = s.attn_dim, kv = s.kv_dim, ff = s.inter;
  // fp32 activations in and results out of each split matmul, per token.
  double in = 3 * h + a, out = a + 2 * kv + h;  // q, k, v, o
  in += s.gated ? 2 * h + ff : h + ff;          // gate and up (or up), down
  out += s.gated ? 2 * ff + h : ff + h;
  r.matmuls = s.layers * (4.0 + (s.gated ? 3 : 2));
  in *= s.layers, out *= s.layers;
  if (s.logits > 0) r.matmuls += 1, in += h, out += s.logits;  // the LM head
  Fabric group = f;
  group.count = cards, group.nodes = 1;
  // The activations go from the main card to each other card, as fp32 or, for quantized
  // weights, as q8_1 blocks (36 B per 32 values: block_q8_1, ggml-common.h); each card's rows
  // of the result come back in fp32.
  const double in_bytes = quantized ? 36.0 / 32 : 4;
  r.comm_s_per_token = cards * gather_s(group, in_bytes * in) + gather_s(group, 4 * out);
  // One small exchange per split matmul, sized as the hidden-wide activations it sends.
  const double sync_bytes = in_bytes * h;
  r.sync_s = latency_s(group, cards, sync_bytes, k);
  if (texts_on()) r.sync_what = latency_what(group, cards, sync_bytes, k);
  r.host_s = r.matmuls * cards * k.row_split_calls_per_card * k.host_launch_s;
  return r;
}

std::string describe_row_split(const RowSplit& r, int cards, const std::string& over) {
  return "llama.cpp row split over " + std::to_string(cards) + " cards" + over +
         ": each reads its rows of every weight matrix (bandwidth adds; attention and the KV "
         "cache one card at a time); " +
         num(r.matmuls) +
         " split matmuls per token, each a fork-join taken as a small all-reduce (" + r.sync_what +
         "); the host issues " + num(r.host_s * 1e6) +
         " us of calls per token [llama_cpp_row_split_calls x "
         "host_launch_us], a floor under the step";
}

}  // namespace gpusel::tput
