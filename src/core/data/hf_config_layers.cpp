// The parts of a config.json that differ by model_type: attention kind per layer, experts,
// latent attention and linear attention (transformers configuration_<type>.py field names).
#include <vector>

#include "gpusel/base/text.hpp"
#include "hf_config_internal.hpp"

namespace gpusel::hf {
namespace {

using nlohmann::json;

bool is(const Cfg& c, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (c.type == n) return true;
  return false;
}

LayerKind kind_named(const Cfg& c, const json& v) {
  const std::string k = v.is_string() ? v.get<std::string>() : "";
  if (k == "full_attention") return LayerKind::full;
  if (k == "sliding_attention") return LayerKind::sliding;
  if (k == "chunked_attention") return LayerKind::chunked;
  if (k == "linear_attention") return LayerKind::linear;
  c.fail("layer_types entry '" + quote_input(v.dump()) +
         "' is not full_attention, sliding_attention, chunked_attention or linear_attention");
}

// Layer i's kind by the type's own rule, where the config has no layer_types list.
LayerKind kind_by_rule(const Cfg& c, int i, int layers) {
  if (c.type == "gemma2" || c.type == "gpt_oss")  // alternate, starting with a local layer
    return i % 2 == 0 ? LayerKind::sliding : LayerKind::full;
  if (c.type == "gemma3_text") {  // Gemma3TextConfig default pattern 6: five local, one global
    const int p = c.maybe_count("sliding_window_pattern").value_or(6);
    return (i + 1) % p ? LayerKind::sliding : LayerKind::full;
  }
  if (c.type == "qwen3_next")
    return (i + 1) % c.count("full_attention_interval") ? LayerKind::linear : LayerKind::full;
  if (c.type == "llama4_text") {  // NoPE layers are global, the RoPE layers chunked
    if (c.has("no_rope_layers")) {
      const json& list = c.j["no_rope_layers"];
      if (!list.is_array() || int(list.size()) != layers)
        c.fail("no_rope_layers must list one 0/1 per layer");
      return list[std::size_t(i)] == 0 ? LayerKind::full : LayerKind::chunked;
    }
    const int every = c.maybe_count("no_rope_layer_interval").value_or(4);
    return (i + 1) % every ? LayerKind::chunked : LayerKind::full;
  }
  const bool windowed = c.has("sliding_window");
  if (is(c, {"qwen2", "qwen2_moe", "qwen3", "qwen3_moe"}))  // listed, used only when enabled
    return windowed && c.flag("use_sliding_window").value_or(false) &&
                   i >= c.maybe_count("max_window_layers").value_or(0)
               ? LayerKind::sliding
               : LayerKind::full;
  if (is(c, {"mistral", "mixtral", "phi3"}) && windowed) return LayerKind::sliding;
  return LayerKind::full;
}

// The shortest cycle from layer 0 that reproduces every layer's kind (models.json's form).
std::vector<LayerKind> shortest_cycle(const std::vector<LayerKind>& kinds) {
  for (std::size_t p = 1; p <= kinds.size(); ++p) {
    bool repeats = true;
    for (std::size_t i = p; i < kinds.size() && repeats; ++i) repeats = kinds[i] == kinds[i % p];
    if (repeats) return {kinds.begin(), kinds.begin() + long(p)};
  }
  return kinds;
}

}  // namespace

void read_attention_kinds(ModelArch& m, const Cfg& c) {
  std::vector<LayerKind> kinds;
  const bool listed = c.has("layer_types");
  if (listed && (!c.j["layer_types"].is_array() || int(c.j["layer_types"].size()) != m.layers))
    c.fail("layer_types must list one kind per layer (" + std::to_string(m.layers) + ")");
  for (int i = 0; i < m.layers; ++i)
    kinds.push_back(listed ? kind_named(c, c.j["layer_types"][std::size_t(i)])
                           : kind_by_rule(c, i, m.layers));
  bool windowed = false, all_full = true;
  for (LayerKind k : kinds) {
    windowed = windowed || k == LayerKind::sliding || k == LayerKind::chunked;
    all_full = all_full && k == LayerKind::full;
  }
  if (windowed)
    m.sliding_window = c.count(c.type == "llama4_text" ? "attention_chunk_size" : "sliding_window");
  if (!all_full) m.layer_pattern = shortest_cycle(kinds);
}

void read_moe(ModelArch& m, const Cfg& c) {
  const char* experts_key = c.has("num_local_experts")  ? "num_local_experts"
                            : c.has("n_routed_experts") ? "n_routed_experts"
                            : c.has("num_experts")      ? "num_experts"
                                                        : nullptr;
  if (!experts_key) return;
  MoeSpec s;
  s.experts = c.count(experts_key);
  s.active =
      c.has("num_experts_per_tok") ? c.count("num_experts_per_tok") : c.count("experts_per_token");
  s.expert_intermediate = c.maybe_count("moe_intermediate_size").value_or(m.intermediate);
  if (c.has("n_shared_experts")) {
    s.shared_experts = c.count("n_shared_experts");
  } else if (c.has("shared_expert_intermediate_size")) {  // Qwen: one wide shared expert
    const int width = c.count("shared_expert_intermediate_size");
    if (width % s.expert_intermediate != 0)
      c.fail("shared_expert_intermediate_size is not a multiple of moe_intermediate_size");
    s.shared_experts = width / s.expert_intermediate;
  } else if (c.type == "llama4_text") {
    s.shared_experts = 1;  // Llama4TextMoe always adds one shared expert
  }
  if (c.maybe_count("moe_layer_freq").value_or(1) != 1 ||
      c.maybe_count("decoder_sparse_step").value_or(1) != 1 ||
      (c.has("mlp_only_layers") && !c.j["mlp_only_layers"].empty()))
    c.fail(
        "MoE on only some layers (moe_layer_freq, decoder_sparse_step, mlp_only_layers) "
        "is not modelled");
  s.dense_layers = c.maybe_count("first_k_dense_replace").value_or(0);
  if (s.dense_layers > m.layers) c.fail("first_k_dense_replace exceeds num_hidden_layers");
  if (c.type == "llama4_text") {  // moe_layers, else every step-th layer is MoE; the rest dense
    const int step = c.maybe_count("interleave_moe_layer_step").value_or(1);
    const bool listed = c.has("moe_layers") && c.j["moe_layers"].is_array();
    s.dense_layers = m.layers - (listed ? int(c.j["moe_layers"].size()) : m.layers / step);
  }
  if (s.active > s.experts) c.fail("num_experts_per_tok exceeds the experts");
  // Presets record the dense MLP's width when dense layers exist, else the expert's.
  if (s.dense_layers == 0) m.intermediate = s.expert_intermediate;
  if (c.type == "llama4_text" && s.dense_layers > 0)
    m.intermediate = c.count("intermediate_size_mlp");
  m.moe = s;
}

void read_mla(ModelArch& m, const Cfg& c) {
  if (!c.has("kv_lora_rank")) return;
  MlaSpec s;
  s.kv_lora_rank = c.count("kv_lora_rank");
  s.qk_rope_head_dim = c.count("qk_rope_head_dim");
  s.q_lora_rank = c.maybe_count("q_lora_rank").value_or(0);  // null: queries projected directly
  m.head_dim = c.count("qk_nope_head_dim");
  if (c.maybe_count("v_head_dim").value_or(m.head_dim) != m.head_dim)
    c.fail("v_head_dim differs from qk_nope_head_dim, which the estimator assumes equal");
  m.mla = s;
}

void read_linear_attention(ModelArch& m, const Cfg& c) {
  if (layer_mix(m).linear == 0) return;
  LinearAttentionSpec s;
  s.num_key_heads = c.count("linear_num_key_heads");
  s.key_head_dim = c.count("linear_key_head_dim");
  s.num_value_heads = c.count("linear_num_value_heads");
  s.value_head_dim = c.count("linear_value_head_dim");
  s.conv_kernel = c.count("linear_conv_kernel_dim");
  m.linear_attention = s;
}

json llama4_text_defaults() {
  return {{"vocab_size", 202048},         {"hidden_size", 5120},
          {"intermediate_size", 8192},    {"intermediate_size_mlp", 16384},
          {"num_hidden_layers", 48},      {"num_attention_heads", 40},
          {"num_key_value_heads", 8},     {"head_dim", 128},
          {"hidden_act", "silu"},         {"max_position_embeddings", 131072},
          {"tie_word_embeddings", false}, {"num_experts_per_tok", 1},
          {"num_local_experts", 16},      {"interleave_moe_layer_step", 1},
          {"no_rope_layer_interval", 4},  {"attention_chunk_size", 8192},
          {"attention_bias", false}};
}

json gemma3_text_defaults() {
  return {{"vocab_size", 262208},
          {"hidden_size", 2304},
          {"intermediate_size", 9216},
          {"num_hidden_layers", 26},
          {"num_attention_heads", 8},
          {"num_key_value_heads", 4},
          {"head_dim", 256},
          {"hidden_activation", "gelu_pytorch_tanh"},
          {"max_position_embeddings", 131072},
          {"tie_word_embeddings", true},
          {"attention_bias", false},
          {"sliding_window", 4096},
          {"sliding_window_pattern", 6}};
}

}  // namespace gpusel::hf
