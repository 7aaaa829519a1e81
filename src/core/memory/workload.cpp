#include "gpusel/memory/workload.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/data/engines.hpp"
#include "gpusel/data/quantization.hpp"
#include "gpusel/memory/estimator.hpp"
#include "workload_internal.hpp"

namespace gpusel {
namespace {

template <typename E, std::size_t N>
using Names = std::array<std::pair<E, const char*>, N>;

constexpr Names<Mode, 5> kModes{{{Mode::inference, "inference"},
                                 {Mode::full, "full"},
                                 {Mode::freeze, "freeze"},
                                 {Mode::lora, "lora"},
                                 {Mode::qlora, "qlora"}}};
constexpr Names<Precision, 6> kPrecisions{{{Precision::fp32, "fp32"},
                                           {Precision::bf16, "bf16"},
                                           {Precision::fp16, "fp16"},
                                           {Precision::fp8, "fp8"},
                                           {Precision::int8, "int8"},
                                           {Precision::int4, "int4"}}};
constexpr Names<Optimizer, 6> kOptimizers{{{Optimizer::adamw, "adamw"},
                                           {Optimizer::adamw_8bit, "adamw-8bit"},
                                           {Optimizer::paged_adamw_8bit, "paged-adamw-8bit"},
                                           {Optimizer::paged_adamw, "paged-adamw"},
                                           {Optimizer::sgd, "sgd"},
                                           {Optimizer::adafactor, "adafactor"}}};
constexpr Names<Shard, 7> kShards{{{Shard::none, "none"},
                                   {Shard::ddp, "ddp"},
                                   {Shard::zero1, "zero1"},
                                   {Shard::zero2, "zero2"},
                                   {Shard::zero3, "zero3"},
                                   {Shard::fsdp, "fsdp"},
                                   {Shard::tp, "tp"}}};
constexpr Names<Offload, 3> kOffloads{
    {{Offload::none, "none"}, {Offload::optimizer, "optimizer"}, {Offload::params, "params"}}};
constexpr Names<Loss, 2> kLosses{{{Loss::full, "full"}, {Loss::chunked, "chunked"}}};
constexpr Names<LoraTargets, 3> kTargets{{{LoraTargets::qv, "qv"},
                                          {LoraTargets::attn, "attn"},
                                          {LoraTargets::all_linear, "all-linear"}}};

// Exact spellings ('_' is part of llama.cpp's names): "auto" is the compute dtype.
constexpr Names<KvDtype, 7> kKvDtypes{{{KvDtype::compute, "auto"},
                                       {KvDtype::fp16, "fp16"},
                                       {KvDtype::bf16, "bf16"},
                                       {KvDtype::fp8, "fp8"},
                                       {KvDtype::int8, "int8"},
                                       {KvDtype::q8_0, "q8_0"},
                                       {KvDtype::q4_0, "q4_0"}}};

template <typename E, std::size_t N>
std::string name_of(const Names<E, N>& names, E v) {
  for (const auto& [e, n] : names)
    if (e == v) return n;
  return "?";
}

template <typename E, std::size_t N>
std::vector<std::string> all_names(const Names<E, N>& names) {
  std::vector<std::string> out;
  for (const auto& p : names) out.emplace_back(p.second);
  return out;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : "|") + s;
  return out;
}

// Case-insensitive, with '_' accepted for '-' so that enum-like spellings work too.
template <typename E, std::size_t N>
E parse_name(const Names<E, N>& names, std::string_view s, const char* what) {
  std::string key = to_lower(s);
  for (auto& ch : key)
    if (ch == '_') ch = '-';
  for (const auto& [e, n] : names)
    if (key == n) return e;
  throw usage_error("invalid " + std::string(what) + " '" + quote_input(s) + "' (expected " +
                    join(all_names(names)) + ")");
}

}  // namespace

bool is_training(Mode m) { return m != Mode::inference; }
bool is_quantized(Precision p) { return p == Precision::int8 || p == Precision::int4; }

double bytes_per_value(Precision p) {
  switch (p) {
    case Precision::fp32:
      return 4;
    case Precision::bf16:
    case Precision::fp16:
      return 2;
    case Precision::fp8:
    case Precision::int8:
      return 1;
    case Precision::int4:
      return 0.5;
  }
  return 2;
}

std::string to_string(Mode v) { return name_of(kModes, v); }
std::string to_string(Precision v) { return name_of(kPrecisions, v); }
std::string to_string(Optimizer v) { return name_of(kOptimizers, v); }
std::string to_string(Shard v) { return name_of(kShards, v); }
std::string to_string(Offload v) { return name_of(kOffloads, v); }
std::string to_string(Loss v) { return name_of(kLosses, v); }
std::string to_string(LoraTargets v) { return name_of(kTargets, v); }
std::string to_string(KvDtype v) { return name_of(kKvDtypes, v); }

Mode parse_mode(std::string_view s) { return parse_name(kModes, s, "mode"); }
Precision parse_precision(std::string_view s) { return parse_name(kPrecisions, s, "precision"); }
Optimizer parse_optimizer(std::string_view s) { return parse_name(kOptimizers, s, "optimizer"); }
Shard parse_shard(std::string_view s) { return parse_name(kShards, s, "shard strategy"); }
Offload parse_offload(std::string_view s) { return parse_name(kOffloads, s, "offload"); }
Loss parse_loss(std::string_view s) { return parse_name(kLosses, s, "loss"); }
LoraTargets parse_lora_targets(std::string_view s) {
  return parse_name(kTargets, s, "LoRA targets");
}

KvDtype parse_kv_dtype(std::string_view s) {
  const std::string key = to_lower(s);
  for (const auto& [e, n] : kKvDtypes)
    if (key == n) return e;
  throw usage_error("invalid --kv-dtype '" + std::string(s) + "' (expected " +
                    join(all_names(kKvDtypes)) + ")");
}

void set_precision(Workload& w, std::string_view name) {
  if (const GgufType* g = find_gguf(name)) {
    w.precision = g->klass == "int8" ? Precision::int8 : Precision::int4;
    w.weight_format = g->name;
    w.weight_bits = g->bits_per_weight;
    return;
  }
  const std::string key = to_lower(name);
  for (const auto& [e, n] : kPrecisions)
    if (key == n) {
      w.precision = e;
      w.weight_format.clear();
      w.weight_bits = 0;
      return;
    }
  throw usage_error("invalid precision '" + std::string(name) + "' (expected " +
                    join(all_names(kPrecisions)) + ", or a GGUF type: " + join(gguf_names()) + ")");
}

std::string precision_label(const Workload& w) {
  const std::string shipped = w.weights_as_shipped ? " (as shipped)" : "";
  if (w.linear_bits > 0)
    return to_string(w.precision) + " at " + detail::bits_label(w.linear_bits) + " bits" + shipped;
  return (w.weight_format.empty() ? to_string(w.precision) : w.weight_format) + shipped;
}

std::vector<std::string> mode_names() { return all_names(kModes); }
std::vector<std::string> precision_names() { return all_names(kPrecisions); }
std::vector<std::string> optimizer_names() { return all_names(kOptimizers); }
std::vector<std::string> shard_names() { return all_names(kShards); }
std::vector<std::string> offload_names() { return all_names(kOffloads); }
std::vector<std::string> loss_names() { return all_names(kLosses); }
std::vector<std::string> lora_target_names() { return all_names(kTargets); }
std::vector<std::string> kv_dtype_names() { return all_names(kKvDtypes); }

std::vector<std::string> gguf_names() {
  std::vector<std::string> out;
  for (const auto& g : default_quantizations().gguf) out.push_back(g.name);
  return out;
}

namespace {

void require_positive(long v, const char* what) {
  if (v < 1)
    throw usage_error(std::string(what) + " must be at least 1 (got " + std::to_string(v) + ")");
}

void require_gpu_count(long v, const char* what) {
  require_positive(v, what);
  if (v > kMaxGpuCount)
    throw usage_error(std::string(what) + " must be at most " + std::to_string(kMaxGpuCount) +
                      " (got " + std::to_string(v) + ")");
}

void validate_precision(const Workload& w) {
  const bool trains_base = w.mode == Mode::full || w.mode == Mode::freeze;
  // FP8 training (torchao float8, Transformer Engine) keeps bf16 weights and casts to fp8
  // per matmul; freeze mode has no such recipe.
  if (trains_base &&
      (is_quantized(w.precision) || (w.precision == Precision::fp8 && w.mode == Mode::freeze)))
    throw usage_error("--mode " + to_string(w.mode) + " trains the weights themselves: use " +
                      "--precision fp32|bf16|fp16" + (w.mode == Mode::full ? "|fp8" : "") +
                      " (quantized bases train with lora or qlora)");
  if (w.mode == Mode::qlora && w.precision == Precision::fp8)
    throw usage_error("qlora quantizes the base to int4 (NF4) or int8, not fp8");
  // lora --precision fp8 is FP8 compute over the bf16 base (Transformer Engine's fp8_autocast
  // around the frozen linears, as MLPerf Training's Llama 2 70B LoRA runs it), as full fp8 is.
  // --amp means 16-bit compute over fp32 weights: with LoRA that is an fp32 base.
  if (w.amp && (w.mode == Mode::lora || w.mode == Mode::qlora) && w.precision != Precision::fp32)
    throw usage_error("--amp with --mode " + to_string(w.mode) +
                      " means 16-bit compute over an fp32 base: add --precision fp32 (a " +
                      to_string(w.precision) + " base already computes in 16 bits; the " +
                      "adapters' dtype is --adapter-dtype)");
  // fp8 --amp: torchao float8 over an fp32 model under autocast.
  if (w.amp &&
      (w.mode == Mode::inference || (w.precision == Precision::fp8 && w.mode != Mode::full)))
    throw usage_error("--amp applies to training with fp32 weights (full, freeze, lora)");
  if (is_training(w.mode) && !w.weight_format.empty())
    throw usage_error("--precision " + w.weight_format +
                      " is a llama.cpp GGUF type, which serves inference only (--mode inference); "
                      "fine-tune with --precision int4/int8 (bitsandbytes) instead");
  if (is_training(w.mode) && w.kv_dtype != KvDtype::compute)
    throw usage_error("--kv-dtype sets the inference KV cache; --mode " + to_string(w.mode) +
                      " keeps no KV cache");
}

void validate_context(const Workload& w) {
  const int cap = w.model.max_context;
  if (cap > 0 && w.seq_len > cap && !w.allow_long_context)
    throw usage_error("--seq-len " + std::to_string(w.seq_len) + " is beyond " +
                      (w.model.id.empty() ? std::string("the model") : w.model.id) +
                      "'s context of " + std::to_string(cap) +
                      " tokens (--allow-long-context estimates it anyway)");
}

// --shard tp for inference needs an engine that runs tensor parallel; without --engine the
// batched engine (vLLM) runs it. llama.cpp's other split is by rows (--split-mode row).
void require_tensor_parallel_engine(const Workload& w) {
  if (is_training(w.mode) || w.shard != Shard::tp || w.gpus < 2) return;
  const std::string engine = engine_of(w, true);
  if (!engine_splits_layers(engine)) return;
  throw usage_error("--shard tp: " + engine + " spreads a model over GPUs by layers (--shard none" +
                    (is_llama_cpp(engine) ? ", or each matrix by rows: --split-mode row)" : ")") +
                    "; tensor parallelism runs on --engine " + tensor_parallel_engines());
}

}  // namespace

namespace detail {

void validate_sharding(const Workload& w) {
  if (w.row_split && is_training(w.mode))
    throw usage_error(
        "--split-mode row is an inference engine's (llama.cpp) split: --mode "
        "inference");
  if (w.row_split && w.shard_given && w.shard != Shard::none)
    throw usage_error(
        "--split-mode row splits each matrix by rows itself: use it with "
        "--shard none (the default), not --shard " +
        to_string(w.shard));
  const bool shards = w.shard != Shard::none && w.shard != Shard::ddp;
  if (!is_training(w.mode) && shards && w.shard != Shard::tp)
    throw usage_error("--shard " + to_string(w.shard) + " is a training strategy; " +
                      "inference splits a model with --shard tp (or none: layers split)");
  require_tensor_parallel_engine(w);
  if (w.shard == Shard::tp && w.gpus > 1 && w.model.heads > 0 && !w.model.remainder_linear &&
      w.model.heads % w.gpus != 0)
    throw usage_error("--shard tp splits attention by heads: " + std::to_string(w.gpus) +
                      " GPUs do not divide the model's " + std::to_string(w.model.heads) +
                      " heads");
  if (w.offload == Offload::params && w.shard_given && w.shard != Shard::zero3 &&
      w.shard != Shard::fsdp)
    throw usage_error("--offload params needs --shard zero3 or fsdp");
  if (w.offload != Offload::none && w.shard_given &&
      (w.shard == Shard::none || w.shard == Shard::ddp || w.shard == Shard::tp))
    throw usage_error("--offload needs DeepSpeed ZeRO (--shard zero1|zero2|zero3) or FSDP");
  if (w.offload != Offload::none && !is_training(w.mode))
    throw usage_error("--offload applies to training (optimizer states, sharded params)");
}

}  // namespace detail

Workload on_gpus(const Workload& given, int count) {
  require_gpu_count(count, "the GPU count");
  if (model_parallel(given)) return detail::place_model_parallel(given, count);
  Workload w = given;
  w.gpus = count;
  if (w.shard_given && w.shard == Shard::none && w.shard_set_aside)
    w.shard = *std::exchange(w.shard_set_aside, std::nullopt);
  if (w.shard_given && (count > 1 || w.shard != Shard::tp)) {
    if (count > 1) detail::validate_sharding(w);
    return w;
  }
  // Offloading on one GPU is DeepSpeed's ZeRO-Offload (optimizer: stage 2) or ZeRO-Infinity
  // (parameters: stage 3); on several, the framework's own sharding.
  // A data-parallel framework (Unsloth) offloads through DeepSpeed ZeRO-3, as its guide says.
  const std::string& own = w.framework.default_shard.value;
  const Shard framework_shard = own == "zero3"                               ? Shard::zero3
                                : own == "ddp" && w.offload != Offload::none ? Shard::zero3
                                : own == "ddp"                               ? Shard::ddp
                                                                             : Shard::fsdp;
  if (count == 1) {
    if (w.shard_given) w.shard_set_aside = w.shard;  // tp: nothing to split on one card
    w.shard = Shard::none;
    if (is_training(w.mode) && w.offload == Offload::optimizer) w.shard = Shard::zero2;
    if (is_training(w.mode) && w.offload == Offload::params) w.shard = Shard::zero3;
    return w;
  }
  if (w.model.cnn) {  // convolutional networks run data-parallel
    w.shard = Shard::ddp;
    return w;
  }
  if (w.row_split) {  // llama.cpp's row split: its own layout, on --shard none
    w.shard = Shard::none;
    return w;
  }
  const bool heads_divide =
      w.model.heads <= 0 || w.model.remainder_linear || w.model.heads % count == 0;
  w.shard = is_training(w.mode)
                ? (w.offload == Offload::params && framework_shard == Shard::fsdp ? Shard::fsdp
                                                                                  : framework_shard)
            : engine_tensor_parallel(w) && heads_divide ? Shard::tp
                                                        : Shard::none;
  return w;
}

bool engine_tensor_parallel(const Workload& w) {
  return !is_training(w.mode) && !engine_splits_layers(engine_of(w));
}

std::string engine_of(const Workload& w, bool tensor_parallel) {
  // FP8 checkpoints: llama.cpp has no FP8 type (ggml-org/llama.cpp#14020 closed as stale; FP8
  // PRs #10055 and #28485 open, CPU only); servers load them with vLLM, SGLang, TensorRT-LLM.
  // llama.cpp's row split is llama.cpp's own layout.
  // Experts kept in host RAM (--n-cpu-moe) are llama.cpp's, at any batch.
  if (w.engine.empty() && w.cpu_moe != 0) return inference_engine(w.engine, 1, false);
  const bool batched_default = w.engine.empty() && w.weight_format.empty() && !w.row_split &&
                               (w.gpus > 1 || w.precision == Precision::fp8);
  return inference_engine(w.engine, w.batch, tensor_parallel || batched_default);
}

const char* weights_format(const Workload& w) {
  if (is_training(w.mode)) return nullptr;
  if (w.precision == Precision::fp8) return "fp8";
  if (w.weights_as_shipped && w.model.shipped && w.model.shipped->experts_only &&
      w.precision == Precision::int4)
    return "mxfp4";
  return nullptr;
}

std::string default_engine_reason(const Workload& w) {
  if (w.cpu_moe != 0) return "experts in host RAM";
  if (!w.weight_format.empty()) return "GGUF weights";
  if (w.precision == Precision::fp8) return "FP8 weights";
  if (w.gpus > 1) return std::to_string(w.gpus) + " GPUs";
  return "batch " + std::to_string(w.batch) + " on one GPU";
}

void validate(const Workload& w) {
  detail::validate_selective_ckpt(w);
  detail::validate_optimizer_in_backward(w);
  detail::validate_hybrid_shard(w);
  require_positive(w.batch, "--batch");
  require_positive(w.grad_accum, "--grad-accum");
  require_positive(w.seq_len, "--seq-len");
  require_gpu_count(w.gpus, "--gpus");
  if (w.prompt_len < 0 || w.prompt_len > w.seq_len)
    throw usage_error("--prompt-len must be between 1 and --seq-len (" + std::to_string(w.seq_len) +
                      ")");
  if (w.mode == Mode::lora || w.mode == Mode::qlora) require_positive(w.lora_rank, "--lora-rank");
  if (w.mode == Mode::freeze) detail::require_trainable_layers(w);
  detail::validate_layers_and_bits(w);
  if (w.model.cnn) {
    // Convolutional networks train whole (torchvision, ultralytics): no adapters, no layers
    // to freeze or split by heads.
    if (w.mode != Mode::full && w.mode != Mode::inference)
      throw usage_error("model '" + w.model.id + "' is a convolutional network: --mode full " +
                        "or inference");
    if (w.shard == Shard::tp || w.shard == Shard::zero3 || w.shard == Shard::fsdp)
      throw usage_error("--shard " + to_string(w.shard) + " is not modelled for a " +
                        "convolutional network: it trains data-parallel (ddp)");
  } else if (w.model.layers < 1 || w.model.hidden < 1) {
    throw usage_error("model '" + w.model.id + "' has no usable architecture");
  }
  detail::validate_image_size(w);
  detail::validate_mlm_head(w);
  validate_precision(w);
  detail::validate_sharding(w);
  detail::validate_cpu_moe(w);
  detail::validate_gpu_layers(w);
  validate_context(w);
  // The degrees alone here: the count they must divide is on_gpus's (check and compare give it
  // by --count after the workload is read).
  detail::validate_degrees(w);
  if (model_parallel(w) && places_replicas(w, w.gpus)) detail::validate_model_parallel(w);
}

}  // namespace gpusel
