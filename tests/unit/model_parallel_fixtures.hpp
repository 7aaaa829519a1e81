#pragma once
// Shared by the --tp/--pp memory and speed tests: Llama 3 70B training at 4096 tokens with
// eight micro-batches per step, split tp x pp with `shard` over the data-parallel rest.
#include "ranker_fixtures.hpp"

#include <string>

#include "gpusel/speed/throughput.hpp"

namespace model_parallel_fixtures {

using namespace gpusel;

inline Workload training(Mode mode, Shard shard, int tp, int pp) {
  Workload w;
  w.model = ranker_fixtures::model("llama-3-70b");
  w.model_from_preset = true;
  w.mode = mode;
  w.seq_len = 4096;
  w.grad_accum = 8;
  w.shard = shard, w.shard_given = true;
  w.tp = tp, w.pp = pp;
  return w;
}

// Whether one of the estimate's assumption lines contains `what`.
inline bool assumes(const Throughput& t, const std::string& what) {
  for (const std::string& a : t.assumptions)
    if (a.find(what) != std::string::npos) return true;
  return false;
}

}  // namespace model_parallel_fixtures
