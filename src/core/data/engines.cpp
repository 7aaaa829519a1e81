#include "gpusel/data/engines.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "engines_internal.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/data/catalog.hpp"
#include "gpusel/json/embedded.hpp"

namespace gpusel {
namespace {

using detail::EngineSplits;
using nlohmann::json;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

// engines.<name>.<field>, or the nearest entry up its chain of "like" that has it (as the
// speed stage resolves it); nullptr when none has it, or when the nearest sets it to null (not
// inherited, as the speed stage reads null). A chain longer than kMaxLikeDepth is a loop, which
// the speed stage refuses with its own message: here it simply ends.
const json* find_own_or_like(const json& engines, const json& e, const char* field) {
  const json* own = &e;
  for (int depth = 0; !own->contains(field) && depth < kMaxLikeDepth; ++depth) {
    if (!own->contains("like") || !(*own)["like"].is_string() ||
        !engines.contains((*own)["like"].get<std::string>()))
      return nullptr;
    own = &engines[(*own)["like"].get<std::string>()];
    if (!own->is_object()) return nullptr;
  }
  return own->contains(field) && !(*own)[field].is_null() ? &(*own)[field] : nullptr;
}

// As find_own_or_like, for a field every engine must have.
const json& own_or_like(const json& engines, const json& e, const char* field,
                        const std::string& at) {
  const json* f = find_own_or_like(engines, e, field);
  if (!f || !f->is_object()) throw data_error(at + "." + field + ": missing");
  return *f;
}

bool splits_layers(const json& engines, const json& e, const std::string& at) {
  const json& v = own_or_like(engines, e, "multi_gpu", at).value("value", json());
  if (v != "layer" && v != "tensor")
    throw data_error(at + ".multi_gpu.value: must be \"layer\" or \"tensor\"");
  return v == "layer";
}

std::vector<std::string> runs_on(const json& engines, const json& e, const std::string& at) {
  const json& v = own_or_like(engines, e, "runs_on", at).value("value", json());
  std::vector<std::string> out;
  if (v.is_array())
    for (const json& x : v)
      if (x.is_string()) out.push_back(x.get<std::string>());
  if (out.empty() || out.size() != v.size())
    throw data_error(at + ".runs_on.value: must list ecosystems (cuda, rocm, ...)");
  return out;
}

// One {cuda_min, rocm, oneapi} object: CUDA from a compute capability, ROCm and Intel on
// listed targets.
detail::WeightKernel cards_of(const json& k, const std::string& at) {
  detail::WeightKernel w;
  if (!k.is_object()) throw data_error(at + ": must be an object");
  if (k.contains("cuda_min")) {
    w.cuda_listed = true;
    w.cuda_min =
        k["cuda_min"].is_string() ? compute_capability(k["cuda_min"].get<std::string>()) : 0;
    if (w.cuda_min == 0) throw data_error(at + ".cuda_min: must be sm_NN");
  }
  auto list = [&](const char* field, bool& listed, std::vector<std::string>& out) {
    if (!k.contains(field) || !k[field].is_array()) return;
    listed = true;
    for (const json& t : k[field])
      if (t.is_string()) out.push_back(t.get<std::string>());
  };
  list("rocm", w.rocm_listed, w.rocm);
  list("oneapi", w.oneapi_listed, w.oneapi);
  return w;
}

// Whether a card (ecosystem, kernel target) is among `w`'s; empty where `w` says nothing of
// its ecosystem.
std::optional<bool> among(const detail::WeightKernel& w, const std::string& ecosystem,
                          const std::string& target) {
  if (ecosystem == "cuda" && w.cuda_listed) return compute_capability(target) >= w.cuda_min;
  if (ecosystem == "rocm" && w.rocm_listed)
    return std::find(w.rocm.begin(), w.rocm.end(), target) != w.rocm.end();
  if (ecosystem == "oneapi" && w.oneapi_listed)
    return std::find(w.oneapi.begin(), w.oneapi.end(), target) != w.oneapi.end();
  return std::nullopt;
}

// engines.<name>.weight_kernels (own or up its chain of "like"); absent or null: none.
std::map<std::string, detail::WeightKernel> weight_kernels(const json& engines, const json& e,
                                                           const std::string& at) {
  const json* own = find_own_or_like(engines, e, "weight_kernels");
  std::map<std::string, detail::WeightKernel> out;
  if (!own) return out;
  const json v = own->is_object() ? own->value("value", json()) : json();
  if (!v.is_object()) throw data_error(at + ".weight_kernels.value: must be an object");
  for (const auto& [format, k] : v.items())
    out[format] = cards_of(k, at + ".weight_kernels.value." + format);
  return out;
}

// engines.<name>.targets (own or up its chain of "like"); absent or null: every card of its
// runs_on ecosystems.
std::optional<detail::WeightKernel> targets(const json& engines, const json& e,
                                            const std::string& at) {
  const json* own = find_own_or_like(engines, e, "targets");
  if (!own) return std::nullopt;
  return cards_of(own->is_object() ? own->value("value", json()) : json(), at + ".targets.value");
}

// constants.default_engine.value.<which>: an engine's key.
std::string default_engine(const json& doc, const json& engines, const char* which,
                           const std::string& origin) {
  const json* c = doc.contains("constants") ? &doc["constants"] : nullptr;
  const json* d = c && c->contains("default_engine") ? &(*c)["default_engine"] : nullptr;
  const json v = d && d->is_object() ? d->value("value", json()) : json();
  if (!v.is_object() || !v.contains(which) || !v[which].is_string() ||
      !engines.contains(v[which].get<std::string>()))
    throw data_error(origin + ": constants.default_engine.value." + which +
                     ": must name an engine");
  return v[which].get<std::string>();
}

// Parsed once from the embedded file; its schema and the speed stage check the rest.
const EngineSplits& splits() {
  static const EngineSplits table =
      detail::parse_engine_splits(embedded_json("data/throughput.json"), "data/throughput.json");
  return table;
}

}  // namespace

EngineSplits detail::parse_engine_splits(const json& doc, const std::string& origin) {
  if (!doc.contains("engines") || !doc["engines"].is_object())
    throw data_error(origin + ": engines: missing (an object of engines)");
  const json& engines = doc["engines"];
  EngineSplits t;
  for (const auto& [name, e] : engines.items()) {
    if (!e.is_object()) throw data_error(origin + ": engines." + name + ": must be an object");
    t.key_of[lower(name)] = name;
    for (const json& a : e.value("aliases", json::array()))
      if (a.is_string()) t.key_of[lower(a.get<std::string>())] = name;
    t.layers[name] = splits_layers(engines, e, origin + ": engines." + name);
    t.runs_on[name] = runs_on(engines, e, origin + ": engines." + name);
    t.kernels[name] = weight_kernels(engines, e, origin + ": engines." + name);
    if (auto cards = targets(engines, e, origin + ": engines." + name)) t.targets[name] = *cards;
  }
  t.batch1 = default_engine(doc, engines, "batch1", origin);
  t.batched = default_engine(doc, engines, "batched", origin);
  const json& v = doc.at("constants").at("default_engine").at("value");  // checked above
  if (v.contains("batched_older"))
    t.batched_older = default_engine(doc, engines, "batched_older", origin);
  if (v.contains("batched_older_models") && v["batched_older_models"].is_array())
    for (const json& id : v["batched_older_models"])
      if (id.is_string()) t.batched_older_models.push_back(id.get<std::string>());
  return t;
}

std::string inference_engine(const std::string& engine, int batch, bool tensor_parallel) {
  const EngineSplits& t = splits();
  if (engine.empty()) return batch > 1 || tensor_parallel ? t.batched : t.batch1;
  const auto it = t.key_of.find(lower(engine));
  return it != t.key_of.end() ? it->second : lower(engine);
}

std::string older_batched_engine() { return splits().batched_older; }

bool older_batched_engine_loads(const std::string& model_id, bool weights_16bit) {
  const auto& ids = splits().batched_older_models;
  return weights_16bit &&
         (model_id.empty() || std::find(ids.begin(), ids.end(), model_id) != ids.end());
}

bool engine_splits_layers(const std::string& engine_key) {
  const auto& layers = splits().layers;
  const auto it = layers.find(engine_key);
  return it != layers.end() && it->second;
}

bool engine_runs_on(const std::string& engine_key, const std::string& ecosystem) {
  const auto& all = splits().runs_on;
  const auto it = all.find(engine_key);
  return it == all.end() ||
         std::find(it->second.begin(), it->second.end(), ecosystem) != it->second.end();
}

bool engine_runs_on(const std::string& engine_key, const Gpu& g) {
  if (!engine_runs_on(engine_key, g.ecosystem)) return false;
  if (g.platform_target.empty()) return true;  // a card whose target nobody recorded
  const auto& all = splits().targets;
  const auto it = all.find(engine_key);
  return it == all.end() || among(it->second, g.ecosystem, g.platform_target).value_or(true);
}

std::optional<bool> engine_loads_weights(const std::string& engine_key, const std::string& format,
                                         const std::string& ecosystem, const std::string& target) {
  const auto& all = splits().kernels;
  const auto e = all.find(engine_key);
  if (e == all.end()) return std::nullopt;
  const auto k = e->second.find(format);
  if (k == e->second.end()) return std::nullopt;
  return among(k->second, ecosystem, target);
}

std::string engine_platforms(const std::string& engine_key) {
  const auto& all = splits().runs_on;
  const auto it = all.find(engine_key);
  std::string out;
  if (it != all.end())
    for (const auto& e : it->second) out += (out.empty() ? "" : ", ") + e;
  return out;
}

std::string tensor_parallel_engines() {
  std::string out;
  for (const auto& [name, layers] : splits().layers)
    if (!layers) out += (out.empty() ? "" : "|") + name;
  return out;
}

}  // namespace gpusel
