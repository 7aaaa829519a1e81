#pragma once
// What `gpusel serve` knows about serving engines beyond their speed: how each sizes its KV
// pool, its blocks and batch limits. data/serving.json (schema data/schema/serving.schema.json),
// parsed and checked. Rates (bandwidth, matmul, links, kernels) are speed/'s, from
// data/throughput.json, under the same engine name.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusel/data/catalog.hpp"

namespace gpusel {

// How an engine sizes its KV pool on each card.
enum class MemoryPolicy {
  fraction_of_total,  // vLLM: fraction x memory holds weights + workspace + KV
  fraction_of_free,   // TensorRT-LLM: KV = fraction x (memory - weights - workspace)
  reserved,           // SGLang: KV = memory - reserved(memory, cards) - weights
  usable              // llama.cpp: what gpusel's usable memory leaves after weights + workspace
};
// What a running request holds: on demand (paged, grows as it generates) or its whole
// prompt + output from admission (TensorRT-LLM's GUARANTEED_NO_EVICT, llama.cpp slots).
enum class KvReservation { on_demand, whole_request };

// A setting that depends on the card's memory: the first tier whose min_card_gib the card
// reaches (and which does not except it) applies.
struct EngineTier {
  double min_card_gib = 0;
  std::vector<std::string> except_gpus;
  double value = 0;         // workspace tiers: GiB
  int max_seqs = 0;         // limit tiers: 0 = no cap but memory
  int batched_tokens = 0;   // tokens per iteration (chunked-prefill budget)
  int graph_max_batch = 0;  // largest decode batch run under CUDA graphs
};

struct ReservedTier {  // SGLang: below this card size, reserve base + per_gpu x cards GiB
  double below_card_gib = 0, base_gib = 0, per_gpu_gib = 0;
};

struct ServingEngine {
  std::string name, label, version;
  std::vector<std::string> aliases, runs_on;  // runs_on: catalog ecosystems
  int kv_block_tokens = 1;
  KvReservation reservation = KvReservation::on_demand;
  MemoryPolicy policy = MemoryPolicy::usable;
  double memory_fraction = 1;
  std::vector<EngineTier> workspace, limits;
  std::vector<ReservedTier> reserved;
  double eager_layer_overhead_s = 0;  // per layer per step past graph_max_batch
  // CPU work per running sequence per step that the GPU waits for (engines that schedule,
  // prepare inputs and process outputs between steps: vLLM before v0.6); 0 when hidden.
  double host_s_per_seq = 0;
  double api_host_s_per_seq = 0;  // the same, in an OpenAI-compatible server's process
  // An old engine release cannot run cards launched after it (no kernels for their
  // architecture): the newest launch year it serves, 0 for a current engine.
  int newest_launch_year = 0;
  std::vector<std::string> not_on;  // card ids of that year it has no kernels for

  bool runs(const Gpu& g) const;
  bool predates(const Gpu& g) const;           // a release older than the card (newest_launch_year)
  std::string why_not_on(const Gpu& g) const;  // the reason runs(g) is false
  const EngineTier& limits_for(const Gpu& g) const;
  double workspace_bytes(const Gpu& g) const;  // 0 without workspace tiers
  double reserved_bytes(const Gpu& g, int cards) const;
};

struct ServingData {
  std::string origin;
  std::map<std::string, ServingEngine> engines;
  std::string default_engine;
  double amortisation_years = 3;

  // An engine by name or alias (case-insensitive); Error(usage) listing the known ones.
  const ServingEngine& engine(std::string_view name) const;
  std::vector<std::string> engine_names() const;  // names, then aliases
  // The engine serving `g`: `asked` when given and it runs there (nullptr when it does not),
  // else the default engine, else its older release where that runs and loads the model
  // (vLLM 0.5 on a V100: data/engines.hpp older_batched_engine), else llama.cpp where it runs;
  // nullptr when none does. GGUF weights (`gguf`: q4_k_m...) go to llama.cpp first, their own
  // engine (vLLM's GGUF loader is "highly experimental and under-optimized", its docs say).
  const ServingEngine* engine_for(const Gpu& g, const std::string& asked, bool gguf = false,
                                  const std::string& model_id = "",
                                  bool weights_16bit = false) const;
};

// Checks the document against data/schema/serving.schema.json; Error(data) naming origin
// and the first problem.
ServingData parse_serving_data(const nlohmann::json& doc, const std::string& origin);
const ServingData& default_serving_data();  // the embedded file, parsed once

}  // namespace gpusel
