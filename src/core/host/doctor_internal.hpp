#pragma once
// What the doctor's check files share: fact lookups and the sources they cite.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "gpusel/host/doctor.hpp"

namespace gpusel::doctor_detail {

inline constexpr const char* kCudaCompat =
    "https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html";
inline constexpr const char* kInstall = "https://pytorch.org/get-started/locally/";
inline constexpr const char* kWsl = "https://docs.nvidia.com/cuda/wsl-user-guide/index.html";
inline constexpr const char* kDistributed = "https://pytorch.org/docs/stable/distributed.html";
inline constexpr const char* kXpu = "https://docs.pytorch.org/docs/stable/notes/get_start_xpu.html";
inline constexpr const char* kTorchNpu = "https://github.com/Ascend/pytorch";

using Json = nlohmann::json;

int devices_of(const HostFacts& f, const char* vendor);
const ToolReport* tool(const HostFacts& f, const char* name);
bool installed(const HostFacts& f, const char* name);
bool wsl(const HostFacts& f);

std::string str(const Json& j, const char* key);
bool flag(const Json& j, const char* key);
bool has(const Json& j, const char* key);           // present and not null
std::pair<int, int> version(const std::string& v);  // "12.2" -> {12, 2}; {0, 0} if not one

DoctorCheck make(const char* id, CheckStatus s, std::string finding, std::string fix = "",
                 const char* source = "");

// The PyTorch checks (doctor_torch.cpp).
std::vector<DoctorCheck> torch_checks(const HostFacts& f);

}  // namespace gpusel::doctor_detail
