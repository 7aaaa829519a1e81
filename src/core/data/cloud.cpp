#include "gpusel/data/cloud.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "gpusel/base/error.hpp"
#include "gpusel/base/heap.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/data/snapshot.hpp"
#include "gpusel/data/validate.hpp"
#include "gpusel/i18n/i18n.hpp"
#include "json/json_fields.hpp"
#include "records_internal.hpp"
#include "validate_internal.hpp"

namespace gpusel {
namespace {

using nlohmann::json;

// The largest instances carry 8 GPUs (16 on a few); a rack of 72 is sold as 18 of 4.
constexpr int kMaxGpusPerInstance = 1024;
// 100 Tbit/s: beyond any instance's network (the largest publish 6.4 Tbit/s).
constexpr double kMaxNetworkGbps = 1e5;

template <typename T, typename J>
T field(const J& rec, const char* key, const std::string& at) {
  return detail::required<T>(rec, key, at);
}

template <typename J>
std::string date_field(const J& rec, const char* key, const std::string& at) {
  auto d = field<std::string>(rec, key, at);
  if (!is_date(d))
    throw data_error(at + ": '" + key + "' is not a date YYYY-MM-DD ('" + quote_input(d) + "')");
  return d;
}

// A price the source may not give: null or absent -> nullopt; negative -> error.
template <typename J>
std::optional<double> price(const J& rec, const char* key, const std::string& at) {
  const auto p = detail::present<double>(rec, key, at);
  if (!p) return std::nullopt;
  const double v = *p;
  if (!(v >= 0) || !std::isfinite(v))
    throw data_error(at + ": '" + key + "' must be >= 0 (got " + fmt::format("{}", v) + ")");
  return v;
}

Figure parse_default(const json& defs, const char* key, const std::string& origin) {
  const std::string at = origin + ": defaults." + key;
  return parse_figure(field<json>(defs, key, origin + ": defaults"), at);
}

std::optional<Figure> optional_default(const json& defs, const char* key,
                                       const std::string& origin) {
  if (!defs.is_object() || !defs.contains(key)) return std::nullopt;
  return parse_default(defs, key, origin);
}

CloudDefaults parse_defaults(const json& defs, const std::string& origin) {
  CloudDefaults d{parse_default(defs, "spot_ratio", origin),
                  optional_default(defs, "spot_availability", origin),
                  parse_default(defs, "commit_1y_discount", origin),
                  parse_default(defs, "commit_3y_discount", origin),
                  parse_default(defs, "storage_per_gb_month", origin),
                  parse_default(defs, "egress_per_gb", origin),
                  optional_default(defs, "instance_network", origin)};
  if (d.instance_network && !(d.instance_network->value > 0))
    throw data_error(origin + ": defaults.instance_network: value must be > 0 Gbit/s");
  return d;
}

// An offer's optional network: {gbps, rdma | nvlink_domain, source, as_of[, notes]}, as the
// schema has it: a rate comes with its transport unless the entry gives an NVLink domain.
template <typename J>
std::optional<InstanceNetwork> parse_network(const J& rec, const std::string& at) {
  const auto j = detail::present_ref(rec, "network");  // the record's own, not a copy
  if (!j) return std::nullopt;
  const std::string in = at + ": network";
  if (!j->is_object()) throw data_error(in + ": must be an object with gbps, rdma and source");
  InstanceNetwork n;
  n.nvlink_domain = detail::present<int>(*j, "nvlink_domain", in).value_or(0);
  if (j->contains("nvlink_domain") && (n.nvlink_domain < 2 || n.nvlink_domain > 1024))
    throw data_error(in + ": 'nvlink_domain' must be from 2 to 1024 GPUs");
  n.source = field<std::string>(*j, "source", in);
  n.as_of = date_field(*j, "as_of", in);
  n.notes = detail::present<std::string>(*j, "notes", in).value_or("");
  if (n.nvlink_domain && !j->contains("gbps")) return n;  // the rate beyond it: the default
  n.gbps = field<double>(*j, "gbps", in);
  if (!(n.gbps > 0) || !(n.gbps <= kMaxNetworkGbps))  // as the schema bounds it
    throw data_error(in + ": 'gbps' must be > 0 and at most " + fmt::format("{}", kMaxNetworkGbps) +
                     " (got " + fmt::format("{}", n.gbps) + ")");
  n.rdma = n.nvlink_domain ? detail::present<bool>(*j, "rdma", in).value_or(false)
                           : field<bool>(*j, "rdma", in);
  n.published = true;
  return n;
}

// On-demand may be null only for a spot-only offer, which then needs its spot price.
template <typename J>
void parse_prices(Offer& o, const J& rec, const std::string& at) {
  o.on_demand_per_hour = detail::present<double>(rec, "on_demand_per_hour", at);
  if (o.on_demand_per_hour &&
      (!(*o.on_demand_per_hour > 0) || !std::isfinite(*o.on_demand_per_hour)))
    throw data_error(at + ": 'on_demand_per_hour' must be > 0 (got " +
                     fmt::format("{}", *o.on_demand_per_hour) + ")");
  o.spot_per_hour = price(rec, "spot_per_hour", at);
  if (!o.on_demand_per_hour && !o.spot_per_hour)
    throw data_error(at +
                     ": an offer needs 'on_demand_per_hour', or 'spot_per_hour' for a spot-only "
                     "offer (both are null or absent)");
  o.monthly = price(rec, "monthly", at);
  o.commit_1y_per_hour = price(rec, "commit_1y_per_hour", at);
  o.commit_3y_per_hour = price(rec, "commit_3y_per_hour", at);
}

}  // namespace

// Checked reads throughout: a figure in a user's file is refused with its place, never an
// exception from the JSON library.
Figure parse_figure(const nlohmann::json& j, const std::string& at) {
  if (!j.is_object()) throw data_error(at + ": must be an object with value, range and source");
  Figure d;
  d.value = field<double>(j, "value", at);
  const auto range = field<std::vector<double>>(j, "range", at);
  if (range.size() != 2) throw data_error(at + ": 'range' must be [low, high]");
  d.low = range[0], d.high = range[1];
  check_figure_range(d, at);
  d.unit = field<std::string>(j, "unit", at);
  d.source = field<std::string>(j, "source", at);
  d.as_of = date_field(j, "as_of", at);
  return d;
}

void check_figure_range(const Figure& f, const std::string& at) {
  if (!(f.low <= f.value && f.value <= f.high))
    throw data_error(at + ": value " + fmt::format("{}", f.value) + " lies outside its range [" +
                     fmt::format("{}, {}", f.low, f.high) + "]");
}

template <typename J>
Offer detail::parse_offer_record(const J& rec, const std::string& at) {
  if (!rec.is_object()) throw data_error(at + ": an offer must be an object");
  Offer o;
  o.id = field<std::string>(rec, "id", at);
  o.provider = field<std::string>(rec, "provider", at);
  o.offer = field<std::string>(rec, "offer", at);
  o.gpu = field<std::string>(rec, "gpu", at);
  o.gpus_per_instance = field<int>(rec, "gpus_per_instance", at);
  if (o.gpus_per_instance < 1 || o.gpus_per_instance > kMaxGpusPerInstance)
    throw data_error(at + ": 'gpus_per_instance' must be from 1 to " +
                     std::to_string(kMaxGpusPerInstance));
  o.region = detail::present<std::string>(rec, "region", at).value_or("");
  o.currency = field<std::string>(rec, "currency", at);
  parse_prices(o, rec, at);
  o.billing = field<std::string>(rec, "billing", at);
  o.marketplace = detail::present<bool>(rec, "marketplace", at).value_or(false);
  o.as_of = date_field(rec, "as_of", at);
  o.source = field<std::string>(rec, "source", at);
  o.notes = detail::present<std::string>(rec, "notes", at).value_or("");
  o.network = parse_network(rec, at);
  return o;
}
template Offer detail::parse_offer_record(const json&, const std::string&);
template Offer detail::parse_offer_record(const json_detail::FlatValue&, const std::string&);

void detail::parse_cloud_top(Cloud& c, const json& doc, const std::string& origin, bool overlay) {
  c.has_defaults = !overlay || doc.contains("defaults");
  if (c.has_defaults) c.defaults = parse_defaults(field<json>(doc, "defaults", origin), origin);
  if (!overlay || doc.contains("reviewed")) c.reviewed = date_field(doc, "reviewed", origin);
}

// Ids (JSON, CSV); marked because sentences for people translate them (tr at the use).
const char* rent_kind_name(RentKind k) {
  switch (k) {
    case RentKind::on_demand:
      return N_("on-demand");
    case RentKind::spot:
      return N_("spot");
    case RentKind::monthly:
      return N_("monthly");
    case RentKind::commit_1y:
      return N_("commit-1y");
    case RentKind::commit_3y:
      return N_("commit-3y");
  }
  return "?";
}

void Cloud::reindex() const {
  index_.clear();
  index_.reserve(offers.size());
  for (std::size_t i = 0; i < offers.size(); ++i) index_.emplace(offers[i].id, i);
}

const Offer* Cloud::find(std::string_view id) const {
  if (index_.size() != offers.size()) reindex();
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto it = index_.find(std::string(id));
    if (it == index_.end()) return nullptr;
    if (it->second < offers.size() && offers[it->second].id == id) return &offers[it->second];
    reindex();  // the list changed since the index was built
  }
  return nullptr;
}

std::vector<const Offer*> Cloud::for_gpu(std::string_view gpu_id) const {
  std::vector<const Offer*> out;
  for (const auto& o : offers)
    if (o.gpu == gpu_id) out.push_back(&o);
  return out;
}

Cloud parse_cloud(const json& doc, const std::string& origin, bool overlay) {
  if (!doc.is_object() || !doc.contains("offers") || !doc["offers"].is_array())
    throw data_error(origin +
                     ": not a cloud offers file (expected an object with an 'offers' array)");
  Cloud c;
  c.origin = origin;
  detail::parse_cloud_top(c, doc, origin, overlay);
  const json& list = doc["offers"];
  std::unordered_map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = detail::record_at(origin, "offers", i, list[i]);
    Offer o = detail::parse_offer_record(list[i], at);
    if (!seen.emplace(o.id, i).second) throw data_error(at + ": duplicate offer id");
    c.offers.push_back(std::move(o));
  }
  c.reindex();
  return c;
}

void merge_cloud(Cloud& base, const Cloud& overlay) {
  if (overlay.has_defaults) base.defaults = overlay.defaults;
  std::unordered_map<std::string, std::size_t> at;
  for (std::size_t i = 0; i < base.offers.size(); ++i) at.emplace(base.offers[i].id, i);
  for (const auto& o : overlay.offers) {
    if (auto it = at.find(o.id); it != at.end()) {
      base.offers[it->second] = o;
    } else {
      at.emplace(o.id, base.offers.size());
      base.offers.push_back(o);
    }
  }
  base.origin += " + " + overlay.origin;
  base.reindex();
}

void check_offer_gpus(const Cloud& cloud, const Catalog& catalog) {
  for (const auto& o : cloud.offers) {
    if (catalog.find(o.gpu)) continue;
    std::string msg = cloud.origin + ": offer " + quote_input(o.id) + ": unknown GPU id '" +
                      quote_input(o.gpu) + "'";
    auto near = nearest(o.gpu, catalog.ids(), 1);
    if (!near.empty()) msg += " (did you mean " + near.front() + "?)";
    throw data_error(msg + "; offers must name a GPU of the catalog (" + catalog.origin + ")");
  }
}

Cloud load_cloud_file(const std::string& path, bool overlay, const Catalog* catalog) {
  if (path.empty() && !overlay)  // the build's snapshot of the shipped offers
    if (auto shipped = snapshot_cloud(shipped_snapshot())) return std::move(*shipped);
  if (path.empty())
    return cloud_from_text(load_text(path, "data/cloud.json"), "embedded data/cloud.json", overlay,
                           catalog, true);
  const auto text = InputText::read(path);  // a large file without a second copy
  return cloud_from_text(text->view(), path, overlay, catalog, false);
}

// The embedded offers are checked in CI and read without the schema; a user's file goes
// through every check `catalog validate` runs (GPU ids against `catalog` when given) and is
// refused at its first error, located.
Cloud cloud_from_text(std::string_view text, const std::string& origin, bool overlay,
                      const Catalog* catalog, bool trusted) {
  Cloud c;
  c.origin = origin;
  detail::DocumentSink sink;
  sink.top = [&](const json& top) { detail::parse_cloud_top(c, top, origin, overlay); };
  // Each offer to its own place: a long list is read on several threads (document_waves.hpp).
  sink.size = [&c](std::size_t count) {
    c.offers.reserve(count);
    advise_huge_pages(c.offers.data(), count * sizeof(Offer));
  };
  sink.grow = [&c](std::size_t count) { c.offers.resize(count); };
  sink.record = [&c](std::size_t i, const json& rec, const std::string& at, detail::Span) {
    c.offers[i] = detail::parse_offer_record(rec, at);
  };
  sink.record_flat = [&c](std::size_t i, const json_detail::FlatValue& rec, const std::string& at,
                          detail::Span) { c.offers[i] = detail::parse_offer_record(rec, at); };
  detail::PassOptions pass;
  pass.expected = &detail::offers_kind();
  pass.trusted = trusted;
  pass.overlay = overlay;
  pass.errors_only = true;
  const ValidateOptions opt{today_iso(), catalog};
  detail::throw_first_error(detail::check_document(text, origin, opt, pass, &sink), origin);
  c.reindex();
  return c;
}

Cloud load_cloud(const CloudPaths& paths) {
  Cloud c = load_cloud_file(paths.cloud, false);
  for (const auto& overlay : paths.cloud_add) merge_cloud(c, load_cloud_file(overlay, true));
  return c;
}

std::size_t drop_offers_without_gpu(Cloud& cloud, const Catalog& catalog) {
  const std::size_t n =
      std::erase_if(cloud.offers, [&](const Offer& o) { return !catalog.find(o.gpu); });
  cloud.reindex();
  return n;
}

InstanceNetwork instance_network(const Offer& o, const CloudDefaults& d) {
  if (o.network && o.network->published) return *o.network;
  // The shipped default, read only when a file without its own is used.
  const auto shipped = [] {
    static const Figure f = *load_cloud_file("", false).defaults.instance_network;
    return f;
  };
  const Figure f = d.instance_network ? *d.instance_network : shipped();
  return {f.value,
          false,
          f.source,
          f.as_of,
          "defaults.instance_network",
          false,
          o.network ? o.network->nvlink_domain : 0};
}

std::optional<EffectivePrice> effective_price(const Offer& o, RentKind kind,
                                              const CloudDefaults& d) {
  // A spot-only offer has no on-demand price to apply a default to.
  const double od = o.on_demand_per_hour.value_or(0);
  auto spot = [&](double ratio) {
    return EffectivePrice{od * ratio, false, trf("default: {:.2f} x on-demand", ratio)};
  };
  auto commit = [&](double discount) -> std::optional<EffectivePrice> {
    if (o.spot_only()) return std::nullopt;
    return EffectivePrice{od * (1 - discount), false,
                          trf("default: {:.0f} % off on-demand", discount * 100)};
  };
  auto published = [](double v) { return EffectivePrice{v, true, tr("published")}; };
  switch (kind) {
    case RentKind::on_demand:
      if (o.spot_only()) return std::nullopt;
      return published(od);
    case RentKind::spot:
      return o.spot_per_hour ? published(*o.spot_per_hour) : spot(d.spot_ratio.value);
    case RentKind::monthly:
      if (!o.monthly) return std::nullopt;
      return EffectivePrice{*o.monthly / kHoursPerMonth, true, "published monthly"};
    case RentKind::commit_1y:
      return o.commit_1y_per_hour ? published(*o.commit_1y_per_hour)
                                  : commit(d.commit_1y_discount.value);
    case RentKind::commit_3y:
      return o.commit_3y_per_hour ? published(*o.commit_3y_per_hour)
                                  : commit(d.commit_3y_discount.value);
  }
  return std::nullopt;
}

}  // namespace gpusel
