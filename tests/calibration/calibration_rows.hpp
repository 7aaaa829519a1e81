#pragma once
// Rows of tests/calibration/vram_measured.csv turned into workloads the estimator can
// price, with what each row measured and how to compare it.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpusel/data/models.hpp"
#include "gpusel/memory/workload.hpp"

namespace calibration {

using Row = std::map<std::string, std::string>;  // column -> cell

// RFC 4180-style CSV (quoted cells with commas and doubled quotes). Throws on a ragged row.
std::vector<Row> read_csv(const std::string& path);

enum class Metric { allocated, reserved, total };
enum class Kind { point, oom, fits };  // a measurement, an OOM, a configuration that fit

struct Case {
  std::string id, model, source, status, framework;
  gpusel::Workload workload;
  Kind kind = Kind::point;
  Metric metric = Metric::total;
  double measured_bytes = 0;  // per GPU
  double capacity_bytes = 0;  // the card's marketed VRAM (oom/fits rows)
  std::string gpu_id;         // the card's id in data/gpus.json, when the row names one
  double context_bytes = -1;  // the row's own measured CUDA context, when it states one
  bool suspect = false;       // the data flags the row as suspect: reported, not scored
  bool held_out = false;      // not looked at while developing the model
};

struct Conversion {
  std::optional<Case> c;
  std::string skip_reason;  // when c is empty
};

Conversion convert(const Row& row, const std::vector<gpusel::ModelArch>& presets);

// The framework that measured a row: its `framework` column, else derived from its source
// (litgpt, torchtune, DeepSpeed, Unsloth, axolotl, LLaMA-Factory, qlora.py; else hf).
std::string framework_of(const Row& row);
// The versions a source ran (bitsandbytes, PEFT), written over the framework's profile.
void apply_source_versions(const Row& row, gpusel::Workload& w);

const char* to_string(Metric m);

}  // namespace calibration
