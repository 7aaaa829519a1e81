#include "gpusel/data/models.hpp"

#include <algorithm>
#include <unordered_set>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "json/json_fields.hpp"
#include "records_internal.hpp"

namespace gpusel {
namespace {

using nlohmann::json;

struct Shape {
  double attention = 0, dense_mlp = 0, expert = 0, norms = 0;
};

// Attention matrices (and biases) of one block. MLA: DeepSeek-V2's down/up projections
// with the latent of kv_lora_rank, q without a low-rank path (V2-Lite).
double attention_params(const ModelArch& m) {
  const double h = m.hidden, q = double(m.heads) * m.head_dim;
  if (m.mla) {
    const double rope = m.mla->qk_rope_head_dim, r = m.mla->kv_lora_rank;
    return h * m.heads * (m.head_dim + rope) + h * (r + rope) + r * 2.0 * q + q * h + r;
  }
  const double kv = double(m.kv_heads) * m.head_dim;
  double p = h * q + 2 * h * kv + q * h;
  const bool gpt_style = m.norm == "layernorm";  // BERT/ViT/GPT-2: every linear has a bias
  if (m.qkv_bias || gpt_style) p += q + 2 * kv;
  if (gpt_style) p += h;
  return p;
}

double mlp_params(const ModelArch& m, double width) {
  const double h = m.hidden;
  if (m.mlp == "gelu") return 2 * h * width + (m.norm == "layernorm" ? width + h : 0);
  return 3 * h * width;  // gate, up, down
}

Shape block_shape(const ModelArch& m) {
  Shape s;
  s.attention = attention_params(m);
  s.dense_mlp = mlp_params(m, m.intermediate);
  if (m.moe) s.expert = mlp_params(m, m.moe->expert_intermediate);
  s.norms = (m.norm == "layernorm" ? 4.0 : 2.0) * m.hidden;
  return s;
}

}  // namespace

ArchParams arch_params(const ModelArch& m) {
  const Shape s = block_shape(m);
  const double emb_rows = m.kind == "vision-encoder" ? 0.0 : double(m.vocab);
  ArchParams a;
  a.embedding = emb_rows * m.hidden;
  a.lm_head = (m.kind == "decoder" && !m.tied_embeddings) || m.kind == "vision-encoder"
                  ? double(m.vocab) * m.hidden
                  : 0.0;
  double linear_total = double(m.layers) * s.attention, linear_active = linear_total;
  if (m.moe) {
    const int moe_layers = m.layers - m.moe->dense_layers;
    const double router = double(m.hidden) * m.moe->experts;
    linear_total += m.moe->dense_layers * s.dense_mlp +
                    moe_layers * (s.expert * (m.moe->experts + m.moe->shared_experts) + router);
    linear_active += m.moe->dense_layers * s.dense_mlp +
                     moe_layers * (s.expert * (m.moe->active + m.moe->shared_experts) + router);
  } else {
    linear_total += m.layers * s.dense_mlp;
    linear_active = linear_total;
  }
  const double rest = a.embedding + a.lm_head + m.layers * s.norms + m.hidden;
  a.linear = linear_total;
  a.total = linear_total + rest;
  a.active = linear_active + rest;
  // Published counts win (they include what a shape formula misses: position tables,
  // pooler, classifier); the linear share keeps its computed size.
  if (m.params > 0) {
    const double shape_total = a.total;
    a.active = m.active_params.value_or(m.params * (a.active / a.total));
    a.total = m.params;
    // A bare MoE count ("30B-A3B") has a dense shape of the active size: what that shape
    // lacks of the total is expert MLPs, which are linear layers (quantized, LoRA-able).
    if (m.active_params && !m.moe && m.params > shape_total) a.linear += m.params - shape_total;
    a.linear = std::min(a.linear, a.total - a.embedding - a.lm_head);
  }
  return a;
}

namespace {

template <typename T>
std::optional<T> maybe(const json& rec, const char* key, const std::string& at) {
  return detail::present<T>(rec, key, at);
}

// A null counts as missing here: every model field is either required or optional.
template <typename T>
T field(const json& rec, const char* key, const std::string& at) {
  if (auto v = maybe<T>(rec, key, at)) return *std::move(v);
  throw data_error(at + ": missing field '" + key + "'");
}

int positive(const json& rec, const char* key, const std::string& at) {
  const int v = field<int>(rec, key, at);
  if (v < 1) throw data_error(at + ": field '" + key + "' must be at least 1");
  return v;
}

MoeSpec parse_moe(const json& j, const std::string& at) {
  MoeSpec s;
  s.experts = positive(j, "experts", at + ".moe");
  s.active = positive(j, "active", at + ".moe");
  s.shared_experts = maybe<int>(j, "shared_experts", at).value_or(0);
  s.expert_intermediate = positive(j, "expert_intermediate", at + ".moe");
  s.dense_layers = maybe<int>(j, "dense_layers", at).value_or(0);
  if (s.active > s.experts) throw data_error(at + ".moe: active exceeds experts");
  if (s.shared_experts < 0 || s.dense_layers < 0)
    throw data_error(at + ".moe: shared_experts and dense_layers must not be negative");
  return s;
}

void parse_shape(ModelArch& m, const json& rec, const std::string& at) {
  m.layers = positive(rec, "layers", at);
  m.hidden = positive(rec, "hidden", at);
  m.heads = positive(rec, "heads", at);
  m.kv_heads = positive(rec, "kv_heads", at);
  m.head_dim = positive(rec, "head_dim", at);
  m.intermediate = positive(rec, "intermediate", at);
  m.vocab = field<long>(rec, "vocab", at);
  m.tied_embeddings = field<bool>(rec, "tied_embeddings", at);
  m.mlp = field<std::string>(rec, "mlp", at);
  m.norm = field<std::string>(rec, "norm", at);
  m.qkv_bias = maybe<bool>(rec, "qkv_bias", at).value_or(false);
  m.max_context = positive(rec, "max_context", at);
  m.sliding_window = maybe<int>(rec, "sliding_window", at);
  if (m.sliding_window && *m.sliding_window < 1)
    throw data_error(at + ": sliding_window must be >= 1");
  if (m.kv_heads > m.heads) throw data_error(at + ": kv_heads exceeds heads");
  if (m.vocab < 0) throw data_error(at + ": vocab must not be negative");
}

}  // namespace

ModelArch detail::parse_model_record(const json& rec, const std::string& at) {
  if (!rec.is_object()) throw data_error(at + ": a model record must be an object");
  ModelArch m;
  m.id = field<std::string>(rec, "id", at);
  m.name = field<std::string>(rec, "name", at);
  m.family = maybe<std::string>(rec, "family", at).value_or("");
  m.kind = field<std::string>(rec, "kind", at);
  m.params = field<double>(rec, "params", at);
  if (!(m.params > 0)) throw data_error(at + ": params must be positive");
  m.active_params = maybe<double>(rec, "active_params", at);
  parse_shape(m, rec, at);
  if (auto moe = maybe<json>(rec, "moe", at)) m.moe = parse_moe(*moe, at);
  if (m.moe && m.moe->dense_layers > m.layers)
    throw data_error(at + ".moe: dense_layers exceeds layers");
  if (auto mla = maybe<json>(rec, "mla", at))
    m.mla = MlaSpec{positive(*mla, "kv_lora_rank", at + ".mla"),
                    positive(*mla, "qk_rope_head_dim", at + ".mla")};
  m.image_tokens = maybe<int>(rec, "image_tokens", at);
  if (m.image_tokens && *m.image_tokens < 1) throw data_error(at + ": image_tokens must be >= 1");
  m.source = field<std::string>(rec, "source", at);
  m.as_of = field<std::string>(rec, "as_of", at);
  m.notes = maybe<std::string>(rec, "notes", at).value_or("");
  return m;
}

std::vector<ModelArch> parse_models(const json& doc, const std::string& origin) {
  if (!doc.is_object() || !doc.contains("models") || !doc["models"].is_array())
    throw data_error(origin + ": expected an object with a \"models\" array");
  std::vector<ModelArch> out;
  std::unordered_set<std::string> ids;
  for (std::size_t i = 0; i < doc["models"].size(); ++i) {
    const json& rec = doc["models"][i];
    std::string at = origin + ": models[" + std::to_string(i) + "]";
    if (rec.is_object() && rec.contains("id") && rec["id"].is_string())
      at += " (" + quote_input(rec["id"].get<std::string>()) + ")";
    out.push_back(detail::parse_model_record(rec, at));
    if (!ids.insert(out.back().id).second) throw data_error(at + ": duplicate id");
  }
  return out;
}

const ModelArch& require_model(const std::vector<ModelArch>& models, std::string_view id) {
  std::vector<std::string> ids;
  for (const auto& m : models) {
    if (m.id == id) return m;
    ids.push_back(m.id);
  }
  throw usage_error("unknown model '" + quote_input(id) + "'" + did_you_mean(id, ids) +
                    "; `gpusel models list` shows all ids");
}

}  // namespace gpusel
