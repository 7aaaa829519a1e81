// Tensor x pipeline x context x data parallel placement (--tp, --pp, --vpp, --cp): the checks
// Megatron-LM makes on the degrees, and the labels the commands print. on_gpus (workload.cpp) calls
// place_model_parallel, so every command places the degrees the same way.
#include <algorithm>
#include <limits>
#include <string>

#include "gpusel/base/error.hpp"
#include "gpusel/memory/workload.hpp"
#include "workload_internal.hpp"

namespace gpusel {

bool model_parallel(const Workload& w) { return model_parallel_size(w) > 1 || w.ep > 1; }

bool hybrid_sharded(const Workload& w) {
  return w.shard_group > 0 && w.shard == Shard::fsdp && w.gpus > w.shard_group;
}

bool places_replicas(const Workload& w, int count) {
  const int size = model_parallel_size(w);
  if (count % size != 0) return false;
  return (count / size * std::max(1, w.cp)) % std::max(1, w.ep) == 0;
}

int fewest_gpus(const Workload& w) {
  const int size = model_parallel_size(w);
  for (long n = size; n <= kMaxGpuCount; n += size)
    if (places_replicas(w, int(n))) return int(n);
  return std::min(size, kMaxGpuCount);  // validate says why
}

double expert_parallel_share(const Workload& w) {
  if (w.ep <= 1) return 1;
  const double total = arch_params(w.model).total;
  const double experts = total > 0 ? routed_expert_params(w.model) / total : 0;
  return 1 - experts + experts / w.ep;
}

int model_parallel_size(const Workload& w) {
  // Each degree is at most kMaxGpuCount (validate_degrees), their product may not fit an int.
  const long long n = 1LL * std::max(1, w.tp) * std::max(1, w.pp) * std::max(1, w.cp);
  return int(std::min<long long>(n, std::numeric_limits<int>::max()));
}

int data_parallel(const Workload& w) { return std::max(1, w.gpus / model_parallel_size(w)); }

Workload without_model_parallel(const Workload& w) {
  if (!model_parallel(w)) return w;
  Workload one = w;
  one.tp = one.pp = one.vpp = one.cp = one.ep = 1;
  return on_gpus(one, 1);
}

std::string parallel_label(const Workload& w) {
  if (w.row_split && w.gpus > 1) return "row split";  // llama.cpp --split-mode row
  if (hybrid_sharded(w))
    return "hsdp " + std::to_string(w.shard_group) + " x " +
           std::to_string(w.gpus / w.shard_group) + " replicas";
  if (!model_parallel(w)) return to_string(w.shard);
  if (model_parallel_size(w) == 1)  // --ep alone: the data-parallel ranks hold the experts
    return to_string(w.shard) + ", ep " + std::to_string(w.ep);
  return "tp " + std::to_string(w.tp) + " x pp " + std::to_string(w.pp) +
         (w.vpp > 1 ? " (vpp " + std::to_string(w.vpp) + ")" : "") +
         (w.cp > 1 ? " x cp " + std::to_string(w.cp) : "") + " x dp " +
         std::to_string(data_parallel(w)) + " " + to_string(w.shard) +
         (w.ep > 1 ? ", ep " + std::to_string(w.ep) : "");
}

namespace detail {
namespace {

void require_positive(int v, const char* what) {
  if (v < 1)
    throw usage_error(std::string(what) + " must be at least 1 (got " + std::to_string(v) + ")");
}

}  // namespace

void validate_degrees(const Workload& w) {
  require_positive(w.tp, "--tp");
  require_positive(w.pp, "--pp");
  require_positive(w.vpp, "--vpp");
  require_positive(w.cp, "--cp");
  require_positive(w.ep, "--ep");
  if (w.tp > kMaxGpuCount || w.pp > kMaxGpuCount || w.vpp > kMaxGpuCount || w.cp > kMaxGpuCount ||
      w.ep > kMaxGpuCount)
    throw usage_error("--tp, --pp, --vpp, --cp and --ep must be at most " +
                      std::to_string(kMaxGpuCount));
  if (w.vpp > 1 && w.pp < 2)
    throw usage_error("--vpp interleaves pipeline stages: it needs --pp 2 or more");
}

// --shard hsdp: FSDP's hybrid sharding, for training, over whole shard groups.
void validate_hybrid_shard(const Workload& w) {
  if (w.shard_group == 0) return;
  if (w.shard_group < 0 || w.shard_group > kMaxGpuCount)
    throw usage_error("--shard-group must be between 1 and " + std::to_string(kMaxGpuCount));
  if (w.shard != Shard::fsdp || !is_training(w.mode))
    throw usage_error(
        "--shard hsdp (and --shard-group) shard training states with FSDP inside "
        "groups: training only, instead of --shard " +
        to_string(w.shard));
  if (model_parallel(w))
    throw usage_error("--shard hsdp is not modelled with --tp/--pp/--cp/--ep (give --shard fsdp)");
  if (w.gpus > w.shard_group && w.gpus % w.shard_group != 0)
    throw usage_error("--shard hsdp groups of " + std::to_string(w.shard_group) +
                      " GPUs do not divide the " + std::to_string(w.gpus) + " GPUs");
}

// Context parallelism's own constraints: Megatron-Core cuts each sequence into 2 x cp chunks,
// rank r keeping chunks r and 2cp-1-r so every rank gets the same causal work
// (megatron/training/utils.py get_batch_on_this_cp_rank), and Transformer Engine runs the ring
// only through its FlashAttention/fused-attention backends.
void validate_context_parallel(const Workload& w) {
  if (w.cp < 2) return;
  if (w.seq_len % (2 * w.cp) != 0)
    throw usage_error(
        "--cp " + std::to_string(w.cp) + " cuts each sequence into " + std::to_string(2 * w.cp) +
        " chunks (Megatron-Core's load-balanced split): " + "--seq-len " +
        std::to_string(w.seq_len) + " is not a multiple of " + std::to_string(2 * w.cp));
  if (!w.flash_attn)
    throw usage_error(
        "--cp runs attention as a ring over FlashAttention/fused-attention kernels "
        "(Transformer Engine): drop --no-flash-attn");
}

// Expert parallelism (Megatron-Core arguments.py, torchtitan's ExpertParallel): the routed
// experts split evenly, the ep ranks drawn from the dp x cp ranks of a stage.
void validate_expert_parallel(const Workload& w) {
  if (w.ep < 2) return;
  const int experts = w.model.moe ? w.model.moe->experts : 0;
  if (experts <= 0 || moe_layer_count(w.model) <= 0)
    throw usage_error("--ep splits the routed experts of a mixture-of-experts model; " +
                      (w.model.id.empty() ? std::string("this model") : w.model.id) + " has none");
  if (experts % w.ep != 0)
    throw usage_error("--ep " + std::to_string(w.ep) + " does not divide the model's " +
                      std::to_string(experts) + " routed experts");
  const int ranks = data_parallel(w) * std::max(1, w.cp);
  if (ranks % w.ep != 0)
    throw usage_error("--ep " + std::to_string(w.ep) + " takes its ranks from the " +
                      std::to_string(ranks) +
                      " data- and context-parallel GPUs of a stage, which it must divide");
}

// Megatron-LM's constraints on the degrees (arguments.py): the GPUs are tp x pp x cp x dp, the
// heads split by tp, each (virtual) stage holds whole layers.
void validate_model_parallel(const Workload& w) {
  validate_degrees(w);
  if (!model_parallel(w)) return;
  const std::string degrees = "--tp " + std::to_string(w.tp) + " x --pp " + std::to_string(w.pp) +
                              (w.cp > 1 ? " x --cp " + std::to_string(w.cp) : "") + " = " +
                              std::to_string(model_parallel_size(w));
  if (!is_training(w.mode))
    throw usage_error(
        "--tp/--pp/--cp/--ep model training parallelism; inference splits a model with "
        "--shard tp (or none: layers split)");
  if (w.model.cnn)
    throw usage_error(
        "--tp/--pp/--cp/--ep are not modelled for a convolutional network (it trains ddp)");
  validate_context_parallel(w);
  if (w.gpus % model_parallel_size(w) != 0)
    throw usage_error(degrees + " GPUs does not divide the " + std::to_string(w.gpus) +
                      " GPUs: the rest must form whole data-parallel replicas");
  validate_expert_parallel(w);
  if (w.model.heads > 0 && !w.model.remainder_linear && w.model.heads % w.tp != 0)
    throw usage_error("--tp " + std::to_string(w.tp) + " does not divide the model's " +
                      std::to_string(w.model.heads) + " attention heads");
  // Megatron-Core may count the embedding and the loss as a layer each of the split
  // (account_for_embedding_in_pipeline_split, account_for_loss_in_pipeline_split:
  // get_num_layers_to_build), as Llama 3 405B's 16 x 8 virtual stages over 126 layers did
  // (one layer less on the first and the last stage, arXiv:2407.21783 s3.3.2).
  if (1LL * w.pp * w.vpp > w.model.layers + 2LL)
    throw usage_error("--pp " + std::to_string(w.pp) + " x --vpp " + std::to_string(w.vpp) +
                      " stages exceed the model's " + std::to_string(w.model.layers) +
                      " layers and its embedding and loss");
  if (w.offload != Offload::none)
    throw usage_error(
        "--offload is not modelled with --tp/--pp/--cp (Megatron-LM keeps every state "
        "on the GPUs)");
  if (w.shard == Shard::tp || (w.shard_given && w.shard == Shard::none))
    throw usage_error(
        "with --tp/--pp/--cp, --shard names the data-parallel strategy of the other "
        "GPUs: ddp|zero1|zero2|zero3|fsdp (not " +
        to_string(w.shard) + ")");
}

// The GPUs as tp x pp x cp x dp: --shard (given, else Megatron's distributed optimizer, which
// NeMo's recipes turn on: ZeRO-1) is the strategy of the dp replicas.
Workload place_model_parallel(Workload w, int count) {
  w.gpus = count;
  if (!w.shard_given) w.shard = Shard::zero1;
  validate_model_parallel(w);
  validate_sharding(w);
  return w;
}

}  // namespace detail

}  // namespace gpusel
