// Semantic checks of data/platforms.json beyond its schema: figures within their own range,
// networks that exist, PSU steps in order, and prices that have not gone stale.
#include <string>

#include "validate_internal.hpp"

namespace gpusel::detail {
namespace {

using nlohmann::json;

// Host and network prices move more slowly than card prices: two years before a warning.
constexpr long kStaleDays = 730;

void check_figure(const json& fig, const std::string& at, const std::string& as_of,
                  Findings& f) {
  if (!fig.is_object() || !fig.contains("value") || !fig["value"].is_number() ||
      !fig.contains("range") || !fig["range"].is_array() || fig["range"].size() != 2)
    return;  // the schema reports it
  const double v = fig["value"].get<double>();
  const json& r = fig["range"];
  if (r[0].is_number() && r[1].is_number() &&
      !(r[0].get<double>() <= v && v <= r[1].get<double>()))
    f.error(at + "/value", "range", "value lies outside its own range");
  if (fig.contains("as_of") && fig["as_of"].is_string() && is_date(fig["as_of"].get<std::string>())) {
    const std::string date = fig["as_of"].get<std::string>();
    const long age = days_between(date, as_of);
    if (age < 0) f.error(at + "/as_of", "price-age", "dated in the future (" + date + ")");
    if (age > kStaleDays)
      f.warning(at + "/as_of", "price-age",
                "price from " + date + " is over two years old: refresh it");
  }
}

}  // namespace

void check_platform_semantics(const json& doc, const std::string& as_of, Findings& f) {
  if (doc.contains("networks") && doc["networks"].is_array()) {
    check_unique_ids(doc["networks"], "/networks", f);
    for (std::size_t i = 0; i < doc["networks"].size(); ++i)
      check_figure(doc["networks"][i].value("cost_per_gpu", json()),
                   "/networks/" + std::to_string(i) + "/cost_per_gpu", as_of, f);
  }
  const json& list = doc["platforms"];
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = "/platforms/" + std::to_string(i);
    if (!list[i].is_object()) continue;
    check_figure(list[i].value("cost", json()), at + "/cost", as_of, f);
    if (list[i].contains("network") && list[i]["network"].is_string()) {
      const std::string net = list[i]["network"].get<std::string>();
      bool found = false;
      for (const auto& n : doc.value("networks", json::array()))
        found = found || (n.is_object() && n.value("id", "") == net);
      if (!found) f.error(at + "/network", "network", "unknown network '" + net + "'");
    }
  }
}

}  // namespace gpusel::detail
