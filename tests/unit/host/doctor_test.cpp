// The doctor's checks on given facts: each finding, its status and its fix, for the
// situations of the articles' troubleshooting table (K38-K41) and the stacks around them.
#include "gpusel/host/doctor.hpp"

#include <catch2/catch.hpp>

#include "gpusel/base/text.hpp"
#include "ranker_fixtures.hpp"

using namespace gpusel;
using ranker_fixtures::catalog;

namespace {

ToolResult tool_ran(std::string out, int code = 0) {
  ToolResult r;
  r.found = r.started = true;
  r.exit_code = code;
  r.out = std::move(out);
  return r;
}

std::string captured(const std::string& name) {
  return read_file(GPUSEL_FIXTURES "/detect/captures/" + name);
}

// A machine: tool name -> what it prints (argv[0] only; doctor's argv are fixed).
DoctorAnswer machine(std::map<std::string, ToolResult> tools) {
  return doctor(catalog(), [tools](const std::vector<std::string>& argv) {
    if (argv.front() == "nvidia-smi" && argv.size() == 1) {
      const auto it = tools.find("nvidia-smi-header");
      return it == tools.end() ? ToolResult{} : it->second;
    }
    const auto it = tools.find(argv.front());
    return it == tools.end() ? ToolResult{} : it->second;
  });
}

std::string torch_json(const std::string& version, const std::string& cuda, bool available,
                       int devices, bool nccl = true) {
  return "{\"version\": \"" + version +
         "\", \"cuda\": " + (cuda.empty() ? std::string("null") : "\"" + cuda + "\"") +
         ", \"hip\": null, \"available\": " + (available ? "true" : "false") +
         ", \"devices\": " + std::to_string(devices) + ", \"nccl\": " + (nccl ? "true" : "false") +
         ", \"nccl_version\": \"2.20.5\", \"xpu\": false, \"npu\": null}\n";
}

const DoctorCheck& doctor_check(const DoctorAnswer& a, const std::string& id) {
  for (const auto& c : a.checks)
    if (c.id == id) return c;
  FAIL("no check " << id);
  throw;
}

bool has_check(const DoctorAnswer& a, const std::string& id) {
  for (const auto& c : a.checks)
    if (c.id == id) return true;
  return false;
}

std::map<std::string, ToolResult> a800(const std::string& torch) {
  return {{"nvidia-smi", tool_ran(captured("nvidia-smi-a800-2x.csv"))},
          {"nvidia-smi-header", tool_ran(captured("nvidia-smi-a800-2x-header.txt"))},
          {"uname", tool_ran("Linux 5.15.0-91-generic\n")},
          {"python3", tool_ran(torch)}};
}

}  // namespace

TEST_CASE("nvidia-smi's header: the driver and the highest CUDA it runs (K38)") {
  std::string driver, cuda;
  parse_nvidia_smi_header(captured("nvidia-smi-a800-2x-header.txt"), driver, cuda);
  CHECK(driver == "535.86.10");
  CHECK(cuda == "12.2");
  parse_nvidia_smi_header("| NVIDIA-SMI 550.54.10  Driver Version: 550.54.10  CUDA Version: N/A |",
                          driver, cuda);
  CHECK(cuda.empty());
}

TEST_CASE("a healthy two-GPU CUDA machine passes every check") {
  const DoctorAnswer a = machine(a800(torch_json("2.3.1+cu121", "12.1", true, 2)));
  CHECK_FALSE(a.failed());
  CHECK(a.count(CheckStatus::warn) == 0);
  CHECK(doctor_check(a, "nvidia-driver").finding ==
        "driver 535.86.10, runs CUDA up to 12.2 (the driver's limit, not a toolkit)");
  CHECK(doctor_check(a, "torch-cuda-driver").status == CheckStatus::pass);
  CHECK(doctor_check(a, "nccl").status == CheckStatus::pass);
  CHECK_THAT(doctor_check(a, "nccl").finding,
             Catch::Contains("2.20.5") && Catch::Contains("2 GPUs"));
  CHECK_FALSE(has_check(a, "wsl"));
}

TEST_CASE("a CPU-only wheel on an NVIDIA machine fails with the CUDA index as fix (K39)") {
  const DoctorAnswer a = machine(a800(torch_json("2.3.1+cpu", "", false, 0, false)));
  const DoctorCheck& b = doctor_check(a, "torch-build");
  CHECK(b.status == CheckStatus::fail);
  CHECK_THAT(b.finding, Catch::Contains("CPU-only") && Catch::Contains("NVIDIA"));
  CHECK_THAT(b.fix, Catch::Contains("download.pytorch.org/whl/cu") && Catch::Contains("12.2"));
  CHECK_FALSE(has_check(a, "torch-gpu"));
  CHECK(a.failed());
}

TEST_CASE("a wheel built for a newer CUDA major than the driver runs fails, a newer minor warns") {
  auto old = a800(torch_json("2.3.1+cu121", "12.1", false, 0));
  old["nvidia-smi-header"] =
      tool_ran("| NVIDIA-SMI 470.82.01  Driver Version: 470.82.01  CUDA Version: 11.4 |\n");
  const DoctorAnswer a = machine(old);
  CHECK(doctor_check(a, "torch-cuda-driver").status == CheckStatus::fail);
  CHECK_THAT(doctor_check(a, "torch-cuda-driver").fix, Catch::Contains("CUDA 11.x"));
  CHECK(doctor_check(a, "torch-gpu").status == CheckStatus::fail);
  auto minor = a800(torch_json("2.4.0+cu124", "12.4", true, 2));
  const DoctorAnswer b = machine(minor);
  CHECK(doctor_check(b, "torch-cuda-driver").status == CheckStatus::warn);
  CHECK_THAT(doctor_check(b, "torch-cuda-driver").finding,
             Catch::Contains("minor version compatibility"));
}

TEST_CASE("WSL2 with NVML failing: the Windows driver and wsl --update are the fix (K40)") {
  ToolResult nvml = tool_ran(captured("nvidia-smi-wsl-nvml.txt"), 255);
  const DoctorAnswer a =
      machine({{"nvidia-smi", nvml},
               {"nvidia-smi-header", nvml},
               {"uname", tool_ran("Linux 5.15.153.1-microsoft-standard-WSL2\n")}});
  const DoctorCheck& d = doctor_check(a, "nvidia-driver");
  CHECK(d.status == CheckStatus::fail);
  CHECK_THAT(d.finding, Catch::Contains("GPU access blocked by the operating system"));
  CHECK_THAT(d.fix, Catch::Contains("on Windows") && Catch::Contains("wsl --update"));
  CHECK(doctor_check(a, "wsl").status == CheckStatus::pass);
  CHECK(doctor_check(a, "torch").status == CheckStatus::skip);  // no python3 on this PATH
}

TEST_CASE("WSL 1 has no GPU: converting to WSL 2 is the fix") {
  const DoctorAnswer a = machine({{"uname", tool_ran("Linux 4.4.0-19041-Microsoft\n")}});
  CHECK(doctor_check(a, "wsl").status == CheckStatus::fail);
  CHECK_THAT(doctor_check(a, "wsl").fix, Catch::Contains("wsl --set-version"));
  CHECK(doctor_check(a, "nvidia-driver").status == CheckStatus::warn);
}

TEST_CASE("a driver that is not loaded points at lsmod, a version mismatch at a reboot") {
  ToolResult gone = tool_ran(
      "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA "
      "driver. Make sure that the latest NVIDIA driver is installed and running.\n",
      9);
  const DoctorAnswer a = machine({{"nvidia-smi", gone}, {"nvidia-smi-header", gone}});
  CHECK_THAT(doctor_check(a, "nvidia-driver").fix, Catch::Contains("lsmod | grep nvidia"));
  ToolResult mismatch = tool_ran("", 18);
  mismatch.err = "Failed to initialize NVML: Driver/library version mismatch\n";
  const DoctorAnswer b = machine({{"nvidia-smi", mismatch}, {"nvidia-smi-header", mismatch}});
  CHECK_THAT(doctor_check(b, "nvidia-driver").fix, Catch::Contains("reboot"));
}

TEST_CASE("several GPUs without NCCL in PyTorch fail the NCCL check (K15)") {
  const DoctorAnswer a = machine(a800(torch_json("2.3.1+cu121", "12.1", true, 2, false)));
  CHECK(doctor_check(a, "nccl").status == CheckStatus::fail);
  CHECK_THAT(doctor_check(a, "nccl").fix, Catch::Contains("nvcr.io/nvidia/pytorch"));
}

TEST_CASE("a CUDA wheel on an AMD GPU fails, ROCm's own check passes") {
  const DoctorAnswer a =
      machine({{"rocm-smi", tool_ran(captured("rocm-smi-rx7900xt.json"))},
               {"python3", tool_ran(torch_json("2.3.1+cu121", "12.1", false, 0))}});
  CHECK(doctor_check(a, "rocm").status == CheckStatus::pass);
  CHECK(doctor_check(a, "torch-build").status == CheckStatus::fail);
  CHECK_THAT(doctor_check(a, "torch-build").fix, Catch::Contains("whl/rocm"));
  CHECK(doctor_check(a, "torch-gpu").status == CheckStatus::fail);
  CHECK_THAT(doctor_check(a, "torch-gpu").fix,
             Catch::Contains("ROCm build") && !Catch::Contains("nvidia-smi"));
}

TEST_CASE("Ascend without torch_npu warns, with it and an NPU it passes (K23)") {
  const auto npu = tool_ran(captured("npu-smi-910b4-1.txt"));
  const DoctorAnswer a =
      machine({{"npu-smi", npu}, {"python3", tool_ran(torch_json("2.1.0", "", false, 0, false))}});
  CHECK(doctor_check(a, "cann").status == CheckStatus::pass);
  CHECK(doctor_check(a, "torch-npu").status == CheckStatus::warn);
  const DoctorAnswer b = machine(
      {{"npu-smi", npu},
       {"python3",
        tool_ran(
            R"({"version": "2.1.0", "cuda": null, "hip": null, "available": false, "devices": 0, "npu": true})")}});
  CHECK(doctor_check(b, "torch-npu").status == CheckStatus::pass);
}

TEST_CASE("no tool and no python: the accelerator check fails, the rest is skipped") {
  const DoctorAnswer a = machine({});
  CHECK(doctor_check(a, "accelerator").status == CheckStatus::fail);
  CHECK(doctor_check(a, "torch").status == CheckStatus::skip);
  CHECK(a.checks.size() == 2);
}

TEST_CASE("PyTorch missing for python3 is a skip, with the import error") {
  const DoctorAnswer a =
      machine(a800("{\"error\": \"ModuleNotFoundError: No module named 'torch'\"}\n"));
  CHECK(doctor_check(a, "torch").status == CheckStatus::skip);
  CHECK_THAT(doctor_check(a, "torch").finding, Catch::Contains("No module named 'torch'"));
}

TEST_CASE("the PyTorch probe is valid Python that prints one JSON object") {
  const ToolResult r =
      run_tool({"python3", "-c", torch_probe()}, {std::chrono::seconds(30), 1 << 20});
  if (!r.found) {
    WARN("python3 is not installed here: the probe is not run");
    return;
  }
  REQUIRE(r.ok());
  const auto j = nlohmann::json::parse(r.out);
  CHECK((j.contains("error") || j.contains("version")));
}

TEST_CASE("a probe's answer that is no version, or no GPU behind is_available, is not a pass") {
  const DoctorAnswer a = machine(a800(torch_json("2.3.0+cu121", "=cmd", true, 0)));
  CHECK(doctor_check(a, "torch-build").status == CheckStatus::warn);
  CHECK_THAT(doctor_check(a, "torch-build").finding, Catch::Contains("not a version"));
  CHECK(doctor_check(a, "torch-cuda-driver").status == CheckStatus::skip);
  CHECK(doctor_check(a, "torch-gpu").status == CheckStatus::warn);
  const DoctorAnswer b = machine(a800(torch_json("2.4.0+cu124", "12.4", true, 2)));
  CHECK(doctor_check(b, "torch-build").status == CheckStatus::pass);
  CHECK(doctor_check(b, "torch-gpu").status == CheckStatus::pass);
}
