#pragma once
// Inference throughput (throughput_infer.cpp): decode from bandwidth, prefill from compute.
#include <string>

#include "throughput_model.hpp"

namespace gpusel::tput {

// llama.cpp's row split (throughput_rowsplit.cpp): per token, the split matmuls, the
// fork-join latency of each, the host's time issuing them card by card, and the activations
// and results copied between the cards (quantized weights: the activations travel as q8_1).
struct RowSplit {
  double matmuls = 0, sync_s = 0, host_s = 0, comm_s_per_token = 0;
  std::string sync_what;  // the fork-join's figure and its data key, for the texts
};
RowSplit row_split_costs(const Shape& s, const Fabric& f, int cards, const K& k, bool quantized);
std::string describe_row_split(const RowSplit& r, int cards, const std::string& over);

void estimate_inference(const Workload& w, const Gpu& g, int count, bool linked, const K& k,
                        const Shape& s, Throughput& t, const NodeNetwork* nodes = nullptr);

}  // namespace gpusel::tput
