#pragma once
// Rows of tests/calibration/throughput_measured.csv turned into (workload, card, count,
// link) cases the throughput model can price, with what each row measured.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpusel/data/catalog.hpp"
#include "gpusel/memory/workload.hpp"
#include "throughput_rows_map.hpp"

namespace tput_calibration {

// RFC 4180-style CSV (quoted cells with commas and doubled quotes). Throws on a ragged row.
std::vector<Row> read_csv(const std::string& path);

// What the row's value is, in the estimate's terms.
enum class Quantity {
  train_per_gpu,  // training tokens/s per GPU
  speedup,        // training: total at `count` / total at `base_count` (same series)
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
  bool fit = false;  // development half: its source is cited by data/throughput.json
};

struct Conversion {
  std::optional<Case> c;
  std::string skip_reason;  // when c is empty
  std::string id, source;
  bool fit = false;
};

// A row is in the development ("fit") half when data/throughput.json cites its source (a
// constant was read off it); every other row is held out: the model never saw it.
// `cited`: every "source" string of data/throughput.json.
bool cited(const std::string& row_source, const std::vector<std::string>& cited_sources);

std::vector<Conversion> convert_all(const std::vector<Row>& rows, const gpusel::Catalog& catalog,
                                    const std::vector<std::string>& cited_sources);

const char* to_string(Quantity q);
// decode, prefill or train (speedups are training measurements).
std::string kind_of(Quantity q);

}  // namespace tput_calibration
