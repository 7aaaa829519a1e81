// Shape families: data/families.json, checked against its schema, parsed into records.
#include "gpusel/data/families.hpp"

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_schema.hpp"
#include "gpusel/json/json_source.hpp"
#include "json/json_fields.hpp"

namespace gpusel {
namespace {

using detail::required;
using nlohmann::json;

void parse_kv(ShapeFamily& f, const json& rec, const std::string& at) {
  const json& kv = rec.at("kv_heads");
  f.kv_rule = kv.is_string() ? kv.get<std::string>() : "fixed";
  if (kv.is_number()) f.kv_fixed = kv.get<int>();
  if (rec.at("kv_heads_by_size").is_null()) return;
  for (const json& step : rec.at("kv_heads_by_size")) {
    const int heads = int(step[1].get<double>());
    if (!f.kv_by_size.empty() &&
        (step[0].get<double>() <= f.kv_by_size.back().first || heads < f.kv_by_size.back().second))
      throw data_error(at + ": kv_heads_by_size must increase in size and never decrease");
    f.kv_by_size.emplace_back(step[0].get<double>(), heads);
  }
}

std::vector<ShapeFamily> parse(const json& doc, const std::string& origin) {
  // Shipped data only, its schema checked by the tests (embedded_json).
  std::vector<ShapeFamily> out;
  const json& list = doc.at("families");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& rec = list[i];
    const std::string at = detail::record_at(origin, "families", i, rec);
    ShapeFamily f;
    f.id = required<std::string>(rec, "id", at);
    f.name = required<std::string>(rec, "name", at);
    f.vocab = required<long>(rec, "vocab", at);
    f.tied_below = required<double>(rec, "tied_below", at);
    parse_kv(f, rec, at);
    f.head_dim = required<int>(rec, "head_dim", at);
    f.mlp = required<std::string>(rec, "mlp", at);
    f.mlp_ratio = required<double>(rec, "mlp_ratio", at);
    f.norm = required<std::string>(rec, "norm", at);
    f.qkv_bias = required<bool>(rec, "qkv_bias", at);
    f.hidden_per_layer = required<double>(rec, "hidden_per_layer", at);
    f.max_context = required<int>(rec, "max_context", at);
    f.source = required<std::string>(rec, "source", at);
    f.as_of = required<std::string>(rec, "as_of", at);
    out.push_back(std::move(f));
  }
  return out;
}

const json& document() { return embedded_json("data/families.json"); }

MoeForm parse_form(const json& j) {
  return {j.at("family").get<std::string>(), j.at("top_k").get<int>(),
          j.at("source").get<std::string>()};
}

}  // namespace

const std::vector<ShapeFamily>& shipped_families() {
  static const std::vector<ShapeFamily> all = parse(document(), "data/families.json");
  return all;
}

const MoeForms& moe_forms() {
  static const MoeForms forms = [] {
    const json& f = document().at("moe_forms");
    return MoeForms{parse_form(f.at("experts_x_size")), parse_form(f.at("total_a_active"))};
  }();
  return forms;
}

std::vector<std::string> family_names() {
  std::vector<std::string> out;
  for (const auto& f : shipped_families()) out.push_back(f.id);
  return out;
}

const ShapeFamily& shape_family(std::string_view id) {
  const std::string key = to_lower(id);
  for (const auto& f : shipped_families())
    if (f.id == key) return f;
  std::string list;
  for (const auto& n : family_names()) list += (list.empty() ? "" : "|") + n;
  throw usage_error("unknown --family '" + std::string(id) + "'" +
                    did_you_mean(id, family_names()) + " (expected " + list + ")");
}

}  // namespace gpusel
