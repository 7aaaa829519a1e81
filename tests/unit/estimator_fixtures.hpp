#pragma once
// Architectures of ../shared/ESTIMATOR.md's table (litgpt config.py @2685705), for tests
// that need exact shapes independent of data/models.json.
#include "gpusel/data/models.hpp"
#include "gpusel/memory/workload.hpp"

namespace test_models {

inline gpusel::ModelArch llama2_7b() {
  gpusel::ModelArch m;
  m.id = "llama-2-7b", m.name = "Llama 2 7B", m.params = 6.74e9;
  m.layers = 32, m.hidden = 4096, m.heads = 32, m.kv_heads = 32, m.head_dim = 128;
  m.intermediate = 11008, m.vocab = 32000, m.max_context = 4096;
  return m;
}

inline gpusel::ModelArch llama31_8b() {
  gpusel::ModelArch m = llama2_7b();
  m.id = "llama-3.1-8b", m.name = "Llama 3.1 8B", m.params = 8.03e9;
  m.kv_heads = 8, m.intermediate = 14336, m.vocab = 128256, m.max_context = 131072;
  return m;
}

inline gpusel::Workload on(const gpusel::ModelArch& m, gpusel::Mode mode) {
  gpusel::Workload w;
  w.model = m;
  w.model_from_preset = true;
  w.mode = mode;
  return w;
}

}  // namespace test_models
