// The throughput model's entry points and training. A training step is its matmul FLOPs
// against the card's achievable matmul rate on its stack (measured, data "matmul") times
// the training stack's matmul efficiency in a real run ("training_efficiency"), plus the
// bytes the memory-bound ops and the optimizer move at the achievable bandwidth
// (throughput_traffic.cpp); several cards add the communication that does not hide behind
// compute (throughput_link.cpp). Inference: throughput_infer.cpp.
#include "gpusel/speed/throughput.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/data/engines.hpp"
#include "gpusel/memory/checkpointing.hpp"
#include "gpusel/memory/estimator.hpp"
#include "throughput_infer.hpp"
#include "throughput_model.hpp"

namespace gpusel {

namespace tput {

// The rate each kind of GEMM runs at in training: the achievable 16-bit rate (GeForce: the
// FP32-accumulate path PyTorch uses); FP8 linear layers where the card has FP8 tensor
// cores (attention stays 16-bit, as Transformer Engine runs it); FP32 without AMP at the
// card's FP32 rate times its measured SGEMM fraction (matmul fp32_fraction; else the 16-bit
// fraction, at most 1).
Peaks training_peaks(const Workload& w, const Gpu& g, const K& k, Throughput& t) {
  const tput::Achievable a = tput::achievable(g, k);
  Peaks p{a.tflops16, a.tflops16, tput::spec16(g)};
  if (w.precision == Precision::fp32 && !w.amp) {
    const double frac = a.fp32_fraction ? *a.fp32_fraction : std::min(1.0, a.fraction);
    p.linear = p.attention = g.fp32_tflops > 0 ? g.fp32_tflops * frac : a.tflops16;
    p.spec = g.fp32_tflops;
    if (tput::texts_on())
      t.assumptions.push_back(
          "FP32 compute (PyTorch leaves TF32 off for matmuls): " + num(frac) + " x " +
          num(g.fp32_tflops) + " = " + num(p.linear) + " TFLOPS achievable [catalog, matmul" +
          (a.fp32_fraction ? "." + a.fp32_id + ".fp32_fraction" : std::string()) + "]");
    return p;
  }
  if (tput::texts_on()) t.assumptions.push_back("achievable 16-bit matmul rate: " + a.what);
  if (w.precision != Precision::fp8) return p;
  if (a.fp8) {
    std::string id;
    const double factor = tput::fp8_training_factor(g, k, id);
    p.linear = *a.fp8 * factor;
    p.spec = *g.fp8_tflops_dense;
    p.fp8 = true;
    if (tput::texts_on())
      t.assumptions.push_back(
          std::string("FP8 linear layers (") +
          (id == "fp8_training_factor" ? "Transformer Engine" : "the stack's own FP8 measurement") +
          ", bf16 master weights): " + num(*a.fp8) + " TFLOPS achievable x " + num(factor) + " [" +
          id + "]; attention stays 16-bit");
  } else {
    if (tput::texts_on())
      t.assumptions.push_back(g.id +
                              " has no FP8 tensor cores: the FP8 work runs at its 16-bit speed");
  }
  return p;
}

double apply_host_floor(const Workload& w, double kernels, double step_s, const K& k,
                        Throughput& t) {
  if (w.framework.compile.value) return step_s;  // compiled: fused kernels, no eager floor
  const double floor = kernels * k.host_kernel_s * (w.grad_ckpt ? 4.0 / 3 : 1);
  if (floor <= step_s) return step_s;
  t.bound = "host";
  if (texts_on())
    t.assumptions.push_back("host-bound: eager PyTorch launches about " + num(kernels) +
                            " kernels a step at " + num(k.host_kernel_s * 1e6) +
                            " us each of host time" + (w.grad_ckpt ? " (+1/3 recompute)" : "") +
                            " = " + num(floor * 1e3) + " ms, more than the card's " +
                            num(step_s * 1e3) + " ms [eager_training_host]");
  return floor;
}

}  // namespace tput

namespace {

using tput::num;
using tput::Peaks;
using tput::Shape;
using K = ThroughputConstants;

// FLOPs per token: forward 2 x matmul params + attention 4·L·d·s (PaLM, Chowdhery et al.
// 2022, App. B); backward 2x forward for what needs weight and input gradients.
struct Flops {
  double linear = 0, attention = 0, forward = 0;
  double model = 0;  // what MFU counts: the step without its recompute (PaLM, App. B)
};

Flops train_flops(const Workload& w, const Shape& s, Throughput& t) {
  const double fwd = 2 * s.matmul, att = 4.0 * s.layers * s.attn_dim * w.seq_len;
  const double f = std::min(1.0, double(w.freeze_trainable_layers) / std::max(1, s.layers));
  double lin_x = 3, att_x = 3, recompute = 1;
  if (w.mode == Mode::lora || w.mode == Mode::qlora) {  // no weight gradients
    // --lora-layers N: backward (input gradients) and recompute through the last N blocks.
    const double n = std::min(1.0, double(lora_blocks(w)) / std::max(1, s.layers));
    lin_x = 1 + n, att_x = 1 + 2 * n, recompute = n;
  }
  if (w.mode == Mode::freeze) {  // backward only through the last N blocks
    lin_x = att_x = 1 + 2 * f;
    recompute = f;
  }
  const double model = lin_x * fwd + att_x * att;
  if (w.grad_ckpt) lin_x += recompute, att_x += recompute;
  // Selective (torchtitan's op policy): backward redoes the blocks' unsaved matmuls, not
  // attention (SDPA's output is saved) nor the LM head (outside the blocks).
  if (w.selective_ckpt && !w.grad_ckpt)
    lin_x += recompute * selective_ckpt(w.model, w.framework.fused_qkv.value).recompute_share *
             (s.matmul - s.head) / std::max(1.0, s.matmul);
  if (tput::texts_on())
    t.assumptions.push_back("FLOPs/token " + num(lin_x) + " x 2 x " + num(s.matmul / 1e9) +
                            "B params + " + num(att_x) +
                            " x attention 4·L·d·s = " + num((lin_x * fwd + att_x * att) / 1e9) +
                            " GFLOP (" + to_string(w.mode) +
                            (w.grad_ckpt        ? ", recompute"
                             : w.selective_ckpt ? ", selective recompute of every second matmul"
                                                : "") +
                            ")");
  return {lin_x * fwd, att_x * att, fwd + att, model};
}

void no_compute_figure(const Gpu& g, Throughput& t) {
  if (tput::texts_on())
    t.assumptions.push_back(g.id +
                            " has no compute figure and no measurement: compute-bound "
                            "throughput unknown (reported as 0)");
  t.bound = "compute";
}

// QLoRA: bitsandbytes dequantizes every 4-bit weight to bf16 before each pass that needs it
// (forward, input-gradient backward, recompute): memory-bound traffic once per micro-batch
// step, so it weighs on small batches and vanishes on large ones.
double dequant_s(const Workload& w, const Shape& s, double bw, const K& k, Throughput& t) {
  if (w.mode != Mode::qlora || bw <= 0) return 0;
  const int passes = 2 + (w.grad_ckpt ? 1 : 0);
  const double step = passes * (s.matmul - s.head) * k.qlora_dequant_bytes / bw;
  if (tput::texts_on())
    t.assumptions.push_back("QLoRA dequantization: " + std::to_string(passes) + " passes x " +
                            num((s.matmul - s.head) / 1e9) + "B weights x " +
                            num(k.qlora_dequant_bytes) + " B [qlora_dequant_bytes_per_weight] = " +
                            num(step * 1e3) + " ms per step at the achievable bandwidth");
  return step;
}

// Cards whose optimizer steps run side by side on a share of the states: ZeRO/FSDP and
// tensor parallel. DDP steps the whole model on every card; a layer split steps each
// stage in turn, one card at a time like the rest of its step.
int optimizer_shards(const Workload& w, int count) {
  // Under --tp/--pp the step is counted for one card running the whole replica (the model
  // divides it by tp x pp after): only the data-parallel sharding divides it here.
  if (model_parallel(w)) return w.shard == Shard::ddp ? 1 : data_parallel(w) * w.cp;
  if (hybrid_sharded(w)) return w.shard_group;
  if (count <= 1 || w.shard == Shard::ddp || w.shard == Shard::none) return 1;
  return count;
}

// The memory-bound ops and the optimizer step of one micro-batch step (the optimizer runs
// once per --grad-accum micro-batches), at the achievable bandwidth.
double memory_bound_s(const Workload& w, const Shape& s, double bw, bool fp8, int count, const K& k,
                      Throughput& t) {
  if (bw <= 0 || !k.memory_bound_training) return 0;
  const double tokens = double(w.batch) * w.seq_len;
  const double act = tput::activation_traffic_per_token(w, s, fp8, k);
  // Offloaded, the optimizer steps on the CPU (offload_traffic), not on the card.
  const double opt =
      w.offload == Offload::none ? tput::optimizer_traffic(w, s, optimizer_shards(w, count)) : 0;
  const double step = (act * tokens + opt / std::max(1, w.grad_accum)) / bw;
  if (tput::texts_on())
    t.assumptions.push_back(
        "memory-bound ops (norms, softmax, activations, residuals" +
        std::string(w.mode == Mode::lora || w.mode == Mode::qlora ? ", LoRA adapters" : "") +
        std::string(w.flash_attn ? "" : ", eager attention scores") + (fp8 ? ", FP8 casts" : "") +
        "): " + num(act / 1e6) + " MB/token [activation_traffic_passes] + optimizer step " +
        num(opt / 1e9) + " GB per " + std::to_string(std::max(1, w.grad_accum)) +
        " micro-batches at " + num(bw / 1e9) + " GB/s = " + num(step * 1e3) + " ms per step");
  return step;
}

void estimate_training(const Workload& w, const Gpu& g, int count, bool linked, const K& k,
                       const Shape& s, Throughput& t, const NodeNetwork* nodes) {
  const tput::Fabric fabric = tput::fabric_of(g, count, linked, k, nodes);
  const Peaks p = tput::training_peaks(w, g, k, t);
  if (p.linear <= 0 || p.attention <= 0) return no_compute_figure(g, t);
  std::string id;
  const double eff = tput::training_efficiency(g, k, id);
  if (tput::texts_on())
    t.assumptions.push_back("training stack efficiency " + num(eff) + " of the achievable rate [" +
                            id + "]");
  const Flops f = train_flops(w, s, t);
  const double token_s =
      f.linear / (p.linear * 1e12 * eff) + f.attention / (p.attention * 1e12 * eff);
  const double compute_s = token_s * w.batch * w.seq_len;
  const double bw = tput::achievable_bandwidth(g, k);
  const double gpu_s =
      compute_s + dequant_s(w, s, bw, k, t) + memory_bound_s(w, s, bw, p.fp8, count, k, t);
  const double step_s = tput::apply_host_floor(w, s.layers * k.kernels_per_layer, gpu_s, k, t);
  const double forward_s = step_s * f.forward / (f.linear + f.attention);
  // The attention kernels' share of the step: what a context-parallel ring runs beside.
  const double attention_s = f.attention / (p.attention * 1e12 * eff) * w.batch * w.seq_len;
  const double exposed =
      model_parallel(w)
          ? tput::model_parallel_exposed_s(
                w, s, g, fabric, {forward_s, step_s - forward_s, attention_s}, k, t.assumptions)
          : tput::exposed_step_s(w, s, g, fabric, forward_s, step_s - forward_s, k, t.assumptions);
  t.scaling = step_s / (step_s + exposed);
  const double per_token_s = step_s / (w.batch * w.seq_len);
  t.train_tokens_per_s = count * t.scaling / per_token_s;
  t.tflops_used = p.linear;
  // A spec far below the achievable rate is not the card's peak at this precision (the FP32
  // figure standing in where no 16-bit tensor figure is published: GB10): no MFU then.
  const bool peak_known = p.spec > 0 && p.attention <= p.spec * 1.5;
  // Model FLOPs: a recomputed forward is work the hardware does, not work the model needs
  // (that ratio would be hardware FLOPs utilisation, 4/3 higher with full checkpointing).
  t.mfu = peak_known ? f.model / per_token_s / 1e12 / p.spec : 0;
  // MFU counts the whole step, the waits on the network included (t.scaling is inside
  // per-token time via train_tokens_per_s): recomputed on the tokens a card really trains.
  t.mfu *= t.scaling;
  // Collectives the step cannot hide that outlast its compute set the speed.
  if (t.bound != "host") t.bound = exposed > step_s ? "communication" : "compute";
}

}  // namespace

const Engine& engine_for(const Workload& w, const K& k) {
  // The default (llama.cpp at batch 1; vLLM batched or tensor parallel, which llama.cpp has
  // not) and aliases resolve as the memory stage resolves them (data/engines.hpp).
  const std::string name = engine_of(w, w.shard == Shard::tp && w.gpus > 1);
  if (const auto it = k.engines.find(name); it != k.engines.end()) return it->second;
  std::string known;
  for (const auto& n : engine_names()) known += (known.empty() ? "" : "|") + n;
  throw usage_error("invalid engine '" + w.engine + "' (expected " + known + ")");
}

const Engine::Variant* variant_on(const Engine& e, const Gpu& g) {
  for (const Engine::Variant& v : e.variants)
    for (const std::string& a : v.architectures)
      if (g.architecture.rfind(a, 0) == 0) return &v;
  return nullptr;
}

const Engine& engine_on(const Engine& e, const Gpu& g, const K& k) {
  const Engine::Variant* v = variant_on(e, g);
  const auto it = v ? k.engines.find(v->engine) : k.engines.end();
  return it != k.engines.end() ? it->second : e;
}

std::vector<std::string> engine_names() {
  std::vector<std::string> out;
  for (const auto& [name, e] : default_throughput_constants().engines) {
    out.push_back(name);
    out.insert(out.end(), e.aliases.begin(), e.aliases.end());
  }
  return out;
}

void require_engine(const std::string& name) {
  if (name.empty()) return;
  Workload w;
  w.engine = name;
  engine_for(w, default_throughput_constants());
}

void require_split_mode(const Workload& w) {
  if (!w.row_split) return;
  const Engine& e = engine_for(w, default_throughput_constants());
  if (!is_llama_cpp(e.name))
    throw usage_error(
        "--split-mode row is llama.cpp's (--engine llama.cpp|ollama|"
        "llama.cpp-nograph); the engine here is " +
        e.name);
  if (!e.row_split)
    throw usage_error("--split-mode row: " + e.label + " has no row split (engines." + e.name +
                      ".row_split); use the layer split (--shard none)");
  if (w.model.moe)
    throw usage_error(
        "--split-mode row: llama.cpp splits no expert tensors by rows "
        "(ggml-org/llama.cpp#10026); use the layer split (--shard none)");
}

int node_size(const Gpu& g) {
  if (g.unified_memory || g.form_factor == "soc" || g.form_factor == "mobile") return 1;
  return g.interconnect.kind != "none" && g.interconnect.max_gpus > 8 ? g.interconnect.max_gpus : 8;
}

const ClusterNetwork* cluster_network(const Gpu& g, const K& k) {
  if (g.segment == "consumer" || g.unified_memory) return nullptr;  // desktops: no server NICs
  for (const auto& n : k.cluster_networks)
    if (n.match.matches(g)) return &n;
  return nullptr;
}

const ClusterNetwork* cluster_network(const Gpu& g) {
  return cluster_network(g, default_throughput_constants());
}

bool gangs(const Gpu& g, int cards) {
  return cards <= node_size(g) || cluster_network(g) != nullptr;
}

namespace {

// Encoders (BERT, ViT) generate nothing: inference is one forward pass over the input, so
// their rate is the prompt (encode) rate. A ViT's rates count images: its tokens per image.
void as_encoder(const Workload& w, Throughput& t) {
  if (w.model.kind == "decoder") return;
  if (!is_training(w.mode)) {
    t.decode_tokens_per_s = t.prefill_tokens_per_s;
    if (tput::texts_on())
      t.assumptions.push_back("an encoder generates nothing: its rate is the encode (prompt) rate");
  }
  if (w.model.kind != "vision-encoder") return;
  const double per_image = tokens_per_sample(w);
  t.train_tokens_per_s /= per_image;
  t.prefill_tokens_per_s /= per_image;
  t.decode_tokens_per_s /= per_image;
  t.unit = "images";
  if (tput::texts_on())
    t.assumptions.push_back(tput::num(per_image) + " tokens per image (patches + class token)");
}

}  // namespace

Throughput estimate_throughput(const Workload& given, const Gpu& gpu, int count, bool linked,
                               const ThroughputConstants& k, const NodeNetwork* nodes) {
  if (count < 1)
    throw usage_error("GPU count must be at least 1 (got " + std::to_string(count) + ")");
  // A ViT's sequence is its image's patches at --image-size: only then is the workload
  // copied (a copy carries the framework profile's strings: the ranker calls this per card).
  std::optional<Workload> vit;
  if (given.model.kind == "vision-encoder") {
    vit = given;
    vit->seq_len = tokens_per_sample(given), vit->prompt_len = 0;
  }
  const Workload& w = vit ? *vit : given;
  const Shape s = tput::shape_of(w);
  Throughput t;
  if (w.model.cnn)
    tput::estimate_cnn(w, gpu, count, linked, k, s, t, nodes);
  else if (is_training(w.mode))
    estimate_training(w, gpu, count, linked, k, s, t, nodes);
  else
    tput::estimate_inference(w, gpu, count, linked, k, s, t, nodes);
  as_encoder(w, t);
  return t;
}

Throughput estimate_throughput(const Workload& w, const Gpu& gpu, int count, bool linked,
                               const NodeNetwork* nodes) {
  return estimate_throughput(w, gpu, count, linked, default_throughput_constants(), nodes);
}

double primary_tokens_per_s(const Workload& w, const Throughput& t) {
  return is_training(w.mode) ? t.train_tokens_per_s : t.decode_tokens_per_s;
}

double hours_for_tokens(double tokens, double tokens_per_s) {
  if (!std::isfinite(tokens) || tokens < 0)
    throw usage_error("token count must be a finite number >= 0");
  if (tokens == 0) return 0;
  if (!(tokens_per_s > 0)) return std::numeric_limits<double>::infinity();
  return tokens / tokens_per_s / 3600;
}

}  // namespace gpusel
