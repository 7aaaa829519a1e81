#include "gpusel/data/platforms.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/data/snapshot.hpp"
#include "gpusel/i18n/i18n.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_schema.hpp"
#include "gpusel/json/json_source.hpp"
#include "json/json_fields.hpp"
#include "records_internal.hpp"
#include "validate_internal.hpp"

namespace gpusel {
namespace {

using nlohmann::json;

// Checked reads throughout (json_fields.hpp): a mistyped or out-of-range field in a platforms
// file given to `catalog validate` is a located data error, never a library exception.
std::vector<std::string> strings(const json& m, const char* key, const std::string& at) {
  return detail::present<std::vector<std::string>>(m, key, at).value_or(std::vector<std::string>{});
}

// "sold_in": {"value": [4, 8], "source": ..., "as_of": ...}: each size within the host, each a
// multiple of the smallest (a count is whole boards when the smallest divides it).
std::vector<int> sold_in(const json& j, int gpus_per_host, const std::string& at) {
  if (!j.contains("sold_in")) return {};
  const std::string where = at + ".sold_in";
  const json& s = detail::required_ref(j, "sold_in", at);
  detail::required<std::string>(s, "source", where);
  detail::required<std::string>(s, "as_of", where);
  const auto sizes = detail::required<std::vector<int>>(s, "value", where);
  for (int n : sizes)
    if (sizes.empty() || n < 1 || n > gpus_per_host || n % sizes.front() != 0)
      throw data_error(where + ".value: sizes must be 1..gpus_per_host (" +
                       std::to_string(gpus_per_host) + "), ascending multiples of the first");
  if (sizes.empty()) throw data_error(where + ".value: list at least one size");
  return sizes;
}

Platform parse_platform(const json& j, const std::string& at) {
  using detail::present;
  using detail::required;
  if (!j.is_object()) throw data_error(at + ": a platform must be an object");
  Platform p;
  p.id = required<std::string>(j, "id", at);
  p.name = required<std::string>(j, "name", at);
  p.name_zh = present<std::string>(j, "name_zh-CN", at).value_or("");
  p.network = present<std::string>(j, "network", at).value_or("");
  const json& m = detail::required_ref(j, "match", at);
  const std::string mat = at + ".match";
  p.match = {strings(m, "gpu_ids", mat),
             strings(m, "segments", mat),
             strings(m, "form_factors", mat),
             present<bool>(m, "unified_memory", mat),
             present<bool>(m, "used", mat),
             present<int>(m, "max_count", mat).value_or(0),
             present<double>(m, "max_tdp_w", mat).value_or(0)};
  p.gpus_per_host = required<int>(j, "gpus_per_host", at);
  if (p.gpus_per_host < 1 || p.match.max_count < 0)
    throw data_error(at + ": gpus_per_host must be at least 1 and max_count not negative");
  p.psu = present<bool>(j, "psu", at).value_or(false);
  p.cost = parse_figure(detail::required_ref(j, "cost", at), at + ".cost");
  p.sold_in = sold_in(j, p.gpus_per_host, at);
  if (j.contains("host_power_w"))
    p.host_power_w = parse_figure(j.at("host_power_w"), at + ".host_power_w").value;
  if (j.contains("host_memory")) {
    const std::string where = at + ".host_memory";
    const json& ram = detail::required_ref(j, "host_memory", at);
    p.ram_gb = required<double>(ram, "gb", where);
    p.ram_max_gb = required<double>(ram, "max_gb", where);
    p.ram_bandwidth_gbs = detail::present<double>(ram, "bandwidth_gbs", where).value_or(0);
    if (!(p.ram_gb > 0 && p.ram_gb <= p.ram_max_gb))
      throw data_error(where + ": gb must be above 0 and at most max_gb");
  }
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
         (m.max_tdp_w <= 0 || g.tdp_w <= m.max_tdp_w) && (!m.used || !used || *m.used == *used);
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

// Below parse_platforms, which checks the schema first.
Platforms read_platforms(const json& doc, const std::string& origin);

}  // namespace

const Network* Platforms::network(const std::string& id) const {
  for (const auto& n : networks)
    if (n.id == id) return &n;
  return nullptr;
}

void detail::parse_platforms_top(Platforms& out, const json& doc, const std::string& origin) {
  using detail::required;
  out.origin = origin;
  out.reviewed = required<std::string>(doc, "reviewed", origin);
  const json& psu = detail::required_ref(doc, "psu", origin);
  const json& sizing = detail::required_ref(psu, "sizing", origin + ": psu");
  out.psu_rest_w = required<double>(sizing, "rest_of_system_w", origin + ": psu.sizing");
  out.psu_headroom = required<double>(sizing, "headroom", origin + ": psu.sizing");
  const auto steps = required<std::vector<json>>(psu, "steps", origin + ": psu");
  if (steps.empty()) throw data_error(origin + ": psu.steps must not be empty");
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const std::string at = origin + ": psu.steps[" + std::to_string(i) + "]";
    out.psu_steps.push_back(
        {required<double>(steps[i], "watts", at), required<double>(steps[i], "price", at)});
  }
  std::sort(out.psu_steps.begin(), out.psu_steps.end(),
            [](const PsuStep& a, const PsuStep& b) { return a.watts < b.watts; });
  if (doc.contains("host_memory")) {
    const std::string at = origin + ": host_memory";
    const json& m = detail::required_ref(doc, "host_memory", origin);
    out.ram_usd_per_gb = parse_figure(required<json>(m, "price_per_gb", at), at).value;
    out.ram_os_reserve_gb = parse_figure(required<json>(m, "os_reserve_gb", at), at).value;
    out.ram_step_gb = required<double>(m, "step_gb", at);
    if (!(out.ram_step_gb > 0)) throw data_error(at + ".step_gb must be above 0");
  }
  const auto nets = required<std::vector<json>>(doc, "networks", origin);
  for (std::size_t i = 0; i < nets.size(); ++i) {
    const std::string at = detail::record_at(origin, "networks", i, nets[i]);
    out.networks.push_back({required<std::string>(nets[i], "id", at),
                            required<std::string>(nets[i], "name", at),
                            detail::present<std::string>(nets[i], "name_zh-CN", at).value_or(""),
                            parse_figure(required<json>(nets[i], "cost_per_gpu", at), at)});
  }
}

Platform detail::parse_platform_record(const Platforms& top, const json& rec,
                                       const std::string& at) {
  Platform p = parse_platform(rec, at);
  if (!p.network.empty() && !top.network(p.network))
    throw data_error(at + ": unknown network '" + quote_input(p.network) + "'");
  return p;
}

Platforms parse_platforms(const json& doc, const std::string& origin) {
  require_schema(embedded_json("data/schema/platforms.schema.json"), doc, origin);
  return read_platforms(doc, origin);
}

namespace {

// A document of the schema's shape: checked by parse_platforms, or shipped and checked by the
// tests (embedded_json).
Platforms read_platforms(const json& doc, const std::string& origin) {
  Platforms out;
  detail::parse_platforms_top(out, doc, origin);
  const auto list = detail::required<std::vector<json>>(doc, "platforms", origin);
  for (std::size_t i = 0; i < list.size(); ++i)
    out.platforms.push_back(detail::parse_platform_record(
        out, list[i], origin + ": platforms[" + std::to_string(i) + "]"));
  return out;
}

}  // namespace

Platforms platforms_from_text(std::string_view text, const std::string& origin) {
  Platforms out;
  bool top = false;
  detail::DocumentSink sink;
  sink.top = [&](const json& outline) {
    detail::parse_platforms_top(out, outline, origin);
    top = true;
  };
  sink.record = [&](std::size_t, const json& rec, const std::string& at, detail::Span) {
    if (top) out.platforms.push_back(detail::parse_platform_record(out, rec, at));
  };
  detail::PassOptions pass;
  pass.expected = &detail::platforms_kind();
  pass.errors_only = true;
  const ValidateOptions opt{today_iso(), nullptr};
  detail::throw_first_error(detail::check_document(text, origin, opt, pass, &sink), origin);
  return out;
}

const Platforms& default_platforms() {
  static const Platforms p = [] {
    if (auto shipped = snapshot_platforms(shipped_snapshot())) return std::move(*shipped);
    const std::string origin = "data/platforms.json";
    return read_platforms(embedded_json(origin), origin);
  }();
  return p;
}

namespace {

// The host RAM `pl` needs for offloaded parts of `host_gib` per GPU, in DIMM steps above its own
// RAM; nothing where either side does not count it.
void quote_ram(const Platforms& p, const Platform& pl, int count, double host_gib,
               PlatformQuote& q) {
  if (!(host_gib > 0) || !(pl.ram_gb > 0) || !(p.ram_step_gb > 0)) return;
  q.ram_need_gb = host_gib * std::min(count, pl.gpus_per_host) + p.ram_os_reserve_gb;
  q.ram_gb = pl.ram_gb;
  if (q.ram_need_gb <= pl.ram_gb) return;
  const double held = std::ceil(q.ram_need_gb / p.ram_step_gb - 1e-9) * p.ram_step_gb;
  if (held > pl.ram_max_gb) {
    q.ram_short_gb = q.ram_need_gb - pl.ram_max_gb;
    return;
  }
  q.ram_gb = held;
  q.ram_added_gb = held - pl.ram_gb;
  q.ram_usd = q.ram_added_gb * p.ram_usd_per_gb * q.hosts;
}

PlatformQuote quote_on(const Platforms& p, const Platform& pl, const Gpu& gpu, int count,
                       double host_gib) {
  PlatformQuote q;
  q.platform = &pl;
  q.hosts = (count + pl.gpus_per_host - 1) / pl.gpus_per_host;
  q.hosts_usd = pl.cost.value * q.hosts;
  const std::string& name = localised(pl.name, pl.name_zh);
  q.label = q.hosts > 1 ? fmt::format("{}x {}", q.hosts, name) : name;
  if (pl.psu) {
    const PsuStep s = psu_for(p, gpu.tdp_w * std::min(count, pl.gpus_per_host));
    q.psu_watts = s.watts;
    q.hosts_usd += s.price * q.hosts;
    q.label += fmt::format(", PSU {:.0f} W", s.watts);
  }
  quote_ram(p, pl, count, host_gib, q);
  if (q.ram_added_gb > 0) q.label += trf(", {} GB RAM", fmt::format("{:.0f}", q.ram_gb));
  if (q.hosts > 1) {
    q.network = p.network(pl.network);
    q.network_usd = q.network->cost_per_gpu.value * count;
    q.label += " + " + localised(q.network->name, q.network->name_zh);
  }
  q.total_usd = q.hosts_usd + q.network_usd + q.ram_usd;
  return q;
}

}  // namespace

PlatformQuote quote_platform(const Platforms& p, const Gpu& gpu, int count, bool used,
                             double host_gib) {
  std::optional<PlatformQuote> short_of_ram;  // the first that takes the cards, not the RAM
  for (const auto& pl : p.platforms) {
    if (!takes(pl, gpu, used) || (pl.match.max_count > 0 && count > pl.match.max_count)) continue;
    const int hosts = (count + pl.gpus_per_host - 1) / pl.gpus_per_host;
    if (hosts > 1 && pl.network.empty()) continue;  // a single-host platform cannot grow
    PlatformQuote q = quote_on(p, pl, gpu, count, host_gib);
    if (q.ram_short_gb <= 0) return q;
    if (!short_of_ram) short_of_ram = std::move(q);
  }
  return short_of_ram.value_or(PlatformQuote{});
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
