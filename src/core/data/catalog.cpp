#include "gpusel/data/catalog.hpp"

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/i18n/i18n.hpp"
#include "gpusel/json/json_source.hpp"
#include "json/json_fields.hpp"
#include "records_internal.hpp"

namespace gpusel {
namespace {

using nlohmann::json;

using detail::present;
using detail::required;

template <typename T, typename J>
T optional_field(const J& rec, const char* key, T fallback, const std::string& at) {
  return present<T>(rec, key, at).value_or(fallback);
}

template <typename J>
std::optional<double> number_or_null(const J& rec, const char* key, const std::string& at) {
  return present<double>(rec, key, at);
}

template <typename J>
Price parse_price(const J& p, const std::string& at) {
  Price price;
  price.amount = required<double>(p, "amount", at);
  price.currency = required<std::string>(p, "currency", at);
  price.kind = required<std::string>(p, "kind", at);
  price.as_of = required<std::string>(p, "as_of", at);
  price.source = optional_field<std::string>(p, "source", "", at);
  return price;
}

template <typename J>
Interconnect parse_interconnect(const J& rec, const std::string& at) {
  Interconnect ic;
  if (!rec.contains("interconnect") || rec["interconnect"].is_null()) return ic;
  const J& j = rec["interconnect"];
  const std::string where = at + ".interconnect";  // once, not per field of every card
  ic.kind = optional_field<std::string>(j, "kind", "none", where);
  ic.bandwidth_gbs = optional_field<double>(j, "bandwidth_gbs", 0.0, where);
  ic.max_gpus = optional_field<int>(j, "max_gpus", 1, where);
  return ic;
}

template <typename J>
void parse_numbers(Gpu& g, const J& rec, const std::string& at) {
  g.vram_gb = required<double>(rec, "vram_gb", at);
  g.bandwidth_gbs = required<double>(rec, "bandwidth_gbs", at);
  g.fp32_tflops = optional_field<double>(rec, "fp32_tflops", 0.0, at);
  g.bf16_tflops_dense = number_or_null(rec, "bf16_tflops_dense", at);
  g.fp16_tflops_dense = number_or_null(rec, "fp16_tflops_dense", at);
  g.fp16_acc16_tflops_dense = number_or_null(rec, "fp16_acc16_tflops_dense", at);
  g.int8_tops_dense = number_or_null(rec, "int8_tops_dense", at);
  g.fp8_tflops_dense = number_or_null(rec, "fp8_tflops_dense", at);
  g.fp4_tflops_dense = number_or_null(rec, "fp4_tflops_dense", at);
  g.tdp_w = optional_field<double>(rec, "tdp_w", 0.0, at);
}

template <typename J>
void parse_text(Gpu& g, const J& rec, const std::string& at) {
  g.id = required<std::string>(rec, "id", at);
  g.name = required<std::string>(rec, "name", at);
  g.vendor = required<std::string>(rec, "vendor", at);
  g.architecture = optional_field<std::string>(rec, "architecture", "", at);
  g.segment = required<std::string>(rec, "segment", at);
  g.form_factor = optional_field<std::string>(rec, "form_factor", "", at);
  g.memory_type = optional_field<std::string>(rec, "memory_type", "", at);
  g.ecosystem = required<std::string>(rec, "ecosystem", at);
  g.platform_target = optional_field<std::string>(rec, "platform_target", "", at);
  g.market = optional_field<std::string>(rec, "market", "", at);
}

template <typename J>
MemoryShare parse_share(const J& j, const std::string& at) {
  if (!j.is_object()) throw data_error(at + ": a unified_memory_share entry must be an object");
  MemoryShare m;
  m.os = required<std::string>(j, "os", at);
  m.setting = required<std::string>(j, "setting", at);
  m.fraction = present<double>(j, "fraction", at);
  m.gb = present<double>(j, "gb", at);
  if (m.fraction.has_value() == m.gb.has_value())
    throw data_error(at + ": a unified_memory_share entry needs one of 'fraction' and 'gb'");
  if ((m.fraction && !(*m.fraction > 0 && *m.fraction <= 1)) || (m.gb && !(*m.gb > 0)))
    throw data_error(at + ": unified_memory_share must be a fraction in (0, 1] or positive GB");
  m.how = optional_field<std::string>(j, "how", "", at);
  m.source = optional_field<std::string>(j, "source", "", at);
  m.as_of = optional_field<std::string>(j, "as_of", "", at);
  m.note = optional_field<std::string>(j, "note", "", at);
  return m;
}

}  // namespace

template <typename J>
Gpu detail::parse_gpu_record(const J& rec, const std::string& at) {
  if (!rec.is_object()) throw data_error(at + ": a GPU record must be an object");
  Gpu g;
  parse_text(g, rec, at);
  parse_numbers(g, rec, at);
  g.launch_year = optional_field<int>(rec, "launch_year", 0, at);
  g.ecc = optional_field<bool>(rec, "ecc", false, at);
  g.unified_memory = optional_field<bool>(rec, "unified_memory", false, at);
  if (const auto shares = detail::present_ref(rec, "unified_memory_share")) {
    if (!shares->is_array()) detail::wrong_type(at, "unified_memory_share", "a list");
    for (const auto& j : *shares)
      g.unified_memory_share.push_back(parse_share(j, at + ".unified_memory_share"));
  }
  g.interconnect = parse_interconnect(rec, at);
  if (const auto pcie = detail::present_ref(rec, "pcie"); pcie && pcie->is_object()) {
    const std::string where = at + ".pcie";
    g.pcie_gen = optional_field<int>(*pcie, "gen", 0, where);
    g.pcie_lanes = optional_field<int>(*pcie, "lanes", 0, where);
  }
  if (const auto prices = detail::present_ref(rec, "prices")) {
    if (!prices->is_array()) detail::wrong_type(at, "prices", "a list");
    for (const auto& p : *prices) g.prices.push_back(parse_price(p, at));
  }
  return g;
}
template Gpu detail::parse_gpu_record(const json&, const std::string&);
template Gpu detail::parse_gpu_record(const json_detail::FlatValue&, const std::string&);

int compute_capability(std::string_view t) {
  if (t.rfind("sm_", 0) != 0 || t.size() < 4 || t.size() > 8) return 0;
  int v = 0;
  for (char c : t.substr(3)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return 0;
    v = v * 10 + (c - '0');
  }
  return v;
}

double Gpu::tensor16_tflops() const {
  if (bf16_tflops_dense) return *bf16_tflops_dense;
  if (fp16_tflops_dense) return *fp16_tflops_dense;
  return fp32_tflops;
}

double Gpu::tpp() const {
  // Dense rates only: the rule counts MAC operations the hardware performs, and sparsity
  // skips them (H100 SXM: 1979 FP8 TFLOPS x 8 = 15,832; RTX 4090 D: 4707, cut below 4800).
  double best = fp32_tflops * 32;
  const auto at = [&best](const std::optional<double>& rate, int bits) {
    if (rate) best = std::max(best, *rate * bits);
  };
  at(bf16_tflops_dense, 16);
  at(fp16_tflops_dense, 16);
  at(fp16_acc16_tflops_dense, 16);
  at(int8_tops_dense, 8);
  at(fp8_tflops_dense, 8);
  at(fp4_tflops_dense, 4);
  return best;
}

json Gpu::raw() const {
  if (raw_.text().empty()) return json::object();
  return json::parse(raw_.text());
}

RawRecord::RawRecord(std::shared_ptr<const InputText> document, std::size_t offset,
                     std::size_t size)
    : owner_(std::move(document)), offset_(offset) {
  if (owner_) text_ = owner_->view().substr(offset, size);
}

RawRecord::RawRecord(std::string_view static_document, std::size_t offset, std::size_t size)
    : text_(static_document.substr(offset, size)), offset_(offset) {}

void Catalog::reindex() const {
  index_.clear();
  index_.reserve(gpus.size());
  for (std::size_t i = 0; i < gpus.size(); ++i) index_.emplace(gpus[i].id, i);
  indexed_size_ = gpus.size();
}

void Catalog::adopt_index(std::unordered_map<std::string, std::size_t> index) {
  index_ = std::move(index);
  indexed_size_ = gpus.size();
}

const Gpu* Catalog::find(std::string_view id) const {
  // Compared with the list's size when it was built, not index_.size(): a repeated id would
  // otherwise rebuild it on every call, as threads read it too (document_waves.hpp).
  if (indexed_size_ != gpus.size()) reindex();
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto it = index_.find(std::string(id));
    if (it == index_.end()) return nullptr;
    if (it->second < gpus.size() && gpus[it->second].id == id) return &gpus[it->second];
    reindex();  // the list changed since the index was built
  }
  return nullptr;
}

std::vector<std::string> Catalog::ids() const {
  std::vector<std::string> out;
  for (const auto& g : gpus) out.push_back(g.id);
  return out;
}

Catalog parse_catalog(const json& doc, const std::string& origin) {
  if (!doc.is_object() || !doc.contains("gpus") || !doc["gpus"].is_array())
    throw data_error(origin + ": not a GPU catalog (expected an object with a 'gpus' array)");
  Catalog cat;
  cat.origin = origin;
  cat.reviewed = optional_field<std::string>(doc, "reviewed", "", origin);
  const json& list = doc["gpus"];
  for (std::size_t i = 0; i < list.size(); ++i) {
    Gpu g = detail::parse_gpu_record(list[i], detail::record_at(origin, "gpus", i, list[i]));
    auto text = std::make_shared<const InputText>(list[i].dump());
    g.set_raw({text, 0, text->view().size()});
    cat.gpus.push_back(std::move(g));
  }
  return cat;
}

json parse_json_text(const std::string& text, const std::string& origin) {
  // parse_located bounds nesting depth and reports "origin:line:col: reason".
  return parse_located(text, origin).doc;
}

void merge_catalog(Catalog& base, const Catalog& overlay) {
  std::unordered_map<std::string, std::size_t> at;
  for (std::size_t i = 0; i < base.gpus.size(); ++i) at.emplace(base.gpus[i].id, i);
  for (const auto& g : overlay.gpus) {
    if (auto it = at.find(g.id); it != at.end()) {
      base.gpus[it->second] = g;
    } else {
      at.emplace(g.id, base.gpus.size());
      base.gpus.push_back(g);
    }
  }
  base.reindex();
}

const Gpu& require_gpu(const Catalog& catalog, std::string_view id) {
  if (const Gpu* g = catalog.find(id)) return *g;
  throw usage_error(trf("unknown GPU id '{}'{}; `gpusel catalog list` shows all ids",
                        quote_input(id), did_you_mean_tr(id, catalog.ids())));
}

}  // namespace gpusel
