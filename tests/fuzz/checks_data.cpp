// Data files and rules files: validate and the loaders agree, and what loads runs through the
// commands that use it.
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "checks.hpp"
#include "gpusel/answer/answers.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/data/cloud.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/data/hf_config.hpp"
#include "gpusel/data/platforms.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_source.hpp"
#include "gpusel/memory/estimator.hpp"
#include "gpusel/memory/param_count.hpp"

namespace gpusel::fuzz {
namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw Finding(what);
}

const Catalog& embedded_catalog() {
  static const Catalog c = load_catalog({});
  return c;
}

const RuleSet& embedded_rules() {
  static const RuleSet r = load_rules();
  return r;
}

const Rates& rates() {
  static const Rates r = parse_rates(
      parse_located(embedded_text("data/rates.json"), "data/rates.json").doc, "data/rates.json");
  return r;
}

RankRequest small_request() {
  RankRequest r;
  r.workload.model = typical_arch(parse_param_count("7B"));
  r.workload.mode = Mode::lora;
  r.budget = 20000;
  r.max_gpus = 4;
  return r;
}

RecommendQuery small_query() {
  RecommendQuery q;
  q.request = small_request();
  return q;
}

void require_sane(const Result& r) {
  require(std::isfinite(r.need.total_bytes) && r.need.total_bytes >= 0, "need not finite");
  require(std::isfinite(r.scores.total) && r.scores.total >= 0 && r.scores.total <= 100,
          "total score outside 0..100");
  require(std::isfinite(r.price) && r.price >= 0, "price negative or not finite");
}

void use_catalog(const Catalog& cat) {
  const RecommendAnswer a = recommend({cat, nullptr, embedded_rules(), rates()}, small_query());
  for (const auto& r : a.top) require_sane(r);
}

void use_cloud(const Cloud& cloud) {
  RankRequest req = small_request();
  const RentAnswer a = rent(
      {embedded_catalog(), [&cloud] { return &cloud; }, embedded_rules(), rates()}, req, {}, 10);
  for (const auto& o : a.shown)
    require(std::isfinite(o.on_demand_per_hour) && o.on_demand_per_hour >= 0, "rental price");
}

void use_models(const std::vector<ModelArch>& models) {
  for (std::size_t i = 0; i < models.size() && i < 3; ++i) {
    for (Mode mode : {Mode::inference, Mode::qlora, Mode::full}) {
      Workload w;
      w.model = models[i];
      w.mode = mode;
      w.seq_len = std::min(2048, models[i].max_context);
      try {
        const Estimate e = estimate(w);
        require(std::isfinite(e.total_bytes) && e.total_bytes > 0, "estimate not positive");
        require(e.low_bytes <= e.total_bytes && e.total_bytes <= e.high_bytes, "band");
      } catch (const Error& e) {
        require(e.code() == ExitCode::usage || e.code() == ExitCode::data, e.what());
      }
    }
  }
}

void use_platforms(const Platforms& p) {
  for (const char* id : {"rtx-4090", "h100-sxm"}) {
    const Gpu* g = embedded_catalog().find(id);
    if (!g) continue;
    for (int count : {1, 8, 64}) {
      const PlatformQuote q = quote_platform(p, *g, count, false);
      require(std::isfinite(q.total_usd) && q.total_usd >= 0, "platform price");
    }
    host_limits(p, *g);
  }
}

// A Hugging Face config.json (--model-config): read into a shape, or refused with one clean
// line; what is read estimates to a finite, positive need.
void check_hf_config(std::string_view input) {
  std::optional<ModelArch> m;
  try {
    m = hf_config_from_text(input, "config.json");
  } catch (const Error& e) {
    require(e.code() == ExitCode::data, std::string("config refused with ") + e.what());
    require(std::string(e.what()).find('\n') == std::string::npos, "multi-line error");
    return;
  }
  use_models({*m});
}

void require_clean(const Error& e, ExitCode code) {
  require(e.code() == code, std::string("unexpected exit code: ") + e.what());
  require(std::string(e.what()).find('\n') == std::string::npos, "multi-line error");
}

// The loader of the kind validate judges the document as must agree with it; what loads runs
// through a command, which may refuse only with a clean Error.
template <typename Load, typename Use>
void agree(bool valid, std::string_view what, Load load, Use use) {
  std::optional<decltype(load())> value;
  try {
    value = load();
  } catch (const Error& e) {
    require_clean(e, ExitCode::data);
  }
  require(valid == value.has_value(),
          std::string(what) + (valid ? ": validate passes, the loader refuses"
                                     : ": the loader accepts, validate refuses"));
  if (!value) return;
  try {
    use(*value);
  } catch (const Error& e) {
    require(std::string(e.what()).find('\n') == std::string::npos, "multi-line error");
  }
}

// gpus, then offers, models, platforms: the list validate judges a document by.
std::string kind_of(std::string_view input) {
  if (!nlohmann::json::accept(input.begin(), input.end())) return "";
  const auto doc = nlohmann::json::parse(input.begin(), input.end());
  if (!doc.is_object()) return "";
  for (const char* k : {"gpus", "offers", "models", "platforms"})
    if (doc.contains(k)) return k;
  return "";
}

}  // namespace

void check_data_file(std::string_view input) {
  const ValidationReport report =
      validate_document(input, "f.json", {"2026-12-02", &embedded_catalog()});
  const bool valid = report.count(Severity::error) == 0;
  for (const auto& d : report.diagnostics)
    require(d.message.find('\n') == std::string::npos, "finding spans lines: " + d.message);
  auto catalog = [&] { return catalog_from_text(std::string(input), "f.json"); };
  auto offers = [&] { return cloud_from_text(input, "f.json", false, &embedded_catalog()); };
  auto models = [&] { return models_from_text(input, "f.json"); };
  auto platforms = [&] { return platforms_from_text(input, "f.json"); };
  check_hf_config(input);
  const std::string kind = kind_of(input);
  if (kind == "gpus") return agree(valid, kind, catalog, use_catalog);
  if (kind == "offers") return agree(valid, kind, offers, use_cloud);
  if (kind == "models") return agree(valid, kind, models, use_models);
  if (kind == "platforms") return agree(valid, kind, platforms, use_platforms);
  require(!valid, "validate passes what is no data file");
  agree(false, "catalog", catalog, use_catalog);
  agree(false, "offers", offers, use_cloud);
  agree(false, "models", models, use_models);
  agree(false, "platforms", platforms, use_platforms);
}

void check_rules(std::string_view input) {
  RuleSet set = embedded_rules();
  try {
    merge_rules(set, parse_rules(parse_located(input, "r.json").doc, "r.json"));
  } catch (const Error& e) {
    require(e.code() == ExitCode::data, std::string("rules refused with ") + e.what());
    return;
  }
  const RecommendAnswer a = recommend({embedded_catalog(), nullptr, set, rates()}, small_query());
  for (const auto& r : a.top) require_sane(r);
}

}  // namespace gpusel::fuzz
