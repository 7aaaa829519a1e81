#pragma once
// One serving replica: `count` cards running one copy of the model under an engine with
// continuous batching. What it holds (the KV pool, how many sequences fit) and how long one
// iteration takes with B sequences decoding and T prompt tokens mixed in (chunked prefill).
#include <string>
#include <vector>

#include "gpusel/data/card_memory.hpp"
#include "gpusel/memory/workload.hpp"
#include "gpusel/serve/serving_data.hpp"
#include "gpusel/speed/step.hpp"

namespace gpusel {

// A length in tokens: its mean and standard deviation over requests (1000:300).
struct Lengths {
  double mean = 0, sd = 0;
};

struct Traffic {
  Lengths prompt, output;
  // --users: seconds a client waits after an answer before its next request (0: the
  // concurrency of a benchmark client; people reading and typing take tens of seconds).
  double think_s = 0;
};

struct Replica {
  const Gpu* gpu = nullptr;
  const ServingEngine* engine = nullptr;
  int count = 1, tp = 1, pp = 1;  // cards, tensor-parallel width, pipeline stages
  bool linked = false;
  Traffic traffic;

  // Memory, per card (bytes).
  double card_bytes = 0, weight_bytes = 0, workspace_bytes = 0, kv_pool_bytes = 0;
  double held_tokens = 0;   // per sequence, on average, rounded to the engine's blocks
  double seq_kv_bytes = 0;  // one sequence's KV at held_tokens
  int memory_seqs = 0;      // sequences the pool holds
  int max_seqs = 0;         // the running-batch cap: memory, engine, token budget
  std::string seq_limit;    // which of them binds, in words
  int batched_tokens = 0;   // tokens per iteration
  int graph_max_batch = 0;

  // Speed: speed/'s step model of these cards (rates from data/throughput.json).
  StepModel step;
  int layers = 0;

  std::vector<std::string> assumptions;  // each rate and limit with its number and data key
  bool fits() const { return max_seqs >= 1; }
};

// The replica for a workload already placed on `count` cards (workload_for: tensor parallel,
// or layers split into pipeline stages), served by `e` (speed/'s engine of the same name).
// `reserve`: gpusel's reserve, for engines that use the card's usable memory (llama.cpp).
// Error(usage) for lengths that are not positive.
Replica build_replica(const Workload& w, const Gpu& g, int count, bool linked,
                      const ServingEngine& e, const Traffic& t, const Reserve& reserve = {});

// Seconds for one iteration of the whole replica: `decode_seqs` sequences each generating a
// token and `prefill_tokens` prompt tokens in the same batch (speed/'s step model, pipeline
// stages working on micro-batches), plus the engine's launch cost past its CUDA-graph batch
// and the CPU time per running sequence it does not overlap with the GPU.
double step_seconds(const Replica& r, double decode_seqs, double prefill_tokens);

}  // namespace gpusel
