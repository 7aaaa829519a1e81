// Tensor x pipeline x data parallel placement (--tp, --pp, --vpp): the checks Megatron-LM
// makes on the degrees, and the labels the commands print. on_gpus (workload.cpp) calls
// place_model_parallel, so every command places the degrees the same way.
#include <algorithm>
#include <string>

#include "gpusel/base/error.hpp"
#include "gpusel/memory/workload.hpp"
#include "workload_internal.hpp"

namespace gpusel {

bool model_parallel(const Workload& w) { return w.tp * w.pp > 1; }

int data_parallel(const Workload& w) { return std::max(1, w.gpus / std::max(1, w.tp * w.pp)); }

Workload without_model_parallel(const Workload& w) {
  if (!model_parallel(w)) return w;
  Workload one = w;
  one.tp = one.pp = one.vpp = 1;
  return on_gpus(one, 1);
}

std::string parallel_label(const Workload& w) {
  if (w.row_split && w.gpus > 1) return "row split";  // llama.cpp --split-mode row
  if (!model_parallel(w)) return to_string(w.shard);
  return "tp " + std::to_string(w.tp) + " x pp " + std::to_string(w.pp) +
         (w.vpp > 1 ? " (vpp " + std::to_string(w.vpp) + ")" : "") + " x dp " +
         std::to_string(data_parallel(w)) + " " + to_string(w.shard);
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
  if (w.tp > kMaxGpuCount || w.pp > kMaxGpuCount || w.vpp > kMaxGpuCount)
    throw usage_error("--tp, --pp and --vpp must be at most " + std::to_string(kMaxGpuCount));
  if (w.vpp > 1 && w.pp < 2)
    throw usage_error("--vpp interleaves pipeline stages: it needs --pp 2 or more");
}

// Megatron-LM's constraints on the degrees (arguments.py): the GPUs are tp x pp x dp, the
// heads split by tp, each (virtual) stage holds whole layers.
void validate_model_parallel(const Workload& w) {
  validate_degrees(w);
  if (!model_parallel(w)) return;
  const std::string degrees = "--tp " + std::to_string(w.tp) + " x --pp " + std::to_string(w.pp) +
                              " = " + std::to_string(w.tp * w.pp);
  if (!is_training(w.mode))
    throw usage_error(
        "--tp/--pp model training parallelism; inference splits a model with "
        "--shard tp (or none: layers split)");
  if (w.model.cnn)
    throw usage_error("--tp/--pp are not modelled for a convolutional network (it trains ddp)");
  if (w.gpus % (w.tp * w.pp) != 0)
    throw usage_error(degrees + " GPUs does not divide the " + std::to_string(w.gpus) +
                      " GPUs: the rest must form whole data-parallel replicas");
  if (w.model.heads > 0 && !w.model.remainder_linear && w.model.heads % w.tp != 0)
    throw usage_error("--tp " + std::to_string(w.tp) + " does not divide the model's " +
                      std::to_string(w.model.heads) + " attention heads");
  if (w.pp * w.vpp > w.model.layers)
    throw usage_error("--pp " + std::to_string(w.pp) + " x --vpp " + std::to_string(w.vpp) +
                      " stages exceed the model's " + std::to_string(w.model.layers) + " layers");
  if (w.offload != Offload::none)
    throw usage_error(
        "--offload is not modelled with --tp/--pp (Megatron-LM keeps every state "
        "on the GPUs)");
  if (w.shard == Shard::tp || (w.shard_given && w.shard == Shard::none))
    throw usage_error(
        "with --tp/--pp, --shard names the data-parallel strategy of the other "
        "GPUs: ddp|zero1|zero2|zero3|fsdp (not " +
        to_string(w.shard) + ")");
}

// The GPUs as tp x pp x dp: --shard (given, else Megatron's distributed optimizer, which
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
