#pragma once
// The last stage: one function per command, each returning one answer struct that holds
// everything the command shows (results, remedies, notes). The CLI parses flags into a
// request, calls the function and renders the struct; it decides nothing.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpusel/base/input_text.hpp"
#include "gpusel/cost/rent.hpp"
#include "gpusel/data/validate.hpp"
#include "gpusel/memory/fit.hpp"
#include "gpusel/rank/ranker.hpp"

namespace gpusel {

// What the answers read besides the request. `cloud` may be null for commands that rent
// nothing (check, compare, recommend without --rent/--compare-rent).
struct Sources {
  const Catalog& catalog;
  std::function<const Cloud*()> cloud;  // loaded on first use; may be empty or return null
  const RuleSet& rules;
  const Rates& rates;
  const Cloud* offers() const { return cloud ? cloud() : nullptr; }
};

// A way out when nothing fits, in the order a user tries them: a lighter workload that an
// affordable configuration runs (re-ranked with every filter, rule and the budget), renting,
// then the nearest purchase over budget.
struct Remedy {
  enum class Kind { change, rent, over_budget };
  Kind kind = Kind::change;
  std::string change;                  // change: the flags, e.g. "--mode qlora"
  std::optional<Result> purchase;      // change: the best configuration then; over_budget: it
  double over_by = 0;                  // over_budget: price - budget
  std::optional<RentalOption> rental;  // rent: the cheapest fitting offer
};

// --compare-rent: renting the same work as one bought configuration.
struct RentComparison {
  std::optional<RentalOption> rental;       // nullopt: no offer fits
  bool offered = false;                     // the cloud has offers for this GPU at all
  std::optional<double> hours_to_purchase;  // on-demand hours that cost the purchase
};

struct RecommendQuery {
  RankRequest request;
  int top = 10;
  bool compare_rent = false;
  RentalRequest rental;  // with compare_rent
};

struct RecommendAnswer {
  Estimate one_gpu_need;                     // the workload on one card, for the header
  Ranking ranking;                           // everything considered
  std::vector<Result> top;                   // the first `top` results
  std::vector<Remedy> remedies;              // only when nothing passes
  std::vector<RentComparison> compare_rent;  // one per top result, with compare_rent
  std::vector<std::string> compare_rent_notes;
  bool converted_prices = false;  // a shown price came through the rates table
  // With --tokens (a job) and no --compare-rent: renting the first result's work, when that
  // costs less than buying it (a one-off job rarely pays for hardware).
  std::optional<RentalOption> job_rental;
  // Training with a micro-batch of 4 or more: of the smaller micro-batches with gradient
  // accumulation (the same samples per GPU per optimizer step) whose best configuration is
  // another, faster one, the fastest (ViT-L at --batch 256 fits only unified-memory boxes,
  // DGX Spark first at 109 img/s; 64 x 4 puts an RTX 4090 first at 261).
  struct Accumulation {
    int batch = 1, grad_accum = 1;
    Result best;
  };
  std::optional<Accumulation> accumulation;
  // Inference of a mixture of experts: the same model with the routed experts of some layers
  // in host RAM (llama.cpp --n-cpu-moe), on one card, where that is cheaper than the first
  // result or nothing else passes (gpt-oss-120b on one 24 GB card and 41 GiB of RAM).
  struct ExpertsInRam {
    int cpu_moe = 0;  // --n-cpu-moe N (kCpuMoeAll: --cpu-moe)
    Result best;
  };
  std::optional<ExpertsInRam> experts_in_ram;
};

RecommendAnswer recommend(const Sources& src, const RecommendQuery& q);

struct RentAnswer {
  Estimate one_gpu_need;
  RentalRanking ranking;
  std::vector<RentalOption> shown;  // the first `top` options
  std::vector<std::string> notes;
  std::optional<double> hours;           // the job length asked (--hours), if any
  bool converted_prices = false;         // a shown offer is priced in another currency
  std::optional<double> deadline_hours;  // a job's (--deadline-days, or the default)
  bool deadline_default = false;         // data/scoring.json's job_deadline_days
};

// `recommend --rent`: the cloud offers that fit the workload, cheapest job first.
RentAnswer rent(const Sources& src, const RankRequest& req, const RentalRequest& rr, int top);

struct CheckAnswer {
  Result result;
  bool room = false;                // the need is within usable memory
  bool fits = false;                // room, and no rule excludes it but as a purchase
  bool purchase_only = false;       // a rule excludes buying these cards, not running on them
  std::string verdict;              // "fits" | "excluded" | "does not fit"
  std::optional<FitChange> remedy;  // the first K37 change that fits, when it does not
};

CheckAnswer check(const Sources& src, const RankRequest& req, const Gpu& gpu, int count);

struct CompareAnswer {
  Estimate one_gpu_need;
  std::vector<Result> results;  // in the order asked; cards that do not fit score 0
  std::vector<bool> fits;       // per result: the need is within usable memory
  bool converted_prices = false;
};

// Configurations side by side, each `count` cards of `gpu` ("2x rtx-3090" beside "rtx-a6000").
struct CardCount {
  const Gpu* gpu = nullptr;
  int count = 1;
};
CompareAnswer compare(const Sources& src, const RankRequest& req,
                      const std::vector<CardCount>& configs);

// ---- catalog list / catalog validate ----

struct GpuFilter {
  std::string vendor, segment;  // "" = any; case-insensitive
  double min_vram_gb = 0;
};

struct CatalogListAnswer {
  std::vector<const Gpu*> gpus;  // those passing the filter, in catalog order
  std::size_t total = 0;         // cards in the catalog
};

CatalogListAnswer list_gpus(const Catalog& catalog, const GpuFilter& filter);

// The newest dated price entry of a card, whatever its kind; nullptr when it has none.
const Price* latest_price(const Gpu& gpu);

struct DataFile {
  std::string name;
  std::shared_ptr<const InputText> text;
};

struct FileSummary {
  std::string name;
  int errors = 0, warnings = 0, notes = 0;
};

struct ValidateAnswer {
  ValidationReport report;  // every file's diagnostics, in file order
  std::vector<FileSummary> files;
  bool passed = false;
  std::string as_of;  // the date prices were aged against
};

// `catalog validate`: each file (none given: the embedded gpus, cloud and models files),
// recognised by its top-level list; cloud offers are checked against the catalog's GPU ids
// (loaded only when an offers file is validated). `as_of`: YYYY-MM-DD or "reviewed".
ValidateAnswer validate_data(std::vector<DataFile> files,
                             const std::function<const Catalog&()>& catalog,
                             const std::string& as_of, bool strict);

}  // namespace gpusel
