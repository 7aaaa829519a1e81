// llama.cpp's partial offload of a model's layers (--gpu-layers N, llama.cpp --gpu-layers N, -ngl):
// the last N repeating layers on the GPU, the rest and, unless N exceeds the layers, the output
// layer in host RAM (llama-model.cpp load_tensors: i_gpu_start = max(n_layer - n_gpu_layers, 0);
// the output goes to the GPU only when n_gpu_layers > n_layer). Each layer's KV cache sits with it
// (llama.cpp's offload_kqv). Memory (estimator_weights.cpp, kv_cache.cpp) and speed
// (throughput_infer.cpp) read the shares from here.
#include <algorithm>
#include <string>

#include "gpusel/base/error.hpp"
#include "gpusel/data/engines.hpp"
#include "gpusel/memory/estimator.hpp"
#include "workload_internal.hpp"

namespace gpusel {

int host_layers(const Workload& w) {
  if (w.gpu_layers < 0) return 0;
  return std::max(0, w.model.layers - w.gpu_layers);
}

bool output_on_host(const Workload& w) {
  return w.gpu_layers >= 0 && w.gpu_layers <= w.model.layers;
}

double host_layer_share(const Workload& w) {
  return w.model.layers > 0 ? double(host_layers(w)) / w.model.layers : 0;
}

namespace detail {

void validate_gpu_layers(const Workload& w) {
  if (w.gpu_layers < 0) return;
  if (w.mode != Mode::inference)
    throw usage_error(
        "--gpu-layers is llama.cpp's partial offload (--gpu-layers, -ngl): --mode inference");
  if (w.model.cnn || w.model.kind != "decoder")
    throw usage_error("--gpu-layers offloads a decoder's layers to the GPU (llama.cpp -ngl)");
  if (!is_llama_cpp(engine_of(w)))
    throw usage_error("--gpu-layers is llama.cpp's (and Ollama's) -ngl; --engine " + engine_of(w) +
                      " has no such option");
  if (w.precision == Precision::fp8)
    throw usage_error(
        "--gpu-layers runs on llama.cpp, which has no FP8 type: --precision int8, "
        "int4 or a GGUF type (q4_k_m, q8_0...)");
  if (w.gpus > 1)
    throw usage_error(
        "--gpu-layers is modelled on one GPU (llama.cpp spreads the offloaded "
        "layers over several by --tensor-split)");
  if (w.cpu_moe != 0)
    throw usage_error(
        "give one of --gpu-layers (whole layers in host RAM) and "
        "--n-cpu-moe/--cpu-moe (the experts alone)");
}

}  // namespace detail

}  // namespace gpusel
