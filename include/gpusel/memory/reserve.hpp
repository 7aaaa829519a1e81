#pragma once
// The memory an engine leaves free on each card: the reserve a fit verdict keeps beside the
// workload's need.
#include "gpusel/data/card_memory.hpp"
#include "gpusel/data/catalog.hpp"
#include "gpusel/memory/workload.hpp"

namespace gpusel {

// `given` where the user set one (--reserve) or the card is unified memory (its OS share);
// otherwise the engine's own: llama.cpp (and Ollama, its build) sizes context and layers to
// the free memory less a fixed margin per device (--fit, on by default; constants.json
// llama_cpp_fit_margin_bytes), where vLLM and TensorRT-LLM take 0.9 of the device (the
// default 10 %, also kept for training: PyTorch's allocator and fragmentation). With the
// margin's text for what is shown (fit).
Reserve engine_reserve(const Workload& w, const Gpu& gpu, const Reserve& given);

// The card's usable bytes under engine_reserve, without its text: what every fit verdict
// compares the need with (the ranker calls it for each configuration).
double usable_for(const Workload& w, const Gpu& gpu, const Reserve& given);

}  // namespace gpusel
