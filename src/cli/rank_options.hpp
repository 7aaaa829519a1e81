#pragma once
// Flags shared by `recommend`, `check` and `compare`: the workload plus money, filters,
// weights and rules, resolved into a RankRequest.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/workload_options.hpp"
#include "gpusel/rank/ranker.hpp"

namespace gpusel::cli {

// The largest configuration --max-gpus and --count accept: clusters of nodes (issue 9).
constexpr int kMaxGpus = kMaxGpuCount;  // memory/workload.hpp

struct RankArgs {
  WorkloadArgs workload;
  std::string budget, currency, weights = "compute=0.4,budget=0.4,ecosystem=0.2", reserve;
  std::string tokens, dataset_tokens, os, market;
  double epochs = 1;
  std::vector<std::string> vendors, ecosystems, segments, exclude, rules_files;
  double min_vram = 0;
  std::optional<double> host_ram;  // --host-ram; none: not given
  int max_gpus = 8;
  bool require_interconnect = false, new_only = false, include_used = false, domestic = false;
  bool cards_only = false;
  std::string format = "table";
  bool explain = false;
};

// Everything but the filters and the budget (check/compare take a GPU instead).
void add_evaluation_options(CLI::App* cmd, RankArgs& a);
// Budget, filters, --max-gpus, --top's companions for `recommend`.
void add_search_options(CLI::App* cmd, RankArgs& a);

struct Session {
  RankRequest request;
  RuleSet rules;
  Rates rates;
  std::vector<std::string> assumptions;  // what gpusel chose for the user, in words
  std::string currency_origin;           // " (from LANG=zh_CN.UTF-8)" or ""
  std::string budget_note;               // a bare budget read in the locale's currency
};

// `with_workload` false: prices, filters and rules only (plot --metric charts the catalog).
Session resolve_session(const RankArgs& a, bool with_workload = true);

// The work to do in tokens (--tokens, or --dataset-tokens x --epochs); nullopt if neither.
std::optional<double> work_tokens(const RankArgs& a);

}  // namespace gpusel::cli
