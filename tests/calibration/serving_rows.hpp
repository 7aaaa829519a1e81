#pragma once
// Rows of tests/calibration/serving_measured.csv turned into serving replicas: the card, the
// model on its tensor-parallel width, the engine with the settings the row states, the
// traffic, and what the row measured (throughput; TTFT/TPOT percentiles or means).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpusel/data/catalog.hpp"
#include "gpusel/serve/load.hpp"

namespace serving_calibration {

enum class Kind { offline, server, interactive, users, poisson };

struct Latency {  // milliseconds; < 0 = not measured
  double p50 = -1, p99 = -1, mean = -1;
};

struct Case {
  std::string id, engine, gpu_id, model_id, note;
  bool fit = false;      // MLPerf v3.1 / v5.0: allowed for calibration
  bool capacity = true;  // the throughput is a capacity figure (else latency only)
  Kind kind = Kind::offline;
  double load = 0;  // server/poisson: requests/s (whole system); users: concurrency
  int replicas = 1;
  gpusel::Targets targets;                                       // server / interactive limits
  std::shared_ptr<const gpusel::ServingEngine> engine_settings;  // replica.engine points here
  gpusel::Replica replica;
  double measured_tokens_per_s = 0;
  Latency ttft, tpot;
};

struct Conversion {
  std::string id;
  bool fit = false;
  std::optional<Case> c;
  std::string skip_reason;
};

// Every row; the cases keep pointers into `catalog`, which must outlive them.
std::vector<Conversion> convert_rows(const std::string& csv_path, const gpusel::Catalog& catalog);

const char* to_string(Kind k);

}  // namespace serving_calibration
