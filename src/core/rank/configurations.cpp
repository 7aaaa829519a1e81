// Which multi-card configurations of a card are realistic to build or rent.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "gpusel/rank/ranker.hpp"

#include "gpusel/data/engines.hpp"
#include "ranker_internal.hpp"

namespace gpusel {
namespace detail {

// Consumer boards take two cards (KNOWLEDGE K18); a unified-memory SoC or a laptop GPU is one
// per machine; server and workstation platforms take up to eight per machine, and machines
// join into clusters where the card has a cluster network (speed/: InfiniBand, RoCE, Gaudi's
// ports).
int platform_limit(const Gpu& g) {
  if (g.unified_memory || g.form_factor == "soc" || g.form_factor == "mobile") return 1;
  if (g.segment == "consumer") return 2;
  return cluster_network(g) ? std::numeric_limits<int>::max() : node_size(g);
}

// Beyond a node, "linked" describes the cards inside each node.
bool linked_at(const Gpu& g, int count) {
  return count > 1 && g.interconnect.kind != "none" &&
         std::min(count, node_size(g)) <= g.interconnect.max_gpus;
}

}  // namespace detail

namespace {

std::string link_label(const Gpu& g, int count, bool linked) {
  if (g.unified_memory) return "unified memory";
  if (count == 1) return "-";
  std::string label =
      linked ? fmt::format("{} {:.0f} GB/s", g.interconnect.kind, g.interconnect.bandwidth_gbs)
      : g.pcie_gen > 0 ? fmt::format("PCIe {}.0 x{}", g.pcie_gen, g.pcie_lanes)
                       : std::string("PCIe");
  const int per_node = node_size(g);
  if (count > per_node)
    if (const ClusterNetwork* net = cluster_network(g))
      label += fmt::format(", {} nodes over {}", (count + per_node - 1) / per_node, net->label);
  return label;
}

}  // namespace

Config detail::placed_config(const Gpu& gpu, int count, const Workload& placed) {
  const bool linked = detail::linked_at(gpu, count);
  return {&gpu,
          count,
          linked,
          link_label(gpu, count, linked),
          placed.shard,
          false,
          parallel_label(placed),
          std::nullopt};
}

std::string swapped_engine(const Workload& placed, const Gpu& gpu) {
  if (is_training(placed.mode) || !placed.engine.empty()) return "";
  const std::string asked = engine_of(placed);
  const std::string other = inference_engine("", 1, false);
  if (engine_runs_on(asked, gpu) || other == asked || !engine_runs_on(other, gpu)) return "";
  return asked;
}

std::string swapped_to(const Workload& placed, const Gpu& gpu) {
  const std::string asked = swapped_engine(placed, gpu);
  if (asked.empty()) return "";
  // The batched engine's older release keeps its layout (tensor parallel on 8 NVLinked V100s).
  const std::string older = older_batched_engine();
  if (asked == inference_engine("", 2, false) && !older.empty() && engine_runs_on(older, gpu) &&
      older_batched_engine_loads(placed.model.id, weights_16bit(placed)))
    return older;
  return inference_engine("", 1, false);
}

Workload on_card(const Gpu& gpu, int count, const Workload& w) {
  Workload placed = on_gpus(w, count);
  const std::string to = swapped_to(placed, gpu);
  if (to.empty()) return placed;
  Workload swapped = w;
  swapped.engine = to;
  swapped.engine_instead_of = swapped_engine(placed, gpu);
  return on_gpus(swapped, count);
}

Config make_config(const Gpu& gpu, int count, const Workload& w) {
  return detail::placed_config(gpu, count, on_card(gpu, count, w));
}

int machines_of(const Config& c) {
  const int per = c.nodes ? std::max(1, c.nodes->gpus_per_node) : node_size(*c.gpu);
  return (c.count + per - 1) / per;
}

std::vector<Config> configurations(const Gpu& gpu, int max_gpus, const Workload& w) {
  std::vector<Config> out;
  detail::for_each_count(gpu, max_gpus, [&](int count) {
    if (tensor_parallel_splits(w, count)) out.push_back(make_config(gpu, count, w));
  });
  return out;
}

}  // namespace gpusel
