// The PyTorch checks of `gpusel doctor` (K38, K39, K15, K21, K23): which build is installed,
// whether it matches the card's vendor and the driver, whether it sees the GPUs, and NCCL.
#include <fmt/format.h>

#include <algorithm>

#include "doctor_internal.hpp"

namespace gpusel::doctor_detail {

namespace {

struct Torch {
  std::string version, cuda, hip;
  bool available = false;
  int devices = 0;
};

Torch read_torch(const Json& t) {
  Torch x{str(t, "version"), str(t, "cuda"), str(t, "hip"), flag(t, "available"), 0};
  if (const auto it = t.find("devices"); it != t.end() && it->is_number_integer())
    x.devices = it->get<int>();
  return x;
}

bool nvidia(const HostFacts& f) {
  return devices_of(f, "nvidia") > 0 || installed(f, "nvidia-smi");
}

std::string cuda_index_advice(const HostFacts& f) {
  return "pip install --force-reinstall torch --index-url "
         "https://download.pytorch.org/whl/cuXXX, a CUDA build at or below the driver's " +
         (f.driver_cuda.empty() ? std::string("CUDA") : f.driver_cuda) +
         " (pytorch.org/get-started/locally lists them)";
}

constexpr const char* kRocmAdvice =
    "install the ROCm build: pip install --force-reinstall torch --index-url "
    "https://download.pytorch.org/whl/rocmX.Y (pytorch.org/get-started/locally lists them)";

// K39: a CPU-only wheel is the commonest reason a GPU goes unused.
DoctorCheck build_check(const HostFacts& f, const Torch& t) {
  const bool amd = devices_of(f, "amd") > 0;
  if (t.cuda.empty() && t.hip.empty()) {
    if (nvidia(f))
      return make(
          "torch-build", CheckStatus::fail,
          "PyTorch " + t.version + " is the CPU-only build, but this machine has an NVIDIA GPU",
          cuda_index_advice(f), kInstall);
    if (amd)
      return make(
          "torch-build", CheckStatus::fail,
          "PyTorch " + t.version + " is the CPU-only build, but this machine has an AMD GPU",
          kRocmAdvice, kInstall);
    return make("torch-build", CheckStatus::pass,
                "PyTorch " + t.version + " (no CUDA or ROCm build: none is needed here)");
  }
  if (!t.cuda.empty() && amd && !nvidia(f))
    return make("torch-build", CheckStatus::fail,
                "PyTorch " + t.version + " is a CUDA build, but this machine's GPU is AMD",
                kRocmAdvice, kInstall);
  if (!t.hip.empty() && nvidia(f) && !amd)
    return make("torch-build", CheckStatus::fail,
                "PyTorch " + t.version + " is a ROCm build, but this machine's GPU is NVIDIA",
                cuda_index_advice(f), kInstall);
  // A probe's answer that is not a version ("=cmd", "") proves nothing about the build.
  const std::string& built = t.cuda.empty() ? t.hip : t.cuda;
  if (version(built).first == 0)
    return make("torch-build", CheckStatus::warn,
                "PyTorch " + t.version + " reports its " + (t.cuda.empty() ? "ROCm" : "CUDA") +
                    " build as '" + built + "', not a version",
                "run python3 -c 'import torch; print(torch.version.cuda, torch.version.hip)' "
                "and reinstall PyTorch if it prints no version",
                kInstall);
  return make("torch-build", CheckStatus::pass,
              "PyTorch " + t.version + ", built for " +
                  (t.cuda.empty() ? "ROCm " + t.hip : "CUDA " + t.cuda));
}

// K38: the wheel bundles its CUDA runtime; the driver must run that CUDA version. Within a
// major version, minor version compatibility lets a newer runtime run, with limits.
DoctorCheck cuda_vs_driver(const HostFacts& f, const Torch& t) {
  const auto [bm, bn] = version(t.cuda);
  const auto [dm, dn] = version(f.driver_cuda);
  if (bm == 0 || dm == 0)
    return make("torch-cuda-driver", CheckStatus::skip,
                fmt::format("cannot compare: PyTorch's CUDA '{}' and the driver's '{}' are not "
                            "both versions",
                            t.cuda, f.driver_cuda));
  if (bm > dm)
    return make("torch-cuda-driver", CheckStatus::fail,
                fmt::format("PyTorch's CUDA {} runtime needs a CUDA {} driver; this driver runs "
                            "CUDA up to {}",
                            t.cuda, bm, f.driver_cuda),
                fmt::format("update the NVIDIA driver, or install a PyTorch build for CUDA {}.x "
                            "or older",
                            dm),
                kCudaCompat);
  if (bm == dm && bn > dn)
    return make("torch-cuda-driver", CheckStatus::warn,
                fmt::format("CUDA {} build on a driver for CUDA {}: it runs through minor version "
                            "compatibility, with limits (no PTX JIT of newer code)",
                            t.cuda, f.driver_cuda),
                "update the driver if kernels fail to load", kCudaCompat);
  return make(
      "torch-cuda-driver", CheckStatus::pass,
      fmt::format("CUDA {} build on a driver that runs CUDA up to {}", t.cuda, f.driver_cuda));
}

DoctorCheck available_check(const HostFacts& f, const Torch& t) {
  if (t.available && t.devices > 0)
    return make("torch-gpu", CheckStatus::pass,
                fmt::format("torch.cuda.is_available() is True: {} GPU(s)", t.devices));
  if (t.available)
    return make("torch-gpu", CheckStatus::warn,
                "torch.cuda.is_available() is True, but torch.cuda.device_count() lists no GPU",
                "check CUDA_VISIBLE_DEVICES and that `nvidia-smi` lists the GPU", kInstall);
  std::string fix =
      "check the driver runs the build's CUDA version (above) and `nvidia-smi` "
      "lists the GPU";
  if (f.cuda_visible_devices &&
      (f.cuda_visible_devices->empty() || *f.cuda_visible_devices == "-1"))
    fix = "CUDA_VISIBLE_DEVICES='" + *f.cuda_visible_devices + "' hides every GPU: unset it";
  else if (!t.hip.empty())
    fix = "check `rocm-smi` lists the GPU and your user is in the render and video groups";
  else if (devices_of(f, "amd") > 0 && devices_of(f, "nvidia") == 0)
    fix = "a CUDA build cannot use an AMD GPU: install the ROCm build (torch-build above)";
  return make("torch-gpu", CheckStatus::fail, "torch.cuda.is_available() is False", fix, kInstall);
}

// K15: DistributedDataParallel across GPUs uses NCCL (RCCL on ROCm), shipped in the Linux
// GPU builds; without it training falls back to gloo.
DoctorCheck nccl_check(const HostFacts& f, const Json& j, const Torch& t) {
  const int gpus = std::max({devices_of(f, "nvidia") + devices_of(f, "amd"), t.devices});
  if (gpus < 2) return make("nccl", CheckStatus::skip, "one GPU: NCCL only matters across several");
  if (flag(j, "nccl"))
    return make("nccl", CheckStatus::pass,
                fmt::format("NCCL{} in PyTorch, for {} GPUs",
                            has(j, "nccl_version") ? " " + str(j, "nccl_version") : "", gpus));
  return make("nccl", CheckStatus::fail,
              fmt::format("this PyTorch has no NCCL: training across the {} GPUs falls back to "
                          "gloo",
                          gpus),
              "install the Linux GPU build of PyTorch (NCCL comes with it), or NVIDIA's "
              "nvcr.io/nvidia/pytorch container, which avoids NCCL version mismatches",
              kDistributed);
}

DoctorCheck xpu_check(const Json& j, const Torch& t) {
  if (flag(j, "xpu")) return make("xpu", CheckStatus::pass, "torch.xpu sees the Intel GPU");
  return make(
      "xpu", CheckStatus::warn,
      "PyTorch " + t.version + " does not see the Intel GPU (no XPU build)",
      "pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/xpu", kXpu);
}

// K23: Ascend runs PyTorch through the torch_npu adapter, released per PyTorch version.
DoctorCheck npu_check(const Json& j) {
  if (!has(j, "npu"))
    return make("torch-npu", CheckStatus::warn,
                "torch_npu is not installed: PyTorch cannot use the NPU",
                "pip install torch-npu of the release paired with your torch version "
                "(github.com/Ascend/pytorch lists the pairs)",
                kTorchNpu);
  if (flag(j, "npu")) return make("torch-npu", CheckStatus::pass, "torch_npu sees the NPU");
  return make("torch-npu", CheckStatus::fail, "torch_npu is installed but sees no NPU",
              "source the CANN toolkit's set_env.sh and check `npu-smi info`", kTorchNpu);
}

}  // namespace

std::vector<DoctorCheck> torch_checks(const HostFacts& f) {
  if (!f.python.found)
    return {make("torch", CheckStatus::skip, "python3 is not on PATH: no PyTorch to check")};
  if (!f.torch)
    return {make("torch", CheckStatus::warn,
                 f.python.timed_out ? "python3 did not finish importing torch in time"
                                    : "python3 could not run the PyTorch probe",
                 "run python3 -c \"import torch\" to see the error")};
  const Json& j = *f.torch;
  if (has(j, "error"))
    return {make("torch", CheckStatus::skip,
                 "PyTorch is not installed for this python3 (" + str(j, "error") + ")")};
  const Torch t = read_torch(j);
  std::vector<DoctorCheck> out{build_check(f, t)};
  const bool gpu_build = !t.cuda.empty() || !t.hip.empty();
  if (!t.cuda.empty() && !f.driver_cuda.empty()) out.push_back(cuda_vs_driver(f, t));
  const bool has_gpu = nvidia(f) || devices_of(f, "amd") > 0;
  if (gpu_build && has_gpu) {
    out.push_back(available_check(f, t));
    out.push_back(nccl_check(f, j, t));
  }
  if (installed(f, "xpu-smi") || devices_of(f, "intel") > 0) out.push_back(xpu_check(j, t));
  if (installed(f, "npu-smi")) out.push_back(npu_check(j));
  return out;
}

}  // namespace gpusel::doctor_detail
