// The assumptions an estimate states: the model, the framework profile and its version,
// and each behaviour that changed bytes, with where it came from.
#include "estimator_parts.hpp"

namespace gpusel::detail {
namespace {

std::string yes(bool b) { return b ? "yes" : "no"; }

std::string weights_text(const Setup& setup) {
  const Workload& w = setup.w;
  std::string s = "mode " + to_string(w.mode) + ", weights " +
                  (w.mode == Mode::qlora && !is_quantized(w.precision) ? std::string("nf4")
                                                                       : precision_label(w));
  if (!w.weight_format.empty())
    s += " (llama.cpp GGUF, " + num(w.weight_bits) + " bits per weight)";
  else if (w.linear_bits > 0)
    s += std::string(w.weights_as_shipped ? " (the publisher's format, models.json "
                                            "shipped_weights; --precision overrides it"
                                          : " (--weight-bits") +
         (w.bits_experts_only ? ": MoE experts at " + num(w.linear_bits) +
                                    " bits per weight, scales included; attention, router, "
                                    "embeddings and LM head " +
                                    (shipped_other_bytes(w) < 2
                                         ? "in the GGUF's " + num(shipped_other_bytes(w) * 8) +
                                               "-bit Q8_0 on llama.cpp)"
                                         : std::string("16-bit)"))
                              : ": linear matrices at " + num(w.linear_bits) +
                                    " bits per weight, scales included; embeddings and LM "
                                    "head 16-bit)");
  else if (w.weights_as_shipped)
    s += " (the publisher's format, models.json shipped_weights; --precision overrides it)";
  else if (w.mode == Mode::qlora || w.precision == Precision::int4)
    s += w.double_quant ? " with double quantization" : " without double quant";
  if (w.mode == Mode::full && w.precision == Precision::fp8)
    return s + ": torchao float8 training: FP8 matmuls over " +
           (w.amp ? "fp32 weights under bf16 autocast (gradients and AdamW states fp32, the "
                    "parameters are the master copy)"
                  : "bf16 weights (gradients and AdamW states bf16)") +
           "; the fp8 casts of weight and input live for one matmul and the high-precision "
           "input and weight are what backward keeps (pytorch/ao@36027d82 "
           "torchao/float8/float8_linear.py:45, 255-270)";
  if (setup.amp_fp32_params)
    return s +
           ", AMP (torch autocast over the fp32 model: the fp32 parameters are the master "
           "copy, no 16-bit working copy)";
  if (w.amp)
    return s + ", AMP (fp32 weights, 16-bit compute" +
           (w.mode == Mode::full || w.mode == Mode::freeze
                ? ", a 16-bit working copy and fp32 master weights)"
                : ")");
  // DeepSpeed ZeRO keeps an fp32 master partition and fp32 states whatever the model dtype
  // (add_master): a "pure 16-bit" run is pure only outside it.
  if ((w.mode == Mode::full || w.mode == Mode::freeze) && w.precision != Precision::fp32)
    s += setup.zero() ? ", " + to_string(w.precision) +
                            " model under DeepSpeed ZeRO: fp32 master weights and optimizer "
                            "states, partitioned"
                      : ", pure " + to_string(w.precision) +
                            " training: gradients (and AdamW states) in that dtype, no fp32 "
                            "master copy (--amp for mixed precision)";
  return s;
}

void describe_framework(const Setup& s, std::vector<std::string>& a) {
  const FrameworkProfile& f = s.f;
  if (!is_training(s.w.mode)) {
    const std::string e = prefill_chunk(s.w).engine;
    a.push_back(runs_on_ggml(s.w)
                    ? "engine llama.cpp (ggml): the weights, the KV cache and one compute buffer "
                      "sized from the graph at load; no PyTorch and no caching allocator, so no "
                      "allocator share (--engine for another engine)"
                    : "engine " + e +
                          " (PyTorch underneath: its caching allocator's share counted; --engine "
                          "for another engine)");
    return;
  }
  a.push_back("framework " + f.id + " (" + f.name + "; " + f.version + ", as of " + f.as_of +
              "): data/frameworks.json");
  std::string b = "framework behaviours: ";
  if (s.adapters) {
    b += "adapters " + num(s.ab * 8) + "-bit, LoRA dropout " + num(s.dropout) +
         (s.f.fused_lora_kernels.value && s.dropout == 0 ? ", fused LoRA kernels" : "");
    if (s.quantized)
      b += ", embeddings/head " + num(s.emb_b * 8) + "-bit, residual stream " + num(s.rb * 8) +
           "-bit, " + (s.four_bit ? "4-bit" : "8-bit") + " layers keep their input: " +
           yes(s.four_bit ? f.four_bit_keeps_input.value : f.eight_bit_keeps_input.value) +
           (f.dequant_saved.value ? ", their matmul saves the dequantized weight" : "");
    b += "; ";
  }
  b += std::string("autocast ") + yes(s.autocast) + ", checkpointing " +
       (s.w.selective_ckpt ? std::string("selective (torchtitan's op policy)") : yes(s.ckpt)) +
       ", activation offload " + yes(f.activation_offload.value) +
       ", optimizer step in "
       "backward " +
       yes(s.opt_in_bwd) + ", compile " + yes(f.compile.value) + " (memory counted eager)";
  a.push_back(b);
  for (const auto* c :
       {&f.adapter_dtype.source, &f.lora_dropout.source, &f.four_bit_keeps_input.source,
        &f.activation_offload.source, &f.optimizer_in_backward.source,
        &f.kbit_upcast_embeddings.source, &f.dequant_saved.source})
    if (c->rfind("set by --", 0) == 0) a.push_back(*c);
}

}  // namespace

void describe(const Setup& s, std::vector<std::string>& a) {
  const Workload& w = s.w;
  const ModelArch& m = w.model;
  if (!w.model_from_preset) a.push_back("assumes a decoder-only LLM: " + m.notes);
  if (m.mlm_head)
    a.push_back("masked-LM head (BertForMaskedLM): transform " + std::to_string(m.hidden) + "x" +
                std::to_string(m.hidden) + " + LayerNorm, vocabulary " + std::to_string(m.vocab) +
                " scored at every position (tied to the embeddings)");
  a.push_back(weights_text(s));
  if (m.cnn)
    a.push_back("micro-batch " + std::to_string(w.batch) + " images of " +
                std::to_string(w.image_size > 0 ? w.image_size : m.cnn->image_size) + " px" +
                (is_training(w.mode)
                     ? ", no checkpointing (torchvision/ultralytics train without it)"
                     : ""));
  else
    a.push_back("micro-batch " + std::to_string(w.batch) + " per GPU, sequence " +
                std::to_string(w.seq_len) + " tokens" +
                (w.prompt_len > 0 ? ", prompt " + std::to_string(w.prompt_len) : ""));
  if (!m.cnn) describe_framework(s, a);
  if (is_training(w.mode)) {
    a.push_back("optimizer " + to_string(w.optimizer) + ", loss " + to_string(w.loss) + " (" +
                s.f.id + "'s: data/frameworks.json losses." + to_string(w.loss) + ")");
    if (s.adapters)
      a.push_back("LoRA rank " + std::to_string(w.lora_rank) + " on " + to_string(w.lora_targets) +
                  (m.moe ? " of every expert" : "") +
                  (w.train_embeddings ? ", embeddings and LM head trained" : "") +
                  (w.lora_layers > 0 ? ", on the last " + std::to_string(lora_blocks(w)) + " of " +
                                           std::to_string(m.layers) +
                                           " blocks only (--lora-layers: the blocks below keep "
                                           "no activations and take no backward pass)"
                                     : ""));
    if (w.mode == Mode::freeze)
      a.push_back("freeze: the last " + std::to_string(w.freeze_trainable_layers) +
                  " blocks train");
    if (w.optimizer == Optimizer::paged_adamw || w.optimizer == Optimizer::paged_adamw_8bit)
      a.push_back(
          "paged optimizer states are CUDA managed memory: outside the GPU total (they "
          "move to host RAM when VRAM runs short); listed as paged_optimizer_states");
  } else if (!m.cnn) {
    a.push_back(kv_assumption(w, s.cb));
    const PrefillChunk c = prefill_chunk(w);
    if ((w.flash_attn || runs_on_ggml(w)) && c.tokens > 0)
      a.push_back("prefill chunked by " + c.engine + ": at most " + num(c.tokens) +
                  " tokens per step (data/constants.json prefill_chunk_tokens); --engine sets "
                  "the engine");
  }
  if (!m.cnn)
    a.push_back(std::string("attention: ") + (w.flash_attn      ? "flash/SDPA"
                                              : runs_on_ggml(w) ? "without -fa: a ubatch's KQ"
                                                                : "eager (scores kept)"));
  std::string par = std::to_string(s.n) + " GPU(s), sharding " + to_string(s.shard) + ", offload " +
                    to_string(w.offload);
  if (s.layer_split())
    par += runs_on_ggml(s.w) ? " (layers split across GPUs, llama.cpp's -sm layer)"
                             : " (layers split across GPUs, HF device_map)";
  if (cpu_moe_layers(w) > 0)
    par += "; llama.cpp --n-cpu-moe: the routed experts of " + std::to_string(cpu_moe_layers(w)) +
           " of " + std::to_string(moe_layer_count(w.model)) + " MoE layers in host RAM";
  if (s.shard == Shard::zero3 || s.shard == Shard::zero2 || s.shard == Shard::zero1)
    par += "; DeepSpeed settings: " + s.f.zero.source;
  a.push_back(par);
}

}  // namespace gpusel::detail
