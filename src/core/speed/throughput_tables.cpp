// data/throughput.json -> the tables of ThroughputConstants: achievable matmul rates,
// training efficiencies, memory types, engines, links and cluster networks. Each entry names
// where it came from (source, as_of); the loader refuses entries without them.
#include <algorithm>
#include <string>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/data/engines.hpp"
#include "gpusel/speed/throughput.hpp"
#include "throughput_model.hpp"

namespace gpusel {

bool CardMatch::matches(const Gpu& g) const {
  const auto in = [](const std::vector<std::string>& list, const std::string& v) {
    return list.empty() || std::find(list.begin(), list.end(), v) != list.end();
  };
  if (!gpus.empty()) return std::find(gpus.begin(), gpus.end(), g.id) != gpus.end();
  return (vendor.empty() || vendor == g.vendor) &&
         (architecture.empty() || g.architecture.find(architecture) != std::string::npos) &&
         in(segments, g.segment) && in(form_factors, g.form_factor);
}

namespace tput {
namespace {

using nlohmann::json;

std::string text(const json& o, const char* key, const std::string& at, bool required = true) {
  if (!o.contains(key)) {
    if (required) throw data_error(at + "." + key + ": missing");
    return "";
  }
  if (!o[key].is_string() || o[key].get<std::string>().empty())
    throw data_error(at + "." + key + ": must be a non-empty string");
  return o[key].get<std::string>();
}

std::vector<std::string> texts(const json& o, const char* key, const std::string& at) {
  std::vector<std::string> out;
  if (!o.contains(key)) return out;
  if (!o[key].is_array() || o[key].empty())
    throw data_error(at + "." + key + ": must be a non-empty array of strings");
  for (const auto& v : o[key]) {
    if (!v.is_string()) throw data_error(at + "." + key + ": must hold strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}

std::optional<double> optional_number(const json& o, const char* key, const std::string& at,
                                      double lo, double hi) {
  if (!o.contains(key)) return std::nullopt;
  return in_range(o[key], at + "." + key, lo, hi);
}

// Every entry of a list: an id, a match, a source and a date.
const json& entry(const json& list, std::size_t i, const std::string& at) {
  const json& e = list[i];
  const std::string where = at + "[" + std::to_string(i) + "]";
  if (!e.is_object()) throw data_error(where + ": must be an object");
  text(e, "id", where), text(e, "source", where), text(e, "as_of", where);
  return e;
}

CardMatch match_of(const json& e, const std::string& at) {
  if (!e.contains("match") || !e["match"].is_object() || e["match"].empty())
    throw data_error(at + ".match: must be a non-empty object");
  const json& m = e["match"];
  const std::string where = at + ".match";
  CardMatch c;
  c.gpus = texts(m, "gpus", where);
  c.vendor = text(m, "vendor", where, false);
  c.architecture = text(m, "architecture", where, false);
  c.segments = texts(m, "segments", where);
  if (const std::string one = text(m, "segment", where, false); !one.empty())
    c.segments.push_back(one);
  c.form_factors = texts(m, "form_factors", where);
  return c;
}

const json& list_of(const json& doc, const char* key, const std::string& origin) {
  if (!doc.contains(key) || !doc[key].is_array())
    throw data_error(origin + ": '" + key + "' must be an array");
  return doc[key];
}

void parse_matmul(const json& doc, const std::string& origin, ThroughputConstants& k) {
  const json& list = list_of(doc, "matmul", origin);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = origin + ": matmul[" + std::to_string(i) + "]";
    const json& e = entry(list, i, origin + ": matmul");
    MatmulEntry m;
    m.id = text(e, "id", at), m.stack = text(e, "stack", at), m.match = match_of(e, at);
    m.tflops = optional_number(e, "tflops", at, 0.01, 1e5);
    m.fraction = optional_number(e, "fraction", at, 0.01, 1.5);
    m.fp8_tflops = optional_number(e, "fp8_tflops", at, 0.01, 1e5);
    m.fp8_fraction = optional_number(e, "fp8_fraction", at, 0.01, 1.5);
    m.fp32_fraction = optional_number(e, "fp32_fraction", at, 0.01, 1.5);
    m.library = text(e, "library", at, false);
    if (!m.library.empty() && !m.tflops)
      throw data_error(at + ": an entry of one library gives its measured tflops");
    // An entry gives one 16-bit rate, or only an FP32 fraction (a family's SGEMM figure).
    if ((m.tflops && m.fraction) || (!m.tflops && !m.fraction && !m.fp32_fraction))
      throw data_error(at + ": give exactly one of tflops, fraction (or fp32_fraction alone)");
    k.matmul.push_back(std::move(m));
  }
}

void parse_efficiency(const json& doc, const std::string& origin, ThroughputConstants& k) {
  const json& list = list_of(doc, "training_efficiency", origin);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = origin + ": training_efficiency[" + std::to_string(i) + "]";
    const json& e = entry(list, i, origin + ": training_efficiency");
    if (!e.contains("value")) throw data_error(at + ".value: missing");
    k.training_efficiency.push_back({text(e, "id", at), match_of(e, at),
                                     in_range(e["value"], at + ".value", 0.01, 1),
                                     optional_number(e, "fp8_factor", at, 0.1, 1.5)});
  }
}

void parse_networks(const json& doc, const std::string& origin, ThroughputConstants& k) {
  const json& list = list_of(doc, "cluster_networks", origin);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = origin + ": cluster_networks[" + std::to_string(i) + "]";
    const json& e = entry(list, i, origin + ": cluster_networks");
    for (const char* f : {"gbs_per_gpu", "efficiency"})
      if (!e.contains(f)) throw data_error(at + "." + f + ": missing");
    const double gbs = in_range(e["gbs_per_gpu"], at + ".gbs_per_gpu", 0.01, 1e4);
    const double eff = in_range(e["efficiency"], at + ".efficiency", 0.01, 1);
    k.cluster_networks.push_back(
        {text(e, "id", at), text(e, "label", at), match_of(e, at), gbs * 1e9 * eff});
  }
}

// "Pascal|Maxwell": catalog architecture prefixes, at least one.
std::vector<std::string> bar_list(const json& v, const std::string& where) {
  if (!v.is_string()) throw data_error(where + ": must be text (prefixes separated by '|')");
  const std::string list = v.get<std::string>();
  std::vector<std::string> out;
  for (std::size_t from = 0; from <= list.size();) {
    const std::size_t bar = std::min(list.find('|', from), list.size());
    if (bar > from) out.push_back(list.substr(from, bar - from));
    from = bar + 1;
  }
  if (out.empty()) throw data_error(where + ": names no architecture");
  return out;
}

// {"efficiency": 0.254, "architectures": "Pascal (GP102|RDNA 2"}: MMQ on dp4a / v_dot4.
void read_dp4a(const json& v, const std::string& where, Engine& g) {
  if (!v.is_object()) throw data_error(where + ".value: must be an object");
  g.dp4a_efficiency = in_range(v.contains("efficiency") ? v["efficiency"] : json(),
                               where + ".value.efficiency", 0.01, 1);
  g.dp4a_on = bar_list(v.contains("architectures") ? v["architectures"] : json(),
                       where + ".value.architectures");
}

// {"above": 32, "vendor": "nvidia"}: engines whose prompt GEMMs dequantize for cuBLAS/hipBLAS.
void read_dequant(const json& v, const std::string& where, Engine& g) {
  if (!v.is_object()) throw data_error(where + ".value: must be an object");
  g.dequant_above =
      int(in_range(v.contains("above") ? v["above"] : json(), where + ".value.above", 1, 1e5));
  g.dequant_vendor = to_lower(text(v, "vendor", where + ".value"));
  if (g.dequant_vendor != "nvidia" && g.dequant_vendor != "amd")
    throw data_error(where + ".value.vendor: must be nvidia or amd");
}

// {"value": {"architectures": "Pascal|Maxwell", "engine": "llama.cpp-nograph", "says": "..."},
// source...}: where the engine runs as another of its entries (graphless_on, backend_on); the
// value may be a list of such objects, checked in order.
void read_variant(const json& e, const char* key, const std::string& at, Engine& g) {
  if (!e.contains(key)) return;
  const std::string where = at + "." + key;
  const json& o = e[key];
  if (!o.is_object() || !o.contains("value"))
    throw data_error(where + ".value: must be an object or a list of objects");
  const json& value = o["value"];
  const json list = value.is_array() ? value : json::array({value});
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& v = list[i];
    const std::string vat =
        where + ".value" + (value.is_array() ? "[" + std::to_string(i) + "]" : "");
    if (!v.is_object()) throw data_error(vat + ": must be an object");
    Engine::Variant var{key, {}, to_lower(text(v, "engine", vat)), text(v, "says", vat)};
    var.architectures =
        bar_list(v.contains("architectures") ? v["architectures"] : json(), vat + ".architectures");
    g.variants.push_back(std::move(var));
  }
}

Engine parse_engine(const std::string& name, const json& e, const std::string& at) {
  if (!e.is_object()) throw data_error(at + ": must be an object");
  Engine g;
  g.name = name, g.label = text(e, "label", at), g.aliases = texts(e, "aliases", at);
  if (!e.contains("kernel") || !e["kernel"].is_object())
    throw data_error(at + ".kernel: must be an object");
  g.kernel_gddr = number(e["kernel"], "gddr", at + ".kernel", 0.05, 1.5);
  g.kernel_hbm = number(e["kernel"], "hbm", at + ".kernel", 0.05, 1.5);
  g.kernel_unified = number(e["kernel"], "unified", at + ".kernel", 0.05, 1.5);
  if (e["kernel"].contains("gddr_ampere"))
    g.kernel_gddr_ampere = number(e["kernel"], "gddr_ampere", at + ".kernel", 0.05, 1.5);
  if (e["kernel"].contains("unified_base"))
    g.kernel_unified_base = number(e["kernel"], "unified_base", at + ".kernel", 0.05, 1.5);
  g.int8_factor = number(e, "int8_factor", at, 0.05, 1.5);
  g.int4_factor = number(e, "int4_factor", at, 0.05, 1.5);
  if (e.contains("int4_gemm")) g.int4_gemm = number(e, "int4_gemm", at, 0.05, 1.5);
  if (e.contains("int4_gemm_hopper"))
    g.int4_gemm_hopper = number(e, "int4_gemm_hopper", at, 0.05, 1.5);
  if (e.contains("int4_gemm_int8")) g.int4_gemm_int8 = flag(e, "int4_gemm_int8", at);
  if (e.contains("int4_gemm_also_on"))
    g.int4_gemm_also_on = bar_list(sourced(e, "int4_gemm_also_on", at), at + ".int4_gemm_also_on");
  if (e.contains("prefill_dp4a"))
    read_dp4a(sourced(e, "prefill_dp4a", at), at + ".prefill_dp4a", g);
  if (e.contains("prefill_dequantize"))
    read_dequant(sourced(e, "prefill_dequantize", at), at + ".prefill_dequantize", g);
  g.layer_overhead_s = number(e, "layer_overhead_us", at, 0, 1e4) * 1e-6;
  if (e.contains("row_split")) g.row_split = flag(e, "row_split", at);
  if (e.contains("quantized_head")) g.quantized_head = flag(e, "quantized_head", at);
  if (e.contains("moe_layer_overhead_us"))
    g.moe_layer_overhead_s = number(e, "moe_layer_overhead_us", at, 0, 1e4) * 1e-6;
  if (e.contains("host_step_us")) g.host_step_s = number(e, "host_step_us", at, 0, 1e6) * 1e-6;
  if (e.contains("host_layer_us")) g.host_layer_s = number(e, "host_layer_us", at, 0, 1e5) * 1e-6;
  if (e.contains("prefill_library")) {
    const json& lib = sourced(e, "prefill_library", at);
    if (!lib.is_object()) throw data_error(at + ".prefill_library.value: must be an object");
    g.prefill_library = text(lib, "library", at + ".prefill_library.value");
  }
  g.prefill_efficiency = number(e, "prefill_efficiency", at, 0.01, 1);
  g.prefill_fp16_accumulate = flag(e, "prefill_fp16_accumulate", at);
  read_variant(e, "graphless_on", at, g);
  read_variant(e, "backend_on", at, g);
  if (e.contains("prefill_metal")) {  // optional: only engines measured on Apple GPUs
    const std::string m = at + ".prefill_metal";
    if (!e["prefill_metal"].is_object()) throw data_error(m + ": must be an object");
    g.metal_prefill_efficiency = number(e["prefill_metal"], "efficiency", m, 0.01, 1);
    g.metal_prefill_quantized_factor = number(e["prefill_metal"], "quantized_factor", m, 0.05, 1);
  }
  return g;
}

// An engine entry may name another ("like": "vllm") and give only what differs: the other's
// figures apply where it gives none, so one engine's measurements live in one place. Its
// label is its own; the other's notes and aliases are not inherited, nor an optional field the
// entry sets to null (llama.cpp's Vulkan back end has none of its CUDA graph or SYCL
// variants). The other may itself be "like" a third (llama.cpp-cublas is llama.cpp-2024 with
// cuBLAS prompt GEMMs): the chain is resolved from its root, each entry's errors named at its
// own path, and a loop is a data error.
json resolved_engine(const json& engines, const json& e, const std::string& at, int depth = 0) {
  if (!e.is_object() || !e.contains("like")) return e;
  if (!e["like"].is_string()) throw data_error(at + ".like: must be the name of an engine");
  const std::string base = e["like"].get<std::string>();
  if (!engines.contains(base)) throw data_error(at + ".like: no engine '" + base + "'");
  if (depth >= kMaxLikeDepth)
    throw data_error(at + ".like: the chain of 'like' loops or is over " +
                     std::to_string(kMaxLikeDepth) + " deep");
  if (!e.contains("label")) throw data_error(at + ".label: missing (not inherited)");
  const std::string base_at = at.substr(0, at.rfind("engines.")) + "engines." + base;
  json out = resolved_engine(engines, engines[base], base_at, depth + 1);
  if (!out.is_object()) throw data_error(at + ".like: '" + base + "' must be an object");
  out.erase("aliases"), out.erase("notes");
  for (const auto& [key, value] : e.items()) {
    if (key == "like") continue;
    if (value.is_null())
      out.erase(key);
    else
      out[key] = value;
  }
  return out;
}

// A map of sourced fractions: memory types, links.
std::map<std::string, double> fractions(const json& doc, const char* key,
                                        const std::string& origin) {
  if (!doc.contains(key) || !doc[key].is_object() || doc[key].empty())
    throw data_error(origin + ": '" + key + "' must be a non-empty object");
  std::map<std::string, double> out;
  for (const auto& [name, r] : doc[key].items())
    out[name] = number(doc[key], name, origin + ": " + key, 0.01, 1.2);
  return out;
}

}  // namespace

void parse_tables(const json& doc, const std::string& origin, ThroughputConstants& k) {
  parse_matmul(doc, origin, k);
  parse_efficiency(doc, origin, k);
  parse_networks(doc, origin, k);
  k.memory_types = fractions(doc, "memory_types", origin);
  k.links = fractions(doc, "links", origin);
  for (const char* needed : {"pcie-p2p", "pcie-host", "nic-tcp", "nic-rdma"})
    if (!k.links.count(needed)) throw data_error(origin + ": links." + needed + ": missing");
  if (!doc.contains("engines") || !doc["engines"].is_object() || doc["engines"].empty())
    throw data_error(origin + ": 'engines' must be a non-empty object");
  for (const auto& [name, e] : doc["engines"].items()) {
    const std::string at = origin + ": engines." + name;
    k.engines[to_lower(name)] =
        parse_engine(to_lower(name), resolved_engine(doc["engines"], e, at), at);
  }
  for (const auto& [name, e] : k.engines)
    for (const Engine::Variant& v : e.variants)
      if (!k.engines.count(v.engine))
        throw data_error(origin + ": engines." + name + "." + v.key + ": no engine '" + v.engine +
                         "'");
}

}  // namespace tput
}  // namespace gpusel
