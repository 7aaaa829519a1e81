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
  bool operator==(const MoeSpec&) const = default;
};

struct MlaSpec {  // DeepSeek multi-head latent attention: the cache holds the latent
  int kv_lora_rank = 0;
  int qk_rope_head_dim = 0;
  int q_lora_rank = 0;  // 0: queries projected directly (V2-Lite); else low-rank (V3, Kimi K2)
  bool operator==(const MlaSpec&) const = default;
};

// What a layer's attention keeps across tokens (schema: layer_pattern). full: every token
// of the context; sliding: the last `sliding_window` tokens; chunked: the current chunk of
// `sliding_window` tokens (Llama 4); linear: a constant-size state, no per-token cache.
enum class LayerKind { full, sliding, chunked, linear };

struct LinearAttentionSpec {  // Gated DeltaNet (Qwen3-Next): per-layer state, no KV cache
  std::string kind = "gated-deltanet";
  int num_key_heads = 0, key_head_dim = 0;
  int num_value_heads = 0, value_head_dim = 0;
  int conv_kernel = 0;  // causal short-convolution width over q, k and v
  bool operator==(const LinearAttentionSpec&) const = default;
};

struct CnnStage {        // one resolution of a convolutional backbone
  int stride = 0;        // downsampling of this stage's output vs the input image
  int channels = 0;      // output channels
  int mid_channels = 0;  // inner width of its blocks (= channels for a plain conv)
  int blocks = 0;        // repeats of its main block
  bool operator==(const CnnStage&) const = default;
};

struct CnnSpec {                 // kind "cnn": what an activation model needs
  int image_size = 0;            // default square input side, pixels
  double gflops = 0;             // forward GFLOPs per image at image_size, as published
  bool gflops_are_macs = false;  // the source counts a multiply-add as one (torchvision)
  double saved_values = 0;       // values autograd keeps for backward per image at image_size
  std::vector<CnnStage> stages;
  std::string optimizer;  // the reference recipe's (cnn.optimizer: "sgd"); empty: the framework's
  bool operator==(const CnnSpec&) const = default;
};

struct ShippedWeights {    // the publisher's own non-16-bit weights (models.json)
  std::string precision;   // fp8 | int8 | int4
  double weight_bits = 0;  // bits per linear weight, scales included; 0: the precision's
  // scope "experts": only the MoE experts are quantized (gpt-oss MXFP4); attention, router,
  // embeddings and LM head stay 16-bit. Otherwise every linear matrix.
  bool experts_only = false;
  // The publisher's GGUF, which llama.cpp runs: its other linear matrices and embeddings at
  // these bits (ggml-org's gpt-oss GGUF: Q8_0, 8.5); 0: as the checkpoint (16-bit).
  double gguf_other_bits = 0;
  std::string gguf_source;
  std::string source, as_of;
  bool operator==(const ShippedWeights&) const = default;
};

struct ModelArch {
  std::string id, name, family;
  std::string kind = "decoder";  // decoder | encoder | vision-encoder | cnn
  double params = 0;             // total, as published (0: compute from the shape)
  std::optional<double> active_params;
  int layers = 0, hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, intermediate = 0;
  long vocab = 0;
  bool tied_embeddings = false;
  std::string mlp = "swiglu";  // swiglu | geglu | gelu
  std::string norm = "rmsnorm";
  bool qkv_bias = false;
  int max_context = 0;
  std::optional<int> sliding_window;     // window (sliding) or chunk (chunked) in tokens
  std::vector<LayerKind> layer_pattern;  // cycle from layer 0; empty: every layer full
  std::optional<MoeSpec> moe;
  std::optional<MlaSpec> mla;
  std::optional<LinearAttentionSpec> linear_attention;
  std::optional<double> vision_params;  // bundled vision tower, not in the decoder shape
  std::optional<int> image_tokens;
  std::optional<int> image_size;          // vision encoders: input side the image_tokens refer to
  std::optional<CnnSpec> cnn;             // kind "cnn" only; the transformer fields are then 0
  std::optional<ShippedWeights> shipped;  // inference without --precision runs these
  // A bare count's shape: the parameters `params` holds beyond the shape are linear-layer
  // weights (quantized, stored and sharded with them), not embeddings or norms.
  bool remainder_linear = false;
  // An encoder run with its masked-LM head (--mlm; transformers' BertForMaskedLM): a dense +
  // LayerNorm transform and the vocabulary projection (tied to the embeddings), scored at
  // every position. Without it an encoder is its bare stack (a classification or span
  // head's work and memory are negligible).
  bool mlm_head = false;
  std::string source, as_of, notes;
  bool operator==(const ModelArch&) const = default;
};

// Whether the model's head scores the whole vocabulary per token (decoders, an encoder with
// its masked-LM head): what the logits, the loss and the head's matmul are counted for.
bool scores_vocabulary(const ModelArch& m);

// The masked-LM head's own parameters (transform dense + bias, LayerNorm, output bias; its
// vocabulary projection is the tied embedding): 0 unless m.mlm_head.
double mlm_head_params(const ModelArch& m);

// Kind of layer `layer` (0-based): layer_pattern repeated from layer 0, full when empty.
LayerKind layer_kind(const ModelArch& m, int layer);

// How many layers of each kind the model has: what the KV cache is summed over.
struct LayerMix {
  int full = 0, sliding = 0, chunked = 0, linear = 0;
};
LayerMix layer_mix(const ModelArch& m);

// Parameter counts computed from the shape: every matrix, embedding, bias and norm.
// total: all parameters; active: those used per token (MoE: routed experts counted
// `active` times, not `experts` times); linear: matrices inside the blocks (what
// 4-bit / 8-bit quantization converts; embeddings and the LM head stay 16-bit).
struct ArchParams {
  double total = 0, active = 0, linear = 0, embedding = 0, lm_head = 0;
  double experts = 0, experts_active = 0;  // MoE expert matrices (in linear): all, per token
};
ArchParams arch_params(const ModelArch& m);

// Parses data/models.json's document; Error(data) naming origin and record on a bad field.
std::vector<ModelArch> parse_models(const nlohmann::json& doc, const std::string& origin);

// Exact id lookup; Error(usage) with "did you mean" suggestions otherwise.
const ModelArch& require_model(const std::vector<ModelArch>& models, std::string_view id);

}  // namespace gpusel
