// `gpusel serve` rendered: table, verdict and JSON.
#include "cli/serve_view.hpp"

#include <fmt/format.h>

#include <cmath>

#include "cli/recommend_view.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"

namespace gpusel::cli {
namespace {

std::string ms(double s) { return std::isfinite(s) ? fmt::format("{:.0f}", s * 1000) : "inf"; }
std::string pair_ms(const Percentiles& p, double pct) { return ms(p.p50) + "/" + ms(p.at(pct)); }
std::string pct_label(double pct) { return fmt::format("p{:.0f}", pct * 100); }

std::string per_million(double v, const std::string& cur) {
  return v > 0 ? money_exact(v, cur) : "-";
}

std::string lengths_text(const Lengths& l) {
  return l.sd > 0 ? fmt::format("{:.0f}±{:.0f}", l.mean, l.sd) : fmt::format("{:.0f}", l.mean);
}

std::string replica_label(const ServeOption& o) {
  std::string s = config_label(o.eval.config);
  if (o.replica.pp > 1) s += fmt::format(" pp{}", o.replica.pp);
  return s;
}

std::string bought_cell(const ServeOption& o, const std::string& cur) {
  if (!o.bought.priced) return o.bought.platform.empty() ? "no price" : o.bought.platform;
  std::string s = money(o.bought.price, cur);
  if (o.eval.unit_price && o.eval.unit_price->converted) s += "*";
  return s;
}

std::string rented_cell(const ServeOption& o) {
  if (!o.rented) return "-";
  return fmt::format("{}x {}", o.rented->instances, o.rented->offer->id);
}

Table options_table(const std::vector<ServeOption>& os, const ServeView& v) {
  const std::string& cur = v.session.request.price.currency;
  const double pct = v.query.request.target.targets.percentile;
  const std::string p = pct_label(pct);
  Table t{{{"#", true},
           {"replica"},
           {"engine"},
           {"replicas", true},
           {"cards", true},
           {"req/s each", true},
           {"users each", true},
           {"out tok/s", true},
           {"TTFT p50/" + p + " ms", true},
           {"TPOT p50/" + p + " ms", true},
           {"bought"},
           {"/M tok bought", true},
           {"rented"},
           {"/M tok rented", true}},
          {}};
  int rank = 0;
  for (const auto& o : os)
    t.rows.push_back({std::to_string(++rank), replica_label(o), o.engine ? o.engine->name : "-",
                      std::to_string(o.replicas), std::to_string(o.cards),
                      o.capacity ? fmt::format("{:.3g}", o.capacity->rate) : "-",
                      o.capacity ? fmt::format("{:.0f}", o.capacity_users) : "-",
                      rate(o.tokens_per_s), o.served.stable ? pair_ms(o.served.ttft, pct) : "-",
                      o.served.stable ? pair_ms(o.served.tpot, pct) : "-", bought_cell(o, cur),
                      per_million(o.bought.per_million, cur), rented_cell(o),
                      per_million(o.rented ? o.rented->per_million : 0, cur)});
  return t;
}

std::string target_text(const ServeTarget& t) {
  std::string load = t.rps     ? fmt::format("{:.4g} req/s", *t.rps)
                     : t.users ? fmt::format("{:.0f} concurrent users", *t.users)
                               : "one replica at its capacity";
  std::vector<std::string> limits;
  if (t.targets.ttft_s) limits.push_back(fmt::format("TTFT <= {} ms", ms(*t.targets.ttft_s)));
  if (t.targets.tpot_s) limits.push_back(fmt::format("TPOT <= {} ms", ms(*t.targets.tpot_s)));
  std::string s = "Target: " + load;
  if (!limits.empty())
    s += fmt::format(" with {} at {}",
                     limits.size() == 2 ? limits[0] + " and " + limits[1] : limits[0],
                     pct_label(t.targets.percentile));
  return s;
}

std::string header(const ServeView& v) {
  const ServeRequest& r = v.query.request;
  const Workload& w = r.rank.workload;
  const ServingData& d = default_serving_data();
  std::string s = fmt::format(
      "Serving: {} ({:.2f}B params), {}{}; prompt {} and output {} tokens per request\n",
      safe_cell(w.model.name.empty() ? w.model.id : w.model.name), w.model.params / 1e9,
      precision_label(w),
      w.kv_dtype == KvDtype::compute ? "" : ", KV cache " + to_string(w.kv_dtype),
      lengths_text(r.target.traffic.prompt), lengths_text(r.target.traffic.output));
  s += target_text(r.target) + "\n";
  s += r.target.engine.empty() && !w.weight_format.empty()
           ? fmt::format(
                 "Engine: llama.cpp for {} (GGUF) weights where it runs, else {} "
                 "(--engine to choose)\n",
                 w.weight_format, d.engines.at(d.default_engine).label)
       : r.target.engine.empty()
           ? fmt::format("Engine: {} where it runs, else llama.cpp (--engine to choose)\n",
                         d.engines.at(d.default_engine).label)
           : fmt::format("Engine: {} ({})\n", d.engine(r.target.engine).label,
                         d.engine(r.target.engine).version);
  const std::string& cur = r.rank.price.currency;
  s += fmt::format(
      "Cost per million output tokens at the served load: bought = cards + platform over {:g} "
      "years straight-line + board power 24 h/day at {} per kWh ({}); rented = on-demand "
      "offers (--cloud, else data/cloud.json)\n",
      v.answer.plan.years, money_exact(v.answer.plan.kwh_price, cur), v.answer.plan.kwh_basis);
  if (v.answer.converted_prices)
    s += fmt::format("* = converted at the rates of {} (data/rates.json)\n", v.session.rates.as_of);
  return s + "\n";
}

std::string counts_text(const ServePlan& p) {
  const ServeCounts& c = p.counts;
  return fmt::format(
      "Considered {} configurations: {} meet the target; {} cannot hold a sequence, {} miss the "
      "latency targets even unloaded, {} need more than {} cards for the load, {} have no "
      "engine, {} excluded by rules, {} over budget, {} without a price, {} filtered. Per card, "
      "the cheapest is shown.\n",
      c.candidates, p.options.size(), c.too_small, c.too_slow, c.beyond_fleet, kMaxGpuCount,
      c.no_engine, c.excluded_by_rule, c.over_budget, c.no_price, c.filtered);
}

std::string remedy_text(const ServeRemedy& r, const std::string& cur) {
  const ServeOption& o = *r.option;
  return fmt::format("{}: {} replica{} of {} ({} card{}), {}{}/M tokens bought{}", r.change,
                     o.replicas, o.replicas == 1 ? "" : "s", replica_label(o), o.cards,
                     o.cards == 1 ? "" : "s",
                     o.bought.priced ? money(o.bought.price, cur) + ", " : "",
                     per_million(o.bought.per_million, cur),
                     o.rented ? ", " + per_million(o.rented->per_million, cur) + " rented" : "");
}

std::string remedies_text(const ServeAnswer& a, const std::string& cur) {
  // The user's cards hold the load but a rule excludes buying them (a China-only SKU, a
  // module's board): the targets are met, the purchase is what fails.
  const ServeOption* mine = a.configuration ? &*a.configuration : nullptr;
  if (mine && mine->meets && mine->eval.rules.excluded)
    return "\nThese cards meet the target, but a rule excludes them (above).\n";
  if (a.remedies.empty())
    return "\nNothing meets the target, and no lighter workload or relaxed target tried "
           "would.\n";
  std::string s = "\nNothing meets the target. What would, in the order to try:\n";
  for (const auto& r : a.remedies) s += "  - " + remedy_text(r, cur) + "\n";
  return s;
}

std::string layout_text(const Replica& r) {
  if (r.count == 1) return "one card";
  return r.pp > 1 ? fmt::format("{} pipeline stages", r.pp)
                  : fmt::format("tensor parallel {}", r.tp);
}

// Three significant figures below 100, whole numbers above ("1004", not "1e+03").
std::string count_text(double x) {
  return x >= 100 ? fmt::format("{:.0f}", x) : fmt::format("{:.3g}", x);
}

std::string verdict_text(const ServeOption& o, const ServeView& v) {
  const double pct = v.query.request.target.targets.percentile;
  const std::string cfg = fmt::format("{}x {}", v.query.count, o.eval.config.gpu->id);
  if (!o.capacity) return cfg + ": " + o.why_not;
  std::string s = fmt::format(
      "{} as {} replica{} of {} ({}, {}): each carries {:.3g} req/s ({} user{}, {} output "
      "tok/s) within the targets; the KV pool holds {} sequences per replica (running batch at "
      "most {}: {})",
      cfg, o.replicas, o.replicas == 1 ? "" : "s", o.replica.count, layout_text(o.replica),
      o.engine->label, o.capacity->rate, count_text(o.capacity_users),
      count_text(o.capacity_users) == "1" ? "" : "s", rate(o.capacity->tokens_per_s),
      o.replica.memory_seqs, o.replica.max_seqs, o.replica.seq_limit);
  // A module sold on whole boards: the price is the board's, the capacity these cards'.
  if (o.bought.priced && o.bought.cards_bought > o.cards)
    s += fmt::format(
        "; the card is sold only on whole boards, so {} cards are bought (their "
        "price is the column's) for the {} that serve",
        o.bought.cards_bought, o.cards);
  const ServeTarget& t = v.query.request.target;
  // The latencies at the load asked, which may break the targets the capacity meets.
  // A load beyond the fleet was never served: no latencies to give.
  if ((t.rps || t.users) && !o.beyond_fleet)
    s += fmt::format(". At the load asked ({}): TTFT {} ms, TPOT {} ms (p50/{})",
                     t.rps ? fmt::format("{:g} req/s", *t.rps) : count_text(*t.users) + " users",
                     pair_ms(o.served.ttft, pct), pair_ms(o.served.tpot, pct), pct_label(pct));
  if (!o.meets) s += fmt::format(". Not enough: {}", o.why_not);
  if (o.eval.rules.excluded)
    s += (v.answer.purchase_only ? ". As a purchase: " : ". Excluded: ") +
         o.eval.rules.exclude_reason;
  return s + ".";
}

std::string explain_lines(const ServeOption& o) {
  std::string s = fmt::format("\n{}:\n", replica_label(o));
  for (const auto& a : o.replica.assumptions) s += "  " + a + "\n";
  if (o.capacity)
    s += fmt::format(
        "  capacity within the targets: {:.4g} req/s, iteration {:.1f} ms with {:.0f} "
        "sequences decoding and {:.0f} prompt tokens mixed in\n",
        o.capacity->rate, o.capacity->iteration_s * 1000, o.capacity->running,
        o.capacity->prefill_tokens);
  if (o.bought.priced)
    s += fmt::format(
        "  bought: {} cards{} + {} platform ({}), {:.1f} kW, {:.2f} per hour\n",
        o.bought.cards_price,
        o.bought.cards_bought > o.cards
            ? fmt::format(" ({} bought: the card comes on whole boards)", o.bought.cards_bought)
            : "",
        o.bought.platform_price, o.bought.platform, o.bought.power_kw, o.bought.per_hour);
  return s;
}

}  // namespace

Lengths parse_lengths(const std::string& flag, const std::string& text) {
  Lengths l;
  const auto colon = text.find(':');
  try {
    std::size_t used = 0;
    const std::string mean = text.substr(0, colon);
    // Decimal digits and a point only: stod would also read 0x10, " 12" and "inf".
    if (text.find_first_not_of("0123456789.:") != std::string::npos)
      throw std::invalid_argument(text);
    l.mean = std::stod(mean, &used);
    if (used != mean.size()) throw std::invalid_argument(text);
    if (colon != std::string::npos) {
      const std::string sd = text.substr(colon + 1);
      l.sd = std::stod(sd, &used);
      if (used != sd.size()) throw std::invalid_argument(text);
    }
  } catch (const std::exception&) {
    throw usage_error(flag + " '" + quote_input(text) +
                      "' is not a length (forms: 1000, 1000:300)");
  }
  // Ten million tokens is beyond every model's context; the bound keeps lengths integral.
  if (!(l.mean >= 1 && l.mean <= 1e7) || !(l.sd >= 0 && l.sd <= 1e7))
    throw usage_error(flag + " '" + quote_input(text) +
                      "': the mean must be 1..10,000,000 tokens and the sd 0..10,000,000");
  return l;
}

Output serve_output(const ServeView& v) {
  Output o;
  const std::string& cur = v.session.request.price.currency;
  o.before = header(v);
  const std::vector<ServeOption> rows =
      v.answer.configuration ? std::vector<ServeOption>{*v.answer.configuration} : v.answer.top;
  o.table = options_table(rows, v);
  if (v.answer.configuration)
    o.after = "\n" + verdict_text(*v.answer.configuration, v) + "\n";
  else
    o.after = "\n" + counts_text(v.answer.plan);
  // What an expert adds to each card (no BF16, dropped by CUDA 13, ...): the rules' warnings,
  // as recommend and compare show them.
  std::vector<Result> evals;
  for (const auto& r : rows) evals.push_back(r.eval);
  if (const std::string w = warnings_text(evals, 3); !w.empty()) o.after += "\n" + w;
  if (!v.answer.met) o.after += remedies_text(v.answer, cur);
  if (v.answer.lighter && !rows.empty())
    o.after += "\n" +
               fmt::format(
                   "Lighter weights: with {}; #1 as asked costs {}/M tokens bought "
                   "(check the model's quality at that precision).",
                   remedy_text(*v.answer.lighter, cur),
                   per_million(rows.front().bought.per_million, cur)) +
               "\n";
  if (v.explain)
    for (const auto& r : rows) o.after += explain_lines(r);
  o.json = serve_json(v, rows);
  return o;
}

}  // namespace gpusel::cli
