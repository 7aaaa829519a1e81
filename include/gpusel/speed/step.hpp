#pragma once
// One iteration of an inference engine on one replica: `decode_seqs` sequences each
// generating a token and `prefill_tokens` prompt tokens in the same batch (continuous
// batching with chunked prefill). The same model decode tokens/s comes from
// (estimate_throughput: batch / step_seconds(batch, 0)), so serving and every other command
// read one set of rates from data/throughput.json: the card's achievable bandwidth x the
// engine's kernel efficiency, its achievable matmul rate x the engine's efficiency, and the
// link's all-reduce latency and bandwidth.
#include <string>
#include <vector>

#include "gpusel/data/catalog.hpp"
#include "gpusel/memory/workload.hpp"

namespace gpusel {

struct StepModel {
  std::string engine;      // the engine modelled (the workload's --engine, else by batch)
  int tp = 1, stages = 1;  // tensor-parallel width, sequential stages (layers split or nodes)
  int layers = 0;
  double weight_bytes = 0;      // read per step for one token (MoE: the active experts)
  double routed_bytes = 0;      // MoE: every routed expert's bytes (0 for a dense model)
  double route_fraction = 0;    // MoE: experts a token picks / routed experts (k/E)
  double bandwidth = 0;         // achieved bytes/s per card
  double kv_bytes_per_seq = 0;  // KV one decoding sequence reads per step, all cards together
  double fixed_s = 0;       // per step: engine per-layer overhead, all-reduce latencies, stage hops
  double decode_flops = 0;  // per decoding sequence: matmuls + attention at its mean context
  double prefill_linear_flops = 0, prefill_attention_flops = 0;  // per prompt token
  double linear_flops_per_s = 0, attention_flops_per_s = 0;      // whole replica, achieved
  double gemm_factor = 1;       // int8/int4 weights: the dequantizing GEMMs' share of the
                                // 16-bit rate (prompt and decode tokens alike)
  double dequant_s = 0;         // a step of more than dequant_above tokens: the FP16 copy of
  int dequant_above = 0;        // the quantized weights (engines dequantizing for cuBLAS)
  double comm_s_per_token = 0;  // tensor parallel: all-reduce transfer time per token, added
                                // to the step (on the critical path, not overlapped)
  double host_floor_s = 0;      // llama.cpp row split: the host's time issuing a step's calls
  // llama.cpp --n-cpu-moe: every routed expert's bytes kept in host RAM; a step of fewer than
  // `op_offload_min` tokens has the CPU read those its tokens pick at `host_read_bw`, a larger
  // one copies them to the GPU at `host_copy_bw` (PCIe) to multiply there. In series with the
  // GPU's layers (one runs at a time).
  double host_routed_bytes = 0, host_read_bw = 0, host_copy_bw = 0;
  // llama.cpp --gpu-layers: the bytes of the layers (and output) kept in host RAM, read whole
  // by every step, the same way: by the CPU for a few tokens, copied to the GPU for a batch.
  double host_dense_bytes = 0;
  int op_offload_min = 0;
  std::vector<std::string> assumptions;
};

// `count` cards of `gpu` running one copy of `w` (its shard: tensor parallel, or layers split).
// Error(usage) as estimate_throughput.
StepModel step_model(const Workload& w, const Gpu& gpu, int count, bool linked);

// Seconds for one iteration. `pipelined`: the stages work on stage-many micro-batches at once
// (serving engines' pipeline parallelism), else one stage works at a time.
double step_seconds(const StepModel& m, double decode_seqs, double prefill_tokens,
                    bool pipelined = false);

}  // namespace gpusel
