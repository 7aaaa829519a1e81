// llama.cpp's expert offload (--n-cpu-moe N, --cpu-moe): which MoE layers keep their routed
// experts in host RAM, and the checks that the combination is one llama.cpp runs. Memory
// (estimator_states.cpp) and speed (throughput_infer.cpp) both read the share from here.
#include <algorithm>
#include <cmath>
#include <string>

#include "gpusel/base/error.hpp"
#include "gpusel/data/engines.hpp"
#include "gpusel/memory/estimator.hpp"
#include "workload_internal.hpp"

namespace gpusel {

int moe_layer_count(const ModelArch& m) {
  return m.moe && m.moe->experts > m.moe->active ? m.layers - m.moe->dense_layers : 0;
}

int cpu_moe_layers(const Workload& w) {
  const int moe = moe_layer_count(w.model);
  if (w.cpu_moe <= 0 || moe <= 0) return 0;
  const int dense = w.model.layers - moe;
  return std::clamp(w.cpu_moe - dense, 0, moe);
}

double cpu_moe_share(const Workload& w) {
  const int moe = moe_layer_count(w.model);
  return moe > 0 ? double(cpu_moe_layers(w)) / moe : 0.0;
}

double routed_expert_params(const ModelArch& m) {
  if (moe_layer_count(m) <= 0) return 0;
  const ArchParams a = arch_params(m);
  return a.experts * m.moe->experts / double(m.moe->experts + m.moe->shared_experts);
}

void set_cpu_moe(Workload& w, int n, bool all) {
  if (all && n != 0)
    throw usage_error("give one of --cpu-moe (every layer) and --n-cpu-moe N (the first N)");
  if (!all && n < 0)
    throw usage_error("--n-cpu-moe must be between 1 and the model's layers (got " +
                      std::to_string(n) + ")");
  w.cpu_moe = all ? kCpuMoeAll : n;
}

void set_host_memory_bandwidth(Workload& w, double gbs) {
  if (w.cpu_moe == 0 && w.offload == Offload::none && w.gpu_layers < 0)
    throw usage_error(
        "--host-mem-bw sets the speed of what runs from host RAM: give it with "
        "--n-cpu-moe N, --cpu-moe, --gpu-layers or --offload");
  if (!std::isfinite(gbs) || gbs <= 0 || gbs > 1e5)
    throw usage_error("--host-mem-bw must be a bandwidth in GB/s above 0 and at most 100000");
  w.host_memory_bytes_per_s = gbs * 1e9;
}

namespace detail {

void validate_cpu_moe(const Workload& w) {
  if (w.cpu_moe == 0) return;
  if (w.mode != Mode::inference)
    throw usage_error(
        "--n-cpu-moe/--cpu-moe keep a mixture of experts' experts in host RAM for llama.cpp "
        "inference: --mode inference");
  if (moe_layer_count(w.model) <= 0)
    throw usage_error(
        "--n-cpu-moe/--cpu-moe: " + (w.model.id.empty() ? std::string("the model") : w.model.id) +
        " is not a mixture of experts (no routed experts to keep in host RAM)");
  if (w.cpu_moe != kCpuMoeAll && (w.cpu_moe < 1 || w.cpu_moe > w.model.layers))
    throw usage_error("--n-cpu-moe must be between 1 and the model's " +
                      std::to_string(w.model.layers) + " layers (got " + std::to_string(w.cpu_moe) +
                      "; --cpu-moe: all of them)");
  if (w.precision == Precision::fp8)
    throw usage_error(
        "--n-cpu-moe/--cpu-moe run on llama.cpp, which has no FP8 type: "
        "--precision int8, int4 or a GGUF type (q4_k_m, q8_0...)");
  const std::string engine = engine_of(w);
  if (!is_llama_cpp(engine))
    throw usage_error(
        "--n-cpu-moe/--cpu-moe are llama.cpp's (and Ollama's) expert offload; --engine " + engine +
        " has no such option");
  if (w.shard == Shard::tp && w.gpus > 1)
    throw usage_error(
        "--n-cpu-moe/--cpu-moe run on llama.cpp, which splits a model by layers: "
        "--shard none, not tp");
}

}  // namespace detail

}  // namespace gpusel
