#pragma once
// The data a buyer acts on, and how fresh it is: `gpusel cloud list` (the offers, with their
// age) and `gpusel catalog status` (each dataset's review date, what is past its freshness
// limit and where to refresh it). One answer struct per command; the CLI renders them.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpusel/data/cloud.hpp"

namespace gpusel {

// Freshness limits, in days: the project's policy (CONTRIBUTING.md), the same limits
// `catalog validate` warns at.
constexpr long kPriceMaxAgeDays = 365;  // street, used, estimate and quote card prices
constexpr long kOfferMaxAgeDays = 183;  // cloud offers: six months
constexpr long kRatesMaxAgeDays = 31;   // exchange rates: a month
constexpr long kReviewMaxAgeDays = 92;  // every dataset is reviewed each quarter

// ---- cloud list ----

struct CloudListQuery {
  std::string gpu, provider;  // "" = any; the GPU id must exist, the provider must have offers
  std::string as_of;          // YYYY-MM-DD the ages are measured to; "" = today
};

struct CloudOfferRow {
  const Offer* offer = nullptr;
  std::optional<double> per_gpu_hour;  // on-demand / GPUs per instance; none: spot only
  long age_days = 0;                   // from the offer's as_of to the query's
  bool past_limit = false;             // older than kOfferMaxAgeDays
  InstanceNetwork network;             // between its instances (published, else the default)
};

struct CloudListAnswer {
  std::vector<CloudOfferRow> offers;  // by GPU id, then on-demand per GPU-hour (spot-only last)
  std::size_t total = 0;              // offers in the data
  std::string as_of, origin, reviewed;
  int past_limit = 0;
};

// Error(usage) for an unknown GPU id (with suggestions) or a provider with no offers (listing
// the providers), or a malformed as_of.
CloudListAnswer list_cloud(const Cloud& cloud, const Catalog& catalog, const CloudListQuery& q);

// ---- catalog status ----

struct StaleEntry {
  std::string what;  // "rtx-3080 street price", "aws-p4d.24xlarge-us-east-1"
  std::string as_of;
  long age_days = 0;
};

struct DatasetStatus {
  std::string file, what;         // "data/gpus.json", "GPU catalog"
  std::string reviewed;           // the file's review date ("" when it has none)
  long review_age_days = -1;      // -1 without a review date
  bool review_due = false;        // reviewed more than kReviewMaxAgeDays ago (or never)
  int dated = 0;                  // entries with a date that can age
  long limit_days = 0;            // 0: these entries are facts that do not age
  std::string limit;              // "street/used/estimate/quote prices: 12 months"
  std::string oldest;             // oldest entry date ("" when none)
  std::vector<StaleEntry> stale;  // entries past the limit, oldest first
  std::string refresh;            // where the data comes from and how to refresh it
};

// What a buyer can act on (issue 13's measures): cards with a current price (street, used,
// estimate or quote within kPriceMaxAgeDays, or a launch MSRP within kMsrpCurrentDays) and
// datacenter cards some cloud offer rents.
constexpr long kMsrpCurrentDays = 730;
struct Coverage {
  int cards = 0, priced = 0, datacenter = 0, offered = 0;
  std::vector<std::string> unpriced, no_offer;  // catalog ids, in catalog order
};
Coverage data_coverage(const nlohmann::json& gpus, const nlohmann::json& cloud,
                       const std::string& as_of);

struct CatalogStatusAnswer {
  std::string as_of;
  std::vector<DatasetStatus> datasets;
  Coverage coverage;
  int stale_entries = 0, reviews_due = 0;
  bool fresh() const { return stale_entries == 0 && reviews_due == 0; }
};

// A user's data file: its path (for messages) and its text.
struct DataFileText {
  std::string path, text;
};
// What the user put in place of the embedded data: `replaced` maps a dataset ("data/gpus.json")
// to the file that replaces it (--catalog, --cloud); `added` to the overlays laid over it in
// order (--catalog-add, --cloud-add: records replace those with the same id or join them).
struct StatusInputs {
  std::map<std::string, DataFileText> replaced;
  std::map<std::string, std::vector<DataFileText>> added;
};

// Every embedded data file (data/*.json) as the inputs change them. Error(usage) on a
// malformed as_of, Error(data) naming the user's file when one cannot be parsed.
CatalogStatusAnswer catalog_status(const std::string& as_of, const StatusInputs& in = {});

}  // namespace gpusel
