#pragma once
// The workload flags shared by `estimate`, `fit` and the commands that rank GPUs.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "gpusel/data/models.hpp"
#include "gpusel/memory/workload.hpp"

namespace gpusel::cli {

struct WorkloadArgs {
  std::string model, params, models_path;
  std::string mode = "inference", precision, optimizer, shard;      // optimizer: the framework's
  std::string offload = "none", loss, lora_targets = "all-linear";  // loss: the framework's
  int batch = 1, grad_accum = 1, seq_len = 0, prompt_len = 0, lora_rank = 16, gpus = 1, trainable_layers = 2;
  bool seq_len_given = false;
  bool grad_ckpt = true, flash_attn = true, amp = false, double_quant = true;
  bool train_embeddings = false, allow_long_context = false;
  // The training framework and the behaviours set alone (issue 11).
  std::string framework = "hf", family;
  FrameworkOverrides overrides;
  long vocab = 0;
  int image_size = 0;
};

// Adds --model/--params and every workload flag to `cmd`, writing into `a`.
void add_workload_options(CLI::App* cmd, WorkloadArgs& a);

// The presets: data/models.json (embedded) or `path`.
std::vector<ModelArch> load_models(const std::string& path);

// Resolves the flags to a Workload on its --gpus (on_gpus decides the sharding). Error(usage)
// on a bad value, an unknown model (with suggestions), or neither/both of --model and --params.
Workload resolve_workload(const WorkloadArgs& a);

}  // namespace gpusel::cli
