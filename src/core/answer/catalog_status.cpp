// `gpusel catalog status`: each dataset's review date and the dated entries past their
// freshness limit, with where to refresh them (CONTRIBUTING.md has the full procedure).
#include <algorithm>
#include <unordered_map>

#include "gpusel/answer/data_status.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/data/validate.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_source.hpp"

namespace gpusel {
namespace {

using nlohmann::json;
using Path = std::vector<std::string>;  // keys; "*" = every element or member

struct Spec {
  const char* file;
  const char* what;
  std::vector<Path> entries;  // where the dated entries sit; {} = the document itself
  long limit = 0;             // days; 0 = facts that do not age
  const char* limit_text;
  const char* refresh;
};

// The datasets and their freshness rules (CONTRIBUTING.md's table).
const std::vector<Spec> kSpecs{
    {"data/gpus.json",
     "GPU catalog: specs and prices",
     {{"gpus", "*", "prices", "*"}},
     kPriceMaxAgeDays,
     "street/used/estimate/quote prices: 12 months (msrp never ages)",
     "vendor datasheets for specs; dated street and used prices for every card on sale"},
    {"data/cloud.json",
     "cloud offers",
     {{"offers", "*"}},
     kOfferMaxAgeDays,
     "offers: 6 months",
     "provider price pages or dated price dumps; as_of = capture date"},
    {"data/rates.json",
     "exchange rates",
     {{}},
     kRatesMaxAgeDays,
     "the table: 1 month",
     "one primary table (ECB euro reference rates or Federal Reserve G.5)"},
    {"data/kwh_prices.json",
     "electricity prices",
     {{"prices", "*"}},
     kPriceMaxAgeDays,
     "prices: 12 months",
     "national statistics (EIA, Eurostat, NBS) per currency"},
    {"data/ownership.json",
     "owning-cost defaults",
     {{"hosts", "*", "cost"}},
     kPriceMaxAgeDays,
     "host system costs: 12 months",
     "dated system and server quotes per segment"},
    {"data/platforms.json",
     "platform prices",
     {{"platforms", "*", "cost"}, {"networks", "*", "cost_per_gpu"}, {"psu", "steps", "*"}},
     kPriceMaxAgeDays,
     "platform, network and PSU prices: 12 months",
     "dated system builds, server and network quotes, PSU retail prices"},
    {"data/models.json",
     "model presets",
     {{"models", "*"}},
     0,
     "architectures do not age",
     "each model's config.json (Hugging Face or a cited copy) and model card"},
    {"data/quantizations.json",
     "storage formats",
     {{"gguf", "*"}, {"kv_cache", "*"}},
     0,
     "formats do not age",
     "llama.cpp quantize table and ggml-common.h; engine docs"},
    {"data/constants.json",
     "estimator constants",
     {{"constants", "*"}},
     0,
     "published formulas do not age",
     "the papers and framework sources each cites"},
    {"data/throughput.json",
     "throughput constants",
     {{"constants", "*"}},
     0,
     "measured facts: recheck when a cited source publishes new figures",
     "the matmul tables, engine sources and benchmarks each constant cites"},
    {"data/serving.json",
     "serving-engine defaults",
     {{"engines", "*", "kv_block_tokens"}},
     0,
     "engine defaults: check at each engine release",
     "vLLM config/cache.py and arg_utils.py, SGLang server_args.py, TensorRT-LLM KvCacheConfig, "
     "llama.cpp tools/server README"},
    {"data/rules.json", "expert rules", {}, 0, "-", "each rule's cited source"},
    {"data/scoring.json", "scoring constants", {}, 0, "-", "the reasons and sources it cites"}};

std::string label_of(const json& element, const std::string& key) {
  for (const char* k : {"id", "name", "region", "currency"})
    if (element.is_object() && element.contains(k) && element[k].is_string())
      return element[k].get<std::string>();
  return key;
}

struct Dated {
  std::string what, as_of;
  bool ages = true;
};

// Every object at `path` below `j`, with a label built from the ids along the way.
void collect(const json& j, const Path& path, std::size_t at, const std::string& label,
             std::vector<Dated>& out) {
  if (at == path.size()) {
    if (!j.is_object() || !j.contains("as_of") || !j["as_of"].is_string()) return;
    const std::string kind = j.value("kind", "");
    out.push_back(
        {(label.empty() ? "the table" : label) + (kind.empty() ? "" : " " + kind + " price"),
         j["as_of"].get<std::string>(), kind != "msrp"});
    return;
  }
  const std::string& key = path[at];
  if (key != "*") {
    if (j.is_object() && j.contains(key)) collect(j[key], path, at + 1, label, out);
    return;
  }
  auto sub = [&](const json& v, const std::string& name) {
    const std::string own = label_of(v, name);
    collect(v, path, at + 1, label.empty() ? own : label + " " + own, out);
  };
  if (j.is_array())
    for (std::size_t i = 0; i < j.size(); ++i) sub(j[i], "#" + std::to_string(i));
  else if (j.is_object())
    for (const auto& [k, v] : j.items()) sub(v, k);
}

std::string review_date(const json& doc, const std::vector<Dated>& dated) {
  for (const char* k : {"reviewed", "as_of"})
    if (doc.contains(k) && doc[k].is_string()) return doc[k].get<std::string>();
  std::string newest;
  for (const auto& d : dated) newest = std::max(newest, d.as_of);
  return newest;
}

DatasetStatus status_of(const Spec& s, const json& doc, const std::string& as_of) {
  std::vector<Dated> dated;
  for (const auto& p : s.entries) collect(doc, p, 0, "", dated);
  DatasetStatus d;
  d.file = s.file, d.what = s.what, d.reviewed = review_date(doc, dated);
  d.limit_days = s.limit, d.limit = s.limit_text, d.refresh = s.refresh;
  if (is_date(d.reviewed)) d.review_age_days = days_between(d.reviewed, as_of);
  d.review_due = d.review_age_days < 0 || d.review_age_days > kReviewMaxAgeDays;
  for (const auto& e : dated) {
    if (!is_date(e.as_of)) continue;
    ++d.dated;
    if (d.oldest.empty() || e.as_of < d.oldest) d.oldest = e.as_of;
    const long age = days_between(e.as_of, as_of);
    if (s.limit > 0 && e.ages && age > s.limit) d.stale.push_back({e.what, e.as_of, age});
  }
  std::stable_sort(d.stale.begin(), d.stale.end(),
                   [](const auto& a, const auto& b) { return a.as_of < b.as_of; });
  return d;
}

// An overlay's records laid over the document's: the same id replaces, a new one joins, in
// whichever list the two share (gpus, offers).
void overlay(json& doc, const json& add) {
  if (!doc.is_object() || !add.is_object()) return;
  for (const char* list : {"gpus", "offers"}) {
    if (!doc.contains(list) || !add.contains(list) || !doc[list].is_array() ||
        !add[list].is_array())
      continue;
    json& mine = doc[list];
    // Indexed by id once: a 100,000-record overlay is not a search of the list per record.
    const auto id_of = [](const json& r) {
      return r.is_object() && r.contains("id") && r["id"].is_string() ? r["id"].get<std::string>()
                                                                      : std::string();
    };
    std::unordered_map<std::string, std::size_t> at;
    for (std::size_t i = 0; i < mine.size(); ++i)
      if (const std::string id = id_of(mine[i]); !id.empty()) at.emplace(id, i);
    for (const json& rec : add[list]) {
      const std::string id = id_of(rec);
      const auto same = id.empty() ? at.end() : at.find(id);
      if (same != at.end()) {
        mine[same->second] = rec;
      } else {
        if (!id.empty()) at.emplace(id, mine.size());
        mine.push_back(rec);
      }
    }
  }
}

}  // namespace

CatalogStatusAnswer catalog_status(const std::string& as_of, const StatusInputs& in) {
  CatalogStatusAnswer a;
  a.as_of = as_of.empty() ? today_iso() : as_of;
  if (!is_date(a.as_of)) throw usage_error("--as-of '" + as_of + "' is not a date (YYYY-MM-DD)");
  std::vector<Spec> all = kSpecs;
  for (const auto& e : embedded_files()) {  // a data file without a rule yet: its review only
    const std::string p(e.path);
    const bool known =
        std::any_of(all.begin(), all.end(), [&](const Spec& s) { return s.file == p; });
    // Schemas and message tables state no facts that age.
    if (!known && p.rfind("data/schema/", 0) != 0 && p.rfind("data/i18n/", 0) != 0)
      all.push_back({e.path.data(), "(no freshness rule yet)", {}, 0, "-", "-"});
  }
  json gpus, cloud;  // kept for the coverage, parsed once
  for (const Spec& s : all) {
    const auto it = in.replaced.find(s.file);
    bool present = it != in.replaced.end();
    for (const auto& e : embedded_files()) present = present || e.path == s.file;
    if (!present) continue;
    json doc = it != in.replaced.end()
                   ? parse_located(it->second.text, it->second.path).doc
                   : parse_located(std::string(embedded_text(s.file)), s.file).doc;
    if (const auto add = in.added.find(s.file); add != in.added.end())
      for (const DataFileText& f : add->second) overlay(doc, parse_located(f.text, f.path).doc);
    const DatasetStatus d = status_of(s, doc, a.as_of);
    if (std::string_view(s.file) == "data/gpus.json")
      gpus = std::move(doc);
    else if (std::string_view(s.file) == "data/cloud.json")
      cloud = std::move(doc);
    a.stale_entries += int(d.stale.size());
    a.reviews_due += d.review_due;
    a.datasets.push_back(d);
  }
  a.coverage = data_coverage(gpus, cloud, a.as_of);
  return a;
}

}  // namespace gpusel
