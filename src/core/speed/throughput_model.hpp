#pragma once
// Internal pieces of the throughput model shared by throughput.cpp and throughput_link.cpp.
#include <string>
#include <vector>

#include "gpusel/data/catalog.hpp"
#include "gpusel/speed/throughput.hpp"
#include "gpusel/memory/workload.hpp"

namespace gpusel::tput {

// Per-token quantities of the workload's model.
struct Shape {
  double matmul = 0;     // active parameters multiplied per token, LM head's matmul included
  double head = 0;       // the LM head's share (kept 16-bit when the body is quantized)
  double total = 0;      // all parameters (MoE: every expert), for gradients and gathers
  double trainable = 0;  // parameters with gradients in this mode
  double attn_dim = 0;   // heads x head_dim
  int layers = 0;
  double hidden = 0;
};
Shape shape_of(const Workload& w);

// Data-parallel training efficiency of `count` cards: the measured table times what the
// gradient / parameter traffic costs beyond what overlaps with compute.
// `step_compute_s`: one micro-batch step's compute time on one card.
double training_scaling(const Workload& w, const Shape& s, const Gpu& g, int count, bool linked,
                        double step_compute_s, const ThroughputConstants& k,
                        std::vector<std::string>& notes);

// All-reduce bus bandwidth (bytes/s) between the cards and its description.
double busbw_bytes_per_s(const Gpu& g, bool linked, const ThroughputConstants& k,
                         std::string* what = nullptr);

// Short number formatting for the assumption texts: 3 significant digits.
std::string num(double v);

}  // namespace gpusel::tput
