// Inference. Decode is bandwidth-bound: bytes read per step against the card's bandwidth x
// its memory type's achievable fraction x the engine's kernel efficiency for that memory
// class and weight precision, plus the engine's per-layer overhead, until the batch makes
// it compute-bound. Prefill is compute-bound: the achievable matmul rate x the engine's
// prompt efficiency. Several cards: tensor parallel adds bandwidth and pays two small
// all-reduces per layer; a layer split keeps one card busy at a time (llama.cpp pipelines
// prompt chunks across the stages).
#include "throughput_infer.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "gpusel/base/error.hpp"
#include "gpusel/data/engines.hpp"
#include "gpusel/data/models.hpp"
#include "gpusel/memory/estimator.hpp"
#include "gpusel/memory/kv_cache.hpp"
#include "gpusel/speed/step.hpp"
#include "throughput_infer_ctx.hpp"

namespace gpusel::tput {

double weight_bytes(const Workload& w, const Shape& s, const K& k, const Engine& e) {
  // A GGUF file's bits per weight already cover every tensor, the output included.
  if (w.weight_bits > 0) return s.matmul * w.weight_bits / 8;
  double bpv = bytes_per_value(w.precision);
  if (w.precision == Precision::int4) bpv = k.int4_bits_per_weight / 8;
  if (w.precision == Precision::int8) bpv = k.int8_bits_per_weight / 8;
  if (w.bits_experts_only) {  // per token: the active experts at the bits, the rest as shipped
    const double experts = arch_params(w.model).experts_active;
    return experts * w.linear_bits / 8 + (s.matmul - experts) * shipped_other_bytes(w);
  }
  bpv = linear_weight_bytes(w, bpv);  // --weight-bits: the bits the user gave, as memory
  // The LM head stays 16-bit in GPTQ/AWQ checkpoints; MLX quantizes it with the rest.
  const double head = e.quantized_head ? bpv : std::max(2.0, bpv);
  return (s.matmul - s.head) * bpv + s.head * head;
}

namespace {

// The mean context a decode step attends to; each layer kind caps it its own way
// (kv_cache_size: windows for sliding/chunked layers, none for full ones).
double decode_context(const Workload& w) {
  return w.prompt_len > 0 ? w.prompt_len + (w.seq_len - w.prompt_len) / 2.0 : w.seq_len;
}

// KV cache bytes one sequence's decode step reads over all `split` cards: the per-card cache
// times the cards (an MLA latent replicated by tensor parallelism is read on every card).
double kv_seq_bytes(const Workload& w, const K& k, int split) {
  const double value = kv_value_bytes(w, k.kv_cache_bytes_per_value);  // --kv-dtype, else 16-bit
  const KvCacheSize kv = kv_cache_size(w.model, decode_context(w), value,
                                       k.kv_cache_bytes_per_value, {split, split > 1});
  return kv.bytes * split;
}
double kv_step_bytes(const Workload& w, const K& k, int split) {
  return w.batch * kv_seq_bytes(w, k, split);
}

// MoE: bytes of every routed expert and the share k/E a token picks (0, 0 when dense).
std::pair<double, double> routed_experts(const Workload& w, const Shape& s, const K& k,
                                         const Engine& e) {
  const ModelArch& m = w.model;
  if (!m.moe || m.moe->experts <= m.moe->active) return {0, 0};
  const ArchParams a = arch_params(m);
  const double routed = (a.total - a.active) / (m.moe->experts - m.moe->active) * m.moe->experts;
  const double per_param =
      w.bits_experts_only ? w.linear_bits / 8 : weight_bytes(w, s, k, e) / std::max(1.0, s.matmul);
  return {routed * per_param, double(m.moe->active) / m.moe->experts};
}

// The share of routed experts a batch of `tokens` picks at least once (uniform routing).
double touched(double fraction, double tokens) { return 1 - std::pow(1 - fraction, tokens); }

// What the CPU's expert matmuls read per second: the host memory's spec (--host-mem-bw, else
// the data's desktop default) x the share llama.cpp's CPU kernels reach.
double host_read_bytes_per_s(const Workload& w, const K& k) {
  const double spec =
      w.host_memory_bytes_per_s > 0 ? w.host_memory_bytes_per_s : k.host_memory_bytes_per_s;
  return spec * k.host_decode_fraction;
}

// llama.cpp --n-cpu-moe: the offloaded layers' routed experts leave the GPU's bytes and are
// read by the CPU (decode) or copied over PCIe for the GPU to multiply (prompt batches).
void experts_on_host(const Ctx& c, StepModel& m) {
  const double share = cpu_moe_share(c.w), layers = host_layer_share(c.w);
  const bool output = output_on_host(c.w);
  if ((share <= 0 || m.routed_bytes <= 0) && layers <= 0 && !output) return;
  if (share > 0 && m.routed_bytes > 0) {
    m.host_routed_bytes = m.routed_bytes * share;
    m.weight_bytes -= m.host_routed_bytes * m.route_fraction;
    m.routed_bytes -= m.host_routed_bytes;
  }
  // --gpu-layers: those layers' share of the blocks' bytes, and the output layer's.
  const double head = c.s.matmul > 0 ? c.s.head / c.s.matmul : 0;
  m.host_dense_bytes = m.weight_bytes * (layers * (1 - head) + (output ? head : 0));
  m.weight_bytes -= m.host_dense_bytes;
  m.host_read_bw = host_read_bytes_per_s(c.w, c.k);
  m.host_copy_bw = host_bytes_per_s(c.g, c.k);
  m.op_offload_min = c.k.op_offload_min_batch;
}

// Seconds the host-resident experts add to a step of `tokens` tokens.
double host_expert_s(const StepModel& m, double tokens) {
  if (m.host_routed_bytes <= 0 && m.host_dense_bytes <= 0) return 0;
  const double bytes = m.host_routed_bytes * touched(m.route_fraction, tokens) + m.host_dense_bytes;
  return tokens >= m.op_offload_min ? bytes / m.host_copy_bw : bytes / m.host_read_bw;
}

// Attention FLOPs per token read the context each layer keeps: full layers all of it,
// windowed layers their window, linear layers none (their state update is in the matmuls).
double attended_context(const Workload& w, double ctx) {
  const LayerMix mix = layer_mix(w.model);
  const double window = std::min(ctx, double(w.model.sliding_window.value_or(0)));
  return (mix.full * ctx + (mix.sliding + mix.chunked) * window) / std::max(1, w.model.layers);
}

// llama.cpp's row split over `row` cards: bandwidth and GEMM rates add as in tensor
// parallelism, but the KV cache is read one card at a time, every split matmul forks and joins
// over the link, and the host issuing each card's calls is a floor under the step.
void apply_row_split(const Ctx& c, int row, StepModel& m) {
  const RowSplit r = row_split_costs(c.s, c.f, row, c.k, is_quantized(c.w.precision));
  m.tp = row;
  m.kv_bytes_per_seq *= row;
  m.fixed_s += r.matmuls * r.sync_s;
  m.host_floor_s = std::max(m.host_floor_s, r.host_s + c.s.layers * c.e.layer_overhead_s);
  m.comm_s_per_token = r.comm_s_per_token;
}

}  // namespace

// The step model of `tp` x `stages` cards (or `row` cards of llama.cpp's row split): the
// same rates prefill and decode use.
StepModel build_step(const Ctx& c, int tp, int stages, int row) {
  StepModel m;
  m.engine = c.e.name, m.tp = tp, m.stages = stages, m.layers = c.s.layers;
  m.weight_bytes = weight_bytes(c.w, c.s, c.k, c.e);
  std::tie(m.routed_bytes, m.route_fraction) = routed_experts(c.w, c.s, c.k, c.e);
  experts_on_host(c, m);
  m.bandwidth = c.bw;
  m.kv_bytes_per_seq = kv_seq_bytes(c.w, c.k, tp);
  m.fixed_s =
      c.s.layers * c.e.layer_overhead_s + moe_layer_count(c.w.model) * c.e.moe_layer_overhead_s;
  m.host_floor_s = c.e.host_step_s + c.s.layers * c.e.host_layer_s;  // eager Python's issue rate
  // One token's all-reduces (attention out, MLP out) and hops carry hidden x 2 bytes.
  const double msg = c.s.hidden * 2;
  if (tp > 1) m.fixed_s += 2 * c.s.layers * latency_s(c.f, tp, msg, c.k);
  if (stages > 1) m.fixed_s += (stages - 1) * latency_s(c.f, 2, msg, c.k);
  const double ctx = attended_context(c.w, decode_context(c.w));
  m.decode_flops = 2 * c.s.matmul + 4 * c.s.layers * c.s.attn_dim * ctx;
  const double prompt = c.w.prompt_len > 0 ? c.w.prompt_len : c.w.seq_len;
  // Causal attention: a prompt token attends to half the prompt on average (FlashAttention-2
  // skips the masked blocks, Dao 2023 Sec. 3.1).
  m.prefill_linear_flops = 2 * c.s.matmul;
  m.prefill_attention_flops = 4 * c.s.layers * c.s.attn_dim * prompt / 2;
  m.linear_flops_per_s = tp * c.linear * 1e12 * c.prefill_eff;
  m.attention_flops_per_s = tp * c.attention * 1e12 * c.prefill_eff;
  m.gemm_factor = c.gemm_quant;
  if (c.dequant_bytes > 0)  // each card copies its share of the weights
    m.dequant_s = c.dequant_bytes / (tp * c.copy_bw), m.dequant_above = c.e.dequant_above;
  if (tp > 1) {  // the two all-reduces per layer carry hidden x 2 B per token
    Fabric group = c.f;
    group.count = tp, group.nodes = 1;
    m.comm_s_per_token = 2 * c.s.layers * allreduce_s(group, c.s.hidden * 2);
  }
  if (row > 1) apply_row_split(c, row, m);
  return m;
}

namespace {

struct Parts {
  double memory = 0, compute = 0;
  bool host = false;  // the host's issue rate, not the memory, set the memory side
  double comm = 0;    // tensor-parallel all-reduce transfers: on the critical path
  double seconds() const { return std::max(memory, compute) + comm; }
};

// Memory time (weights once, each sequence's KV, fixed costs) and compute time of a step.
Parts step_parts(const StepModel& m, double b, double t, bool pipelined) {
  const double tokens = b + t;
  double weights = m.weight_bytes;
  if (m.routed_bytes > 0 && tokens > 1)  // experts the batch's tokens touch (uniform routing)
    weights += m.routed_bytes * (touched(m.route_fraction, tokens) - m.route_fraction);
  // Pipelined stages work at once on micro-batches: KV and FLOPs spread over them; every
  // micro-batch still reads its stage's weights.
  const double spread = pipelined ? m.stages : 1;
  Parts p;
  p.memory = (weights + b * m.kv_bytes_per_seq / spread) / (m.tp * m.bandwidth) + m.fixed_s;
  if (m.host_floor_s > p.memory) p.memory = m.host_floor_s, p.host = true;  // issue rate
  const double prefill = m.prefill_linear_flops / std::max(1e-30, m.linear_flops_per_s) +
                         m.prefill_attention_flops / std::max(1e-30, m.attention_flops_per_s);
  // Quantized weights slow every GEMM, the decoding batch's as much as the prompts'.
  p.compute = m.linear_flops_per_s > 0 ? (b * m.decode_flops / m.linear_flops_per_s + t * prefill) /
                                             m.gemm_factor / spread
                                       : 0;
  if (m.dequant_s > 0 && tokens > m.dequant_above) p.compute += m.dequant_s;
  // A layer's output all-reduce needs that layer's result and the next layer waits for it:
  // neither the weight reads nor the GEMMs hide it (no overlap in the engines' default paths).
  p.comm = tokens * m.comm_s_per_token + host_expert_s(m, tokens);  // in series, as the comm
  return p;
}

struct Rate {
  double per_s = 0;
  bool memory_bound = true, host_bound = false;
};

// One decode step of `batch` sequences.
Rate decode_rate(const Ctx& c, int tp, int stages, int row = 1) {
  const Parts p = step_parts(build_step(c, tp, stages, row), c.w.batch, 0, false);
  return {c.w.batch / p.seconds(), p.memory >= p.compute, p.host && p.memory >= p.compute};
}

// Prompt tokens/s: compute-bound, but never faster than reading the weights once per pass.
// MFU of the answer's own speed, decode: its FLOPs per token (2 x matmul params, attention over
// the mean context) over the cards' dense peak. A few per cent at batch 1, where decode waits
// on memory; none where the card publishes no peak at this precision (the rate then stands in
// for the spec: Apple GPUs, GB10's FP32 figure), as in training.
double decode_mfu(const Ctx& c, int count, double tokens_per_s) {
  const bool fp8 = c.w.precision == Precision::fp8 && c.g.fp8_tflops_dense;
  const double spec = fp8 ? *c.g.fp8_tflops_dense : spec16(c.g);
  if (spec <= 0 || achievable(c.g, c.k).tflops16 > spec16(c.g) * 1.5) return 0;
  // seq_len is prompt + generated: the mean context lies halfway through the generation.
  const double context = c.w.prompt_len > 0 ? (c.w.prompt_len + c.w.seq_len) / 2.0 : c.w.seq_len;
  const double flops = 2 * c.s.matmul + 4 * c.s.layers * c.s.attn_dim * context;
  return tokens_per_s * flops / (count * spec * 1e12);
}

double prefill_rate(const Ctx& c) {
  if (c.linear <= 0 || c.attention <= 0) return 0;
  const double prompt = c.w.prompt_len > 0 ? c.w.prompt_len : c.w.seq_len;
  const double eff = c.prefill_eff * c.gemm_quant;
  // Causal attention: a prompt token attends to half the prompt on average (FlashAttention-2
  // skips the masked blocks, Dao 2023 Sec. 3.1).
  const double lin = 2 * c.s.matmul, att = 4 * c.s.layers * c.s.attn_dim * prompt / 2;
  const int width = std::max(c.tp, c.row);
  double t_tok = (lin / c.linear + att / c.attention) / (width * 1e12 * eff);
  const double pass = std::min(prompt * c.w.batch, c.k.llama_cpp_ubatch * 1.0);
  if (c.dequant_bytes > 0 && pass > c.e.dequant_above)  // the FP16 copy, once per pass
    t_tok += c.dequant_bytes / (width * c.copy_bw * pass);
  if (c.row > 1) {  // copies between the cards, and each prompt chunk's fork-joins
    const RowSplit r = row_split_costs(c.s, c.f, c.row, c.k, is_quantized(c.w.precision));
    t_tok +=
        r.comm_s_per_token + r.matmuls * r.sync_s / std::min(prompt, c.k.llama_cpp_ubatch * 1.0);
  }
  if (c.tp > 1) {  // the two all-reduces per layer now carry hidden x 2 B per token
    Fabric group = c.f;
    group.count = c.tp, group.nodes = 1;
    t_tok += 2 * c.s.layers * allreduce_s(group, c.s.hidden * 2);
  }
  // The host's experts or layers: copied to the GPU, or read by the CPU.
  if (cpu_moe_share(c.w) > 0 || host_layer_share(c.w) > 0 || output_on_host(c.w))
    t_tok += host_expert_s(build_step(c, c.tp, c.stages, c.row), pass) / pass;
  const double floor = weight_bytes(c.w, c.s, c.k, c.e) / (width * c.bw) / (prompt * c.w.batch);
  double rate = 1 / std::max(t_tok, floor);
  if (c.stages > 1 && is_llama_cpp(c.e.name)) {  // prompt chunks pipelined
    const double chunks = std::ceil(prompt / c.k.llama_cpp_ubatch);
    rate *= chunks * c.stages / (chunks + c.stages - 1);
  }
  return rate;
}

// A mixture of experts at batch > 1: the experts its tokens touch (uniform routing), read
// once per step, beside one token's active bytes.
std::string batch_experts(const Ctx& c) {
  const auto [routed, fraction] = routed_experts(c.w, c.s, c.k, c.e);
  if (!(routed > 0) || c.w.batch <= 1) return "";
  const double more = routed * (touched(fraction, c.w.batch) - fraction);
  return " (" + num((weight_bytes(c.w, c.s, c.k, c.e) + more) / 1e9) + " GB at batch " +
         std::to_string(c.w.batch) + ": the experts its tokens touch, uniform routing)";
}

void describe(const Ctx& c, int count, Throughput& t) {
  const Workload& w = c.w;
  t.assumptions.push_back(
      "decode: " + num(weight_bytes(w, c.s, c.k, c.e) / 1e9) + " GB of weights" + batch_experts(c) +
      " + KV cache at " + num(decode_context(w)) + " tokens (" +
      num(kv_step_bytes(w, c.k, c.tp) / 1e9) + " GB, by attention kind) per step + " +
      num(c.e.layer_overhead_s * 1e6) + " us per layer [engines." + c.e.name +
      ".layer_overhead_us]" +
      (moe_layer_count(w.model) > 0 && c.e.moe_layer_overhead_s > 0
           ? " + " + num(c.e.moe_layer_overhead_s * 1e6) + " us per MoE layer [engines." +
                 c.e.name + ".moe_layer_overhead_us]"
           : "") +
      (!w.weight_format.empty() ? ", GGUF " + w.weight_format + " at " + num(w.weight_bits) +
                                      " bits/weight [data/quantizations.json]"
       : w.linear_bits > 0
           ? (w.bits_experts_only
                  ? ", MoE experts at " + num(w.linear_bits) + " bits/weight, the rest at " +
                        num(shipped_other_bytes(w) * 8) + " [shipped_weights" +
                        (shipped_other_bytes(w) < 2 ? ": the GGUF's, gguf_other_bits]" : "]")
                  : ", linear weights at " + num(w.linear_bits) + " bits/weight [--weight-bits]")
       : w.precision == Precision::int4
           ? ", int4 at " + num(c.k.int4_bits_per_weight) + " bits/weight [int4_bits_per_weight]"
           : ""));
  describe_host_experts(c, t);
  if (count == 1) return;
  const std::string over = " over " + c.f.what;
  if (c.row > 1)
    t.assumptions.push_back(describe_row_split(
        row_split_costs(c.s, c.f, c.row, c.k, is_quantized(c.w.precision)), c.row, over));
  else if (c.tp > 1)
    t.assumptions.push_back("tensor parallel over " + std::to_string(c.tp) + " cards" + over +
                            ": bandwidth adds, 2 all-reduces per layer at " +
                            latency_what(c.f, c.tp, c.s.hidden * 2, c.k) +
                            (c.stages > 1 ? "; " + std::to_string(c.stages) +
                                                " nodes as pipeline stages, one busy at a time"
                                          : ""));
  else if (c.stages > 1)
    t.assumptions.push_back("layers split over " + std::to_string(count) + " cards" + over +
                            ": one card works at a time" +
                            (is_llama_cpp(c.e.name)
                                 ? "; prompts pipelined in chunks of " +
                                       std::to_string(c.k.llama_cpp_ubatch) + " [llama_cpp_ubatch]"
                                 : ""));
  else
    t.assumptions.push_back(std::to_string(count) + " replicas, each serving its own requests");
}

// The context both estimates start from: engine, fabric, bandwidth, GEMM rates, layout.
Ctx make_ctx(const Workload& w, const Gpu& g, int count, bool linked, const K& k, const Shape& s,
             Throughput& t, const NodeNetwork* nodes = nullptr) {
  const Engine& asked = engine_for(w, k);
  const Engine& e = engine_on(asked, g, k);  // e.g. llama.cpp without CUDA graphs on Pascal
  const Engine::Variant* v = &e != &asked ? variant_on(asked, g) : nullptr;
  Ctx c{w, g, s, k, e, fabric_of(g, count, linked, k, nodes)};
  t.engine = e.name;
  t.assumptions.push_back(
      "engine " + e.label +
      (w.engine.empty() ? " (default for " + default_engine_reason(w) + "; --engine to change)"
       : !w.engine_instead_of.empty()
           ? " (the default " + w.engine_instead_of + " does not run on " + g.platform_target +
                 " cards; --engine to change)"
           : "") +
      (v ? ": " + asked.label + " " + v->says + " on " + g.architecture + " [engines." +
               asked.name + "." + v->key + "]"
         : ""));
  if (e.host_layer_s > 0 || e.host_step_s > 0)
    t.assumptions.push_back("host floor " + num(e.host_step_s * 1e3) + " ms + " +
                            std::to_string(s.layers) + " layers x " + num(e.host_layer_s * 1e3) +
                            " ms per step: Python issues every op [engines." + e.name +
                            ".host_step_us, host_layer_us]");
  c.bw = decode_bandwidth(c, t);
  prefill_rates(c, t);
  prompt_efficiency(c, t);
  if (w.shard == Shard::tp) c.tp = std::min(count, c.f.per_node), c.stages = c.f.nodes;
  if (w.shard == Shard::none) c.stages = count;
  if (w.row_split && count > 1) c.tp = 1, c.stages = 1, c.row = count;
  return c;
}

}  // namespace

void estimate_inference(const Workload& w, const Gpu& g, int count, bool linked, const K& k,
                        const Shape& s, Throughput& t, const NodeNetwork* nodes) {
  // An engine the user named that has no backend for the card (MLX on a GeForce, Vulkan on an
  // Arc) or does not support its architecture (vLLM on a V100) gives no figure: its kernels'
  // speed there would be a number nobody can run.
  if (const Engine& asked = engine_for(w, k); !w.engine.empty() && !engine_runs_on(asked.name, g)) {
    t.engine = asked.name;
    t.assumptions.push_back(engine_runs_on(asked.name, g.ecosystem)
                                ? asked.label + " does not support " + g.platform_target +
                                      " cards: no speed figure [engines." + asked.name + ".targets]"
                                : asked.label + " has no backend for " + g.ecosystem +
                                      " cards: no speed figure [engines." + asked.name +
                                      ".runs_on]");
    return;
  }
  const Ctx c = make_ctx(w, g, count, linked, k, s, t, nodes);
  const int replicas = c.tp * c.stages * c.row == 1 ? count : 1;
  const Rate d = decode_rate(c, c.tp, c.stages, c.row);
  t.decode_tokens_per_s = replicas * d.per_s;
  t.prefill_tokens_per_s = replicas * prefill_rate(c);
  t.scaling = count > 1 ? t.decode_tokens_per_s / (count * decode_rate(c, 1, 1).per_s) : 1;
  t.tflops_used = c.linear;
  t.mfu = decode_mfu(c, count, t.decode_tokens_per_s);
  t.bound = d.host_bound ? "host" : d.memory_bound ? "memory-bandwidth" : "compute";
  if (c.linear <= 0)
    t.assumptions.push_back(g.id +
                            " has no compute figure and no measurement: prefill unknown "
                            "(reported as 0)");
  describe(c, count, t);
}

}  // namespace gpusel::tput

namespace gpusel {

StepModel step_model(const Workload& w, const Gpu& g, int count, bool linked) {
  if (count < 1)
    throw usage_error("GPU count must be at least 1 (got " + std::to_string(count) + ")");
  const tput::K& k = default_throughput_constants();
  const tput::Shape s = tput::shape_of(w);
  Throughput t;
  const tput::Ctx c = tput::make_ctx(w, g, count, linked, k, s, t);
  // One replica: cards without a shard strategy are still one copy's stages here.
  StepModel m = tput::build_step(c, c.tp, c.tp * c.stages * c.row == 1 ? count : c.stages, c.row);
  tput::describe(c, count, t);
  m.assumptions = std::move(t.assumptions);
  return m;
}

double step_seconds(const StepModel& m, double decode_seqs, double prefill_tokens, bool pipelined) {
  return tput::step_parts(m, decode_seqs, prefill_tokens, pipelined).seconds();
}

}  // namespace gpusel
