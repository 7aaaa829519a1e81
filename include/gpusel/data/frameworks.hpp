#pragma once
// Framework profiles (data/frameworks.json, data/schema/frameworks.schema.json): what each
// training framework (transformers + PEFT, torchtune, Unsloth, axolotl, LLaMA-Factory,
// DeepSpeed, litgpt, the QLoRA paper's qlora.py) does that changes GPU memory. Every
// behaviour carries its source; the memory estimator applies them.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace gpusel {

template <typename T>
struct Cited {
  T value{};
  std::string source;  // file:line at a commit or a documentation page; the flag when set by hand
  std::string as_of;
};

// What a cross-entropy implementation keeps, in bytes per logit (tokens x vocabulary).
struct LossImpl {
  double kept = 0;             // alive for every logit until backward
  double transient = 0;        // alive for one chunk at a time
  double compiled_kept = -1;   // kept when compiled (< 0: as `kept`)
  int chunks = 1;              // chunks the transient work is split into
  int chunk_tokens = 0;        // tokens per chunk instead of a count (0: `chunks`)
  std::string fused = "none";  // none | liger | unsloth: loss and gradient computed in forward
  std::string source, as_of;
};

// DeepSpeed ZeRO settings, in elements. kAuto: Hugging Face's "auto" rule for that key.
struct ZeroSettings {
  static constexpr double kAuto = -1;
  double reduce_bucket_size = 5e8, prefetch_bucket_size = 5e7, param_persistence_threshold = 1e5;
  double max_live_parameters = 1e9, max_reuse_distance = 1e9, sub_group_size = 1e9;
  // overlap_comm: 1 on, 0 off, kAuto DeepSpeed's default (on for stage 3 only). Stages 1-2
  // with contiguous gradients then hold two reduce buckets instead of one.
  double overlap_comm = kAuto;
};

struct FrameworkProfile {
  std::string id, name, version, as_of;
  Cited<bool> kbit_upcast_embeddings, kbit_upcast_norms;
  Cited<std::string> adapter_dtype;  // fp32 | base
  Cited<bool> adapter_input_cast, autocast;
  Cited<double> lora_dropout;
  Cited<bool> four_bit_keeps_input, eight_bit_keeps_input;
  // litgpt: the LM head is its own matrix even for a tied checkpoint, and 4/8-bit runs
  // quantize it; dequant_copies: full-size 16-bit copies of one 4-bit weight alive at once;
  // dequant_saved: the matmul saves each layer's dequantized weight for backward (AutoGPTQ).
  Cited<bool> separate_lm_head, quantizes_lm_head;
  Cited<int> dequant_copies;
  Cited<bool> dequant_saved;
  Cited<double> norm_saved_bytes;
  Cited<bool> fused_lora_kernels, fused_qkv, kv_repeat;
  Cited<std::string> optimizer_in_backward;  // never | full-single-gpu | always
  Cited<int> optimizer_step_temporaries;     // state-sized temporaries of a torch AdamW step
  Cited<bool> grads_freed_each_step;         // zero_grad(set_to_none=True) after each step
  Cited<bool> activation_offload;
  Cited<int> offload_gpu_checkpoints;
  Cited<bool> fsdp_checkpointing, fsdp_no_sync_accumulation, fsdp_frozen_grads;
  Cited<std::string> fsdp_root_unit;  // always | lora-only | never
  Cited<bool> compile;
  Cited<std::string> loss;  // full | chunked: which of the two below is the default
  Cited<std::string> default_shard, default_optimizer, default_optimizer_quantized;
  Cited<ZeroSettings> zero;
  LossImpl loss_full, loss_chunked;
};

// Parses a frameworks document (checked against the embedded schema first); Error(data)
// naming `origin`, the record and the field on anything wrong.
std::vector<FrameworkProfile> parse_frameworks(const nlohmann::json& doc,
                                               const std::string& origin);

// The embedded data/frameworks.json, parsed once.
const std::vector<FrameworkProfile>& shipped_frameworks();

// A shipped profile by id; Error(usage) with "did you mean" and the list otherwise.
const FrameworkProfile& framework_profile(std::string_view id);

std::vector<std::string> framework_names();

}  // namespace gpusel
