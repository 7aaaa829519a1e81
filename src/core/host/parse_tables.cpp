// npu-smi and xpu-smi print tables for people, not programs: read them cell by cell.
#include <sstream>

#include "gpusel/host/detect.hpp"
#include "host_internal.hpp"

namespace gpusel {

using namespace host_detail;

namespace {

// The cells between the '|' of a table row; empty when the line is not a row.
std::vector<std::string> cells(const std::string& line) {
  const std::string t = trimmed(line);
  if (t.size() < 2 || t.front() != '|' || t.back() != '|') return {};
  auto parts = split(std::string_view(t).substr(1, t.size() - 2), '|');
  for (auto& p : parts) p = trimmed(p);
  return parts;
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

// "0    / 0          3197 / 65536": each "used / total" pair, in order.
std::vector<std::pair<double, double>> usage_pairs(const std::string& cell) {
  const auto w = words(cell);
  std::vector<std::pair<double, double>> out;
  for (std::size_t i = 1; i + 1 < w.size(); ++i) {
    if (w[i] != "/") continue;
    const auto used = number(w[i - 1]), total = number(w[i + 1]);
    if (used && total) out.emplace_back(*used, *total);
  }
  return out;
}

std::string npu_version(const std::vector<std::string>& ls) {
  for (const auto& l : ls) {
    const auto at = l.find("Version:");
    if (at != std::string::npos) {
      const auto w = words(l.substr(at + 8));
      if (!w.empty()) return w.front();
    }
  }
  return "";
}

// The second row of a chip: bus id, and HBM usage (or, where a card has no HBM, the
// memory usage column) in MB as npu-smi counts them (MiB: 65536 on a 64 GB part).
void finish_npu(Device& d, const std::vector<std::string>& c) {
  d.bus_id = c[1];
  const auto pairs = usage_pairs(c[2]);
  const std::pair<double, double>* mem = nullptr;
  if (pairs.size() >= 2 && pairs[1].second > 0)
    mem = &pairs[1];
  else if (!pairs.empty() && pairs[0].second > 0)
    mem = &pairs[0];
  if (mem) d.used_bytes = mem->first * kMiB, d.total_bytes = mem->second * kMiB;
}

}  // namespace

// `npu-smi info`: after the header (the line with "Bus-Id"), two rows per chip: "NPU Name |
// Health | Power Temp Hugepages" and "Chip [Phy-ID] | Bus-Id | AICore Memory-Usage
// HBM-Usage". The process table below it ends the device list.
std::vector<Device> parse_npu_smi_info(const std::string& text) {
  const auto ls = lines(text);
  const std::string version = npu_version(ls);
  std::vector<Device> out;
  std::optional<Device> pending;
  bool in_table = false;
  for (const auto& l : ls) {
    if (l.find("Process id") != std::string::npos || l.find("Process ID") != std::string::npos)
      break;
    if (l.find("Bus-Id") != std::string::npos) {
      in_table = true;
      continue;
    }
    const auto c = cells(l);
    if (!in_table || c.size() != 3) continue;
    const auto w = words(c[0]);
    if (!pending && w.size() >= 2 && all_digits(w[0]) && !all_digits(w[1])) {
      pending = Device{};
      pending->tool = "npu-smi";
      pending->vendor = "huawei";
      for (std::size_t i = 1; i < w.size(); ++i) pending->name += (i > 1 ? " " : "") + w[i];
      pending->driver = version;
    } else if (pending && !w.empty() && all_digits(w[0])) {
      finish_npu(*pending, c);
      out.push_back(std::move(*pending));
      pending.reset();
    }
  }
  return out;
}

// `xpu-smi discovery`: a row per property, "Key: Value", the device id in the first cell of
// a device's first row.
std::vector<Device> parse_xpu_smi_discovery(const std::string& text) {
  std::vector<Device> out;
  for (const auto& l : lines(text)) {
    const auto c = cells(l);
    if (c.size() != 2) continue;
    if (all_digits(c[0])) {
      out.emplace_back();
      out.back().tool = "xpu-smi";
      out.back().vendor = "intel";
    }
    if (out.empty()) continue;
    const auto colon = c[1].find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trimmed(c[1].substr(0, colon)), value = trimmed(c[1].substr(colon + 1));
    Device& d = out.back();
    if (key == "Device Name")
      d.name = value;
    else if (key == "PCI BDF Address")
      d.bus_id = value;
    else if (key == "Memory Physical Size")
      d.total_bytes = size_bytes(value);
    else if (key == "Driver Version")
      d.driver = value;
  }
  std::erase_if(out, [](const Device& d) { return d.name.empty(); });
  return out;
}

}  // namespace gpusel
