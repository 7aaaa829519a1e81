#include "gpusel/host/detect.hpp"

#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>
#include <set>

#include "gpusel/base/error.hpp"
#include "gpusel/json/embedded.hpp"
#include "host_internal.hpp"

namespace gpusel {

using namespace host_detail;

namespace {

struct Tool {
  std::vector<std::string> argv;
  std::vector<Device> (*parse)(const std::string&);
};

// Fixed argument lists: nothing from the user reaches a tool's command line. rocm-smi is
// also asked for its driver version; system_profiler for the machine's memory, which an
// Apple GPU shares.
const std::vector<Tool>& tools() {
  static const std::vector<Tool> t{
      {{"nvidia-smi", "--query-gpu=name,memory.total,memory.used,driver_version,pci.bus_id",
        "--format=csv,noheader,nounits"},
       parse_nvidia_smi_csv},
      {{"rocm-smi", "--showproductname", "--showmeminfo", "vram", "--showdriverversion", "--json"},
       parse_rocm_smi_json},
      {{"npu-smi", "info"}, parse_npu_smi_info},
      {{"xpu-smi", "discovery"}, parse_xpu_smi_discovery},
      {{"system_profiler", "SPDisplaysDataType", "SPHardwareDataType", "-json"},
       parse_system_profiler_json}};
  return t;
}

std::string first_line(const std::string& text) {
  for (const auto& l : lines(text))
    if (!trimmed(l).empty()) return trimmed(l);
  return "";
}

std::string failure(const ToolResult& r) {
  if (r.timed_out) return "did not answer in time (killed)";
  if (!r.started) return "could not be started";
  std::string why = first_line(r.err);
  if (why.empty()) why = first_line(r.out);
  const char* name = r.signal ? sigabbrev_np(r.signal) : nullptr;  // glibc: "SEGV"
  const std::string how = r.signal
                              ? fmt::format("killed by signal {}{}", r.signal,
                                            name ? fmt::format(" (SIG{})", name) : std::string())
                              : fmt::format("exit {}", r.exit_code);
  return how + (why.empty() ? "" : ": " + why);
}

// What a tool prints is the device's word, not ours: every control character in it (an
// ESC sequence, BEL, CR) becomes U+FFFD before a name reaches a table, a page or an error.
std::string printable(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
    if (c < 0x20 || c == 0x7F || (c == 0xC2 && next >= 0x80 && next <= 0x9F)) {
      out += "\xEF\xBF\xBD";
      if (c == 0xC2) ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// The most memory one device can report and be believed: 64 TiB, far above any accelerator
// or unified-memory machine (Apple's largest holds 512 GB), far below a figure that overflows.
constexpr double kMaxDeviceBytes = 64.0 * 1024 * 1024 * 1024 * 1024;

void make_printable(Device& d) {
  for (std::string* s : {&d.name, &d.driver, &d.bus_id}) *s = printable(*s);
  for (auto& n : d.other_names) n = printable(n);
}

void believable_memory(Device& d) {
  // A tool's memory figures are input like any other: one out of range is unknown, and memory
  // in use beyond the total (or below zero) says nothing of the free memory.
  const auto believable = [](const std::optional<double>& b) {
    return b && std::isfinite(*b) && *b >= 0 && *b <= kMaxDeviceBytes;
  };
  if (!believable(d.total_bytes) || *d.total_bytes == 0) d.total_bytes.reset();
  if (!believable(d.used_bytes) || (d.total_bytes && *d.used_bytes > *d.total_bytes))
    d.used_bytes.reset();
}

std::string string_field(const nlohmann::json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_string())
    throw data_error(std::string("data/device_names.json: an alias lacks '") + key + "'");
  return it->get<std::string>();
}

}  // namespace

bool DetectAnswer::any_tool() const {
  for (const auto& t : tools)
    if (t.found) return true;
  return false;
}

std::vector<DeviceAlias> load_device_aliases() {
  const auto doc = nlohmann::json::parse(embedded_text("data/device_names.json"), nullptr, false);
  if (!doc.is_object() || !doc.contains("aliases") || !doc["aliases"].is_array())
    throw data_error("data/device_names.json: no 'aliases' list");
  std::vector<DeviceAlias> out;
  for (const auto& a : doc["aliases"])
    out.push_back({string_field(a, "tool"), string_field(a, "reported"), string_field(a, "gpu"),
                   string_field(a, "source"), string_field(a, "as_of")});
  return out;
}

DetectAnswer detect(const Catalog& catalog, const ToolRunner& run) {
  DetectAnswer ans;
  const auto aliases = load_device_aliases();
  for (const auto& tool : tools()) {
    const ToolResult r = run(tool.argv);
    ToolReport rep{tool.argv.front(), tool.argv, r.found, r.ok(), 0, ""};
    if (!r.found) {
      rep.message = "not installed (not on PATH)";
    } else if (!r.ok()) {
      rep.message = printable(failure(r));
    } else {
      auto devices = tool.parse(r.out);
      rep.devices = static_cast<int>(devices.size());
      rep.message = devices.empty() ? "ran, but listed no device" : "";
      for (auto& d : devices) {
        make_printable(d);
        believable_memory(d);
        match_device(d, catalog, aliases);
        ans.devices.push_back(std::move(d));
      }
    }
    ans.tools.push_back(std::move(rep));
  }
  return ans;
}

namespace {

std::string why_none(const DetectAnswer& a) {
  if (!a.any_tool())
    return "no accelerator found: none of nvidia-smi, rocm-smi, npu-smi, xpu-smi or "
           "system_profiler is installed";
  std::string s = "no accelerator found";
  for (const auto& t : a.tools)
    if (t.found) s += fmt::format("; {}: {}", t.tool, t.message.empty() ? "no device" : t.message);
  return s;
}

}  // namespace

LocalCards local_cards(const DetectAnswer& a) {
  if (a.devices.empty()) throw Error(ExitCode::negative, why_none(a) + " (see gpusel detect)");
  std::map<const Gpu*, LocalCards> by_card;
  std::string unknown;
  std::set<std::string> unknown_tools, known_tools;
  for (const auto& d : a.devices) {
    if (!d.gpu) {
      unknown += fmt::format("{}{} ({})", unknown.empty() ? "" : ", ", d.name, d.match);
      unknown_tools.insert(d.tool);
      continue;
    }
    known_tools.insert(d.tool);
    LocalCards& c = by_card[d.gpu];
    c.gpu = d.gpu;
    ++c.count;
    if (d.used_bytes) c.used_bytes = std::max(c.used_bytes, *d.used_bytes);
  }
  // An unknown device another tool lists beside known ones (an Intel iGPU beside a GeForce)
  // does not stop the answer; one the same tool lists is a card of the machine's own kind
  // that the answer would leave out.
  for (const auto& t : unknown_tools)
    if (known_tools.count(t))
      throw Error(
          ExitCode::negative,
          "this machine holds cards gpusel cannot tie to the catalog beside those it can: " +
              unknown + "; name a card with --gpu ID (gpusel catalog list)");
  if (by_card.empty())
    throw Error(ExitCode::negative,
                "this machine's accelerator is not one gpusel can tie to the catalog: " + unknown +
                    "; name a card with --gpu ID (gpusel catalog list)");
  if (by_card.size() > 1) {
    std::string list;
    for (const auto& [g, c] : by_card)
      list += fmt::format("{}{}x {}", list.empty() ? "" : ", ", c.count, g->id);
    throw Error(ExitCode::negative,
                "this machine holds different cards (" + list + "): name one with --gpu ID");
  }
  return by_card.begin()->second;
}

}  // namespace gpusel
