#pragma once
// A training or inference workload: the model plus every setting that changes memory.
// Defaults are the common recipes' (HF PEFT/TRL, torchtune, LLaMA-Factory, litgpt).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusel/data/frameworks.hpp"
#include "gpusel/data/models.hpp"

namespace gpusel {

enum class Mode { inference, full, freeze, lora, qlora };
// Storage precision of the base weights. In lora/qlora, int4 means NF4 (bitsandbytes),
// int8 means LLM.int8; qlora with a 16/32-bit value means "NF4 base, that compute dtype".
enum class Precision { fp32, bf16, fp16, fp8, int8, int4 };
// paged-*: bitsandbytes paged optimizers, states in CUDA managed memory (host when short).
enum class Optimizer { adamw, adamw_8bit, paged_adamw_8bit, paged_adamw, sgd, adafactor };
enum class Shard { none, ddp, zero1, zero2, zero3, fsdp, tp };
enum class Offload { none, optimizer, params };
enum class Loss { full, chunked };
enum class LoraTargets { qv, attn, all_linear };
// Value type of the inference KV cache: the compute dtype unless --kv-dtype names another
// (vLLM --kv-cache-dtype fp8, llama.cpp -ctk/-ctv q8_0); bytes in data/quantizations.json.
enum class KvDtype { compute, fp16, bf16, fp8, int8, q8_0, q4_0 };

struct Workload {
  ModelArch model;
  bool model_from_preset = false;  // false: a bare --params count (wider band)
  Mode mode = Mode::inference;
  Precision precision = Precision::bf16;
  bool double_quant = true;  // QLoRA's nested quantization of the NF4 constants
  bool amp = false;          // full/freeze: fp32 master weights, 16-bit compute
  Optimizer optimizer = Optimizer::adamw;
  int batch = 1;          // micro-batch per GPU
  int grad_accum = 1;     // micro-batches per optimizer step (FSDP no_sync keeps full gradients)
  int seq_len = 2048;     // training: tokens per sample; inference: prompt + generated
  int prompt_len = 0;     // inference: tokens prefilled at once; 0 = all of seq_len
  bool grad_ckpt = true;  // recipes for LLM fine-tuning turn it on
  // --selective-ckpt: torchtitan's op-level selective checkpointing instead (grad_ckpt off):
  // every second matmul's output and SDPA's are saved, the rest recomputed (checkpointing.hpp).
  bool selective_ckpt = false;
  bool flash_attn = true;  // SDPA/FlashAttention: no seq x seq score matrix
  Loss loss = Loss::full;
  int lora_rank = 16;
  LoraTargets lora_targets = LoraTargets::all_linear;
  bool train_embeddings = false;    // lora: embeddings and LM head trained too
  int freeze_trainable_layers = 2;  // freeze: the last N blocks train (LLaMA-Factory)
  // --lora-layers N: adapters on the last N blocks only (mlx-examples lora.py --lora-layers,
  // default 16; PEFT layers_to_transform); 0: every block. lora_blocks() reads it.
  int lora_layers = 0;
  int gpus = 1;
  // Megatron-style model parallelism (--tp, --pp, --vpp, --cp): tensor-parallel degree inside
  // a node, pipeline stages, interleaved (virtual) stages per GPU, context-parallel ranks that
  // each hold 1/cp of every sequence. With tp x pp x cp > 1 the other gpus / (tp x pp x cp)
  // ranks run data parallel and `shard` names that strategy.
  int tp = 1, pp = 1, vpp = 1, cp = 1;
  // --ep: expert-parallel ranks over which each MoE layer's routed experts are split. Taken
  // from the data- and context-parallel ranks (Megatron-Core's tp-cp-ep-dp-pp order), so it
  // adds no GPUs: tokens travel to their experts by all-to-all instead.
  int ep = 1;
  // --comm-overlap: the training stack hides tensor-parallel collectives behind the GEMMs,
  // pipeline sends behind compute and ZeRO-1/2's weight all-gather behind the next forward
  // (Megatron-Core/NeMo: tp_comm_overlap, overlap_p2p_comm, overlap_param_gather). Speed only.
  bool comm_overlap = false;
  Shard shard = Shard::none;
  bool shard_given = false;  // the user chose --shard: on_gpus keeps it (or refuses it)
  // --shard hsdp: FSDP inside groups of this many GPUs, the groups replicated (PyTorch FSDP's
  // HYBRID_SHARD, FSDP2 over a (replicate, shard) mesh: torchtitan's dp_replicate x dp_shard);
  // 0: FSDP over all the GPUs.
  int shard_group = 0;
  // A given --shard tp that on_gpus set aside on one GPU (where it means none): restored when
  // the same request is placed on several, so `check --count 2 --shard tp` still runs tp.
  std::optional<Shard> shard_set_aside;
  bool allow_long_context = false;  // --seq-len beyond a preset's context is allowed
  Offload offload = Offload::none;
  // What the training framework does (data/frameworks.json), with any behaviour the user set
  // alone (--adapter-dtype, --lora-dropout, --opt-in-bwd...) written over the profile's.
  FrameworkProfile framework = framework_profile("hf");
  int image_size = 0;  // vision models: square input side in pixels (0: the preset's)
  // A llama.cpp GGUF type named by --precision (q4_k_m): `precision` is then its class
  // (int8/int4) for rules and remedies, and the weights take weight_bits per parameter.
  std::string weight_format;
  double weight_bits = 0;  // 0: bytes_per_value(precision)
  // --weight-bits B: bits per weight of the quantized linear matrices, their scales included
  // (ExLlamaV2's EXL2 at 2.5 or 4.0 bpw, GPTQ at 3 bits); 0: the precision's own. The
  // embeddings and the LM head stay 16-bit. linear_weight_bytes() reads it.
  double linear_bits = 0;
  // Inference without --precision on a model shipped in 8 or 4 bits (models.json
  // shipped_weights: gpt-oss MXFP4, DeepSeek-V3 FP8): precision and bits are the shipped ones.
  bool weights_as_shipped = false;
  // linear_bits covers the MoE experts only (models.json shipped_weights scope "experts"):
  // the other linear matrices stay 16-bit, or the GGUF's bits on llama.cpp
  // (shipped_other_bytes).
  bool bits_experts_only = false;
  KvDtype kv_dtype = KvDtype::compute;
  std::string engine;  // inference engine (--engine, speed/ knows them); empty: by batch
  // Set by the ranker's workload_for where the default engine (this one) does not run on the
  // card and `engine` holds the other default that does: not the user's choice.
  std::string engine_instead_of;
  // --split-mode row: llama.cpp splits every weight matrix by rows over the cards (the
  // default before ggml-org/llama.cpp#4766, `-sm row` since); false: its layer split.
  bool row_split = false;
  // llama.cpp --n-cpu-moe N: the routed experts of the first N layers stay in host RAM and
  // the CPU multiplies them at decode (--cpu-moe: every layer's, kCpuMoeAll); 0: none.
  int cpu_moe = 0;
  // --gpu-layers N: llama.cpp's -ngl, the last N layers on the GPU, the rest in host RAM
  // (workload_gpu_layers.cpp); -1: every layer on the GPU.
  int gpu_layers = -1;
  // --host-mem-bw: the host memory's spec bandwidth in bytes/s, for the experts the CPU
  // multiplies (--n-cpu-moe); 0: data/throughput.json's desktop default.
  double host_memory_bytes_per_s = 0;
  // Where that bandwidth comes from when the user did not give it: the platform a purchase is
  // priced with (its host_memory.bandwidth_gbs), named here; empty: --host-mem-bw.
  std::string host_memory_basis;
};

inline constexpr int kCpuMoeAll = 1 << 30;

bool is_training(Mode m);
bool is_quantized(Precision p);       // int8, int4
double bytes_per_value(Precision p);  // fp32 4, bf16/fp16 2, fp8/int8 1, int4 0.5

std::string to_string(Mode v);
std::string to_string(Precision v);
std::string to_string(Optimizer v);
std::string to_string(Shard v);
std::string to_string(Offload v);
std::string to_string(Loss v);
std::string to_string(LoraTargets v);
std::string to_string(KvDtype v);

// Parse the CLI spellings (to_string's output; '-' and '_' both accepted). Error(usage)
// quoting the value and listing the accepted ones otherwise.
Mode parse_mode(std::string_view s);
Precision parse_precision(std::string_view s);
Optimizer parse_optimizer(std::string_view s);
Shard parse_shard(std::string_view s);
Offload parse_offload(std::string_view s);
Loss parse_loss(std::string_view s);
LoraTargets parse_lora_targets(std::string_view s);
KvDtype parse_kv_dtype(std::string_view s);

// --precision: one of precision_names(), or a GGUF type of data/quantizations.json (q4_k_m,
// q8_0, iq4_xs...), which sets weight_format, weight_bits and its class as `precision`.
// A plain precision clears any GGUF type. Error(usage) listing both kinds otherwise.
void set_precision(Workload& w, std::string_view name);
// What the output calls the weights' format: the GGUF type when there is one, else precision.
std::string precision_label(const Workload& w);

// Inference with no --precision or --weight-bits given: the weights as the publisher ships
// them (models.json shipped_weights), else nothing changes. Training keeps its 16-bit default
// (the frameworks dequantize a shipped 4/8-bit checkpoint to train it).
void use_shipped_weights(Workload& w);
// --weight-bits: Error(usage) unless 1 <= bits <= 8 (a finite number); sets linear_bits.
void set_weight_bits(Workload& w, double bits);
// --lora-layers: Error(usage) unless 1 <= n <= the model's layers; sets lora_layers.
void set_lora_layers(Workload& w, int n);
// Bytes per stored linear-layer weight: linear_bits / 8 under --weight-bits, else
// `precision_bytes` (the precision's own). Memory's weights and speed's decode traffic both
// ask here, so the two stages agree.
double linear_weight_bytes(const Workload& w, double precision_bytes);
// With linear_bits on the MoE experts only (bits_experts_only): bytes per weight of the other
// linear matrices, embeddings and LM head. llama.cpp runs the publisher's GGUF (models.json
// gguf_other_bits: ggml-org's gpt-oss in Q8_0), other engines the checkpoint (16-bit).
double shipped_other_bytes(const Workload& w);
// The blocks that carry LoRA adapters and that backward runs through: the last
// --lora-layers of them, else all (model.layers).
int lora_blocks(const Workload& w);

// Behaviours set alone (--adapter-dtype, --lora-dropout, --opt-in-bwd...), written over the
// framework's profile; each one's source then names its flag.
struct FrameworkOverrides {
  std::optional<std::string> adapter_dtype;  // fp32 | bf16 | base
  std::optional<double> lora_dropout;
  std::optional<bool> opt_in_bwd, act_offload, nf4_keeps_input, kbit_upcast, compile;
  std::optional<bool> dequant_saved;     // the quantized matmul saves its 16-bit weight (AutoGPTQ)
  std::optional<bool> ds_overlap_comm;   // DeepSpeed overlap_comm (ZeRO-1/2: a second bucket)
  std::optional<double> ds_live_params;  // DeepSpeed stage3_max_live_parameters / reuse distance
};

// The framework's profile applied to a workload: its behaviours, the overrides, and its
// default loss and optimizer where the user gave none (`loss_given`, `optimizer_given`); a
// CNN (kind "cnn") trains without checkpointing and has no attention (flash_attn off).
// Error(usage) for an override outside its range.
void apply_framework(Workload& w, const FrameworkProfile& f, bool loss_given, bool optimizer_given,
                     const FrameworkOverrides& o = {});

// Gradient checkpointing where the user did not say: on for decoder LLMs (the PEFT/TRL and
// torchtune fine-tuning recipes turn it on), off for encoders, ViTs and CNNs (transformers'
// TrainingArguments and timm's train.py default to off; torchvision has no such option).
bool default_grad_ckpt(const ModelArch& m);

// Every accepted spelling, for help text and completion.
std::vector<std::string> mode_names();
std::vector<std::string> precision_names();
std::vector<std::string> optimizer_names();
std::vector<std::string> shard_names();
std::vector<std::string> offload_names();
std::vector<std::string> loss_names();
std::vector<std::string> lora_target_names();
std::vector<std::string> kv_dtype_names();  // without "compute", the default
std::vector<std::string> gguf_names();      // data/quantizations.json's GGUF types

// The workload as it runs on `count` GPUs: the one place that decides the sharding, used by
// every command (estimate --gpus, fit --count, check, compare, recommend, rentals). One GPU
// runs unsharded. A shard the user gave is kept when it applies and refused (Error(usage))
// when it cannot; otherwise training shards everything (FSDP/ZeRO-3) and inference splits
// as its engine does (engine_tensor_parallel): tensor parallel where the count divides the
// heads, else by layers.
// The largest configuration any command models: 2048 nodes of 8, the 16K-GPU cluster the
// Llama 3 paper trained 405B on (arXiv 2407.21783 Table 4).
inline constexpr int kMaxGpuCount = 16384;

// The weights are 16-bit (bf16/fp16), not a quantized or shipped format.
inline bool weights_16bit(const Workload& w) {
  return (w.precision == Precision::bf16 || w.precision == Precision::fp16) &&
         w.weight_format.empty() && w.weight_bits == 0;
}
// The largest --image-size modelled (pixels per side).
inline constexpr int kMaxImageSize = 16384;

Workload on_gpus(const Workload& w, int count);

// Whether an inference's engine spreads a model over GPUs tensor parallel (vLLM, SGLang)
// rather than by layers (llama.cpp, transformers): data/throughput.json engines.*.multi_gpu,
// for --engine or the default at w.batch (llama.cpp at 1, vLLM batched). False in training.
bool engine_tensor_parallel(const Workload& w);

// The engine entry that runs an inference workload (inference_engine's key): --engine, else
// the batched engine (vLLM) for batches, for several GPUs (it runs them tensor parallel where
// llama.cpp's layer split keeps one card busy at a time) and for FP8 weights (llama.cpp has
// no FP8 type), else the batch-1 engine (llama.cpp); GGUF weights and the row split stay on
// llama.cpp.
// `tensor_parallel`: the configuration is tensor parallel already.
std::string engine_of(const Workload& w, bool tensor_parallel = false);
// The format of an inference's weights where engines need kernels of their own for it:
// "fp8" (FP8 checkpoints, --precision fp8), "mxfp4" (gpt-oss's shipped experts: the one
// experts-only 4-bit release in models.json, quant_method mxfp4); nullptr otherwise.
const char* weights_format(const Workload& w);
// What engine_of's default follows, for the assumptions: "GGUF weights", "FP8 weights",
// "8 GPUs", "batch 1 on one GPU".
std::string default_engine_reason(const Workload& w);

// Tokens one sample puts through the model: a ViT's patches + class token at --image-size
// (kind "vision-encoder"), otherwise the sequence length.
int tokens_per_sample(const Workload& w);
// A vision model's input side in pixels (CNN, ViT): --image-size, else the side its published
// figures refer to; 0 for other models.
int image_side(const Workload& w);
// The smallest input side a vision model takes: a CNN's total stride (its last stage's
// downsampling), a ViT's patch; 0 for other models.
int min_image_side(const ModelArch& m);

// Layers that route tokens to experts (a MoE model's layers less its dense ones); 0 if dense.
int moe_layer_count(const ModelArch& m);
// The MoE layers --n-cpu-moe N puts in host RAM: llama.cpp's override matches
// blk.<i>.ffn_(up|down|gate)_exps for i < N (common/arg.cpp), and the dense layers of the
// models that have them come first (DeepSeek, GLM), so N covers N - dense of them.
int cpu_moe_layers(const Workload& w);
// --gpu-layers: the repeating layers llama.cpp keeps in host RAM, whether the output layer
// stays there too, and the layers' share (workload_gpu_layers.cpp).
int host_layers(const Workload& w);
bool output_on_host(const Workload& w);
double host_layer_share(const Workload& w);
// The share of the routed experts' bytes that stays in host RAM (cpu_moe_layers / MoE layers).
double cpu_moe_share(const Workload& w);
// --n-cpu-moe N / --cpu-moe (`all`): Error(usage) when both are given or N < 1; the model and
// engine are checked with the rest of the workload (validate).
void set_cpu_moe(Workload& w, int n, bool all);
// --host-mem-bw in GB/s: Error(usage) unless a finite number in (0, 100000] given with
// --n-cpu-moe/--cpu-moe (the only thing it changes).
void set_host_memory_bandwidth(Workload& w, double gbs);
// Params of every routed expert of every MoE layer (shared experts stay on the GPU: their
// tensors, ffn_*_shexp, are not matched).
double routed_expert_params(const ModelArch& m);

// Tensor x pipeline x context parallel (--tp/--pp/--cp): tp x pp x cp > 1; or expert
// parallel (--ep > 1).
bool model_parallel(const Workload& w);
// --shard hsdp on more GPUs than one shard group: FSDP per group, groups replicated.
bool hybrid_sharded(const Workload& w);

// Whether `count` GPUs form whole replicas of tp x pp x cp whose dp x cp ranks --ep divides.
bool places_replicas(const Workload& w, int count);
// The fewest GPUs that do (at most kMaxGpuCount; 1 without model parallelism).
int fewest_gpus(const Workload& w);
// The share of a replica's parameters one expert-parallel rank keeps: the dense ones whole,
// the routed experts / ep (1 without --ep).
double expert_parallel_share(const Workload& w);
// The GPUs of one data-parallel replica: tp x pp x cp.
int model_parallel_size(const Workload& w);
// The data-parallel degree: gpus / (tp x pp x cp).
int data_parallel(const Workload& w);
// What the "memory on one GPU" headers estimate: under --tp/--pp the workload whole on one
// card (on_gpus(w, 1) without the degrees); otherwise `w` itself.
Workload without_model_parallel(const Workload& w);
// How the GPUs split the work: the shard ("fsdp"), or "tp 4 x pp 4 x cp 2 x dp 2 zero1".
std::string parallel_label(const Workload& w);

// Error(usage) for combinations no framework runs: full fine-tuning of int4 weights,
// batch < 1, gpus < 1, sharding strategies needing several GPUs with one, etc.
void validate(const Workload& w);

}  // namespace gpusel
