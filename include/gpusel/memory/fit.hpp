#pragma once
// The reverse question: what fits on a card, and what would make a workload fit.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusel/data/catalog.hpp"
#include "gpusel/memory/estimator.hpp"

namespace gpusel {

// Memory kept free on every card: a fraction of the marketed VRAM, or a fixed amount.
// Default 10 %: vLLM's gpu_memory_utilization and TensorRT-LLM's free_gpu_memory_fraction
// default to 0.9, and KNOWLEDGE K2 puts usable VRAM at 85-90 % of nominal. The estimate
// already counts the CUDA context and allocator overhead; the reserve covers the driver,
// display, other processes and run-to-run variation.
struct Reserve {
  double fraction = -1;  // < 0: the documented default
  double bytes = 0;      // used when fraction is 0 and bytes > 0
};

// "10%", "0.1", "2GB", "1.5GiB", "512MiB", "0". Error(usage) otherwise.
Reserve parse_reserve(std::string_view text);
std::string describe(const Reserve& r);

// The reserve used when none is given: 10 % of a discrete card (K2), 25 % of Apple unified
// memory (macOS's default GPU working-set limit); both in data/constants.json.
Reserve default_reserve(const Gpu& gpu);

// The card's memory in bytes: vram_gb is binary (GiB), as GPU memory is built and reported,
// less the 1/16 that ECC takes on datacenter GDDR cards (a T4 shows 15360 of 16384 MiB).
double vram_bytes(const Gpu& gpu);

// Marketed VRAM (vram_gb x 1e9 bytes) less the reserve; never negative.
double usable_bytes(const Gpu& gpu, const Reserve& reserve = {});

struct FitChange {
  std::string change;  // what to do, in words ("--mode qlora", "--shard zero3 --gpus 4")
  Workload workload;   // the changed workload, re-estimated below
  Estimate estimate;
  bool fits = false;
};

struct FitResult {
  double usable_bytes = 0;  // per card
  Estimate requested;       // the workload as given
  bool fits = false;
  int max_batch = 0;               // at the requested sequence length; 0: not even batch 1
  int max_seq_len = 0;             // at the requested batch; 0: not even 1 token
  int seq_len_cap = 0;             // the model's max_context, the search's upper bound
  std::vector<FitChange> changes;  // when it does not fit: the K37 remedies, fitting first
};

FitResult fit(const Workload& w, const Gpu& gpu, int count, const Reserve& reserve = {});

}  // namespace gpusel
