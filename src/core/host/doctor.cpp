#include "gpusel/host/doctor.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "host_internal.hpp"

namespace gpusel {

using namespace host_detail;

std::string to_string(CheckStatus s) {
  switch (s) {
    case CheckStatus::pass:
      return "pass";
    case CheckStatus::warn:
      return "warn";
    case CheckStatus::fail:
      return "fail";
    case CheckStatus::skip:
      break;
  }
  return "skip";
}

int DoctorAnswer::count(CheckStatus s) const {
  return static_cast<int>(
      std::count_if(checks.begin(), checks.end(), [s](const auto& c) { return c.status == s; }));
}

// Each probe is caught on its own, so one missing piece (no NCCL, no torch_npu) never hides
// the others; a failed `import torch` is reported as such.
const std::string& torch_probe() {
  static const std::string probe = R"(import json
r = {}
try:
    import torch
except Exception as e:
    r["error"] = type(e).__name__ + ": " + str(e)
else:
    r["version"] = str(torch.__version__)
    r["cuda"] = torch.version.cuda
    r["hip"] = getattr(torch.version, "hip", None)
    r["available"] = bool(torch.cuda.is_available())
    r["devices"] = torch.cuda.device_count() if r["available"] else 0
    try:
        import torch.distributed as dist
        r["nccl"] = bool(dist.is_available() and dist.is_nccl_available())
    except Exception:
        r["nccl"] = False
    try:
        v = torch.cuda.nccl.version()
        r["nccl_version"] = ".".join(map(str, v)) if isinstance(v, tuple) else str(v)
    except Exception:
        r["nccl_version"] = None
    x = getattr(torch, "xpu", None)
    r["xpu"] = bool(x.is_available()) if x is not None and hasattr(x, "is_available") else None
    try:
        import torch_npu
        r["npu"] = bool(torch.npu.is_available())
    except Exception:
        r["npu"] = None
print(json.dumps(r))
)";
  return probe;
}

void parse_nvidia_smi_header(const std::string& text, std::string& driver, std::string& cuda) {
  auto after = [&](const char* label) {
    const auto at = text.find(label);
    if (at == std::string::npos) return std::string();
    std::istringstream in(text.substr(at + std::string(label).size()));
    std::string word;
    in >> word;
    return word == "N/A" ? std::string() : word;
  };
  driver = after("Driver Version:");
  cuda = after("CUDA Version:");
}

namespace {

std::optional<nlohmann::json> last_json_line(const std::string& out) {
  const auto ls = lines(out);
  for (auto it = ls.rbegin(); it != ls.rend(); ++it) {
    const std::string t = trimmed(*it);
    if (t.empty() || t.front() != '{') continue;
    auto j = nlohmann::json::parse(t, nullptr, false);
    if (j.is_object()) return j;
  }
  return std::nullopt;
}

}  // namespace

DoctorAnswer doctor(const Catalog& catalog, const ToolRunner& run) {
  DoctorAnswer a;
  HostFacts& f = a.facts;
  f.detected = detect(catalog, run);
  const auto nv = std::find_if(f.detected.tools.begin(), f.detected.tools.end(),
                               [](const auto& t) { return t.tool == "nvidia-smi"; });
  if (nv != f.detected.tools.end() && nv->found) {
    f.nvidia_smi = run({"nvidia-smi"});
    parse_nvidia_smi_header(f.nvidia_smi->out, f.driver_version, f.driver_cuda);
  }
  const ToolResult u = run({"uname", "-s", "-r"});
  if (u.ok()) {
    std::istringstream in(u.out);
    in >> f.os >> f.kernel;
  }
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) f.cuda_visible_devices = v;
  f.python = run({"python3", "-c", torch_probe()});
  if (f.python.ok()) f.torch = last_json_line(f.python.out);
  a.checks = run_checks(f);
  return a;
}

}  // namespace gpusel
