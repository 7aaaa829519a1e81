#pragma once
// Shared by the serve tests: a workload placed on `count` cards and the replica it makes.
#include "gpusel/serve/load.hpp"
#include "gpusel/serve/plan.hpp"
#include "ranker_fixtures.hpp"

namespace serve_fixtures {

using namespace gpusel;

inline const Gpu& gpu(const std::string& id) { return require_gpu(ranker_fixtures::catalog(), id); }

inline Workload served(const std::string& model, const Traffic& t, Precision p = Precision::bf16,
                       KvDtype kv = KvDtype::compute) {
  Workload w = ranker_fixtures::preset(model, Mode::inference);
  w.precision = p;
  w.kv_dtype = kv;
  w.prompt_len = int(t.prompt.mean);
  w.seq_len = int(t.prompt.mean + t.output.mean);
  return w;
}

inline Replica replica(const Workload& w, const std::string& gpu_id, int count,
                       const std::string& engine = "vllm",
                       const Traffic& t = {{1000, 0}, {200, 0}}) {
  const Gpu& g = gpu(gpu_id);
  Workload run = w;
  run.engine = engine;  // placed as the serving engine lays a model out (vLLM: tensor parallel)
  const Workload placed = on_gpus(run, count);
  return build_replica(placed, g, count, make_config(g, count, run).linked,
                       default_serving_data().engine(engine), t);
}

inline const Traffic kChat{{1000, 0}, {200, 0}};

}  // namespace serve_fixtures
