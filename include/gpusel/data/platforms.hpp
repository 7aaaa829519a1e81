#pragma once
// What a configuration needs around its cards (data/platforms.json): a desktop with a PSU
// sized to the cards, a workstation, a PCIe or HGX/OAM server, a superchip node, a rack, or
// nothing for a unified-memory machine; a cluster network beyond one host. A configuration's
// price is cards + platform, so server-only parts rank where their real cost puts them.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusel/data/catalog.hpp"
#include "gpusel/data/cloud.hpp"

namespace gpusel {

struct PlatformMatch {  // every given condition must hold
  std::vector<std::string> gpu_ids, segments, form_factors;
  std::optional<bool> unified_memory, used;
  int max_count = 0;     // 0: any count (in hosts of gpus_per_host)
  double max_tdp_w = 0;  // the most a card may draw in its slots; 0: any
  bool operator==(const PlatformMatch&) const = default;
};

struct Platform {
  std::string id, name, network;  // network: "" = a single host only
  std::string name_zh;            // name_zh-CN; empty: none (then name)
  PlatformMatch match;
  int gpus_per_host = 1;
  bool psu = false;
  Figure cost;  // USD per host
  // GPU counts one host is sold with (HGX H100: 4 or 8; HGX B200: 8); empty: any count up
  // to gpus_per_host. Every size is a multiple of the smallest (whole_boards relies on it).
  std::vector<int> sold_in;
  // System RAM per host (host_memory): as the price includes it and the most the board takes;
  // 0: not counted (unified memory, laptops).
  double ram_gb = 0, ram_max_gb = 0;
  double ram_bandwidth_gbs = 0;  // its spec bandwidth (channels x MT/s x 8 B); 0: not stated
  // A data-centre server's draw beside its GPUs per full host, W (host_power_w); 0: a machine
  // by a desk, which needs no colocation and whose host draw is not counted.
  double host_power_w = 0;
  bool operator==(const Platform&) const = default;
};

struct Network {
  std::string id, name;
  std::string name_zh;  // name_zh-CN; empty: none
  Figure cost_per_gpu;  // USD
  bool operator==(const Network&) const = default;
};

struct PsuStep {
  double watts = 0, price = 0;  // price in USD
  bool operator==(const PsuStep&) const = default;
};

struct Platforms {
  std::string origin, reviewed;
  double psu_rest_w = 0, psu_headroom = 1;
  std::vector<PsuStep> psu_steps;  // ascending watts
  std::vector<Platform> platforms;
  std::vector<Network> networks;
  // Pricing the RAM offloaded parts need (host_memory); ram_step_gb 0: host RAM not counted.
  double ram_usd_per_gb = 0, ram_os_reserve_gb = 0, ram_step_gb = 0;
  const Network* network(const std::string& id) const;
  bool operator==(const Platforms&) const = default;
};

// Checks the document against data/schema/platforms.schema.json and each figure's range;
// Error(data) naming origin and the first problem (also an unknown network id).
Platforms parse_platforms(const nlohmann::json& doc, const std::string& origin);
// A platforms file's text through the pass `catalog validate` runs (validate_document): refused
// at its first error, file:line:col, exactly where validate reports one.
Platforms platforms_from_text(std::string_view text, const std::string& origin);
const Platforms& default_platforms();  // the embedded file, parsed once

struct PlatformQuote {
  const Platform* platform = nullptr;  // nullptr: no platform hosts this configuration
  int hosts = 0;
  double psu_watts = 0;    // per host, where the platform sizes a PSU
  double hosts_usd = 0;    // all hosts, PSUs included
  double network_usd = 0;  // beyond one host
  const Network* network = nullptr;
  // System RAM per host, where counted (host_gib given and the platform states its RAM): what
  // the host holds (its offload + the OS reserve, in DIMM steps), the GB added to the
  // platform's own, their price (all hosts, in total_usd), and the GB beyond the most its board
  // takes (> 0: no build of this platform runs it).
  double ram_need_gb = 0, ram_gb = 0, ram_added_gb = 0, ram_usd = 0, ram_short_gb = 0;
  double total_usd = 0;  // hosts + network + RAM added
  std::string label;     // "desktop, PSU 1200 W", "2x HGX/OAM baseboard server + InfiniBand..."
};

// The platform `count` cards of `gpu` need (`used`: the cards are bought used), priced.
// `host_gib`: system RAM each GPU's offloaded parts need (Estimate::host_bytes in GiB); a
// platform whose board cannot take that RAM gives way to the next that takes the cards.
PlatformQuote quote_platform(const Platforms& p, const Gpu& gpu, int count, bool used,
                             double host_gib = 0);

// The most cards of `gpu` one host takes, and whether hosts can be joined by a network:
// what configurations and fit's sharding advice may propose.
struct HostLimits {
  int per_host = 0;  // 0: no platform takes this card
  bool networked = false;
};
HostLimits host_limits(const Platforms& p, const Gpu& gpu);

}  // namespace gpusel
