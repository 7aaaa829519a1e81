#pragma once
// How ranking results look: the table rows, the JSON objects and the explanations shared
// by `recommend`, `check` and `compare`.
#include <nlohmann/json.hpp>
#include <string>

#include "cli/rank_options.hpp"
#include "cli/render.hpp"

namespace gpusel::cli {

std::string config_label(const Config& c);                      // "2x rtx-3090 (nvlink-bridge)"
std::string money(double amount, const std::string& currency);  // "12,999 CNY"
std::string thousands(double v);                                // "12,999"
std::string money_exact(double amount, const std::string& currency);  // "2.49 USD"
std::string workload_line(const Workload& w);  // one-line summary of the workload
std::string duration(double hours);            // "3.2 h", "4.5 days"
std::string rate(double tokens_per_s);         // "2,278", "56.7", "-"
// The rate column's header for what a throughput counts: "tok/s", or "img/s" for a CNN.
std::string rate_unit(const std::string& unit);
std::string score_bar(double score);  // "███████░░░" (10 cells)

nlohmann::json workload_json(const Workload& w);
nlohmann::json result_json(const Result& r, int rank);

// One table for a list of results (rank column when `ranked`).
Table results_table(const std::vector<Result>& rs, bool ranked, bool with_time);
// Good, tight (under 10 %: warn) or short (bad).
Tone headroom_tone(double headroom);
// The CSV of result_json rows: one value per column, bytes, percent and scores raw.
const std::vector<CsvColumn>& result_csv_columns();

// The warnings of each result, as indented lines under the table.
std::string warnings_text(const std::vector<Result>& rs, std::size_t per_result);

// --explain: each score's formula with its numbers, and the rules that moved it.
std::string explain_text(const std::vector<Result>& rs, const RankRequest& req);

// The header above every ranking: workload, assumptions, currency, and `price_note` (how
// prices were converted) when not empty.
std::string header_text(const Session& s, const Estimate& one_gpu_need,
                        const std::string& price_note);

// "* = converted at the rates of ..." when a shown price was converted, else "".
std::string converted_note(const Session& s, bool converted);

}  // namespace gpusel::cli
