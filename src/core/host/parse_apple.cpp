// macOS: `system_profiler SPDisplaysDataType SPHardwareDataType -json`. The displays list
// names each GPU ("sppci_model"; "_name" can be an internal key such as "kHW_AppleM1Item")
// and its core count; Apple silicon shares the machine's memory ("physical_memory").
#include <nlohmann/json.hpp>

#include "gpusel/base/text.hpp"
#include "gpusel/host/detect.hpp"
#include "host_internal.hpp"

namespace gpusel {

using namespace host_detail;

namespace {

std::string str(const nlohmann::json& obj, const char* key) {
  const auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? trimmed(it->get<std::string>()) : "";
}

std::string vendor_of(const std::string& vendor_key, const std::string& name) {
  const std::string v = to_lower(vendor_key + " " + name);
  if (v.find("apple") != std::string::npos) return "apple";
  if (v.find("nvidia") != std::string::npos) return "nvidia";
  if (v.find("intel") != std::string::npos) return "intel";
  if (v.find("amd") != std::string::npos || v.find("ati") != std::string::npos) return "amd";
  return "";
}

std::optional<double> machine_memory(const nlohmann::json& doc) {
  const auto hw = doc.find("SPHardwareDataType");
  if (hw == doc.end() || !hw->is_array() || hw->empty() || !(*hw)[0].is_object())
    return std::nullopt;
  return size_bytes(str((*hw)[0], "physical_memory"));
}

}  // namespace

std::vector<Device> parse_system_profiler_json(const std::string& text) {
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  std::vector<Device> out;
  if (!doc.is_object()) return out;
  const auto list = doc.find("SPDisplaysDataType");
  if (list == doc.end() || !list->is_array()) return out;
  const std::optional<double> memory = machine_memory(doc);
  for (const auto& item : *list) {
    if (!item.is_object()) continue;
    Device d;
    d.tool = "system_profiler";
    d.name = str(item, "sppci_model");
    if (d.name.empty()) d.name = str(item, "_name");
    if (d.name.empty()) continue;
    d.vendor = vendor_of(str(item, "spdisplays_vendor"), d.name);
    if (auto c = number(str(item, "sppci_cores"))) d.cores = static_cast<int>(*c);
    d.integrated = d.vendor == "apple" || !str(item, "spdisplays_vram_shared").empty();
    if (d.vendor == "apple")
      d.total_bytes = memory;
    else if (auto v = size_bytes(str(item, "spdisplays_vram")))
      d.total_bytes = v;
    d.bus_id = str(item, "sppci_bus");
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace gpusel
