// --framework: a profile from data/frameworks.json put on a workload, with the flags that set
// one behaviour alone (--adapter-dtype, --lora-dropout, --opt-in-bwd ...) over it, and the
// loss and optimizer the framework's recipe uses where the user named none.
#include <optional>
#include <string>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/memory/workload.hpp"
#include "workload_internal.hpp"

namespace gpusel {

namespace {

template <typename T>
void override_with(Cited<T>& b, const std::optional<T>& v, const char* flag) {
  if (v) b = {*v, std::string("set by ") + flag, today_iso()};
}

void apply_overrides(FrameworkProfile& f, const FrameworkOverrides& o) {
  if (o.adapter_dtype) {
    const std::string d = to_lower(*o.adapter_dtype);
    if (d != "fp32" && d != "bf16" && d != "fp16" && d != "base")
      throw usage_error("invalid --adapter-dtype '" + *o.adapter_dtype +
                        "' (expected fp32|bf16|base: base is the model's own dtype)");
    override_with(f.adapter_dtype, std::optional<std::string>(d == "fp32" ? "fp32" : "base"),
                  "--adapter-dtype");
  }
  if (o.lora_dropout && !(*o.lora_dropout >= 0 && *o.lora_dropout < 1))
    throw usage_error("--lora-dropout must be in [0, 1) (got " + std::to_string(*o.lora_dropout) +
                      ")");
  override_with(f.lora_dropout, o.lora_dropout, "--lora-dropout");
  if (o.opt_in_bwd)
    override_with(f.optimizer_in_backward,
                  std::optional<std::string>(*o.opt_in_bwd ? "always" : "never"), "--opt-in-bwd");
  override_with(f.activation_offload, o.act_offload, "--act-offload");
  if (o.act_offload && *o.act_offload && f.offload_gpu_checkpoints.value == 0)
    f.offload_gpu_checkpoints = {
        5, "torchtune's max_fwd_stash_size=5 (_activation_offloading.py:66-72)", "2026-04-23"};
  override_with(f.four_bit_keeps_input, o.nf4_keeps_input, "--nf4-keeps-input");
  override_with(f.dequant_saved, o.dequant_saved, "--dequant-saved");
  override_with(f.kbit_upcast_embeddings, o.kbit_upcast, "--kbit-upcast");
  override_with(f.kbit_upcast_norms, o.kbit_upcast, "--kbit-upcast");
  override_with(f.compile, o.compile, "--compile");
  if (o.ds_live_params) {
    if (!(*o.ds_live_params > 0)) throw usage_error("--ds-live-params must be positive");
    f.zero.value.max_live_parameters = f.zero.value.max_reuse_distance = *o.ds_live_params;
    f.zero.source += "; stage3_max_live_parameters and max_reuse_distance set by --ds-live-params";
  }
  if (o.ds_overlap_comm) {
    f.zero.value.overlap_comm = *o.ds_overlap_comm ? 1 : 0;
    f.zero.source += "; overlap_comm set by --ds-overlap-comm";
  }
}

}  // namespace

bool default_grad_ckpt(const ModelArch& m) { return m.kind == "decoder"; }

void apply_framework(Workload& w, const FrameworkProfile& f, bool loss_given, bool optimizer_given,
                     const FrameworkOverrides& o) {
  w.framework = f;
  apply_overrides(w.framework, o);
  // Convolutional networks train whole, without checkpointing (torchvision's reference
  // scripts and Ultralytics have no such option; the estimator's CNN activations assume it),
  // and have no attention for FlashAttention to run.
  if (w.model.cnn) w.grad_ckpt = w.flash_attn = false;
  if (!loss_given) w.loss = f.loss.value == "chunked" ? Loss::chunked : Loss::full;
  if (!optimizer_given) {
    const bool quantized =
        w.mode == Mode::qlora || (w.mode == Mode::lora && is_quantized(w.precision));
    w.optimizer = parse_optimizer(quantized ? f.default_optimizer_quantized.value
                                            : f.default_optimizer.value);
    // A CNN's reference recipe names its own (torchvision's classification scripts: SGD).
    if (w.model.cnn && !w.model.cnn->optimizer.empty())
      w.optimizer = parse_optimizer(w.model.cnn->optimizer);
  }
}

namespace detail {

// --opt-in-bwd steps each parameter as its gradient is made: nothing to accumulate into
// (torchtune's recipes raise "Gradient accumulation is not supported with optimizer in bwd",
// recipes/full_finetune_single_device.py and full_finetune_distributed.py).
void validate_optimizer_in_backward(const Workload& w) {
  if (is_training(w.mode) && w.framework.optimizer_in_backward.value == "always" &&
      w.grad_accum > 1)
    throw usage_error(
        "--opt-in-bwd steps the optimizer inside backward: it cannot accumulate "
        "--grad-accum " +
        std::to_string(w.grad_accum) + " micro-batches (torchtune refuses it too)");
}

}  // namespace detail

}  // namespace gpusel
