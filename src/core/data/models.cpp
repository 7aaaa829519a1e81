#include "gpusel/data/models.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/i18n/i18n.hpp"
#include "json/json_fields.hpp"
#include "records_internal.hpp"

namespace gpusel {
namespace {

using nlohmann::json;

struct Shape {
  double attention = 0, dense_mlp = 0, expert = 0, norms = 0;
};

// Attention matrices (and biases) of one block. MLA: DeepSeek-V2's down/up projections
// with the latent of kv_lora_rank; queries direct (V2-Lite) or through a q_lora_rank
// latent with its norm (V3, Kimi K2).
double attention_params(const ModelArch& m) {
  const double h = m.hidden, q = double(m.heads) * m.head_dim;
  if (m.mla) {
    const double rope = m.mla->qk_rope_head_dim, r = m.mla->kv_lora_rank;
    const double q_out = double(m.heads) * (m.head_dim + rope), ql = m.mla->q_lora_rank;
    const double queries = ql > 0 ? h * ql + ql + ql * q_out : h * q_out;
    return queries + h * (r + rope) + r * 2.0 * q + q * h + r;
  }
  const double kv = double(m.kv_heads) * m.head_dim;
  double p = h * q + 2 * h * kv + q * h;
  const bool gpt_style = m.norm == "layernorm";  // BERT/ViT/GPT-2: every linear has a bias
  if (m.qkv_bias || gpt_style) p += q + 2 * kv;
  if (gpt_style) p += h;
  return p;
}

// One Gated DeltaNet layer (Qwen3-Next): in_proj_qkvz, in_proj_ba, depthwise conv over
// q, k and v, per-head dt_bias and A_log, the gated norm and out_proj.
double linear_attention_params(const ModelArch& m) {
  const LinearAttentionSpec& s = *m.linear_attention;
  const double h = m.hidden, k = double(s.num_key_heads) * s.key_head_dim;
  const double v = double(s.num_value_heads) * s.value_head_dim;
  return h * (2 * k + 2 * v) + h * 2.0 * s.num_value_heads + (2 * k + v) * s.conv_kernel +
         2.0 * s.num_value_heads + s.value_head_dim + v * h;
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

LayerKind layer_kind(const ModelArch& m, int layer) {
  if (m.layer_pattern.empty()) return LayerKind::full;
  return m.layer_pattern[std::size_t(layer) % m.layer_pattern.size()];
}

LayerMix layer_mix(const ModelArch& m) {
  LayerMix mix;
  for (int i = 0; i < m.layers; ++i) {
    switch (layer_kind(m, i)) {
      case LayerKind::full:
        ++mix.full;
        break;
      case LayerKind::sliding:
        ++mix.sliding;
        break;
      case LayerKind::chunked:
        ++mix.chunked;
        break;
      case LayerKind::linear:
        ++mix.linear;
        break;
    }
  }
  return mix;
}

ArchParams arch_params(const ModelArch& m) {
  if (m.cnn) {  // published count only: every weight is a convolution or linear layer
    ArchParams a;
    a.total = a.active = a.linear = m.params;
    return a;
  }
  const Shape s = block_shape(m);
  const double emb_rows = m.kind == "vision-encoder" ? 0.0 : double(m.vocab);
  ArchParams a;
  a.embedding = emb_rows * m.hidden;
  a.lm_head = (m.kind == "decoder" && !m.tied_embeddings) || m.kind == "vision-encoder"
                  ? double(m.vocab) * m.hidden
                  : 0.0;
  double linear_total = double(m.layers) * s.attention;
  if (m.linear_attention)
    linear_total += layer_mix(m).linear * (linear_attention_params(m) - s.attention);
  double linear_active = linear_total;
  if (m.moe) {
    const int moe_layers = m.layers - m.moe->dense_layers;
    const double router = double(m.hidden) * m.moe->experts;
    linear_total += m.moe->dense_layers * s.dense_mlp +
                    moe_layers * (s.expert * (m.moe->experts + m.moe->shared_experts) + router);
    linear_active += m.moe->dense_layers * s.dense_mlp +
                     moe_layers * (s.expert * (m.moe->active + m.moe->shared_experts) + router);
    a.experts = moe_layers * s.expert * (m.moe->experts + m.moe->shared_experts);
    a.experts_active = moe_layers * s.expert * (m.moe->active + m.moe->shared_experts);
  } else {
    linear_total += m.layers * s.dense_mlp;
    linear_active = linear_total;
  }
  const double rest =
      a.embedding + a.lm_head + m.layers * s.norms + m.hidden + m.vision_params.value_or(0);
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
    if ((m.remainder_linear || (m.active_params && !m.moe)) && m.params > shape_total)
      a.linear += m.params - shape_total;
    a.linear = std::min(a.linear, a.total - a.embedding - a.lm_head);
    // A count rounded below the shape's ("1T" for 1.03T) shrinks the routed experts, never the
    // attention and dense layers the shape has: no part may come out negative.
    const double other = linear_total - a.experts;
    if (a.experts > 0 && a.linear < linear_total) {
      const double f = std::max(0.0, a.linear - other) / a.experts;
      a.experts *= f, a.experts_active *= f;
    }
  }
  // A published encoder count is its bare stack's: the masked-LM head comes on top.
  const double mlm = mlm_head_params(m);
  a.lm_head += mlm, a.total += mlm, a.active += mlm;
  return a;
}

bool scores_vocabulary(const ModelArch& m) {
  return m.vocab > 0 && (m.kind == "decoder" || (m.kind == "encoder" && m.mlm_head));
}

double mlm_head_params(const ModelArch& m) {
  if (!m.mlm_head || m.kind != "encoder") return 0;
  const double h = m.hidden;
  return h * h + h + 2 * h + double(m.vocab);  // dense + bias, LayerNorm, output bias
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

MlaSpec parse_mla(const json& j, const std::string& at) {
  MlaSpec s;
  s.kv_lora_rank = positive(j, "kv_lora_rank", at + ".mla");
  s.qk_rope_head_dim = positive(j, "qk_rope_head_dim", at + ".mla");
  s.q_lora_rank = maybe<int>(j, "q_lora_rank", at + ".mla").value_or(0);
  if (s.q_lora_rank < 0) throw data_error(at + ".mla: q_lora_rank must be positive or null");
  return s;
}

LinearAttentionSpec parse_linear_attention(const json& j, const std::string& at) {
  const std::string here = at + ".linear_attention";
  LinearAttentionSpec s;
  s.kind = field<std::string>(j, "kind", here);
  if (s.kind != "gated-deltanet")
    throw data_error(here + ": kind '" + s.kind + "' is not one of: gated-deltanet");
  s.num_key_heads = positive(j, "num_key_heads", here);
  s.key_head_dim = positive(j, "key_head_dim", here);
  s.num_value_heads = positive(j, "num_value_heads", here);
  s.value_head_dim = positive(j, "value_head_dim", here);
  s.conv_kernel = positive(j, "conv_kernel", here);
  return s;
}

std::vector<LayerKind> parse_layer_pattern(const json& rec, const std::string& at) {
  std::vector<LayerKind> out;
  const auto list = maybe<std::vector<std::string>>(rec, "layer_pattern", at);
  if (!list) return out;
  if (list->empty()) throw data_error(at + ": layer_pattern must not be empty (null: all full)");
  for (const std::string& k : *list) {
    if (k == "full")
      out.push_back(LayerKind::full);
    else if (k == "sliding")
      out.push_back(LayerKind::sliding);
    else if (k == "chunked")
      out.push_back(LayerKind::chunked);
    else if (k == "linear")
      out.push_back(LayerKind::linear);
    else
      throw data_error(at + ": layer_pattern entry '" + k +
                       "' is not one of: full, sliding, chunked, linear");
  }
  return out;
}

// The per-layer attention fields must agree: a window only with layers that use it, a
// linear-attention spec only with linear layers, and each of those with its spec.
void check_attention(const ModelArch& m, const std::string& at) {
  if (m.layer_pattern.size() > std::size_t(m.layers))
    throw data_error(at + ": layer_pattern is longer than layers");
  const LayerMix mix = layer_mix(m);
  const bool windowed = mix.sliding + mix.chunked > 0;
  if (m.sliding_window && *m.sliding_window < 1)
    throw data_error(at + ": sliding_window must be at least 1");
  if (windowed && !m.sliding_window)
    throw data_error(at +
                     ": layer_pattern has sliding or chunked layers but sliding_window is null");
  if (!windowed && m.sliding_window)
    throw data_error(at +
                     ": sliding_window is set but layer_pattern has no sliding or chunked "
                     "layer (all layers sliding: [\"sliding\"])");
  if (mix.linear > 0 && !m.linear_attention)
    throw data_error(at + ": layer_pattern has linear layers but linear_attention is null");
  if (mix.linear == 0 && m.linear_attention)
    throw data_error(at + ": linear_attention is set but layer_pattern has no linear layer");
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
  m.layer_pattern = parse_layer_pattern(rec, at);
  if (m.kv_heads > m.heads) throw data_error(at + ": kv_heads exceeds heads");
  if (m.vocab < 0) throw data_error(at + ": vocab must not be negative");
}

// Transformer records: shape, mixture, latent and linear attention, bundled vision tower.
void parse_transformer(ModelArch& m, const json& rec, const std::string& at) {
  parse_shape(m, rec, at);
  if (auto j = maybe<json>(rec, "moe", at)) m.moe = parse_moe(*j, at);
  if (m.moe && m.moe->dense_layers > m.layers)
    throw data_error(at + ".moe: dense_layers exceeds layers");
  if (auto j = maybe<json>(rec, "mla", at)) m.mla = parse_mla(*j, at);
  if (auto j = maybe<json>(rec, "linear_attention", at))
    m.linear_attention = parse_linear_attention(*j, at);
  m.vision_params = maybe<double>(rec, "vision_params", at);
  if (m.vision_params && !(*m.vision_params > 0))
    throw data_error(at + ": vision_params must be positive or null");
  m.image_tokens = maybe<int>(rec, "image_tokens", at);
  if (m.image_tokens && *m.image_tokens < 1) throw data_error(at + ": image_tokens must be >= 1");
  m.image_size = maybe<int>(rec, "image_size", at);
  if (m.image_size && (*m.image_size < 1 || !m.image_tokens))
    throw data_error(at + ": image_size must be at least 1 and comes with image_tokens");
  check_attention(m, at);
}

CnnSpec parse_cnn(const json& j, const std::string& at) {
  const std::string here = at + ".cnn";
  CnnSpec c;
  c.image_size = positive(j, "image_size", here);
  c.gflops = field<double>(j, "gflops", here);
  if (!(c.gflops > 0)) throw data_error(here + ": gflops must be positive");
  const std::string counting = maybe<std::string>(j, "gflops_counting", here).value_or("flops");
  if (counting != "flops" && counting != "multiply-adds")
    throw data_error(here + ".gflops_counting: expected flops or multiply-adds");
  c.gflops_are_macs = counting == "multiply-adds";
  c.saved_values = field<double>(j, "saved_values_per_image", here);
  if (!(c.saved_values > 0)) throw data_error(here + ": saved_values_per_image must be positive");
  c.optimizer = maybe<std::string>(j, "optimizer", here).value_or("");
  if (!c.optimizer.empty() && c.optimizer != "sgd" && c.optimizer != "adamw")
    throw data_error(here + ".optimizer: expected sgd or adamw");
  const auto stages = field<std::vector<json>>(j, "stages", here);
  if (stages.empty()) throw data_error(here + ": stages must not be empty");
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const std::string st = here + ".stages[" + std::to_string(i) + "]";
    c.stages.push_back({positive(stages[i], "stride", st), positive(stages[i], "channels", st),
                        positive(stages[i], "mid_channels", st),
                        positive(stages[i], "blocks", st)});
  }
  return c;
}

// CNN records carry no transformer shape: the classes of the head stand in vocab's place.
void parse_cnn_model(ModelArch& m, const json& rec, const std::string& at) {
  m.vocab = positive(rec, "classes", at);
  m.cnn = parse_cnn(field<json>(rec, "cnn", at), at);
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
  if (m.kind == "cnn")
    parse_cnn_model(m, rec, at);
  else if (m.kind == "decoder" || m.kind == "encoder" || m.kind == "vision-encoder")
    parse_transformer(m, rec, at), detail::check_count(m, at);
  else
    throw data_error(at + ": kind '" + m.kind +
                     "' is not one of: decoder, encoder, vision-encoder, cnn");
  if (m.kind != "cnn") m.shipped = detail::parse_shipped(rec, at);
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
    if (m.id != id) {
      ids.push_back(m.id);
      continue;
    }
    return m;
  }
  throw usage_error(trf("unknown model '{}'{}; `gpusel models list` shows all ids", quote_input(id),
                        did_you_mean_tr(id, ids)));
}

}  // namespace gpusel
