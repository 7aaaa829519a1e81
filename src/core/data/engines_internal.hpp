#pragma once
// The engine table data/engines.cpp reads from data/throughput.json, exposed so that tests can
// feed it malformed documents.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gpusel::detail {

// The cards an engine has kernels for one weight format on (engines.*.weight_kernels), or
// runs on at all (engines.*.targets).
struct WeightKernel {
  int cuda_min = 0;                 // compute capability x 10 (sm_80: 80); 0: CUDA not listed
  std::vector<std::string> rocm;    // gfx targets; empty: ROCm not listed
  std::vector<std::string> oneapi;  // Intel kernel targets (an empty list: none has them)
  bool cuda_listed = false, rocm_listed = false, oneapi_listed = false;
};

struct EngineSplits {
  std::string batch1, batched;
  std::string batched_older;  // the older release of the batched engine; "" if none
  std::vector<std::string> batched_older_models;  // the presets it loads
  std::map<std::string, std::string> key_of;      // every key and alias -> the entry's key
  std::map<std::string, bool> layers;             // entry key -> splits by layers
  std::map<std::string, std::vector<std::string>> runs_on;  // entry key -> ecosystems
  // entry key -> format -> where its kernels run (own or "like" entry's)
  std::map<std::string, std::map<std::string, WeightKernel>> kernels;
  std::map<std::string, WeightKernel> targets;  // entry key -> the cards it supports, if listed
};

// Throws data_error naming `origin` and the field when an engine has no valid multi_gpu or
// runs_on (its own or its "like" entry's) or a default engine names no entry.
EngineSplits parse_engine_splits(const nlohmann::json& doc, const std::string& origin);

}  // namespace gpusel::detail
