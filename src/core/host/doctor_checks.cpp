// The checks of `gpusel doctor`, each on the facts gathered once (doctor.cpp). Advice follows
// KNOWLEDGE K38-K41 and the articles' troubleshooting table; each check cites its source.
#include <fmt/format.h>

#include <algorithm>

#include "doctor_internal.hpp"
#include "gpusel/base/text.hpp"
#include "host_internal.hpp"

namespace gpusel {

namespace doctor_detail {

int devices_of(const HostFacts& f, const char* vendor) {
  int n = 0;
  for (const auto& d : f.detected.devices) n += d.vendor == vendor;
  return n;
}

const ToolReport* tool(const HostFacts& f, const char* name) {
  for (const auto& t : f.detected.tools)
    if (t.tool == name) return &t;
  return nullptr;
}

bool installed(const HostFacts& f, const char* name) {
  const ToolReport* t = tool(f, name);
  return t && t->found;
}

bool wsl(const HostFacts& f) { return to_lower(f.kernel).find("microsoft") != std::string::npos; }

std::string str(const Json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

bool flag(const Json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

bool has(const Json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && !it->is_null();
}

std::pair<int, int> version(const std::string& v) {
  const auto parts = host_detail::split(v, '.');
  const auto major = host_detail::number(parts[0]);
  const auto minor = parts.size() > 1 ? host_detail::number(parts[1]) : std::optional<double>(0);
  if (!major || !minor) return {0, 0};
  return {static_cast<int>(*major), static_cast<int>(*minor)};
}

DoctorCheck make(const char* id, CheckStatus s, std::string finding, std::string fix,
                 const char* source) {
  return {id, s, std::move(finding), std::move(fix), source};
}

}  // namespace doctor_detail

namespace {

using namespace doctor_detail;

DoctorCheck accelerator(const HostFacts& f) {
  const DetectAnswer& d = f.detected;
  if (!d.any_tool())
    return make("accelerator", CheckStatus::fail,
                "no accelerator tool: none of nvidia-smi, rocm-smi, npu-smi, xpu-smi or "
                "system_profiler is on PATH",
                "install the GPU's driver (NVIDIA's brings nvidia-smi; ROCm brings rocm-smi; "
                "Ascend's brings npu-smi), or run gpusel on the machine with the GPU");
  if (d.devices.empty())
    return make("accelerator", CheckStatus::fail, "the tools found no accelerator",
                "see the driver checks below, and `gpusel detect` for each tool's message");
  // "2x NVIDIA A800-SXM4-80GB (a800-80gb-sxm)": identical devices counted once.
  std::vector<std::pair<std::string, int>> groups;
  for (const auto& dev : d.devices) {
    const std::string what =
        fmt::format("{} ({})", dev.name, dev.gpu ? dev.gpu->id : "not in the catalog");
    auto it = std::find_if(groups.begin(), groups.end(), [&](auto& g) { return g.first == what; });
    if (it == groups.end())
      groups.emplace_back(what, 1);
    else
      ++it->second;
  }
  std::string list;
  for (const auto& [what, n] : groups)
    list += fmt::format("{}{}x {}", list.empty() ? "" : ", ", n, what);
  return make("accelerator", CheckStatus::pass, list);
}

// K40: WSL2 reaches the GPU through the Windows driver; a Linux driver inside WSL breaks it.
DoctorCheck nvml_failure(const HostFacts& f, const std::string& why) {
  const std::string w = to_lower(why);
  if (wsl(f))
    return make("nvidia-driver", CheckStatus::fail, "nvidia-smi fails in WSL2: " + why,
                "update the NVIDIA driver on Windows (not inside WSL), run `wsl --update` and "
                "`wsl --shutdown` in Windows, and remove any Linux NVIDIA driver installed in WSL",
                kWsl);
  if (w.find("version mismatch") != std::string::npos)
    return make("nvidia-driver", CheckStatus::fail, "nvidia-smi fails: " + why,
                "the kernel module and the driver libraries differ after an update: reboot");
  if (w.find("communicate") != std::string::npos || w.find("nvml") != std::string::npos)
    return make("nvidia-driver", CheckStatus::fail, "the NVIDIA driver is not loaded: " + why,
                "check `lsmod | grep nvidia`; install the driver built for this kernel and reboot "
                "(a cloud image may ship without it)");
  if (w.find("no devices") != std::string::npos)
    return make("nvidia-driver", CheckStatus::fail, "the driver runs but sees no GPU: " + why,
                "check the GPU is attached (`lspci | grep -i nvidia`) and the driver supports it");
  return make("nvidia-driver", CheckStatus::fail, "nvidia-smi fails: " + why,
              "reinstall the NVIDIA driver and reboot");
}

DoctorCheck nvidia_driver(const HostFacts& f) {
  const ToolReport* t = tool(f, "nvidia-smi");
  if (!t || !t->found) {
    if (wsl(f))
      return make("nvidia-driver", CheckStatus::warn, "no nvidia-smi in this WSL2 system",
                  "install the NVIDIA driver on Windows; WSL2 maps it in at /usr/lib/wsl/lib",
                  kWsl);
    return make("nvidia-driver", CheckStatus::skip, "nvidia-smi not installed: no NVIDIA driver");
  }
  if (!t->ok || t->devices == 0) return nvml_failure(f, t->message);
  // K38: the header's CUDA version is the newest the driver runs, not an installed toolkit.
  return make(
      "nvidia-driver", CheckStatus::pass,
      fmt::format("driver {}{}", f.driver_version.empty() ? "(version unknown)" : f.driver_version,
                  f.driver_cuda.empty() ? ""
                                        : ", runs CUDA up to " + f.driver_cuda +
                                              " (the driver's limit, not a toolkit)"));
}

DoctorCheck wsl_check(const HostFacts& f) {
  const bool v2 = to_lower(f.kernel).find("wsl2") != std::string::npos ||
                  to_lower(f.kernel).find("microsoft-standard") != std::string::npos;
  if (!v2)
    return make("wsl", CheckStatus::fail, "WSL 1 (kernel " + f.kernel + ") has no GPU access",
                "convert the distribution: `wsl --set-version <distro> 2` in Windows", kWsl);
  return make("wsl", CheckStatus::pass, "WSL 2 (kernel " + f.kernel + ")");
}

}  // namespace

std::vector<DoctorCheck> run_checks(const HostFacts& f) {
  using namespace doctor_detail;
  std::vector<DoctorCheck> out{accelerator(f)};
  if (installed(f, "nvidia-smi") || wsl(f)) out.push_back(nvidia_driver(f));
  if (wsl(f)) out.push_back(wsl_check(f));
  if (const ToolReport* r = tool(f, "rocm-smi"); r && r->found)
    out.push_back(r->ok && r->devices > 0
                      ? make("rocm", CheckStatus::pass,
                             fmt::format("rocm-smi lists {} GPU(s)", devices_of(f, "amd")))
                      : make("rocm", CheckStatus::fail, "rocm-smi fails: " + r->message,
                             "check the amdgpu driver is loaded and your user is in the render "
                             "and video groups"));
  if (const ToolReport* n = tool(f, "npu-smi"); n && n->found)
    out.push_back(n->ok && n->devices > 0
                      ? make("cann", CheckStatus::pass,
                             fmt::format("npu-smi lists {} NPU chip(s)", devices_of(f, "huawei")))
                      : make("cann", CheckStatus::fail, "npu-smi fails: " + n->message,
                             "reinstall the Ascend driver and firmware, then reboot"));
  for (auto& c : doctor_detail::torch_checks(f)) out.push_back(std::move(c));
  return out;
}

}  // namespace gpusel
