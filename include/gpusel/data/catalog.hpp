#pragma once
// The GPU catalog: parsed, typed records of data/gpus.json (see data/schema/gpus.schema.json
// for each field's unit and convention).
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gpusel/base/input_text.hpp"

namespace gpusel {

struct Price {
  double amount = 0;
  std::string currency;  // ISO 4217: USD, CNY, EUR, ...
  std::string kind;      // msrp | street | used | estimate
  std::string as_of;     // YYYY-MM-DD
  std::string source;
  bool operator==(const Price&) const = default;
};

struct Interconnect {
  std::string kind =
      "none";  // none | nvlink-bridge | nvlink | infinity-fabric | xe-link | hccs | ...
  double bandwidth_gbs = 0;  // per GPU, total of both directions, as vendors quote NVLink
  int max_gpus = 1;          // largest group linked all-to-all at that bandwidth
  bool operator==(const Interconnect&) const = default;
};

// Unified memory: how much of the pool the GPU may allocate under one OS and setting.
struct MemoryShare {
  std::string os;       // macos | linux | windows
  std::string setting;  // default (no configuration) | maximum (what an administrator can set)
  std::optional<double> fraction, gb;  // of vram_gb, or an absolute cap in vram_gb's unit
  std::string how, source, as_of, note;
  bool operator==(const MemoryShare&) const = default;
};

// Where a record lies in the text it was read from, kept for `catalog show`: the text is held
// (shared, or the embedded data's static storage) and parsed on demand, so that a
// 100,000-card catalog holds no JSON tree per card. Equal when the texts are.
class RawRecord {
 public:
  RawRecord() = default;
  RawRecord(std::shared_ptr<const InputText> document, std::size_t offset, std::size_t size);
  // A document in static storage (the embedded data/gpus.json): nothing to keep alive.
  RawRecord(std::string_view static_document, std::size_t offset, std::size_t size);
  std::string_view text() const { return text_; }
  std::size_t offset() const { return offset_; }  // in the document it was read from
  bool operator==(const RawRecord& o) const { return text_ == o.text_; }

 private:
  std::shared_ptr<const InputText> owner_;
  std::string_view text_;
  std::size_t offset_ = 0;
};

struct Gpu {
  std::string id, name, vendor, architecture, segment, form_factor, memory_type;
  int launch_year = 0;
  double vram_gb = 0;  // as marketed (10^9 bytes for HBM/GDDR marketing, see schema)
  bool ecc = false;
  bool unified_memory = false;  // system-on-chip: memory shared with the CPU and the OS
  std::vector<MemoryShare> unified_memory_share;  // the GPU's share of it, per OS
  double bandwidth_gbs = 0;
  double fp32_tflops = 0;
  // Dense tensor throughput (never "with sparsity"). fp16/bf16 accumulate in FP32.
  std::optional<double> bf16_tflops_dense, fp16_tflops_dense, fp16_acc16_tflops_dense,
      int8_tops_dense, fp8_tflops_dense, fp4_tflops_dense;
  double tdp_w = 0;
  Interconnect interconnect;
  int pcie_gen = 0, pcie_lanes = 0;
  std::string ecosystem;        // cuda | rocm | oneapi | synapseai | cann | metal
  std::string platform_target;  // e.g. "sm_89", "gfx942": what kernels must be built for
  // "cn": sold only in mainland China (export-compliant SKUs: H20, RTX 5090 D); "": everywhere.
  std::string market;
  std::vector<Price> prices;
  // The record's "sources" and "notes" are checked (schema) and shown by `catalog show` from
  // the record's text, but no command reasons over them: not held per card (at 100,000
  // cards they were 26 MB of the peak).
  // The record as read, for `catalog show` (see RawRecord). An empty object when not set.
  nlohmann::json raw() const;
  const RawRecord& raw_record() const { return raw_; }
  void set_raw(RawRecord r) { raw_ = std::move(r); }

  // Dense 16-bit tensor TFLOPS used for training: BF16 where the card has it, else FP16.
  double tensor16_tflops() const;
  // Total Processing Performance as US export rules define it (ECCN 3A090 technical note:
  // 2 x MacTOPS x operand bit length, the highest over precisions): dense TOPS x bits.
  double tpp() const;

  // Every field, the raw record's text included: what the snapshot test compares.
  bool operator==(const Gpu&) const = default;

 private:
  RawRecord raw_;
};

// An NVIDIA platform target's compute capability x 10 ("sm_80" -> 80, "sm_121" -> 121); 0 for
// any other target ("gfx942", "apple9") or a malformed one.
int compute_capability(std::string_view platform_target);

struct Catalog {
  std::string origin;    // "embedded" or a path, for messages
  std::string reviewed;  // date the catalog's numbers were last checked
  std::vector<Gpu> gpus;

  // By id, through a hash index (built on first use, rebuilt when the list's size changed;
  // call reindex() after changing ids in place). The first card with that id. Once the index
  // is built for the list as it is, a find changes nothing: several threads may call it.
  const Gpu* find(std::string_view id) const;
  std::vector<std::string> ids() const;
  void reindex() const;
  // Takes `index` (each card's id and its place in `gpus`, as reindex() makes it) as the index.
  void adopt_index(std::unordered_map<std::string, std::size_t> index);
  bool operator==(const Catalog& o) const {
    return origin == o.origin && reviewed == o.reviewed && gpus == o.gpus;
  }

 private:
  mutable std::unordered_map<std::string, std::size_t> index_;
  // gpus.size() when index_ was built (index_ holds fewer entries when an id repeats).
  mutable std::size_t indexed_size_ = 0;
};

// Parses a catalog document. Throws Error(data) naming origin and the record on a
// missing or mistyped required field; full checking is `validate_catalog`'s job.
Catalog parse_catalog(const nlohmann::json& doc, const std::string& origin);

// Parses JSON text, throwing Error(data) "origin:line:col: ..." on a syntax error.
nlohmann::json parse_json_text(const std::string& text, const std::string& origin);

// Overlay: records with an id already present replace it in place; new ones append.
void merge_catalog(Catalog& base, const Catalog& overlay);

// The lookup behind `catalog show`: exact id, else Error(usage) with suggestions.
const Gpu& require_gpu(const Catalog& catalog, std::string_view id);

}  // namespace gpusel
