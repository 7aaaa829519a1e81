// Which multi-card configurations of a card are realistic to build or rent.
#include <fmt/format.h>

#include "gpusel/rank/ranker.hpp"

namespace gpusel {
namespace {

// Consumer boards take two cards (KNOWLEDGE K18); a unified-memory SoC is one per machine; server
// and workstation platforms take up to eight.
int platform_limit(const Gpu& g) {
  if (g.unified_memory || g.form_factor == "soc") return 1;
  if (g.segment == "consumer") return 2;
  return 8;
}

std::string link_label(const Gpu& g, int count, bool linked) {
  if (g.unified_memory) return "unified memory";
  if (count == 1) return "-";
  if (linked)
    return fmt::format("{} {:.0f} GB/s", g.interconnect.kind, g.interconnect.bandwidth_gbs);
  if (g.pcie_gen > 0) return fmt::format("PCIe {}.0 x{}", g.pcie_gen, g.pcie_lanes);
  return "PCIe";
}

}  // namespace

Config make_config(const Gpu& gpu, int count, const Workload& w) {
  const bool linked =
      count > 1 && gpu.interconnect.kind != "none" && count <= gpu.interconnect.max_gpus;
  return {&gpu, count, linked, link_label(gpu, count, linked), on_gpus(w, count).shard};
}

std::vector<Config> configurations(const Gpu& gpu, int max_gpus, const Workload& w) {
  std::vector<Config> out;
  const int limit = std::min(platform_limit(gpu), max_gpus);
  for (int count : {1, 2, 4, 8})
    if (count <= limit && tensor_parallel_splits(w, count))
      out.push_back(make_config(gpu, count, w));
  return out;
}

}  // namespace gpusel
