#include "serving_rows.hpp"

#include <cmath>
#include <map>
#include <regex>
#include <stdexcept>

#include "calibration_rows.hpp"
#include "gpusel/data/models.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/rank/ranker.hpp"

namespace serving_calibration {
namespace {

using calibration::Row;

double num(const Row& r, const char* col, double fallback = 0) {
  const std::string& v = r.at(col);
  return v.empty() ? fallback : std::stod(v);
}

// "p50=382;p90=479;p99=568" or "avg=406.77" / "ITL avg=18.58" -> milliseconds.
Latency latency(const std::string& cell) {
  Latency l;
  const auto grab = [&](const char* key) {
    std::smatch m;
    const std::regex re(std::string(key) + "=([0-9.]+)");
    return std::regex_search(cell, m, re) ? std::stod(m[1]) : -1.0;
  };
  l.p50 = grab("p50"), l.p99 = grab("p99"), l.mean = grab("avg");
  return l;
}

Kind kind_of(const std::string& k) {
  static const std::map<std::string, Kind> kinds{{"offline", Kind::offline},
                                                 {"server", Kind::server},
                                                 {"interactive", Kind::interactive},
                                                 {"users", Kind::users},
                                                 {"poisson", Kind::poisson}};
  return kinds.at(k);
}

const std::vector<gpusel::ModelArch>& presets() {
  static const auto models = gpusel::parse_models(
      gpusel::parse_json_text(std::string(gpusel::embedded_text("data/models.json")),
                              "data/models.json"),
      "data/models.json");
  return models;
}

// The engine as the row ran it: its stated running-sequence cap, token budget, memory
// fraction and front end (an HTTP server, or the engine driven in the harness's own process).
std::shared_ptr<const gpusel::ServingEngine> engine_for(const Row& r) {
  auto e = std::make_shared<gpusel::ServingEngine>(
      gpusel::default_serving_data().engine(r.at("engine_id")));
  for (auto& t : e->limits) {
    if (!r.at("max_seqs").empty()) t.max_seqs = int(num(r, "max_seqs"));
    if (!r.at("batched_tokens").empty()) t.batched_tokens = int(num(r, "batched_tokens"));
  }
  if (!r.at("mem_fraction").empty()) e->memory_fraction = num(r, "mem_fraction");
  if (r.at("frontend") == "in-process") e->api_host_s_per_seq = 0;  // no HTTP server
  return e;
}

Case make_case(const Row& r, const gpusel::Catalog& catalog) {
  Case c;
  c.id = r.at("id"), c.engine = r.at("engine_id"), c.gpu_id = r.at("gpu_id");
  c.model_id = r.at("model_id"), c.note = r.at("assumed");
  c.fit = r.at("split") == "fit";
  c.capacity = r.at("throughput_use") == "capacity";
  c.kind = kind_of(r.at("kind"));
  c.load = num(r, "load");
  c.replicas = int(num(r, "replicas", 1));
  if (!r.at("ttft_limit_ms").empty()) c.targets.ttft_s = num(r, "ttft_limit_ms") / 1000;
  if (!r.at("tpot_limit_ms").empty()) c.targets.tpot_s = num(r, "tpot_limit_ms") / 1000;
  c.targets.percentile = 0.99;
  c.measured_tokens_per_s = num(r, "output_tokens_per_s");
  c.ttft = latency(r.at("ttft_ms"));
  c.tpot = latency(r.at("tpot_ms"));
  const gpusel::Gpu& gpu = gpusel::require_gpu(catalog, c.gpu_id);
  gpusel::Workload w;
  w.model = gpusel::require_model(presets(), c.model_id);
  w.model_from_preset = true;
  w.mode = gpusel::Mode::inference;
  gpusel::set_precision(w, r.at("w_precision"));
  if (r.at("kv") != "auto") w.kv_dtype = gpusel::parse_kv_dtype(r.at("kv"));
  const gpusel::Traffic t{{num(r, "prompt_mean"), num(r, "prompt_sd")},
                          {num(r, "output_mean"), num(r, "output_sd")}};
  w.prompt_len = std::max(1, int(std::lround(t.prompt.mean)));
  w.seq_len = w.prompt_len + std::max(1, int(std::lround(t.output.mean)));
  w.allow_long_context = true;
  const int tp = int(num(r, "tp_used", 1));
  c.engine_settings = engine_for(r);
  w.engine = c.engine_settings->name;  // placed as the serving engine lays a model out
  const gpusel::Workload placed = gpusel::on_gpus(w, tp);
  const gpusel::Config cfg = gpusel::make_config(gpu, tp, w);
  c.replica = gpusel::build_replica(placed, gpu, tp, cfg.linked, *c.engine_settings, t);
  return c;
}

}  // namespace

const char* to_string(Kind k) {
  switch (k) {
    case Kind::offline:
      return "offline";
    case Kind::server:
      return "server";
    case Kind::interactive:
      return "interactive";
    case Kind::users:
      return "users";
    case Kind::poisson:
      return "poisson";
  }
  return "?";
}

std::vector<Conversion> convert_rows(const std::string& csv_path, const gpusel::Catalog& catalog) {
  std::vector<Conversion> out;
  for (const Row& r : calibration::read_csv(csv_path)) {
    Conversion cv;
    cv.id = r.at("id");
    cv.fit = r.at("split") == "fit";
    cv.skip_reason = r.at("skip");
    if (cv.skip_reason.empty()) {
      try {
        cv.c = make_case(r, catalog);
      } catch (const std::exception& e) {
        cv.skip_reason = std::string("cannot express: ") + e.what();
      }
    }
    out.push_back(std::move(cv));
  }
  return out;
}

}  // namespace serving_calibration
