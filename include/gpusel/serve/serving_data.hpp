#pragma once
// What `gpusel serve` knows about serving engines and the hardware rates it reads the catalog
// through: data/serving.json (schema data/schema/serving.schema.json), parsed and checked.
// Every number there carries its source; see the file's "method" for how they combine.
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
  double kernel_gddr = 1, kernel_hbm = 1, kernel_unified = 1;  // of achievable bandwidth
  double int8_factor = 1, int4_factor = 1;  // quantized weight reads
  double prefill_efficiency = 1;            // of the achievable matmul rate
  bool prefill_fp16_accumulate = false;     // GeForce: FP16-accumulate GEMMs
  double eager_layer_overhead_s = 0;        // per layer per step past graph_max_batch

  bool runs(const Gpu& g) const;
  const EngineTier& limits_for(const Gpu& g) const;
  double workspace_bytes(const Gpu& g) const;  // 0 without workspace tiers
  double reserved_bytes(const Gpu& g, int cards) const;
};

struct MatmulFraction {  // achievable / dense spec, by card ids or vendor + segment
  std::vector<std::string> gpus;
  std::string vendor, segment;
  double bf16 = 0;
  std::optional<double> fp8;
};

struct LinkFacts {
  double busbw_fraction = 1;  // all-reduce bus bandwidth / per-direction link bandwidth
  double latency_s = 0;       // one small all-reduce
};

struct ServingData {
  std::string origin;
  std::map<std::string, ServingEngine> engines;
  std::string default_engine;
  std::map<std::string, double> memory_types;  // achievable / spec bandwidth
  std::vector<MatmulFraction> matmul;
  double matmul_default_bf16 = 0.77, matmul_default_fp8 = 0.72;
  std::map<std::string, LinkFacts> links;  // by interconnect kind, "pcie", "pcie_no_p2p"
  double amortisation_years = 3;
  // How weight streaming and matmul FLOPs combine in one iteration: (w^n + f^n)^(1/n);
  // 0 = max(w, f), the ideal roofline where they overlap completely.
  double roofline_exponent = 0;

  // An engine by name or alias (case-insensitive); Error(usage) listing the known ones.
  const ServingEngine& engine(std::string_view name) const;
  std::vector<std::string> engine_names() const;  // names, then aliases
  // The engine serving `g`: `asked` when given and it runs there (nullptr when it does not),
  // else the default engine, else llama.cpp where it runs; nullptr when none does.
  const ServingEngine* engine_for(const Gpu& g, const std::string& asked) const;
  // Achievable matmul fraction of the dense spec at 16-bit or FP8 for this card.
  double matmul_fraction(const Gpu& g, bool fp8) const;
  // Achievable / spec bandwidth for the card's memory type (1 when unknown).
  double bandwidth_fraction(const Gpu& g) const;
  const LinkFacts& link(const Gpu& g, bool linked) const;
};

// Checks the document against data/schema/serving.schema.json; Error(data) naming origin
// and the first problem.
ServingData parse_serving_data(const nlohmann::json& doc, const std::string& origin);
const ServingData& default_serving_data();  // the embedded file, parsed once

}  // namespace gpusel
