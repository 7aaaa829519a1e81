// Which framework measured each row, and what that framework did at the row's date. The
// framework comes from the row's `framework` column when it has one, else from its source;
// version facts are per source (the versions that source ran), never per row.
#include <regex>

#include "calibration_rows.hpp"
#include "gpusel/base/text.hpp"

namespace calibration {
namespace {

bool has(const std::string& text, const std::string& word) {
  return gpusel::to_lower(text).find(gpusel::to_lower(word)) != std::string::npos;
}

void set_by_source(gpusel::Cited<bool>& b, bool value, const std::string& why) {
  b.value = value, b.source = why;
}

}  // namespace

std::string framework_of(const Row& r) {
  if (auto it = r.find("framework"); it != r.end() && !it->second.empty())
    return gpusel::to_lower(it->second);
  const std::string src = r.at("source") + " " + r.at("location");
  if (has(src, "torchtune")) return "torchtune";
  if (has(src, "unsloth")) return "unsloth";
  if (has(src, "axolotl")) return "axolotl";
  if (has(src, "llama-factory") || has(src, "llamafactory")) return "llama-factory";
  if (has(src, "litgpt") || has(src, "lit-gpt")) return "litgpt";
  if (has(src, "artidoro/qlora") || has(src, "2305.14314")) return "qlora";
  if (has(src, "deepspeed")) return "deepspeed";
  return "hf";
}

void apply_source_versions(const Row& r, gpusel::Workload& w) {
  gpusel::FrameworkProfile& f = w.framework;
  const std::string src = r.at("source");
  const std::string quant = r.at("weights_precision") + " " + r.at("quant");
  // litgpt pinned bitsandbytes 0.41.0 / 0.42.0 until 2024-12-28 (pyproject.toml at 4a9b7e62,
  // 2b195c7f; >=0.45.2 since d2ed13c3): its tables were measured while 4-bit layers still
  // kept their inputs (bitsandbytes PR #1270, 0.43.2).
  if (f.id == "litgpt") {
    set_by_source(f.four_bit_keeps_input, true,
                  "litgpt tables measured with bitsandbytes 0.41/0.42 (pinned until 2024-12-28)");
    // The 2023 resource tables ran lit-gpt's FSDP1 FSDPStrategy(auto_wrap_policy={Block})
    // (lit_gpt finetune/lora.py @0cc02afa): each Block unit mixes frozen and LoRA weights.
    if (has(r.at("location"), "resource-tables"))
      set_by_source(f.fsdp_frozen_grads, true, "lit-gpt 2023: FSDP1 Block units");
  }
  // The 2023 bitsandbytes blog ran bitsandbytes 0.39. Its SFTTrainer (huggingface/trl
  // @6916e0d2, 2023-05-15) prepared only 8-bit models, with PEFT's
  // prepare_model_for_int8_training (fp32 casts, checkpointing on: huggingface/peft@3714aa2f
  // src/peft/utils/other.py); whether its benchmark script (a gist, not in stored material)
  // prepared the 4-bit models is unknown, so they keep the hf profile's k-bit preparation.
  // The transformers performance guide's table (docs perf_train_gpu_one.mdx @0016acf, 2022)
  // ran torch 1.x, whose zero_grad() zeroed the gradients in place (set_to_none defaulted to
  // False until PyTorch 2.0): they stayed allocated through the next forward.
  if (has(src, "huggingface/transformers") && has(r.at("location"), "perf_train_gpu_one"))
    set_by_source(f.grads_freed_each_step, false, "torch 1.x zero_grad() kept the gradients");
  if (has(src, "huggingface/blog"))
    set_by_source(f.four_bit_keeps_input, true, "bitsandbytes 0.39 (2023-05 blog)");
  if (has(src, "QwenLM")) {
    // Qwen's finetune.py: LoraArguments.lora_dropout = 0.05 (QwenLM/Qwen@00dceebb finetune.py).
    // The profile ran "CUDA 11.8 and Pytorch 2.0" (README @b5fad3d5, 2023-10-07, when PEFT's
    // newest release was 0.5.0; 0.6.0 came 2023-11-02), which Qwen pairs with
    // peft>=0.5.0,<0.6.0 (README @e8e15962 lines 418-420). PEFT 0.5.0 builds lora_A/lora_B as
    // nn.Linear under the fp32 default and moves them to the base weight's device only
    // (huggingface/peft@v0.5.0 src/peft/tuners/lora.py:153-158); the cast to a floating base
    // weight's dtype came in 0.6.0 (tuners/lora/layer.py update_layer). So fp32 adapters, the
    // hf profile's own value: nothing to override.
    f.lora_dropout = {0.05, "QwenLM/Qwen finetune.py LoraArguments.lora_dropout", "2023-11-30"};
    // transformers 4.32 with torch 2.0 (Qwen's requirements): Trainer's default optim was
    // adamw_torch, torch.optim.AdamW with foreach (fused became the default with torch 2.8).
    f.optimizer_step_temporaries = {1, "transformers 4.32 adamw_torch (foreach)", "2023-11-30"};
    // Its single-GPU Q-LoRA script runs DeepSpeed ZeRO-2 in fp16 ("Remember to use --fp16
    // instead of --bf16 due to autogptq"; --deepspeed finetune/ds_config_zero2.json, QwenLM/Qwen
    // @b5fad3d5 finetune/finetune_qlora_single_gpu.sh, the commit that added the profiling),
    // whose reduce_bucket_size is 2e8 with overlap_comm and contiguous_gradients
    // (ds_config_zero2.json @af22d5e0).
    if (w.mode == gpusel::Mode::qlora) {
      w.shard = gpusel::Shard::zero2;
      f.zero.value.reduce_bucket_size = 2e8;
      f.zero.value.overlap_comm = 1;  // "overlap_comm": true in the same file
      f.zero.source = "QwenLM/Qwen@af22d5e0 finetune/ds_config_zero2.json";
    }
  }
  // A row that states its LoRA dropout (from its recipe file) overrides the framework's.
  std::smatch m;
  const std::string settings = r.at("other_settings");
  if (std::regex_search(settings, m, std::regex(R"(lora_dropout ([0-9.]+))")))
    f.lora_dropout = {std::stod(m[1]), "the row's recipe", ""};
  // Techniques a row names (torchtune's optimisation ladder, recipe flags).
  const std::string text = settings + " " + r.at("location");
  const auto named = [&](const char* re) {
    return std::regex_search(text, std::regex(re, std::regex::icase));
  };
  if (named(R"(\bcompile(=true|d)?\b)") && !named(R"(compile=false|no compile)"))
    f.compile = {true, "the row: compile", ""};
  if (named(R"(optimizer_in_bwd=true|fuse[ds]? optimizer|optimizer (step )?in backward)"))
    f.optimizer_in_backward = {"always", "the row: optimizer in backward", ""};
  if (named(R"(optimizer_in_bwd=false)")) f.optimizer_in_backward = {"never", "the row", ""};
  if (named(R"(activation offload)")) {
    f.activation_offload = {true, "the row: activation offloading", ""};
    if (f.offload_gpu_checkpoints.value == 0) f.offload_gpu_checkpoints.value = 5;
  }
  if (named(R"(chunked (cross.entropy|ce|loss)|LinearCrossEntropy|CEWithChunked)"))
    w.loss = gpusel::Loss::chunked;
  if (named(R"(cpu offload|fsdp_cpu_offload)") && gpusel::is_training(w.mode))
    w.offload = gpusel::Offload::params;
  // PEFT's k-bit preparation skips the fp32 cast for GPTQ models (peft utils/other.py:198);
  // GPTQ's matmul keeps no input for a frozen weight.
  if (has(quant, "gptq")) {
    set_by_source(f.kbit_upcast_embeddings, false, "GPTQ: no fp32 cast (peft other.py:198)");
    set_by_source(f.kbit_upcast_norms, false, "GPTQ: no fp32 cast (peft other.py:198)");
    set_by_source(f.four_bit_keeps_input, false, "GPTQ matmul keeps no input");
    // Qwen pairs torch 2.0 with auto-gptq < 0.5.0 (QwenLM/Qwen@e8e15962 README.md:419-420);
    // finetune.py loads GPTQConfig(bits=4, disable_exllama=True) (lines 306-307), so a
    // desc_act=False model gets auto-gptq 0.4.2's qlinear_cuda_old (utils/import_utils.py
    // dynamically_import_QuantLinear). From 128 tokens on its forward unpacks the weight to
    // int8, subtracts the int8 zeros and scales to fp16 (two int8 temporaries beside the fp16
    // result: one 16-bit copy's worth), then torch.matmul(x.half(), weight), which saves the
    // dequantized weight for backward (AutoGPTQ@ef442d9 (v0.4.2)
    // auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py:199-200, 226-269).
    // Inference rows: Qwen's profile.py is not in stored material, so its kernel is unknown
    // and no copy is counted, as before.
    f.dequant_copies = {0, "GPTQ inference kernel not known (profile.py not stored)", ""};
    if (gpusel::is_training(w.mode)) {
      f.dequant_copies = {1, "auto-gptq 0.4.2 qlinear_cuda_old: int8 unpack + zero shift", ""};
      set_by_source(f.dequant_saved, true, "auto-gptq 0.4.2 qlinear_cuda_old: matmul saves W");
    }
  }
}

}  // namespace calibration
