#pragma once
// What the memory stage must know of an inference engine before the speed stage models it:
// which engine runs when --engine is not given, and how that engine spreads a model over
// several GPUs, and which cards it runs on at all. Read from data/throughput.json
// (constants.default_engine, engines.*.multi_gpu, engines.*.runs_on),
// the file the speed stage takes the engines' figures from.
#include <optional>
#include <string>

namespace gpusel {

struct Gpu;

// How many entries a chain of engines.*.like may pass through (llama.cpp-cublas ->
// llama.cpp-2024 -> llama.cpp is two); a longer chain is taken for a loop, a data error.
constexpr int kMaxLikeDepth = 4;

// The engine entry that runs an inference: --engine with an alias resolved to its entry's key
// (a name the data does not know comes back lower-cased), else the default: the batched
// engine (vLLM) for batches above one or for tensor parallelism, the batch-1 one (llama.cpp)
// otherwise.
std::string inference_engine(const std::string& engine, int batch, bool tensor_parallel);

// The older release of the batched engine (constants.default_engine.value.batched_older:
// vLLM 0.5, whose V0 engine ran Volta), for cards today's does not run on; "" if none.
std::string older_batched_engine();
// Whether that older release loads the model: a preset whose architecture it supports
// (default_engine.value.batched_older_models), or a bare parameter count ("" id: a Llama shape),
// in 16-bit weights: its quantized kernels (AWQ, Marlin, FP8, W8A8) need Turing or Ampere and
// later, the cards it stands in for lack them.
bool older_batched_engine_loads(const std::string& model_id, bool weights_16bit);

// Whether the engine spreads a model over several GPUs by layers (one card busy at a time
// at batch 1) rather than tensor parallel; false for a name the data does not know.
bool engine_splits_layers(const std::string& engine_key);

// Whether the engine has a backend for the card ecosystem (gpus.json `ecosystem`: cuda, rocm,
// oneapi, synapseai, cann, metal); true for a name the data does not know (the speed stage
// refuses those).
bool engine_runs_on(const std::string& engine_key, const std::string& ecosystem);
// The same for one card: its ecosystem, and its kernel target among the engine's supported
// ones where the data lists them (engines.*.targets: vLLM needs compute capability 7.5 on
// CUDA and lists its ROCm targets).
bool engine_runs_on(const std::string& engine_key, const Gpu& g);
// Whether the engine has kernels for a weight format (engines.*.weight_kernels: "mxfp4",
// "fp8") on the card: CUDA from a minimum compute capability ("sm_80"), ROCm on listed
// targets. Empty where nothing constrains it (no such entry, another ecosystem).
std::optional<bool> engine_loads_weights(const std::string& engine_key, const std::string& format,
                                         const std::string& ecosystem, const std::string& target);
// The ecosystems the engine runs on, separated by ", ", for messages.
std::string engine_platforms(const std::string& engine_key);

// The engines that run tensor parallel, separated by '|', for messages.
std::string tensor_parallel_engines();

}  // namespace gpusel
