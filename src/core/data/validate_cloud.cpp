// Semantic checks of cloud offers: GPU ids that exist, prices that make sense, dates.
#include <cmath>

#include "gpusel/base/text.hpp"
#include "validate_internal.hpp"

namespace gpusel::detail {
namespace {

using nlohmann::json;

// Cloud prices move monthly (KNOWLEDGE K29): a six-month-old one is worth a second look.
constexpr long kCloudPriceMaxAgeDays = 183;
constexpr std::size_t kMaxSuggestions = 20;

// One lookup per field, not contains() and then operator[] (two or three map searches).
template <typename J>
double num(const J& rec, const char* key) {
  const auto it = rec.find(key);
  return it != rec.end() && it->is_number() ? it->template get<double>() : NAN;
}

double item(const json& list, std::size_t i) {
  return list.size() > i && list[i].is_number() ? list[i].get<double>() : NAN;
}

template <typename J>
void check_gpu_ref(const J& o, const std::string& p, const Catalog* gpus, Findings& f) {
  if (!gpus) return;
  const auto it = o.find("gpu");
  if (it == o.end() || !it->is_string()) return;
  const std::string_view id = json_detail::text_of(*it);
  if (gpus->find(id)) return;
  std::string msg = "unknown GPU id '" + quote_input(id) + "'";
  // Suggestions cost a pass over the catalog each: only for the first few unknown ids.
  if (f.worded() && f.errors() < kMaxSuggestions) {
    auto near = nearest(id, gpus->ids(), 1);
    if (!near.empty()) msg += " (did you mean " + near.front() + "?)";
  }
  f.error(p + "/gpu", "gpu-ref", msg + "; offers must name a catalog GPU");
}

template <typename J>
void check_price_order(const J& o, const std::string& p, Findings& f) {
  const double od = num(o, "on_demand_per_hour");
  // A spot-only offer (on-demand null) stands on its spot price; an offer needs one of them.
  auto null = [&](const char* k) {
    const auto it = o.find(k);
    return it == o.end() || it->is_null();
  };
  if (null("on_demand_per_hour") && null("spot_per_hour"))
    f.error(p + "/on_demand_per_hour", "price-missing",
            "neither an on-demand nor a spot price: a spot-only offer needs spot_per_hour");
  for (const char* key : {"spot_per_hour", "commit_1y_per_hour", "commit_3y_per_hour"}) {
    const double v = num(o, key);
    if (!std::isnan(v) && !std::isnan(od) && v > od)
      f.error(p + "/" + key, "price-order",
              std::string(key) + " is above the on-demand price: discounts only go down");
  }
  const double y1 = num(o, "commit_1y_per_hour"), y3 = num(o, "commit_3y_per_hour");
  if (!std::isnan(y1) && !std::isnan(y3) && y3 > y1)
    f.warning(p + "/commit_3y_per_hour", "price-order", "3-year commitment dearer than 1-year");
}

template <typename J>
void check_age(const J& o, const std::string& p, const std::string& as_of, Findings& f) {
  const auto it = o.find("as_of");
  if (it == o.end() || !it->is_string()) return;
  const std::string date(json_detail::text_of(*it));
  if (!is_date(date)) return;  // the schema reports it
  const long age = days_between(date, as_of);
  if (age < 0) f.warning(p + "/as_of", "price-date", "dated after the as-of date " + as_of);
  if (age > kCloudPriceMaxAgeDays)
    f.warning(p + "/as_of", "price-age",
              "price from " + date + " is " + std::to_string(age / 30) + " months old (as of " +
                  as_of + "): cloud prices move both ways, recheck it");
}

// The schema cannot compare a value with its own range, so the loader's rule lives here too.
void check_defaults(const json& doc, Findings& f) {
  if (!doc.contains("defaults") || !doc["defaults"].is_object()) return;
  for (const auto& [key, d] : doc["defaults"].items()) {
    if (!d.is_object() || !d.contains("range") || !d["range"].is_array() || d["range"].size() != 2)
      continue;
    const double v = num(d, "value"), lo = item(d["range"], 0), hi = item(d["range"], 1);
    if (std::isnan(v) || std::isnan(lo) || std::isnan(hi)) continue;
    const std::string p = "/defaults/" + key;
    if (lo > hi)
      f.error(p + "/range", "default-range", "range low is above range high");
    else if (v < lo || v > hi)
      f.error(p + "/value", "default-range",
              "default " + key + " lies outside its own range [" + json(lo).dump() + ", " +
                  json(hi).dump() + "]");
  }
}

}  // namespace

void check_cloud_top(const json& outline, const ValidateOptions&, Findings& f) {
  check_defaults(outline, f);
}

template <typename J>
void check_offer_record(const J& o, const std::string& p, const ValidateOptions& opt, Findings& f) {
  if (!o.is_object()) return;  // the schema reports it
  check_gpu_ref(o, p, opt.gpus, f);
  check_price_order(o, p, f);
  if (!f.errors_only()) check_age(o, p, opt.as_of, f);  // warnings only
}
template void check_offer_record(const json&, const std::string&, const ValidateOptions&,
                                 Findings&);
template void check_offer_record(const json_detail::FlatValue&, const std::string&,
                                 const ValidateOptions&, Findings&);

}  // namespace gpusel::detail
