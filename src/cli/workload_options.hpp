#pragma once
// The workload flags shared by `estimate`, `fit` and the commands that rank GPUs.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gpusel/data/models.hpp"
#include "gpusel/memory/workload.hpp"

namespace gpusel::cli {

// A count option left at this value was not given.
inline constexpr int kNotGiven = -1;

struct WorkloadArgs {
  std::string model, params, models_path, model_config;
  std::string mode = "inference", precision, optimizer, shard;  // optimizer: the framework's
  std::string offload = "none", loss, lora_targets,             // lora_targets: all-linear
      kv_dtype = "auto";                                        // loss: the framework's
  std::string engine;
  std::string split_mode;                       // --split-mode layer|row (llama.cpp)
  int tp = 1, pp = 1, vpp = 1, cp = 1, ep = 1;  // Megatron-style model parallelism (1: none)
  // Not given (kNotGiven): lora_rank 16, trainable_layers 2, lora_layers every block.
  int batch = 1, grad_accum = 1, seq_len = 0, prompt_len = 0, lora_rank = kNotGiven,
      gpus = kNotGiven, trainable_layers = kNotGiven, lora_layers = kNotGiven;
  std::optional<double> weight_bits;  // --weight-bits
  int n_cpu_moe = 0;                  // --n-cpu-moe N
  bool cpu_moe = false;               // --cpu-moe (every layer's experts)
  std::optional<double> host_mem_bw;  // --host-mem-bw GB/s
  std::optional<int> shard_group;     // --shard-group (with --shard hsdp; default one node's 8)
  int gpu_layers = -1;                // --gpu-layers (llama.cpp -ngl); -1: all
  bool seq_len_given = false;
  std::optional<bool> grad_ckpt;  // not given: default_grad_ckpt(model)
  bool selective_ckpt = false;
  bool flash_attn = true, amp = false, double_quant = true;
  bool train_embeddings = false, allow_long_context = false, comm_overlap = false, mlm = false;
  // The training framework and the behaviours set alone (issue 11).
  std::string framework = "hf", family;
  FrameworkOverrides overrides;
  long vocab = 0;
  int image_size = 0;
};

// Adds --model/--model-config/--params and every workload flag to `cmd`, writing into `a`.
void add_workload_options(CLI::App* cmd, WorkloadArgs& a);

// The presets: data/models.json (embedded) or `path`.
std::vector<ModelArch> load_models(const std::string& path);

// The card count of a command that also takes --count (fit, check, compare): --count, else
// --gpus, else 1; Error(usage) when both are given and differ.
int card_count(int count_flag, const WorkloadArgs& a);

// Resolves the flags to a Workload on its --gpus (on_gpus decides the sharding). Error(usage)
// on a bad value, an unknown model (with suggestions), or not exactly one of --model,
// --model-config and --params; Error(data) for a config.json it cannot read.
Workload resolve_workload(const WorkloadArgs& a);

}  // namespace gpusel::cli
