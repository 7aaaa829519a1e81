#pragma once
// What a card offers a workload: its memory as the framework sees it (binary units, less
// the ECC share on datacenter GDDR), and how much of it is kept free. A property of the card,
// used by fit, the ranker and rentals alike.
#include <optional>
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
  std::string os;        // unified memory: the OS whose GPU share applies ("" = natural_os)
  std::string basis;     // set by default_reserve for unified memory: where the figure comes from
};

// --os: macos, linux or windows; Error(usage) otherwise.
std::string parse_os(std::string_view text);
// The OS a unified-memory part usually runs: macOS on Apple silicon, Linux otherwise (DGX OS
// on GB10, ROCm on Ryzen AI Max and MI300A).
std::string natural_os(const Gpu& gpu);

// "10%", "0.1", "2GB", "1.5GiB", "512MiB", "0". Error(usage) otherwise.
Reserve parse_reserve(std::string_view text);
std::string describe(const Reserve& r);

// The reserve used when none is given: 10 % of a discrete card (K2). A unified-memory part
// keeps what its recorded default GPU share for `os` leaves to the system (gpus.json
// unified_memory_share; macOS lets the GPU wire 75 %), never less than that 10 %; with no
// share recorded for the OS, 25 % (unified_memory_reserve_fraction). Constants in
// data/constants.json.
Reserve default_reserve(const Gpu& gpu, const std::string& os = "");

// How far a unified-memory part's GPU share can be raised on `os`: the recorded "maximum"
// share (recorded = true), else, when the default share says how it is raised, the pool less
// the 10 % reserve (recorded = false). Never more than that. nullopt for discrete cards or
// when nothing is recorded.
struct RaisedLimit {
  double usable_bytes = 0;
  std::string how, os;
  bool recorded = false;
};
std::optional<RaisedLimit> raised_limit(const Gpu& gpu, const std::string& os = "");

// The card's memory in bytes: vram_gb is binary (GiB), as GPU memory is built and reported,
// less the 1/16 that ECC takes on datacenter GDDR cards (a T4 shows 15360 of 16384 MiB).
double vram_bytes(const Gpu& gpu);

// vram_bytes less the reserve; never negative.
double usable_bytes(const Gpu& gpu, const Reserve& reserve = {});

// Datacenter GDDR cards ship with ECC on and lose the check bits' share of the chips.
bool gddr_ecc_on(const Gpu& gpu);

}  // namespace gpusel
