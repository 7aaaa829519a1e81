// Calibration report: the throughput model against every expressible row of
// throughput_measured.csv, split into a fit half and a held-out half by source.
// Usage: throughput_report [--csv FILE] [--catalog FILE] [--fit] [--quiet] [--gate M,P]
//   --fit   print the constants the fit half implies (how data/throughput.json's 'fit'
//           constants were obtained); the held-out half is never used for them.
//   --gate  exit thresholds as fractions, for a regression test that pins today's figures
//           (the targets are still printed and judged in the output).
// Exits 1 when the held-out half misses the gate, by default the targets:
// median |error| <= 15 %, p90 <= 30 %.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gpusel/data/data_source.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/speed/throughput.hpp"
#include "throughput_rows.hpp"

#ifndef GPUSEL_THROUGHPUT_CSV
#define GPUSEL_THROUGHPUT_CSV "tests/calibration/throughput_measured.csv"
#endif

namespace {

using gpusel::ThroughputConstants;
using tput_calibration::Case;
using tput_calibration::Quantity;

constexpr double kMedianTarget = 0.15, kP90Target = 0.30;

gpusel::Throughput run(const Case& c, int count, const ThroughputConstants& k) {
  gpusel::Workload w = c.workload;
  w.gpus = count;
  if (count == 1) w.shard = gpusel::Shard::none;
  return gpusel::estimate_throughput(w, c.gpu, count, c.linked, k);
}

// The estimate in the row's terms; 0 when the model cannot say (no compute figure).
double estimate(const Case& c, const ThroughputConstants& k) {
  switch (c.quantity) {
    case Quantity::train_per_gpu:
      return run(c, c.count, k).train_tokens_per_s / c.count;
    case Quantity::speedup: {
      const double base = run(c, c.base_count, k).train_tokens_per_s;
      return base > 0 ? run(c, c.count, k).train_tokens_per_s / base : 0;
    }
    case Quantity::prefill:
      return run(c, c.count, k).prefill_tokens_per_s;
    case Quantity::decode:
      return run(c, c.count, k).decode_tokens_per_s;
  }
  return 0;
}

struct Scored {
  const Case* c;
  double est, err;
};

std::vector<Scored> score(const std::vector<const Case*>& cases, const ThroughputConstants& k) {
  std::vector<Scored> out;
  for (const Case* c : cases) {
    const double e = estimate(*c, k);
    if (e > 0) out.push_back({c, e, e / c->measured - 1});
  }
  return out;
}

// Nearest-rank percentile of |error|.
double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t rank = std::size_t(std::ceil(p * double(v.size())));
  return v[std::max<std::size_t>(rank, 1) - 1];
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Summary {
  std::size_t n = 0;
  double median = 0, p90 = 0;
};

Summary summarise(const std::vector<Scored>& s) {
  std::vector<double> abs_err;
  for (const auto& x : s) abs_err.push_back(std::fabs(x.err));
  return {abs_err.size(), median(abs_err), percentile(abs_err, 0.9)};
}

void print_rows(const std::vector<Scored>& s) {
  std::printf("%-4s %-5s %-16s %-14s %2s %-6s %12s %12s %8s\n", "id", "half", "quantity", "card",
              "n", "link", "estimate", "measured", "error");
  for (const auto& x : s)
    std::printf("%-4s %-5s %-16s %-14s %2d %-6s %12.4g %12.4g %+7.1f%%%s%s\n", x.c->id.c_str(),
                x.c->fit ? "fit" : "held", to_string(x.c->quantity), x.c->gpu_id.c_str(),
                x.c->count, x.c->count > 1 ? (x.c->linked ? "linked" : "pcie") : "-", x.est,
                x.c->measured, 100 * x.err, x.c->note.empty() ? "" : "  # ", x.c->note.c_str());
}

void print_summary(const char* label, const std::vector<Scored>& s) {
  const Summary all = summarise(s);
  std::printf("%-9s n=%-3zu median |error| %5.1f%%  p90 %5.1f%%\n", label, all.n, 100 * all.median,
              100 * all.p90);
  for (Quantity q :
       {Quantity::train_per_gpu, Quantity::speedup, Quantity::prefill, Quantity::decode}) {
    std::vector<Scored> part;
    for (const auto& x : s)
      if (x.c->quantity == q) part.push_back(x);
    const Summary p = summarise(part);
    if (p.n)
      std::printf("  %-16s n=%-3zu median %5.1f%%  p90 %5.1f%%\n", to_string(q), p.n,
                  100 * p.median, 100 * p.p90);
  }
}

// --- fitting (fit half only) -------------------------------------------------------------

std::vector<const Case*> select(const std::vector<const Case*>& cases, Quantity q,
                                bool single_card) {
  std::vector<const Case*> out;
  for (const Case* c : cases)
    if (c->fit && c->quantity == q && (!single_card || c->count == 1)) out.push_back(c);
  return out;
}

// measured / estimate for each case under k: the multiplier each row implies.
std::vector<double> implied(const std::vector<const Case*>& cases, const ThroughputConstants& k) {
  std::vector<double> out;
  for (const Case* c : cases)
    if (const double e = estimate(*c, k); e > 0) out.push_back(c->measured / e);
  return out;
}

double geo_median(const std::vector<double>& v) {
  std::vector<double> logs;
  for (double x : v) logs.push_back(std::log(x));
  return std::exp(median(logs));
}

double mean_abs_log(const std::vector<double>& v, double centre) {
  double sum = 0;
  for (double x : v) sum += std::fabs(std::log(x / centre));
  return v.empty() ? 0 : sum / double(v.size());
}

void fit_training(const std::vector<const Case*>& all, ThroughputConstants& k) {
  const auto rows = select(all, Quantity::train_per_gpu, false);
  ThroughputConstants t = k;
  t.train_utilisation = 1, t.utilisation_cap = 1;  // implied values are then u_ref itself
  double best = 1e9;
  for (double a = 0; a <= 1.5001; a += 0.05) {
    t.balance_exponent = a;
    const auto imp = implied(rows, t);
    const double loss = mean_abs_log(imp, geo_median(imp));
    if (loss < best) best = loss, k.balance_exponent = a, k.train_utilisation = geo_median(imp);
  }
  t.balance_exponent = k.balance_exponent;
  double cap = 0;
  for (const Case* c : rows)  // the highest utilisation a row implies
    cap = std::max(cap, c->measured / estimate(*c, t) * run(*c, c->count, t).mfu);
  k.utilisation_cap = cap;
}

void fit_prefill(const std::vector<const Case*>& all, ThroughputConstants& k) {
  std::vector<const Case*> sixteen, quantized;
  for (const Case* c : select(all, Quantity::prefill, true))
    (gpusel::is_quantized(c->workload.precision) ? quantized : sixteen).push_back(c);
  ThroughputConstants t = k;
  t.prefill_utilisation = 1, t.utilisation_cap = 1e9, t.prefill_quantized_factor = 1;
  k.prefill_utilisation = geo_median(implied(sixteen, t));
  t.prefill_utilisation = k.prefill_utilisation;
  k.prefill_quantized_factor = geo_median(implied(quantized, t));
}

void fit_decode(const std::vector<const Case*>& all, ThroughputConstants& k) {
  const auto rows = select(all, Quantity::decode, true);
  ThroughputConstants t = k;
  double best = 1e9;
  for (double e = 0.30; e <= 1.0001; e += 0.01)
    for (double us = 0; us <= 200; us += 2) {
      t.decode_bandwidth_efficiency = e, t.decode_layer_overhead_s = us * 1e-6;
      const double loss = mean_abs_log(implied(rows, t), 1);
      if (loss < best)
        best = loss, k.decode_bandwidth_efficiency = e, k.decode_layer_overhead_s = us * 1e-6;
    }
}

void fit_scaling(const std::vector<const Case*>& all, ThroughputConstants& k) {
  ThroughputConstants t = k;  // no table: the estimate carries only the link model
  t.scaling_linked.clear(), t.scaling_pcie.clear(), t.scaling_per_doubling_beyond = 1;
  std::map<std::pair<bool, int>, std::vector<double>> table;
  std::vector<double> per_doubling;
  for (const Case* c : select(all, Quantity::speedup, false)) {
    const double eff = c->measured / estimate(*c, t);
    if (c->base_count == 1)
      table[{c->linked, c->count}].push_back(eff);
    else
      per_doubling.push_back(std::pow(eff, 1 / std::log2(double(c->count) / c->base_count)));
  }
  k.scaling_linked.clear(), k.scaling_pcie.clear();
  for (const auto& [key, effs] : table)
    (key.first ? k.scaling_linked : k.scaling_pcie)[key.second] = median(effs);
  if (!per_doubling.empty()) k.scaling_per_doubling_beyond = median(per_doubling);
}

void print_fit(const ThroughputConstants& k) {
  auto table = [](const std::map<int, double>& m) {
    std::string s = "{";
    for (const auto& [n, e] : m)
      s += (s.size() > 1 ? ", " : "") + ("\"" + std::to_string(n) + "\": ") +
           std::to_string(std::round(e * 1000) / 1000).substr(0, 5);
    return s + "}";
  };
  std::printf(
      "{\"train_utilisation\": %.3f, \"balance_exponent\": %.2f, \"utilisation_cap\": %.3f,\n"
      " \"prefill_utilisation\": %.3f, \"prefill_quantized_factor\": %.3f,\n"
      " \"decode_bandwidth_efficiency\": %.2f, \"decode_layer_overhead_us\": %.0f,\n"
      " \"scaling_linked\": %s, \"scaling_pcie\": %s,\n"
      " \"scaling_per_doubling_beyond\": %.3f}\n",
      k.train_utilisation, k.balance_exponent, k.utilisation_cap, k.prefill_utilisation,
      k.prefill_quantized_factor, k.decode_bandwidth_efficiency, k.decode_layer_overhead_s * 1e6,
      table(k.scaling_linked).c_str(), table(k.scaling_pcie).c_str(),
      k.scaling_per_doubling_beyond);
}

}  // namespace

int main(int argc, char** argv) try {
  std::string csv = GPUSEL_THROUGHPUT_CSV;
  gpusel::DataPaths paths;
  bool fit = false, quiet = false;
  double gate_median = kMedianTarget, gate_p90 = kP90Target;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--csv" && i + 1 < argc)
      csv = argv[++i];
    else if (a == "--catalog" && i + 1 < argc)
      paths.catalog = argv[++i];
    else if (a == "--fit")
      fit = true;
    else if (a == "--quiet")
      quiet = true;
    else if (a == "--gate" && i + 1 < argc &&
             std::sscanf(argv[++i], "%lf,%lf", &gate_median, &gate_p90) == 2)
      continue;
    else
      return std::fprintf(stderr,
                          "usage: throughput_report [--csv FILE] [--catalog FILE] [--fit] "
                          "[--quiet] [--gate M,P]\n"),
             2;
  }
  const auto rows = tput_calibration::read_csv(csv);
  const auto conversions = tput_calibration::convert_all(rows, gpusel::load_catalog(paths));
  std::vector<const Case*> cases;
  for (const auto& cv : conversions)
    if (cv.c) cases.push_back(&*cv.c);
  ThroughputConstants k = gpusel::default_throughput_constants();
  if (fit) {
    fit_training(cases, k), fit_prefill(cases, k), fit_decode(cases, k), fit_scaling(cases, k);
    print_fit(k);
    return 0;
  }
  std::vector<const Case*> fit_cases, held_cases;
  for (const Case* c : cases) (c->fit ? fit_cases : held_cases).push_back(c);
  const auto fit_scored = score(fit_cases, k), held_scored = score(held_cases, k);
  if (!quiet) print_rows(fit_scored), print_rows(held_scored);
  std::size_t skipped = 0;
  for (const auto& cv : conversions) {
    const bool no_estimate = cv.c && estimate(*cv.c, k) <= 0;
    if (cv.c && !no_estimate) continue;
    ++skipped;
    if (!quiet)
      std::printf(
          "skipped %-4s (%s): %s\n", cv.id.c_str(), cv.fit ? "fit" : "held",
          no_estimate ? "the card has no published compute figure" : cv.skip_reason.c_str());
  }
  std::printf("\n%zu rows, %zu scored, %zu skipped\n", rows.size(),
              fit_scored.size() + held_scored.size(), skipped);
  print_summary("fit", fit_scored);
  print_summary("held-out", held_scored);
  const Summary h = summarise(held_scored);
  const bool target = h.median <= kMedianTarget && h.p90 <= kP90Target;
  std::printf("held-out target (median <= %.0f%%, p90 <= %.0f%%): %s\n", 100 * kMedianTarget,
              100 * kP90Target, target ? "met" : "MISSED");
  const bool pass = h.n > 0 && h.median <= gate_median && h.p90 <= gate_p90;
  if (gate_median != kMedianTarget || gate_p90 != kP90Target)
    std::printf("held-out gate (median <= %.1f%%, p90 <= %.1f%%): %s\n", 100 * gate_median,
                100 * gate_p90, pass ? "passed" : "FAILED");
  return pass ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "throughput_report: %s\n", e.what());
  return 2;
}
