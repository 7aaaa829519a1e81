#pragma once
// Inference throughput (throughput_infer.cpp): decode from bandwidth, prefill from compute.
#include "throughput_model.hpp"

namespace gpusel::tput {

void estimate_inference(const Workload& w, const Gpu& g, int count, bool linked, const K& k,
                        const Shape& s, Throughput& t, const NodeNetwork* nodes = nullptr);

}  // namespace gpusel::tput
