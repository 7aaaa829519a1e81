#pragma once
// Model architectures: presets from data/models.json (data/schema/models.schema.json) and
// the parameter counts their shapes imply.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpusel {

struct MoeSpec {
  int experts = 0;              // routed experts per MoE layer
  int active = 0;               // routed experts used per token
  int shared_experts = 0;       // always-on experts (DeepSeek)
  int expert_intermediate = 0;  // MLP width of one expert
  int dense_layers = 0;         // leading layers with a dense MLP of width `intermediate`
};

struct MlaSpec {  // DeepSeek multi-head latent attention: the cache holds the latent
  int kv_lora_rank = 0;
  int qk_rope_head_dim = 0;
};

struct ModelArch {
  std::string id, name, family;
  std::string kind = "decoder";  // decoder | encoder | vision-encoder
  double params = 0;             // total, as published (0: compute from the shape)
  std::optional<double> active_params;
  int layers = 0, hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, intermediate = 0;
  long vocab = 0;
  bool tied_embeddings = false;
  std::string mlp = "swiglu";  // swiglu | geglu | gelu
  std::string norm = "rmsnorm";
  bool qkv_bias = false;
  int max_context = 0;
  std::optional<int> sliding_window;
  std::optional<MoeSpec> moe;
  std::optional<MlaSpec> mla;
  std::optional<int> image_tokens;
  std::string source, as_of, notes;
};

// Parameter counts computed from the shape: every matrix, embedding, bias and norm.
// total: all parameters; active: those used per token (MoE: routed experts counted
// `active` times, not `experts` times); linear: matrices inside the blocks (what
// 4-bit / 8-bit quantization converts; embeddings and the LM head stay 16-bit).
struct ArchParams {
  double total = 0, active = 0, linear = 0, embedding = 0, lm_head = 0;
};
ArchParams arch_params(const ModelArch& m);

// Parses data/models.json's document; Error(data) naming origin and record on a bad field.
std::vector<ModelArch> parse_models(const nlohmann::json& doc, const std::string& origin);

// Exact id lookup; Error(usage) with "did you mean" suggestions otherwise.
const ModelArch& require_model(const std::vector<ModelArch>& models, std::string_view id);

}  // namespace gpusel
