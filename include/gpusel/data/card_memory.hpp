#pragma once
// What a card offers a workload: its memory as the framework sees it (binary units, less
// the ECC share on datacenter GDDR), and how much of it is kept free. A property of the card,
// used by fit, the ranker and rentals alike.
#include <string>
#include <string_view>

#include "gpusel/data/catalog.hpp"

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

// vram_bytes less the reserve; never negative.
double usable_bytes(const Gpu& gpu, const Reserve& reserve = {});

// Datacenter GDDR cards ship with ECC on and lose the check bits' share of the chips.
bool gddr_ecc_on(const Gpu& gpu);

}  // namespace gpusel
