#include "cli/workload_options.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/data/families.hpp"
#include "gpusel/data/frameworks.hpp"
#include "gpusel/data/hf_config.hpp"
#include "gpusel/json/json_source.hpp"
#include "gpusel/memory/param_count.hpp"
#include "gpusel/speed/throughput.hpp"

namespace gpusel::cli {
namespace {

void tri_state(CLI::App* cmd, const std::string& name, std::optional<bool>& out,
               const std::string& help) {
  // Plain flags: a value (`--compile=maybe`, `--compile=0`) is a usage error, never parsed
  // (CLI11 2.1 would hand "maybe" to std::stoll and escape as an internal error).
  auto* on = cmd->add_flag_function(
                    "--" + name, [&out](std::int64_t) { out = true; }, help)
                 ->disable_flag_override();
  // Both at once is a contradiction to report, not one to settle by the order given.
  cmd->add_flag_function(
         "--no-" + name, [&out](std::int64_t) { out = false; }, "(the opposite of --" + name + ")")
      ->disable_flag_override()
      ->excludes(on);
}

std::string choices(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : "|") + n;
  return out;
}

void add_model_options(CLI::App* cmd, WorkloadArgs& a) {
  cmd->add_option("--model", a.model, "model preset id (gpusel models list)");
  cmd->add_option("--model-config", a.model_config,
                  "a Hugging Face config.json (llama, mistral, mixtral, qwen2/3, qwen3_moe, "
                  "qwen3_next, gemma2/3, phi3, deepseek_v2/v3, gpt_oss, glm4_moe, llama4)");
  cmd->add_option("--params", a.params,
                  "bare parameter count: 7B, 1.5B, 350M, 7e9, 8x7B, 30B-A3B (typical "
                  "Llama-style architecture)");
  cmd->add_option("--models", a.models_path, "model presets JSON replacing the embedded one");
  cmd->add_option("--mode", a.mode, choices(mode_names()) + " (default inference)");
  cmd->add_option(
      "--precision", a.precision,
      choices(precision_names()) +
          " weights (default bf16; inference: as the model ships them where they ship in 8 or 4 "
          "bits, e.g. gpt-oss MXFP4, DeepSeek-V3 FP8; qlora: NF4 base), or a "
          "llama.cpp GGUF type: " +
          choices(gguf_names()));
  cmd->add_option_function<double>(
      "--weight-bits", [&a](const double& v) { a.weight_bits = v; },
      "inference with --precision int4|int8: bits per weight of the quantized linear matrices, "
      "scales included (ExLlamaV2 EXL2 2.5, 4.0; 1-8); embeddings and LM head stay 16-bit");
  cmd->add_option(
      "--kv-dtype", a.kv_dtype,
      choices(kv_dtype_names()) + " inference KV cache values (default auto: the compute dtype)");
  cmd->add_flag("--double-quant,!--no-double-quant", a.double_quant,
                "NF4 with nested quantization of its constants (default on)");
  cmd->add_flag("--amp", a.amp, "full/freeze: fp32 master weights with 16-bit compute");
}

void add_training_options(CLI::App* cmd, WorkloadArgs& a) {
  cmd->add_option("--optimizer", a.optimizer,
                  choices(optimizer_names()) + " (default: the framework's recipe, adamw; " +
                      "paged-* keep their states in CUDA managed memory)");
  cmd->add_option("--batch", a.batch, "micro-batch per GPU (default 1)");
  cmd->add_option("--grad-accum", a.grad_accum,
                  "micro-batches per optimizer step (default 1; FSDP under accelerate keeps "
                  "unsharded gradients while accumulating)");
  cmd->add_option_function<int>(
      "--seq-len",
      [&a](const int& v) {
        a.seq_len = v;
        a.seq_len_given = true;
      },
      "tokens per sample; inference: prompt + generated (default 2048, capped at the model's "
      "context)");
  cmd->add_flag("--allow-long-context", a.allow_long_context,
                "allow --seq-len beyond the preset's maximum context");
  cmd->add_option("--prompt-len", a.prompt_len,
                  "inference: tokens prefilled at once (default: all of --seq-len)");
  tri_state(cmd, "grad-ckpt", a.grad_ckpt,
            "gradient checkpointing (default on for decoder LLMs, as their fine-tuning recipes; "
            "off for encoders, ViTs and CNNs, as theirs)");
  cmd->add_flag("--selective-ckpt", a.selective_ckpt,
                "training: torchtitan's op-level selective checkpointing instead of full "
                "recompute: every second matmul's output and the attention's are kept, the rest "
                "recomputed in backward");
  cmd->add_flag("--flash-attn,!--no-flash-attn", a.flash_attn,
                "FlashAttention/SDPA, no seq x seq scores (default on)");
  cmd->add_option("--loss", a.loss,
                  choices(loss_names()) + " cross-entropy (default: the framework's; " +
                      "data/frameworks.json losses)");
  cmd->add_option("--lora-rank", a.lora_rank, "LoRA rank (default 16)");
  cmd->add_option("--lora-layers", a.lora_layers,
                  "lora/qlora: adapters on the last N blocks only, backward through them alone "
                  "(mlx-examples lora.py --lora-layers, PEFT layers_to_transform; default: all)");
  cmd->add_option("--lora-targets", a.lora_targets,
                  choices(lora_target_names()) + " (default all-linear)");
  cmd->add_flag("--train-embeddings", a.train_embeddings,
                "lora: also train embeddings and LM head (PEFT modules_to_save)");
  cmd->add_option("--trainable-layers", a.trainable_layers,
                  "freeze: number of last blocks that train (default 2)");
}

void add_parallel_options(CLI::App* cmd, WorkloadArgs& a) {
  cmd->add_option("--gpus", a.gpus, "GPUs the workload runs on (default 1)");
  cmd->add_option("--shard", a.shard,
                  choices(shard_names()) +
                      "|hsdp (none: layers split, one card at a time; hsdp: FSDP inside groups "
                      "of --shard-group GPUs, replicated across them; default: none on one GPU, "
                      "training fsdp, inference the engine's layout on several: llama.cpp "
                      "none, vllm tp)");
  cmd->add_option("--shard-group", a.shard_group,
                  "with --shard hsdp: GPUs per FSDP shard group (default 8, one HGX node)");
  cmd->add_option("--tp", a.tp,
                  "training: tensor-parallel degree inside a node (default 1); with --tp/--pp "
                  "the other GPUs run data parallel and --shard names how "
                  "(ddp|zero1|zero2|zero3|fsdp, default zero1)");
  cmd->add_option("--pp", a.pp, "training: pipeline-parallel stages, 1F1B (default 1)");
  cmd->add_option("--vpp", a.vpp,
                  "training: interleaved (virtual) stages per pipeline rank (default 1)");
  cmd->add_option("--cp", a.cp,
                  "training: context-parallel ranks, each holding 1/N of every sequence, "
                  "attention as a ring over them (Megatron-Core/Transformer Engine, torchtitan; "
                  "default 1)");
  cmd->add_option("--ep", a.ep,
                  "training a mixture of experts: expert-parallel ranks, each holding 1/N of "
                  "every MoE layer's routed experts, tokens sent to them by all-to-all; taken "
                  "from the data-parallel GPUs (Megatron-Core, torchtitan; default 1)");
  cmd->add_flag("--comm-overlap", a.comm_overlap,
                "training: the stack overlaps tensor-parallel collectives with the GEMMs, "
                "pipeline sends with compute and ZeRO-1/2's weight all-gather with the next "
                "forward (Megatron-Core/NeMo tp_comm_overlap, overlap_p2p_comm, "
                "overlap_param_gather; default off: on the critical path)");
  cmd->add_option("--offload", a.offload, choices(offload_names()) + " (default none)");
  cmd->add_option("--engine", a.engine,
                  "inference engine: " + choices(engine_names()) +
                      " (default llama.cpp at batch 1, vllm for batched serving or --shard tp)");
  cmd->add_option("--n-cpu-moe", a.n_cpu_moe,
                  "llama.cpp inference of a mixture of experts: keep the routed experts of the "
                  "first N layers in host RAM, multiplied by the CPU (llama.cpp --n-cpu-moe)");
  cmd->add_option("--gpu-layers", a.gpu_layers,
                  "llama.cpp inference on one GPU: the last N layers on the GPU, the rest (and the "
                  "output layer unless N exceeds the layers) in host RAM, run by the CPU "
                  "(llama.cpp's own --gpu-layers N; default: all)");
  cmd->add_flag("--cpu-moe", a.cpu_moe,
                "llama.cpp: every layer's routed experts in host RAM (llama.cpp --cpu-moe)");
  cmd->add_option_function<double>(
      "--host-mem-bw", [&a](const double& v) { a.host_mem_bw = v; },
      "with --n-cpu-moe/--cpu-moe/--offload: the host memory's bandwidth in GB/s (default 89.6: "
      "two "
      "DDR5-5600 channels; DDR4-3200 dual channel 51.2, an 8-channel DDR5-4800 server 307)");
  cmd->add_option("--split-mode", a.split_mode,
                  "llama.cpp on several GPUs: layer|row (default layer: --shard none's layer "
                  "split; row: every weight matrix split by rows over the cards, llama.cpp's "
                  "-sm row and its default before January 2024)");
}

// What the training framework does (issue 11): a profile from data/frameworks.json, and each
// behaviour settable alone over it. Grouped here; the memory stage applies them.
template <typename T>
void optional_flag(CLI::App* cmd, const std::string& names, std::optional<T>& out,
                   const std::string& help) {
  cmd->add_option_function<T>(
      names, [&out](const T& v) { out = v; }, help);
}

void add_framework_options(CLI::App* cmd, WorkloadArgs& a) {
  cmd->add_option(
      "--framework", a.framework,
      "training framework whose memory behaviour to assume: " + choices(framework_names()) +
          " (default hf: transformers + PEFT + "
          "bitsandbytes; data/frameworks.json)");
  optional_flag(cmd, "--adapter-dtype", a.overrides.adapter_dtype,
                "LoRA adapter dtype: fp32|bf16|base (default: the framework's)");
  optional_flag(cmd, "--lora-dropout", a.overrides.lora_dropout,
                "LoRA dropout (default: the framework's; > 0 keeps a copy and a mask per adapter)");
  tri_state(cmd, "opt-in-bwd", a.overrides.opt_in_bwd,
            "step the optimizer inside backward (torchtune optimizer_in_bwd): no full gradients");
  tri_state(cmd, "act-offload", a.overrides.act_offload,
            "offload checkpointed activations to CPU (torchtune, Unsloth)");
  tri_state(cmd, "nf4-keeps-input", a.overrides.nf4_keeps_input,
            "4-bit layers keep their input (bitsandbytes before 0.43.2)");
  tri_state(cmd, "dequant-saved", a.overrides.dequant_saved,
            "quantized layers' matmul saves the dequantized 16-bit weight for backward "
            "(AutoGPTQ's torch path)");
  tri_state(
      cmd, "kbit-upcast", a.overrides.kbit_upcast,
      "QLoRA: embeddings, LM head and norms cast to fp32 (PEFT prepare_model_for_kbit_training)");
  tri_state(cmd, "compile", a.overrides.compile,
            "torch.compile (memory is counted eager; speed has no eager host floor)");
  optional_flag(cmd, "--ds-live-params", a.overrides.ds_live_params,
                "DeepSpeed stage3_max_live_parameters and max_reuse_distance (default 1e9)");
  tri_state(cmd, "ds-overlap-comm", a.overrides.ds_overlap_comm,
            "DeepSpeed overlap_comm: ZeRO-1/2 hold a second reduce bucket (default DeepSpeed's: "
            "on for ZeRO-3 only)");
  cmd->add_option(
      "--family", a.family,
      "bare --params: shape and vocabulary of " + choices(family_names()) + " (default llama3)");
  cmd->add_option("--vocab", a.vocab, "bare --params: vocabulary size");
  cmd->add_option("--image-size", a.image_size,
                  "vision models: square input side in pixels (default: the preset's)");
  cmd->add_flag("--mlm", a.mlm,
                "encoder models: with the masked-LM head, scoring the vocabulary at every "
                "position (transformers' BertForMaskedLM); default: the bare encoder");
}

// A config.json gives the real shape, as a preset does: the same (narrower) band.
// An option that shapes only other modes would be ignored unread: `--mode inference
// --lora-rank 8` answers as if the rank were never given, so it is refused instead.
void require_mode_options(const WorkloadArgs& a, Mode m) {
  const bool adapters = m == Mode::lora || m == Mode::qlora;
  const auto refuse = [](const char* flag, const char* modes) {
    throw usage_error(std::string(flag) + " applies to --mode " + modes);
  };
  if (m == Mode::inference && !a.optimizer.empty())
    refuse("--optimizer", "full, freeze, lora or qlora");
  if (m == Mode::inference && !a.loss.empty()) refuse("--loss", "full, freeze, lora or qlora");
  if (!adapters && a.lora_rank != kNotGiven) refuse("--lora-rank", "lora or qlora");
  if (!adapters && !a.lora_targets.empty()) refuse("--lora-targets", "lora or qlora");
  if (!adapters && a.train_embeddings) refuse("--train-embeddings", "lora or qlora");
  if (m != Mode::freeze && a.trainable_layers != kNotGiven) refuse("--trainable-layers", "freeze");
}

ModelArch pick_model(const WorkloadArgs& a, bool& known_shape) {
  const int given = !a.model.empty() + !a.params.empty() + !a.model_config.empty();
  if (given != 1)
    throw usage_error("give exactly one of --model ID, --model-config PATH and --params COUNT");
  known_shape = a.params.empty();
  if (known_shape && (!a.family.empty() || a.vocab != 0))
    throw usage_error(
        "--family and --vocab shape a bare --params count; --model and "
        "--model-config have their own");
  // A presets file nothing reads would be ignored unread, even when the path is wrong.
  if (!a.models_path.empty() && a.model.empty())
    throw usage_error("--models holds the presets --model picks from: give --model ID with it");
  if (!a.model_config.empty()) return read_hf_config(a.model_config);
  if (!a.model.empty()) return require_model(load_models(a.models_path), a.model);
  return typical_arch(parse_param_count(a.params), {a.family, a.vocab});
}

}  // namespace

void add_workload_options(CLI::App* cmd, WorkloadArgs& a) {
  add_model_options(cmd, a);
  add_training_options(cmd, a);
  add_parallel_options(cmd, a);
  add_framework_options(cmd, a);
}

std::vector<ModelArch> load_models(const std::string& path) { return gpusel::load_models(path); }

Workload resolve_workload(const WorkloadArgs& a) {
  Workload w;
  w.model = pick_model(a, w.model_from_preset);
  w.model.mlm_head = a.mlm;
  w.mode = parse_mode(a.mode);
  require_mode_options(a, w.mode);
  if (!a.precision.empty()) set_precision(w, a.precision);
  if (a.weight_bits) set_weight_bits(w, *a.weight_bits);
  if (a.precision.empty() && !a.weight_bits) use_shipped_weights(w);
  w.kv_dtype = parse_kv_dtype(a.kv_dtype);
  w.double_quant = a.double_quant;
  w.amp = a.amp;
  w.selective_ckpt = a.selective_ckpt;
  w.grad_ckpt = a.grad_ckpt.value_or(default_grad_ckpt(w.model) && !a.selective_ckpt);
  w.flash_attn = a.flash_attn;
  apply_framework(w, framework_profile(a.framework), !a.loss.empty(), !a.optimizer.empty(),
                  a.overrides);
  if (!a.optimizer.empty()) w.optimizer = parse_optimizer(a.optimizer);
  w.batch = a.batch;
  w.grad_accum = a.grad_accum;
  const int cap = w.model.max_context > 0 ? w.model.max_context : 2048;
  w.seq_len = a.seq_len_given ? a.seq_len : std::min(2048, cap);
  w.image_size = a.image_size;
  w.prompt_len = a.prompt_len;
  if (!a.loss.empty()) w.loss = parse_loss(a.loss);
  if (a.lora_rank != kNotGiven) w.lora_rank = a.lora_rank;
  if (a.lora_layers != kNotGiven) set_lora_layers(w, a.lora_layers);
  if (!a.lora_targets.empty()) w.lora_targets = parse_lora_targets(a.lora_targets);
  w.train_embeddings = a.train_embeddings;
  if (a.trainable_layers != kNotGiven) w.freeze_trainable_layers = a.trainable_layers;
  w.tp = a.tp, w.pp = a.pp, w.vpp = a.vpp, w.cp = a.cp, w.ep = a.ep;
  w.comm_overlap = a.comm_overlap;
  // With --tp/--pp/--cp/--ep and no --gpus: the fewest GPUs that place them (one replica of
  // tp x pp x cp, as many as --ep needs of dp x cp).
  w.gpus = a.gpus != kNotGiven ? a.gpus : model_parallel(w) ? fewest_gpus(w) : 1;
  // hsdp is FSDP over shard groups (PyTorch's HYBRID_SHARD), not a strategy of its own.
  const bool hsdp = a.shard == "hsdp" || a.shard == "HSDP";
  w.shard = a.shard.empty() ? Shard::none : hsdp ? Shard::fsdp : parse_shard(a.shard);
  if (a.shard_group && !hsdp) throw usage_error("--shard-group goes with --shard hsdp");
  if (a.shard_group && *a.shard_group < 1)
    throw usage_error("--shard-group must be at least 1 (got " + std::to_string(*a.shard_group) +
                      ")");
  w.shard_group = hsdp ? a.shard_group.value_or(8) : 0;
  w.shard_given = !a.shard.empty();
  w.allow_long_context = a.allow_long_context;
  w.offload = parse_offload(a.offload);
  require_engine(a.engine);
  w.engine = a.engine;
  if (!a.split_mode.empty() && a.split_mode != "layer" && a.split_mode != "row")
    throw usage_error("invalid --split-mode '" + quote_input(a.split_mode) +
                      "' (expected layer|row)");
  w.row_split = a.split_mode == "row";
  if (a.split_mode == "layer" && w.shard_given && w.shard != Shard::none)
    throw usage_error("--split-mode layer is --shard none's layer split, not --shard " + a.shard);
  set_cpu_moe(w, a.n_cpu_moe, a.cpu_moe);
  if (a.gpu_layers < -1) throw usage_error("--gpu-layers must be 0 or more");
  w.gpu_layers = a.gpu_layers;
  if (a.host_mem_bw) set_host_memory_bandwidth(w, *a.host_mem_bw);
  validate(w);
  require_split_mode(w);
  return on_gpus(w, w.gpus);
}

int card_count(int count_flag, const WorkloadArgs& a) {
  if (count_flag != kNotGiven && a.gpus != kNotGiven && count_flag != a.gpus)
    throw usage_error("--count " + std::to_string(count_flag) + " and --gpus " +
                      std::to_string(a.gpus) + " disagree: give one of them");
  return count_flag != kNotGiven ? count_flag : a.gpus != kNotGiven ? a.gpus : 1;
}

}  // namespace gpusel::cli
