#pragma once
// Rows of tests/calibration/throughput_measured.csv turned into (workload, card, count,
// link) cases the throughput model can price, with what each row measured.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpusel/data/catalog.hpp"
#include "gpusel/memory/workload.hpp"

namespace tput_calibration {

using Row = std::map<std::string, std::string>;  // column -> cell

// RFC 4180-style CSV (quoted cells with commas and doubled quotes). Throws on a ragged row.
std::vector<Row> read_csv(const std::string& path);

// What the row's value is, in the estimate's terms.
enum class Quantity {
  train_per_gpu,  // training tokens/s per GPU
  speedup,        // total throughput at `count` / total at `base_count` (same series)
  prefill,        // prompt tokens/s
  decode,         // generated tokens/s (aggregate)
};

struct Case {
  std::string id, kind, source, gpu_id, note;
  gpusel::Workload workload;
  gpusel::Gpu gpu;
  int count = 1, base_count = 1;
  bool linked = false;
  Quantity quantity = Quantity::decode;
  double measured = 0;
  bool fit = false;  // in the fit half (constants may be fitted on it)
};

struct Conversion {
  std::optional<Case> c;
  std::string skip_reason;  // when c is empty
  std::string id, source;
  bool fit = false;
};

// Fit / held-out by source: within each kind (in order of first appearance), sources not
// yet assigned alternate fit, held-out, fit, ... in file order; a source keeps its first half.
std::map<std::string, bool> split_by_source(const std::vector<Row>& rows);

std::vector<Conversion> convert_all(const std::vector<Row>& rows, const gpusel::Catalog& catalog);

const char* to_string(Quantity q);

}  // namespace tput_calibration
