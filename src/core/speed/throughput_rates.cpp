// The rates a card reaches under an engine: decode bandwidth by memory class and weight
// precision, prompt GEMM rates (FP8, GeForce FP16 accumulate), the engine's prompt efficiency
// and what quantized weights cost the prompt GEMMs (a factor, or a dequantizing pass).
#include <algorithm>
#include <tuple>

#include "throughput_infer_ctx.hpp"

namespace gpusel::tput {

std::string memory_class(const Gpu& g) {
  const std::string& m = g.memory_type;
  if (m.rfind("HBM", 0) == 0) return "hbm";  // before unified: MI300A shares HBM3
  // The unified figures are Apple's Metal and MLX kernels; AMD and NVIDIA parts with LPDDR
  // (Strix Halo, GB10) run the same CUDA/HIP kernels as their discrete cards.
  if (g.vendor == "apple" && (g.unified_memory || m.rfind("LPDDR", 0) == 0)) return "unified";
  return "gddr";
}

namespace {

// Quantized weights are dequantized to 16 bits inside the GEMM and multiplied on the 16-bit
// tensor cores: no int4/int8 speed-up, and the dequantizing kernel runs below the 16-bit
// GEMM's rate once the batch makes it compute-bound. The engine's own W4A16 measurement where
// it has one (on Hopper its Hopper kernel's), else llama.cpp's quantized prompt GEMMs. FP8
// weights on a card without FP8 tensor cores take the engine's weight-only path (vLLM's FP8
// Marlin: the W4A16 kernel's 16-bit MMA with 8-bit weights), at 16-bit speed without one.
// ROCm and pre-Ampere cards run other kernels: llama.cpp's factor, FP8 at 16-bit speed.
bool on_architecture(const Gpu& g, const std::vector<std::string>& prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](const std::string& p) { return g.architecture.rfind(p, 0) == 0; });
}

std::pair<double, std::string> quantized_gemm(const Ctx& c, bool metal) {
  const std::string e = "engines." + c.e.name;
  if (metal && c.fp8_weight_only) return {1, ""};
  if (metal) return {c.e.metal_prefill_quantized_factor, e + ".prefill_metal.quantized_factor"};
  // The engines' weight-only kernels (Marlin, Machete) are CUDA kernels for Ampere and newer;
  // llama.cpp's MMQ also runs on AMD matrix cores (int4_gemm_also_on).
  const bool pre_ampere = on_architecture(c.g, {"Pascal", "Volta", "Turing"});
  const bool kernels =
      (c.g.vendor == "nvidia" && !pre_ampere) || on_architecture(c.g, c.e.int4_gemm_also_on);
  const bool mmq_int8 = c.w.precision == Precision::int8 && c.e.int4_gemm_int8;
  const bool weight_only =
      (c.w.precision == Precision::int4 || mmq_int8 || c.fp8_weight_only) && kernels;
  const bool hopper = c.g.architecture.find("Hopper") != std::string::npos;
  if (weight_only && hopper && c.e.int4_gemm_hopper > 0)
    return {c.e.int4_gemm_hopper, e + ".int4_gemm_hopper"};
  if (weight_only && c.e.int4_gemm > 0) return {c.e.int4_gemm, e + ".int4_gemm"};
  if (c.fp8_weight_only) return {1, ""};
  return {c.k.prefill_quantized_factor, "prefill_quantized_factor"};
}

// Engines whose prompt GEMMs run in FP16 cuBLAS (ggml_cuda_op_mul_mat_cublas before June
// 2024) first write an FP16 copy of each quantized weight matrix, reading its blocks: a
// streaming pass at the card's copy rate per forward pass, not a share of the GEMM rate. The
// LM head is not in it: only the last prompt token's logits are computed.
bool dequantizes_for_cublas(const Ctx& c) {
  const Precision p = c.w.precision;
  if (c.e.dequant_above <= 0 || c.g.vendor != c.e.dequant_vendor) return false;
  if (p != Precision::int4 && p != Precision::int8) return false;
  // NVIDIA: the FP16 path needs compute capability 7.0 (tensor cores) or more.
  return c.g.vendor != "nvidia" || !on_architecture(c.g, {"Pascal", "Maxwell", "Kepler"});
}

void dequant_pass(Ctx& c, Throughput& t) {
  Shape linear = c.s;
  linear.matmul -= linear.head, linear.head = 0;
  const double read = weight_bytes(c.w, linear, c.k, c.e), written = 2 * linear.matmul;
  // The engine's own streaming kernels: its decode rate for this memory class, without what
  // dequantizing inside a matrix-vector product costs (int4/int8 factor).
  const Precision p = c.w.precision;
  c.copy_bw = c.bw / (p == Precision::int4 ? c.e.int4_factor : c.e.int8_factor);
  c.dequant_bytes = read + written;
  t.assumptions.push_back(
      "prompt GEMMs in FP16 cuBLAS: a pass of more than " + std::to_string(c.e.dequant_above) +
      " tokens first dequantizes the weights to an FP16 copy (" + num(read / 1e9) + " GB read + " +
      num(written / 1e9) + " GB written at the decode kernels' " + num(c.copy_bw / 1e9) +
      " GB/s) [engines." + c.e.name + ".prefill_dequantize]");
}

// llama.cpp's MMQ on a card without int8 matrix units multiplies with the vector dot-product
// instruction (dp4a, v_dot4): four int8 multiply-adds where an FMA does one, so 4 x the FP32
// rate, of which the GEMMs reach the engine's measured share. 0 where it does not apply.
double dp4a_factor(const Ctx& c, Throughput& t) {
  const Precision p = c.w.precision;
  if (c.e.dp4a_efficiency <= 0 || c.g.fp32_tflops <= 0 || c.linear <= 0) return 0;
  if ((p != Precision::int4 && p != Precision::int8) || !on_architecture(c.g, c.e.dp4a_on))
    return 0;
  const double rate = 4 * c.g.fp32_tflops * c.e.dp4a_efficiency;
  const double factor = rate / (c.linear * c.prefill_eff);
  t.assumptions.push_back(
      "quantized prompt GEMMs on the dot-product instruction (dp4a/v_dot4, no "
      "int8 matrix units): 4 x " +
      num(c.g.fp32_tflops) + " TFLOPS FP32 x " + num(c.e.dp4a_efficiency) + " = " + num(rate) +
      " TOPS [engines." + c.e.name + ".prefill_dp4a] (" + num(factor) + " x the 16-bit path)");
  return factor;
}

}  // namespace

// Prompt efficiency: the engine's Metal measurement on Apple GPUs where it has one (Metal
// GEMMs reach a far larger share of the smaller Apple rate), else its CUDA/ROCm figure.
void prompt_efficiency(Ctx& c, Throughput& t) {
  const bool metal = c.g.vendor == "apple" && c.e.metal_prefill_efficiency > 0;
  c.prefill_eff = metal ? c.e.metal_prefill_efficiency : c.e.prefill_efficiency;
  std::string key;
  const bool copy = !metal && dequantizes_for_cublas(c);
  const double dp4a = metal || copy ? 0 : dp4a_factor(c, t);
  if (dp4a > 0)
    c.gemm_quant = dp4a;
  else if ((is_quantized(c.w.precision) || c.fp8_weight_only) && !copy)
    std::tie(c.gemm_quant, key) = quantized_gemm(c, metal);
  t.assumptions.push_back("prompt efficiency " + num(c.prefill_eff) +
                          " of the achievable rate [engines." + c.e.name +
                          (metal ? ".prefill_metal]" : ".prefill_efficiency]") +
                          (c.gemm_quant != 1 && dp4a <= 0
                               ? " x " + num(c.gemm_quant) + " for " + to_string(c.w.precision) +
                                     " weights, prompt and batched decode GEMMs [" + key + "]"
                               : ""));
  if (copy) dequant_pass(c, t);
}

namespace {

// An Apple base or Pro chip: one die whose GPU fills its memory system. A Max or Ultra part
// has a memory system wider than its GPU pulls (stream: M1 Max 0.78, M2 Ultra 0.80 of spec).
bool apple_base_chip(const Gpu& g) {
  return g.vendor == "apple" && g.architecture.find(" Max") == std::string::npos &&
         g.architecture.find(" Ultra") == std::string::npos;
}

struct Kernel {
  double value;
  std::string on, id;  // the memory class it applies to, and its data key
};

// The engine's decode kernel for the card's memory class. The GDDR figures were measured on
// an RTX 4090 (Ampere's GA10x keep less in L2); the unified one on an M2 Ultra.
Kernel decode_kernel(const Ctx& c, const std::string& cls) {
  if (cls == "hbm") return {c.e.kernel_hbm, "hbm", "kernel"};
  if (cls == "unified")
    return c.e.kernel_unified_base > 0 && apple_base_chip(c.g)
               ? Kernel{c.e.kernel_unified_base, "an Apple base/Pro chip", "kernel.unified_base"}
               : Kernel{c.e.kernel_unified, "unified", "kernel"};
  if (c.e.kernel_gddr_ampere > 0 && c.g.architecture.rfind("Ampere", 0) == 0)
    return {c.e.kernel_gddr_ampere, "Ampere gddr", "kernel.gddr_ampere"};
  return {c.e.kernel_gddr, "gddr", "kernel"};
}

}  // namespace

// Achieved decode bandwidth: spec x memory type x engine kernel x weight precision.
double decode_bandwidth(const Ctx& c, Throughput& t) {
  const auto mt = c.k.memory_types.find(c.g.memory_type);
  const double mem = mt != c.k.memory_types.end() ? mt->second : 1.0;
  const Kernel kernel = decode_kernel(c, memory_class(c.g));
  const Precision p = c.w.precision;
  const double quant = p == Precision::int4                          ? c.e.int4_factor
                       : p == Precision::int8 || p == Precision::fp8 ? c.e.int8_factor
                                                                     : 1.0;
  t.assumptions.push_back(
      "decode bandwidth " + num(c.g.bandwidth_gbs) + " GB/s x " + num(mem) + " achievable (" +
      c.g.memory_type + (mt == c.k.memory_types.end() ? ", not in the data: 1 assumed" : "") +
      ") [memory_types] x " + num(kernel.value) + " " + c.e.label + " on " + kernel.on +
      " [engines." + c.e.name + "." + kernel.id + "]" +
      (quant != 1 ? " x " + num(quant) + " for " + to_string(p) + " weights" : ""));
  return c.g.bandwidth_gbs * 1e9 * mem * kernel.value * quant;
}

// Prompt GEMM rates: FP8 where the card has it; GeForce FP16-accumulate where the engine
// runs it (llama.cpp); else the achievable 16-bit rate.
void prefill_rates(Ctx& c, Throughput& t) {
  const Achievable a = achievable(c.g, c.k);
  double r16 = a.tflops16;
  std::string how = "achievable 16-bit matmul rate: " + a.what;
  if (c.e.prefill_fp16_accumulate && c.g.fp16_acc16_tflops_dense) {
    r16 = a.fraction * *c.g.fp16_acc16_tflops_dense;
    how = "FP16-accumulate GEMMs (" + c.e.label + "): " + num(a.fraction) + " x " +
          num(*c.g.fp16_acc16_tflops_dense) + " TFLOPS [engines." + c.e.name +
          ".prefill_fp16_accumulate]";
  }
  // An engine whose GEMMs go through a library measured apart on this card (rocBLAS on gfx1151)
  // runs at that library's rate.
  if (const MatmulEntry* lib = library_entry(c.g, c.k, c.e.prefill_library)) {
    r16 = *lib->tflops;
    how = "prompt GEMMs through " + lib->library + ": " + num(r16) + " TFLOPS measured on " +
          lib->stack + " [matmul." + lib->id + "; engines." + c.e.name + ".prefill_library]";
  }
  c.linear = c.attention = r16;
  c.fraction = a.fraction;
  if (c.w.precision == Precision::fp8 && a.fp8) {
    c.linear = *a.fp8;  // W8A8: the linear layers' GEMMs on FP8 tensor cores
    t.assumptions.push_back("FP8 weights and activations (W8A8) on " + c.g.id +
                            "'s FP8 tensor cores: linear layers at " + num(*a.fp8) +
                            " TFLOPS achievable; attention at the 16-bit rate below");
  }
  c.fp8_weight_only = c.w.precision == Precision::fp8 && !a.fp8;
  if (c.fp8_weight_only)
    t.assumptions.push_back(c.g.id +
                            " has no FP8 tensor cores: FP8 weights are dequantized to 16 bits "
                            "(weight-only) and multiplied at 16-bit speed");
  t.assumptions.push_back(how);
}

}  // namespace gpusel::tput
