#pragma once
// The ranker: every catalog card as one card and as multi-card configurations, sized by
// the memory estimator, priced, run through the rules, scored and sorted.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpusel/data/catalog.hpp"
#include "gpusel/data/money.hpp"
#include "gpusel/data/platforms.hpp"
#include "gpusel/memory/estimator.hpp"
#include "gpusel/memory/fit.hpp"
#include "gpusel/memory/workload.hpp"
#include "gpusel/rank/rules.hpp"
#include "gpusel/speed/throughput.hpp"

namespace gpusel {

struct Weights {
  double compute = 0.4, budget = 0.4, ecosystem = 0.2;
};
// "compute=0.5,budget=0.3,ecosystem=0.2" (any subset; normalised to sum 1). Error(usage).
Weights parse_weights(const std::string& text);

struct Filters {
  std::vector<std::string> vendors, ecosystems, segments, exclude_ids;
  double min_vram_gb = 0;
  bool require_interconnect = false;  // multi-card configs must share a fast link
};

struct RankRequest {
  Workload workload;  // gpus/shard are chosen per configuration (on_gpus) unless shard_given
  std::optional<double> budget;  // in price.currency
  PricePolicy price;
  Filters filters;
  Weights weights;
  int max_gpus = 8;
  Reserve reserve;          // memory kept free on every card (fit.hpp)
  bool cards_only = false;  // the user owns the host: price the cards alone
  // The system RAM of the user's own host, GB (--host-ram; 0: not stated): what is offloaded
  // must fit in it beside the OS reserve (rule host-ram-short). Given, the host is the user's.
  double host_ram_gb = 0;
  // Where the buyer buys (--market): "cn" (mainland China) or "global"; cards sold only in
  // one market are bought only there (rule china-market-sku).
  std::string market = "global";
  // Purchases only as whole boards (rule whole-boards-only); serve sets it false: it packs
  // its replicas into hosts itself.
  bool whole_boards = true;
  std::optional<double> tokens;  // work to do, for time to finish
  bool domestic = false;
  std::optional<double> run_hours;  // known job length, for rules about long runs
  bool keep_passed = false;         // fill Ranking::passed (plot): a copy of every fitting result
  // How many of the ranked results and of the over-budget ones rank() returns in full (the
  // rest are counted in Ranking::ranked, never built): recommend asks for what it shows.
  std::size_t shown = static_cast<std::size_t>(-1);
  // Of the over-budget ones, at most this many are returned in full (recommend offers the two
  // cheapest, and only when nothing fits the budget).
  std::size_t shown_over_budget = static_cast<std::size_t>(-1);
};

// The ranking formula's constants, from data/scoring.json (README: "How configurations are
// scored").
struct ScoringConstants {
  std::map<std::string, double> ecosystem_base;  // 0-100 per ecosystem
  double compute_decades = 2;       // a score falls 100/decades points per 10x below the best
  double budget_value_share = 0.7;  // budget score: value share, rest = unspent budget share
  double job_deadline_days = 30;    // a rented job longer than this spreads out or ranks last
};
const ScoringConstants& scoring_constants();

struct Scores {
  double compute = 0, budget = 0, ecosystem = 0, total = 0;
  // What the compute and budget scores were measured against: the fastest configuration
  // and the best tokens/s per unit of money among all that were scored together.
  double best_speed = 0, best_value = 0;
  // The tokens/s scored: the configuration's, but for training with no amount of work given
  // (untimed) on more cards than it needs (one holds it; a board of 8 bought whole), one card's
  // share: the speed of the rest was not asked for (rule multi-gpu-not-needed), their price was.
  double speed = 0;
};

struct Config {
  const Gpu* gpu = nullptr;
  int count = 1;
  bool linked = false;       // all cards share the GPU's fast interconnect
  std::string interconnect;  // "NVLink 900 GB/s", "PCIe 4.0 x16", "unified memory"
  Shard shard = Shard::none;
  bool rented = false;  // a cloud instance: no platform to buy, no purchase caveats
  std::string split;    // parallel_label: "fsdp", or "tp 4 x pp 4 x dp 4 zero1" under --tp/--pp
  // Separate machines of this many GPUs over their own network (several rented instances);
  // nullopt: the card's own nodes (node_size, its cluster network).
  std::optional<NodeNetwork> nodes;
};

struct Result {
  Config config;
  Estimate need;  // per GPU
  double usable_bytes = 0;
  double headroom = 0;         // (usable - need) / usable
  bool one_card_fits = false;  // the same workload fits on one card of this model
  std::optional<ChargedPrice> unit_price;
  double cards_price = 0;     // the cards, in the request's currency (0 when unpriced)
  double platform_price = 0;  // the host(s), PSU and network the cards need (0: cards only)
  double price = 0;           // cards + platform; 0 when the cards are unpriced
  PlatformQuote platform_quote;
  Throughput throughput;
  double tokens_per_s = 0;      // the workload's primary rate
  std::optional<double> hours;  // to process RankRequest::tokens
  Scores scores;
  RuleOutcome rules;
  std::string platform;  // what the configuration needs around it, in words
};

// The system RAM a host holding all of `r`'s cards needs for what they offload, with the OS
// reserve, GB (0: nothing offloaded).
double own_host_ram_need_gb(const Result& r);
// GB of that beyond the user's own host's --host-ram: 0 when it fits, or no --host-ram, or
// `r` is rented (a cloud instance brings its own host).
double own_host_ram_short_gb(const Result& r, const RankRequest& req);

struct Rejections {
  int too_small = 0, over_budget = 0, no_price = 0, excluded_by_rule = 0, filtered = 0;
  std::map<std::string, int> by_rule;  // rule id -> configurations it excluded
};

struct Ranking {
  std::vector<Result> results;      // fitting, within budget, allowed; best first (the first
                                    // RankRequest::shown of them)
  std::vector<Result> over_budget;  // fitting but too dear; cheapest first (as many)
  int ranked = 0;                   // results before that cut: per card, the counts kept
  Rejections rejected;
  int candidates = 0;          // configurations considered
  int fitting = 0;             // passed every check, before keeping the best count per card
  std::vector<Result> passed;  // those `fitting` configurations, scored, when keep_passed asks
};

// The card passes the user's --vendor/--ecosystem/--segment/--min-vram/--exclude filters
// (case-insensitive).
bool passes_filters(const Gpu& gpu, const Filters& filters);
// Error(usage) naming the flag when a filter asks for what cannot exist: a vendor, segment or
// ecosystem outside the catalog schema's closed sets, or an --exclude id the catalog lacks
// (with the nearest names). A typo would otherwise filter every card out and answer
// "nothing fits" (exit 1) to a usage mistake.
void check_filters(const Catalog& catalog, const Filters& filters);

// The configurations a card can realistically be run in: consumer boards two cards at
// most (K18), a unified-memory SoC one, link groups up to their size; counts 1, 2, 4, 8 to
// max_gpus, and beyond 8 (16, 32, ... up to 4096) nodes joined by the card's cluster network.
// Inference across N cards (tensor parallel) needs N to divide the attention heads.
std::vector<Config> configurations(const Gpu& gpu, int max_gpus, const Workload& w);

// The default engine of a placed inference workload (no --engine) where it does not run on
// the card while the batch-1 default does: vLLM, tensor parallel or batched, on a P100, a V100,
// an MI50 or an Apple GPU (engines.*.targets). Empty when the workload keeps its engine.
std::string swapped_engine(const Workload& placed, const Gpu& gpu);
// The engine such a card runs instead: the batched engine's older release where it runs there
// and the asked engine is the batched one (vLLM 0.5 on a V100, tensor parallel kept), else the
// batch-1 default (llama.cpp, its layer split). Empty when swapped_engine is.
std::string swapped_to(const Workload& placed, const Gpu& gpu);
// on_gpus(w, count) for these cards: where swapped_engine names the default, swapped_to's
// engine instead, with Workload::engine_instead_of set.
Workload on_card(const Gpu& gpu, int count, const Workload& w);

// `count` cards of `gpu`, linked where its interconnect reaches, sharded as the ranker would.
Config make_config(const Gpu& gpu, int count, const Workload& w);
// The machines a configuration spans: its rented instances, else nodes of node_size(gpu).
int machines_of(const Config& c);

Ranking rank(const Catalog& catalog, const RuleSet& rules, const Rates& rates,
             const RankRequest& request);

// Fills the scores of already evaluated results, relative to the best among them.
void score_results(std::vector<Result>& results, const RankRequest& request);

// The request's workload on this configuration: on_gpus (memory/workload.hpp) with the
// configuration's card count, the one decision of per-GPU work every command shares.
Workload workload_for(const Config& config, const RankRequest& request);

// One configuration, evaluated the same way (check / compare): never filtered by budget.
Result evaluate(const Config& config, const RuleSet& rules, const Rates& rates,
                const RankRequest& request);

// Whether the rules exclude `r` only as a purchase (an H100 SXM is not sold singly, an H20
// only in China): the same cards rented, or in a server the user owns, run the work. check
// and serve --gpu, which ask about cards the user may have, say such an exclusion, not "no".
bool excluded_only_as_purchase(const Result& r, const RuleSet& rules, const Rates& rates,
                               const RankRequest& request);

}  // namespace gpusel
