#pragma once
// `gpusel doctor`: the environment checks the articles' troubleshooting table walks through
// (KNOWLEDGE K38-K41, K15, K21, K23): a driver that answers and the highest CUDA it supports,
// the PyTorch build against that driver and against the card's vendor, WSL2's NVML, NCCL
// for several GPUs, and ROCm, CANN and oneAPI where those stacks are present. Each check
// passes, warns or fails with its fix in one line.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gpusel/host/detect.hpp"

namespace gpusel {

enum class CheckStatus { pass, warn, fail, skip };
std::string to_string(CheckStatus s);  // "pass", "warn", "fail", "skip"

struct DoctorCheck {
  std::string id;  // "nvidia-driver", "torch-build", ...
  CheckStatus status = CheckStatus::skip;
  std::string finding;  // what was found, in one line
  std::string fix;      // what to do, in one line ("" when nothing)
  std::string source;   // where the advice comes from (a URL)
};

// What the machine's tools said, gathered once; the checks read only this.
struct HostFacts {
  DetectAnswer detected;
  std::optional<ToolResult> nvidia_smi;     // plain `nvidia-smi` (its header), when installed
  std::string driver_version, driver_cuda;  // from that header ("" when unknown)
  std::string os, kernel;                   // `uname -s -r` ("" when uname is missing)
  ToolResult python;                        // the PyTorch probe
  std::optional<nlohmann::json> torch;      // its JSON, when python3 printed one
  std::optional<std::string> cuda_visible_devices;  // the variable, when set
};

struct DoctorAnswer {
  HostFacts facts;
  std::vector<DoctorCheck> checks;
  int count(CheckStatus s) const;
  bool failed() const { return count(CheckStatus::fail) > 0; }
};

// The facts gathered with `run` (fixed argument lists), then every check.
DoctorAnswer doctor(const Catalog& catalog, const ToolRunner& run);

// The checks on given facts (what `doctor` runs after gathering them).
std::vector<DoctorCheck> run_checks(const HostFacts& facts);

// The probe `doctor` runs as `python3 -c <probe>`: prints one JSON object with torch's
// version, CUDA/HIP build, is_available, device count, NCCL, XPU and torch_npu, or "error".
const std::string& torch_probe();

// "Driver Version: 535.86.10    CUDA Version: 12.2" in nvidia-smi's header.
void parse_nvidia_smi_header(const std::string& text, std::string& driver, std::string& cuda);

}  // namespace gpusel
