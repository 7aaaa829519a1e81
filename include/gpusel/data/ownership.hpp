#pragma once
// Owning-cost defaults (data/ownership.json: resale after a year per catalog segment) and
// electricity prices (data/kwh_prices.json), parsed and checked.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpusel/data/cloud.hpp"

namespace gpusel {

struct SegmentResale {
  Figure residual_1y;  // share of the purchase price left after 12 months
  // Share of a sale's price the seller loses to selling (a marketplace's fee); none: 0.
  std::optional<Figure> selling_cost;
  // A marketplace's fee is per item and tiered: selling_cost up to `above_usd` of an item's
  // sale, `rate_above` on the rest (eBay: 13.6 % to 7,500 USD, 2.35 % above). 0: flat.
  double above_usd = 0, rate_above = 0;
};

// Hosting a data-centre server (ownership.json hosting): colocation per kW of IT load per
// month, and the facility's PUE on its energy.
struct Hosting {
  Figure colocation_per_kw_month, pue;
};

// The host system itself is a platform (data/platforms.json); this file holds resale.
struct Ownership {
  std::string origin, reviewed;
  std::optional<Hosting> hosting;                                      // none: not counted
  std::map<std::string, SegmentResale> segments;                       // by catalog segment
  const SegmentResale& for_segment(const std::string& segment) const;  // Error(data) if absent
};

// Checks the document against data/schema/ownership.schema.json and low <= value <= high;
// Error(data) naming origin and the first problem.
Ownership parse_ownership(const nlohmann::json& doc, const std::string& origin);
Ownership load_ownership(const std::string& path);  // "" = the embedded file

struct KwhPrice {
  std::string currency, region, as_of, source;
  double per_kwh = 0;
};
std::vector<KwhPrice> parse_kwh_prices(const nlohmann::json& doc, const std::string& origin);
std::vector<KwhPrice> load_kwh_prices();  // the embedded file

}  // namespace gpusel
