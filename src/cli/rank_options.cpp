#include "cli/rank_options.hpp"

#include "cli/currency.hpp"
#include "cli/render.hpp"

#include <fmt/format.h>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_source.hpp"
#include "gpusel/memory/param_count.hpp"

namespace gpusel::cli {
namespace {

double parse_tokens(const std::string& flag, const std::string& text) {
  ParamCount c;
  try {
    c = parse_param_count(text);
  } catch (const Error&) {
    throw usage_error(flag + " '" + quote_input(text) +
                      "' is not a token count (forms: 2B, 500M, 1.5e9)");
  }
  if (c.active != c.total)
    throw usage_error(flag + " '" + quote_input(text) + "' is not a token count");
  return c.total;
}

Filters filters_of(const RankArgs& a) {
  Filters f;
  f.vendors = a.vendors;
  f.ecosystems = a.ecosystems;
  f.segments = a.segments;
  f.exclude_ids = a.exclude;
  f.min_vram_gb = a.min_vram;
  f.require_interconnect = a.require_interconnect;
  return f;
}

}  // namespace

void add_evaluation_options(CLI::App* cmd, RankArgs& a) {
  add_workload_options(cmd, a.workload);
  cmd->add_option(
      "--currency", a.currency,
      "currency of --budget and all prices (default: GPUSEL_CURRENCY, the locale, USD)");
  cmd->add_option("--weights", a.weights,
                  "score weights, e.g. compute=0.5,budget=0.3,ecosystem=0.2")
      ->capture_default_str();
  cmd->add_option("--reserve", a.reserve, "VRAM kept free per card: 10% (default), 0.15, 2GB");
  cmd->add_option("--os", a.os,
                  "macos|linux|windows: whose GPU share of unified memory applies (default: "
                  "macOS on Apple, Linux on other unified-memory parts)");
  cmd->add_option("--tokens", a.tokens, "tokens to process (e.g. 2B): adds time to finish");
  cmd->add_option("--dataset-tokens", a.dataset_tokens, "dataset size in tokens (with --epochs)");
  cmd->add_option("--epochs", a.epochs, "passes over --dataset-tokens (default 1)");
  cmd->add_option("--rules", a.rules_files,
                  "extra rules JSON merged over data/rules.json (repeatable)");
  cmd->add_flag("--new-only", a.new_only, "never charge used-market prices");
  cmd->add_flag("--include-used", a.include_used,
                "charge used-market prices where the catalog has them");
  cmd->add_flag("--cards-only", a.cards_only,
                "price the cards alone (you own the host): no desktop, server or network added");
  cmd->add_option("--host-ram", a.host_ram,
                  "the system RAM of the host you own, in GiB as DIMMs are sold (64 GB of "
                  "DIMMs is 64 GiB): what is offloaded (--offload, --n-cpu-moe, --cpu-moe) must "
                  "fit in it beside a 4 GiB OS reserve; implies --cards-only");
  cmd->add_option("--market", a.market,
                  "cn|global: where you buy; cards sold only in mainland China (H20, RTX 5090 D) "
                  "are bought only there (default: cn with prices in CNY or --domestic, else "
                  "global)");
  cmd->add_flag("--domestic", a.domestic, "domestic (China-made) hardware is mandatory (K34)");
  cmd->add_option("--format", a.format, format_help());
  cmd->add_flag("--explain", a.explain, "show each score's formula with its numbers");
}

void add_search_options(CLI::App* cmd, RankArgs& a) {
  cmd->add_option("--budget", a.budget, "most to spend: 15000, 15000CNY, $15000, ¥15000, 15k EUR");
  cmd->add_option("--vendor", a.vendors, "only these vendors (repeatable)");
  cmd->add_option("--ecosystem", a.ecosystems, "only cuda, rocm, oneapi, synapseai, cann, metal");
  cmd->add_option("--segment", a.segments, "only consumer, workstation, datacenter");
  cmd->add_option("--min-vram", a.min_vram, "only cards with at least this many GB");
  cmd->add_option("--exclude", a.exclude, "leave out these GPU ids (repeatable)");
  cmd->add_flag("--require-interconnect", a.require_interconnect,
                "multi-card configurations must share NVLink/Infinity Fabric/...");
  cmd->add_option("--max-gpus", a.max_gpus,
                  "largest configuration to consider (default 8; up to 16384: beyond 8, nodes of "
                  "8 joined by a cluster network)");
}

std::optional<double> work_tokens(const RankArgs& a) {
  if (!a.tokens.empty() && !a.dataset_tokens.empty())
    throw usage_error("give --tokens or --dataset-tokens with --epochs, not both");
  if (!a.tokens.empty()) return parse_tokens("--tokens", a.tokens);
  if (a.dataset_tokens.empty()) return std::nullopt;
  if (!(a.epochs > 0)) throw usage_error(fmt::format("--epochs {} must be positive", a.epochs));
  return parse_tokens("--dataset-tokens", a.dataset_tokens) * a.epochs;
}

Session resolve_session(const RankArgs& a, bool with_workload) {
  if (a.max_gpus < 1 || a.max_gpus > kMaxGpus)
    throw usage_error(fmt::format("--max-gpus {} must be between 1 and {}", a.max_gpus, kMaxGpus));
  if (a.min_vram < 0) throw usage_error("--min-vram must not be negative");
  // A host with no RAM runs nothing: 0 is refused, not read as "not given".
  if (a.host_ram && (!(*a.host_ram > 0) || !(*a.host_ram < 1e7)))
    throw usage_error(
        fmt::format("--host-ram {} must be a size in GB, above 0 and under "
                    "10,000,000",
                    *a.host_ram));
  if (a.new_only && a.include_used)
    throw usage_error("--new-only and --include-used exclude each other");
  Session s;
  RankRequest& r = s.request;
  if (with_workload) r.workload = resolve_workload(a.workload);
  std::optional<Budget> budget;
  if (!a.budget.empty()) budget = parse_budget(a.budget);
  s.rates = parse_rates(parse_located(embedded_text("data/rates.json"), "data/rates.json").doc,
                        "data/rates.json");
  const CurrencyChoice cur = choose_currency(a.currency, budget ? budget->currency : "");
  r.price = {cur.code, a.new_only, a.include_used, ""};
  s.currency_origin = origin_note(cur);
  if (budget && budget->currency.empty())
    s.budget_note = bare_budget_note(a.budget, budget->amount, cur, s.rates);
  if (budget)
    r.budget = budget->currency.empty()
                   ? budget->amount
                   : convert(budget->amount, budget->currency, r.price.currency, s.rates);
  r.filters = filters_of(a);
  r.weights = parse_weights(a.weights);
  r.max_gpus = a.max_gpus;
  if (!a.reserve.empty()) r.reserve = parse_reserve(a.reserve);
  if (!a.os.empty()) r.reserve.os = parse_os(a.os);
  r.tokens = work_tokens(a);
  r.domestic = a.domestic;
  if (!a.market.empty() && a.market != "cn" && a.market != "global")
    throw usage_error("--market '" + quote_input(a.market) + "': must be cn or global");
  r.market = !a.market.empty()                         ? a.market
             : r.price.currency == "CNY" || a.domestic ? "cn"
                                                       : "global";
  r.host_ram_gb = a.host_ram.value_or(0);
  r.cards_only = a.cards_only || a.host_ram.has_value();  // RAM stated: the host is the user's
  s.rules = load_rules("", a.rules_files);
  return s;
}

}  // namespace gpusel::cli
