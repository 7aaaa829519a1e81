// Loading the owning-cost defaults (data/ownership.json) and power prices (data/kwh_prices.json).
#include <fmt/format.h>
#include <cmath>

#include "gpusel/base/error.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/data/ownership.hpp"
#include "gpusel/data/validate.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_schema.hpp"

namespace gpusel {
namespace {

using nlohmann::json;

SegmentResale parse_segment(const json& j, const std::string& at) {
  SegmentResale r{parse_figure(j.at("residual_1y"), at + ".residual_1y"), std::nullopt};
  if (j.contains("selling_cost"))
    r.selling_cost = parse_figure(j.at("selling_cost"), at + ".selling_cost");
  if (j.contains("selling_cost_tier")) {
    const json& t = j.at("selling_cost_tier");
    r.above_usd = t.at("above_usd").get<double>();
    r.rate_above = t.at("rate").get<double>();
  }
  return r;
}

KwhPrice parse_kwh(const json& j, const std::string& at) {
  try {
    KwhPrice p{j.at("currency").get<std::string>(), j.value("region", ""),
               j.at("as_of").get<std::string>(), j.value("source", ""),
               j.at("per_kwh").get<double>()};
    if (!(p.per_kwh > 0) || !std::isfinite(p.per_kwh))
      throw data_error(at + ": 'per_kwh' must be > 0");
    if (!is_date(p.as_of)) throw data_error(at + ": 'as_of' is not a date YYYY-MM-DD");
    return p;
  } catch (const json::exception& e) {
    throw data_error(at + ": " + e.what());
  }
}

}  // namespace

const SegmentResale& Ownership::for_segment(const std::string& segment) const {
  auto it = segments.find(segment);
  if (it == segments.end())
    throw data_error(origin + ": no resale figure for segment '" + segment + "'");
  return it->second;
}

Ownership parse_ownership(const json& doc, const std::string& origin) {
  static const json schema = json::parse(embedded_text("data/schema/ownership.schema.json"));
  require_schema(schema, doc, origin);
  Ownership o;
  o.origin = origin;
  o.reviewed = doc.at("reviewed").get<std::string>();
  if (doc.contains("hosting")) {
    const json& h = doc.at("hosting");
    o.hosting = Hosting{
        parse_figure(h.at("colocation_per_kw_month"), origin + ": hosting.colocation_per_kw_month"),
        parse_figure(h.at("pue"), origin + ": hosting.pue")};
  }
  for (const auto& [segment, v] : doc.at("segments").items())
    o.segments[segment] = parse_segment(v, origin + ": segments." + segment);
  return o;
}

Ownership load_ownership(const std::string& path) {
  const std::string origin = path.empty() ? "embedded data/ownership.json" : path;
  return parse_ownership(parse_json_text(load_text(path, "data/ownership.json"), origin), origin);
}

std::vector<KwhPrice> parse_kwh_prices(const json& doc, const std::string& origin) {
  if (!doc.is_object() || !doc.contains("prices") || !doc["prices"].is_array())
    throw data_error(origin + ": not a power price table (expected a 'prices' array)");
  std::vector<KwhPrice> out;
  for (std::size_t i = 0; i < doc["prices"].size(); ++i)
    out.push_back(parse_kwh(doc["prices"][i], origin + ": prices[" + std::to_string(i) + "]"));
  return out;
}

std::vector<KwhPrice> load_kwh_prices() {
  const std::string origin = "embedded data/kwh_prices.json";
  return parse_kwh_prices(parse_json_text(load_text("", "data/kwh_prices.json"), origin), origin);
}

}  // namespace gpusel
