// Price and cloud coverage of the catalog, as issue 13 measures it: read from the data files'
// JSON (catalog status reports files it does not otherwise load).
#include <set>

#include "gpusel/answer/data_status.hpp"
#include "gpusel/data/validate.hpp"

namespace gpusel {
namespace {

using nlohmann::json;

std::string text_of(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

// A price a buyer can act on today: a market price or estimate within a year, or a launch
// price within two years (an older MSRP is history, not a price).
bool current_price(const json& p, const std::string& as_of) {
  const std::string kind = text_of(p, "kind"), date = text_of(p, "as_of");
  if (!is_date(date)) return false;
  const long age = days_between(date, as_of);
  if (kind == "msrp") return age <= kMsrpCurrentDays;
  return (kind == "street" || kind == "used" || kind == "estimate" || kind == "quote") &&
         age <= kPriceMaxAgeDays;
}

bool priced(const json& gpu, const std::string& as_of) {
  if (!gpu.contains("prices") || !gpu["prices"].is_array()) return false;
  for (const auto& p : gpu["prices"])
    if (current_price(p, as_of)) return true;
  return false;
}

}  // namespace

Coverage data_coverage(const json& gpus, const json& cloud, const std::string& as_of) {
  std::set<std::string> rented;
  if (cloud.contains("offers") && cloud["offers"].is_array())
    for (const auto& o : cloud["offers"]) rented.insert(text_of(o, "gpu"));
  Coverage c;
  if (!gpus.contains("gpus") || !gpus["gpus"].is_array()) return c;
  for (const auto& g : gpus["gpus"]) {
    const std::string id = text_of(g, "id");
    ++c.cards;
    if (priced(g, as_of))
      ++c.priced;
    else
      c.unpriced.push_back(id);
    if (text_of(g, "segment") != "datacenter") continue;
    ++c.datacenter;
    if (rented.count(id))
      ++c.offered;
    else
      c.no_offer.push_back(id);
  }
  return c;
}

}  // namespace gpusel
