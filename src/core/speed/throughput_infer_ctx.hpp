#pragma once
// The context of one inference estimate (throughput_infer.cpp) and the rates a card reaches
// under an engine (throughput_rates.cpp): decode bandwidth, prompt GEMM rates and efficiency.
#include <string>

#include "gpusel/speed/step.hpp"
#include "throughput_model.hpp"

namespace gpusel::tput {

struct Ctx {
  const Workload& w;
  const Gpu& g;
  const Shape& s;
  const K& k;
  const Engine& e;
  Fabric f;
  double bw = 0;                     // achieved bytes/s per card for weights
  double linear = 0, attention = 0;  // prompt GEMM rates, TFLOPS achieved
  double fraction = 1;               // of the spec those rates come from
  double prefill_eff = 1;            // the engine's prompt efficiency on this card
  double gemm_quant = 1;             // int8/int4 weights: x this on every GEMM's rate
  int tp = 1, stages = 1;            // tensor-parallel width, sequential stages
  int row = 1;                       // llama.cpp --split-mode row: cards splitting each matrix
  bool fp8_weight_only = false;      // FP8 weights on a card without FP8 tensor cores
  // Engines whose prompt GEMMs run in FP16 cuBLAS: the bytes each forward pass of more than
  // the engine's dequant_above tokens reads and writes turning the quantized weights into an
  // FP16 copy, at `copy_bw` bytes/s; 0 where the quantized weights are multiplied as they are.
  double dequant_bytes = 0, copy_bw = 0;
};

// Bytes of weights one decode step reads (GGUF bits, --weight-bits, int4/int8 figures).
double weight_bytes(const Workload& w, const Shape& s, const K& k, const Engine& e);

// "hbm", "unified" (Apple) or "gddr": which of an engine's kernel figures a card takes.
std::string memory_class(const Gpu& g);

// Achieved decode bandwidth: spec x memory type x engine kernel x weight precision.
double decode_bandwidth(const Ctx& c, Throughput& t);

// Prompt GEMM rates (linear, attention) and the fraction of the spec they come from.
void prefill_rates(Ctx& c, Throughput& t);

// The engine's prompt efficiency on this card, and what quantized weights cost the GEMMs.
void prompt_efficiency(Ctx& c, Throughput& t);

// The step model of `tp` x `stages` cards (or `row` cards of llama.cpp's row split): the
// same rates prefill and decode use (throughput_infer.cpp).
StepModel build_step(const Ctx& c, int tp, int stages, int row = 1);
// What the host's RAM holds and runs (--gpu-layers, --n-cpu-moe), in the assumption texts
// (throughput_host.cpp).
void describe_host_experts(const Ctx& c, Throughput& t);

}  // namespace gpusel::tput
