#pragma once
// `gpusel detect`: the accelerators in this machine, read from the vendors' own tools, each
// matched to a catalog id (or reported as unknown). Placed after data/ in the pipeline: it
// reads the machine and the catalog, nothing about workloads.
#include <optional>
#include <string>
#include <vector>

#include "gpusel/data/catalog.hpp"
#include "gpusel/host/process.hpp"

namespace gpusel {

// One accelerator as a tool reports it, and what gpusel makes of it.
struct Device {
  std::string tool;    // nvidia-smi, rocm-smi, npu-smi, xpu-smi, system_profiler
  std::string vendor;  // the catalog's vendor names: nvidia amd intel huawei apple
  std::string name;    // as reported
  std::vector<std::string> other_names;  // further names the tool gives (rocm-smi's card model)
  std::optional<double> total_bytes, used_bytes;
  std::string driver, bus_id;
  std::optional<int> cores;  // Apple: GPU cores
  bool integrated = false;   // shares the host's memory (Apple silicon)
  // Matching
  const Gpu* gpu = nullptr;            // the catalog card, when exactly one matches
  std::vector<const Gpu*> candidates;  // several equally good: ambiguous
  std::string match;                   // how it matched, or why it did not
};

// How each tool fared: not installed, failed (with its message), or read.
struct ToolReport {
  std::string tool;
  std::vector<std::string> argv;
  bool found = false, ok = false;
  int devices = 0;
  std::string message;  // the tool's first error line, or what went wrong
};

struct DetectAnswer {
  std::vector<Device> devices;
  std::vector<ToolReport> tools;
  bool any_tool() const;  // at least one tool was installed
};

// Names a tool reports that fuzzy matching cannot tie to a catalog card (an SoC's board
// name, a vendor's variant code), from data/device_names.json.
struct DeviceAlias {
  std::string tool, reported, gpu, source, as_of;
};
std::vector<DeviceAlias> load_device_aliases();  // the embedded data/device_names.json

// ---- the parsers, one per tool (pure: text in, devices out) ----
std::vector<Device> parse_nvidia_smi_csv(const std::string& text);
std::vector<Device> parse_rocm_smi_json(const std::string& text);
std::vector<Device> parse_npu_smi_info(const std::string& text);
std::vector<Device> parse_xpu_smi_discovery(const std::string& text);
std::vector<Device> parse_system_profiler_json(const std::string& text);

// Ties `d` to the catalog: an alias first, else the card whose name (or id) has the same
// model words (vendor and marketing words dropped), whose memory is within 10 % of what the
// tool reports and whose core count agrees; a form factor the name gives (SXM, PCIe) must
// agree, and NVIDIA's driver names a PCIe board as such, so a name without it prefers SXM.
void match_device(Device& d, const Catalog& catalog, const std::vector<DeviceAlias>& aliases);

// Each tool in turn, with its fixed arguments; the devices found, matched.
DetectAnswer detect(const Catalog& catalog, const ToolRunner& run);

// `--gpu local`: the card model in this machine and how many of it. Error(negative) with the
// reason when no tool or no accelerator is found, a card is not in the catalog, or the
// machine holds different models (name one with --gpu).
struct LocalCards {
  const Gpu* gpu = nullptr;
  int count = 0;
  double used_bytes = 0;  // the most any of them has in use now (0 when unknown)
};
LocalCards local_cards(const DetectAnswer& answer);

}  // namespace gpusel
