// Two workload settings that narrow what the precision and the mode cover: --weight-bits
// (quantized linear weights at any bits per weight) and --lora-layers (adapters on the last
// N blocks). Memory and speed read them through the functions here, so the stages agree.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpusel/base/error.hpp"
#include "gpusel/memory/estimator.hpp"
#include "workload_internal.hpp"

namespace gpusel {

void set_weight_bits(Workload& w, double bits) {
  if (!std::isfinite(bits) || bits < 1 || bits > 8)
    throw usage_error("--weight-bits must be between 1 and 8 bits per weight (got " +
                      detail::bits_label(bits) + ")");
  w.linear_bits = bits;
  w.bits_experts_only = false;  // bits the user gives cover every linear matrix
}

void use_shipped_weights(Workload& w) {
  if (w.mode != Mode::inference || !w.model.shipped) return;
  set_precision(w, w.model.shipped->precision);
  if (w.model.shipped->weight_bits > 0) set_weight_bits(w, w.model.shipped->weight_bits);
  w.bits_experts_only = w.linear_bits > 0 && w.model.shipped->experts_only && w.model.moe;
  w.weights_as_shipped = true;
}

namespace {

// The one range check of --lora-layers, at the flag and again in validate().
void require_lora_layers_range(const Workload& w, int n) {
  if (n < 1 || (w.model.layers > 0 && n > w.model.layers))
    throw usage_error("--lora-layers must be between 1 and the model's " +
                      std::to_string(w.model.layers) + " layers (got " + std::to_string(n) + ")");
}

}  // namespace

void set_lora_layers(Workload& w, int n) {
  require_lora_layers_range(w, n);
  w.lora_layers = n;
}

double shipped_other_bytes(const Workload& w) {
  const ShippedWeights* sw = w.model.shipped ? &*w.model.shipped : nullptr;
  if (w.bits_experts_only && sw && sw->gguf_other_bits > 0 && is_llama_cpp(engine_of(w)))
    return sw->gguf_other_bits / 8;
  return 2;
}

double linear_weight_bytes(const Workload& w, double precision_bytes) {
  if (w.linear_bits <= 0) return precision_bytes;
  if (!w.bits_experts_only) return w.linear_bits / 8;
  // The mean over every linear matrix: the experts at the bits, the rest as shipped.
  const ArchParams a = arch_params(w.model);
  if (!(a.linear > 0)) return w.linear_bits / 8;
  return (a.experts * w.linear_bits / 8 + (a.linear - a.experts) * shipped_other_bytes(w)) /
         a.linear;
}

int lora_blocks(const Workload& w) {
  const int all = w.model.layers;
  return w.lora_layers > 0 ? std::min(w.lora_layers, all) : all;
}

namespace detail {

// Freeze trains the last N blocks: N above the model's blocks would report "the last 100
// blocks train" of a 32-block model.
void require_trainable_layers(const Workload& w) {
  const int n = w.freeze_trainable_layers;
  if (n < 1 || (w.model.layers > 0 && n > w.model.layers))
    throw usage_error("--trainable-layers must be between 1 and the model's " +
                      std::to_string(w.model.layers) + " layers (got " + std::to_string(n) + ")");
}

std::string bits_label(double bits) { return fmt::format("{:g}", bits); }

void validate_layers_and_bits(const Workload& w) {
  if (w.lora_layers != 0) {
    if (w.mode != Mode::lora && w.mode != Mode::qlora)
      throw usage_error("--lora-layers applies to --mode lora or qlora");
    require_lora_layers_range(w, w.lora_layers);
  }
  if (w.linear_bits <= 0) return;
  if (w.mode != Mode::inference)
    throw usage_error(
        "--weight-bits sets quantized weights for --mode inference (training quantizes "
        "with --mode qlora)");
  if (!w.weight_format.empty())
    throw usage_error("--weight-bits and the GGUF type " + w.weight_format +
                      " both set the bits: give one");
  if (!is_quantized(w.precision))
    throw usage_error("--weight-bits needs quantized kernels: add --precision int4 (or int8)");
}

}  // namespace detail
}  // namespace gpusel
