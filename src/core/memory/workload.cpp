#include "gpusel/memory/workload.hpp"

#include <array>
#include <utility>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/data/quantization.hpp"

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
constexpr Names<Optimizer, 5> kOptimizers{{{Optimizer::adamw, "adamw"},
                                           {Optimizer::adamw_8bit, "adamw-8bit"},
                                           {Optimizer::paged_adamw_8bit, "paged-adamw-8bit"},
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
  return w.weight_format.empty() ? to_string(w.precision) : w.weight_format;
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

void validate_precision(const Workload& w) {
  const bool trains_base = w.mode == Mode::full || w.mode == Mode::freeze;
  if (trains_base && (is_quantized(w.precision) || w.precision == Precision::fp8))
    throw usage_error("--mode " + to_string(w.mode) + " trains the weights themselves: use " +
                      "--precision fp32|bf16|fp16 (quantized bases train with lora or qlora)");
  if (w.mode == Mode::qlora && w.precision == Precision::fp8)
    throw usage_error("qlora quantizes the base to int4 (NF4) or int8, not fp8");
  if (is_training(w.mode) && !w.weight_format.empty())
    throw usage_error("--precision " + w.weight_format +
                      " is a llama.cpp GGUF type, which serves inference only (--mode inference); "
                      "fine-tune with --precision int4/int8 (bitsandbytes) instead");
  if (is_training(w.mode) && w.kv_dtype != KvDtype::compute)
    throw usage_error("--kv-dtype sets the inference KV cache; --mode " + to_string(w.mode) +
                      " keeps no KV cache");
}

void validate_sharding(const Workload& w) {
  const bool shards = w.shard != Shard::none && w.shard != Shard::ddp;
  if (!is_training(w.mode) && shards && w.shard != Shard::tp)
    throw usage_error("--shard " + to_string(w.shard) + " is a training strategy; " +
                      "inference splits a model with --shard tp (or none: layers split)");
  if (w.shard == Shard::tp && w.gpus > 1 && w.model.heads > 0 && w.model.heads % w.gpus != 0)
    throw usage_error("--shard tp splits attention by heads: " + std::to_string(w.gpus) +
                      " GPUs do not divide the model's " + std::to_string(w.model.heads) +
                      " heads");
  if (w.offload == Offload::params && w.shard != Shard::zero3 && w.shard != Shard::fsdp)
    throw usage_error("--offload params needs --shard zero3 or fsdp");
  if (w.offload != Offload::none && !is_training(w.mode))
    throw usage_error("--offload applies to training (optimizer states, sharded params)");
}

void validate_context(const Workload& w) {
  const int cap = w.model.max_context;
  if (cap > 0 && w.seq_len > cap && !w.allow_long_context)
    throw usage_error("--seq-len " + std::to_string(w.seq_len) + " is beyond " +
                      (w.model.id.empty() ? std::string("the model") : w.model.id) +
                      "'s context of " + std::to_string(cap) +
                      " tokens (--allow-long-context estimates it anyway)");
}

}  // namespace

Workload on_gpus(const Workload& given, int count) {
  require_positive(count, "the GPU count");
  Workload w = given;
  w.gpus = count;
  if (count == 1) {
    if (!w.shard_given || w.shard == Shard::tp) w.shard = Shard::none;
    return w;
  }
  if (w.shard_given) {
    validate_sharding(w);
    return w;
  }
  const bool heads_divide = w.model.heads <= 0 || w.model.heads % count == 0;
  w.shard = is_training(w.mode) ? Shard::fsdp : heads_divide ? Shard::tp : Shard::none;
  return w;
}

void validate(const Workload& w) {
  require_positive(w.batch, "--batch");
  require_positive(w.seq_len, "--seq-len");
  require_positive(w.gpus, "--gpus");
  if (w.prompt_len < 0 || w.prompt_len > w.seq_len)
    throw usage_error("--prompt-len must be between 1 and --seq-len (" + std::to_string(w.seq_len) +
                      ")");
  if (w.mode == Mode::lora || w.mode == Mode::qlora) require_positive(w.lora_rank, "--lora-rank");
  if (w.mode == Mode::freeze) require_positive(w.freeze_trainable_layers, "--trainable-layers");
  if (w.model.layers < 1 || w.model.hidden < 1)
    throw usage_error("model '" + w.model.id + "' has no usable architecture");
  validate_precision(w);
  validate_sharding(w);
  validate_context(w);
}

}  // namespace gpusel
