#include "gpusel/data/platforms.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpusel/base/error.hpp"
#include "gpusel/i18n/i18n.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_schema.hpp"
#include "gpusel/json/json_source.hpp"

namespace gpusel {
namespace {

using nlohmann::json;

std::vector<std::string> strings(const json& m, const char* key) {
  return m.contains(key) ? m[key].get<std::vector<std::string>>() : std::vector<std::string>{};
}

std::optional<bool> flag(const json& m, const char* key) {
  return m.contains(key) ? std::optional<bool>(m[key].get<bool>()) : std::nullopt;
}

Platform parse_platform(const json& j, const std::string& at) {
  Platform p;
  p.id = j.at("id").get<std::string>();
  p.name = j.at("name").get<std::string>();
  p.name_zh = j.value("name_zh-CN", "");
  p.network = j.value("network", "");
  const json& m = j.at("match");
  p.match = {strings(m, "gpu_ids"),     strings(m, "segments"), strings(m, "form_factors"),
             flag(m, "unified_memory"), flag(m, "used"),        m.value("max_count", 0)};
  p.gpus_per_host = j.at("gpus_per_host").get<int>();
  p.psu = j.value("psu", false);
  p.cost = parse_figure(j.at("cost"), at + ".cost");
  return p;
}

bool in(const std::vector<std::string>& list, const std::string& v) {
  return list.empty() || std::find(list.begin(), list.end(), v) != list.end();
}

// The card (and used-ness) fits the platform, whatever the count.
bool takes(const Platform& p, const Gpu& g, std::optional<bool> used) {
  const PlatformMatch& m = p.match;
  return in(m.gpu_ids, g.id) && in(m.segments, g.segment) && in(m.form_factors, g.form_factor) &&
         (!m.unified_memory || *m.unified_memory == g.unified_memory) &&
         (!m.used || !used || *m.used == *used);
}

// Power supply for the cards of one host: (TDP + rest of system) x headroom, next step up.
PsuStep psu_for(const Platforms& p, double card_watts) {
  const double need = (card_watts + p.psu_rest_w) * p.psu_headroom;
  for (const auto& s : p.psu_steps)
    if (s.watts >= need) return s;
  return p.psu_steps.back();  // beyond the largest step: the largest (the label says so)
}

// A name in the session's language: the zh-CN one where the file gives it.
const std::string& localised(const std::string& en, const std::string& zh) {
  return language() == Lang::zh_cn && !zh.empty() ? zh : en;
}

}  // namespace

const Network* Platforms::network(const std::string& id) const {
  for (const auto& n : networks)
    if (n.id == id) return &n;
  return nullptr;
}

Platforms parse_platforms(const json& doc, const std::string& origin) {
  static const json schema = json::parse(embedded_text("data/schema/platforms.schema.json"));
  require_schema(schema, doc, origin);
  Platforms out;
  out.origin = origin;
  out.reviewed = doc.at("reviewed").get<std::string>();
  const json& sizing = doc.at("psu").at("sizing");
  out.psu_rest_w = sizing.at("rest_of_system_w").get<double>();
  out.psu_headroom = sizing.at("headroom").get<double>();
  for (const auto& s : doc.at("psu").at("steps"))
    out.psu_steps.push_back({s.at("watts").get<double>(), s.at("price").get<double>()});
  std::sort(out.psu_steps.begin(), out.psu_steps.end(),
            [](const PsuStep& a, const PsuStep& b) { return a.watts < b.watts; });
  const json& nets = doc.at("networks");
  for (std::size_t i = 0; i < nets.size(); ++i)
    out.networks.push_back({nets[i].at("id").get<std::string>(),
                            nets[i].at("name").get<std::string>(), nets[i].value("name_zh-CN", ""),
                            parse_figure(nets[i].at("cost_per_gpu"),
                                         origin + ": networks[" + std::to_string(i) + "]")});
  const json& list = doc.at("platforms");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = origin + ": platforms[" + std::to_string(i) + "]";
    out.platforms.push_back(parse_platform(list[i], at));
    const std::string& net = out.platforms.back().network;
    if (!net.empty() && !out.network(net)) throw data_error(at + ": unknown network '" + net + "'");
  }
  return out;
}

const Platforms& default_platforms() {
  static const Platforms p = [] {
    const std::string origin = "data/platforms.json";
    return parse_platforms(parse_located(embedded_text(origin), origin).doc, origin);
  }();
  return p;
}

PlatformQuote quote_platform(const Platforms& p, const Gpu& gpu, int count, bool used) {
  PlatformQuote q;
  for (const auto& pl : p.platforms) {
    if (!takes(pl, gpu, used) || (pl.match.max_count > 0 && count > pl.match.max_count)) continue;
    const int hosts = (count + pl.gpus_per_host - 1) / pl.gpus_per_host;
    if (hosts > 1 && pl.network.empty()) continue;  // a single-host platform cannot grow
    q.platform = &pl;
    q.hosts = hosts;
    q.hosts_usd = pl.cost.value * hosts;
    const std::string& name = localised(pl.name, pl.name_zh);
    q.label = hosts > 1 ? fmt::format("{}x {}", hosts, name) : name;
    if (pl.psu) {
      const PsuStep s = psu_for(p, gpu.tdp_w * std::min(count, pl.gpus_per_host));
      q.psu_watts = s.watts;
      q.hosts_usd += s.price * hosts;
      q.label += fmt::format(", PSU {:.0f} W", s.watts);
    }
    if (hosts > 1) {
      q.network = p.network(pl.network);
      q.network_usd = q.network->cost_per_gpu.value * count;
      q.label += " + " + localised(q.network->name, q.network->name_zh);
    }
    q.total_usd = q.hosts_usd + q.network_usd;
    return q;
  }
  return q;
}

HostLimits host_limits(const Platforms& p, const Gpu& gpu) {
  HostLimits h;
  for (const auto& pl : p.platforms)
    if (takes(pl, gpu, std::nullopt)) {
      const int cap = pl.match.max_count > 0 ? pl.match.max_count : pl.gpus_per_host;
      h.per_host = std::max(h.per_host, cap);
      h.networked = h.networked || (!pl.network.empty() && pl.match.max_count == 0);
    }
  return h;
}

}  // namespace gpusel
