// nvidia-smi (CSV query) and rocm-smi (JSON) output into devices.
#include <nlohmann/json.hpp>

#include "gpusel/base/text.hpp"
#include "gpusel/host/detect.hpp"
#include "host_internal.hpp"

namespace gpusel {

using namespace host_detail;

// `nvidia-smi --query-gpu=name,memory.total,memory.used,driver_version,pci.bus_id
// --format=csv,noheader,nounits`: one line per GPU, memory in MiB; "[N/A]" where a field is
// not supported (a unified-memory GB10 reports no memory.total). The name is first and the
// other four never hold a comma, so a name with one still parses.
std::vector<Device> parse_nvidia_smi_csv(const std::string& text) {
  std::vector<Device> out;
  for (const auto& line : lines(text)) {
    const auto f = split(line, ',');
    if (f.size() < 5) continue;
    const std::size_t n = f.size();
    Device d;
    d.tool = "nvidia-smi";
    d.vendor = "nvidia";
    for (std::size_t i = 0; i + 4 < n; ++i) d.name += (i ? "," : "") + f[i];
    d.name = trimmed(d.name);
    if (d.name.empty()) continue;
    if (auto t = number(f[n - 4])) d.total_bytes = *t * kMiB;
    if (auto u = number(f[n - 3])) d.used_bytes = *u * kMiB;
    d.driver = trimmed(f[n - 2]);
    if (!d.driver.empty() && d.driver.front() == '[') d.driver.clear();
    d.bus_id = trimmed(f[n - 1]);
    out.push_back(std::move(d));
  }
  return out;
}

namespace {

// rocm-smi's key spelling changed between releases ("Card series" -> "Card Series").
const nlohmann::json* field(const nlohmann::json& obj, std::string_view key) {
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (to_lower(it.key()) == to_lower(key)) return &it.value();
  return nullptr;
}

std::string text_field(const nlohmann::json& obj, std::string_view key) {
  const nlohmann::json* v = field(obj, key);
  return v && v->is_string() ? trimmed(v->get<std::string>()) : "";
}

std::optional<double> number_field(const nlohmann::json& obj, std::string_view key) {
  const nlohmann::json* v = field(obj, key);
  if (v && v->is_number()) return v->get<double>();
  return v && v->is_string() ? number(v->get<std::string>()) : std::nullopt;
}

// The document, skipping any warning lines some rocm-smi releases print before it.
nlohmann::json json_after_noise(const std::string& text) {
  const std::size_t brace = text.find('{');
  if (brace == std::string::npos) return nlohmann::json();
  nlohmann::json doc = nlohmann::json::parse(text.substr(brace), nullptr, false);
  return doc.is_discarded() ? nlohmann::json() : doc;
}

}  // namespace

// `rocm-smi --showproductname --showmeminfo vram --showdriverversion --json`: one object per
// card ("card0"...), memory in bytes; the driver under "system".
std::vector<Device> parse_rocm_smi_json(const std::string& text) {
  const nlohmann::json doc = json_after_noise(text);
  std::vector<Device> out;
  if (!doc.is_object()) return out;
  std::string driver;
  if (const auto* sys = field(doc, "system"); sys && sys->is_object())
    driver = text_field(*sys, "Driver version");
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (!starts_with(to_lower(it.key()), "card") || !it.value().is_object()) continue;
    const nlohmann::json& c = it.value();
    Device d;
    d.tool = "rocm-smi";
    d.vendor = "amd";
    d.name = text_field(c, "Card Series");
    const std::string model = text_field(c, "Card Model");
    if (!model.empty() && !starts_with(model, "0x")) d.other_names.push_back(model);
    if (d.name.empty() && !d.other_names.empty()) d.name = d.other_names.front();
    if (d.name.empty()) d.name = text_field(c, "Device Name");
    if (d.name.empty()) continue;
    d.total_bytes = number_field(c, "VRAM Total Memory (B)");
    d.used_bytes = number_field(c, "VRAM Total Used Memory (B)");
    d.bus_id = text_field(c, "PCI Bus");
    d.driver = driver.empty() ? text_field(c, "Driver version") : driver;
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace gpusel
