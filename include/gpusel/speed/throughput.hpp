#pragma once
// What a configuration delivers for a workload: training tokens/s, or prefill and decode
// tokens/s for inference. A roofline-style model built from published measurements only:
// the card's achievable matmul rate on its software stack, the training stack's end-to-end
// efficiency, the memory's achievable bandwidth and the decode engine's kernel efficiency,
// and the communication each multi-GPU strategy cannot hide behind compute. Every number
// lives in data/throughput.json with its source; see that file's "method".
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpusel/data/catalog.hpp"
#include "gpusel/memory/workload.hpp"

namespace gpusel {

struct Throughput {
  double train_tokens_per_s = 0;    // training/fine-tuning modes, whole configuration
  double prefill_tokens_per_s = 0;  // inference: prompt processing
  double decode_tokens_per_s = 0;   // inference: generation, per sequence x batch (aggregate)
  double tflops_used = 0;           // achievable dense TFLOPS per card at the precision used
  double mfu = 0;                   // end-to-end FLOPs / the card's dense spec at that precision
  double scaling = 1;               // multi-GPU efficiency: total / (count x one card)
  std::string bound;                // "compute" | "memory-bandwidth"
  std::string engine;               // inference: the decode engine modelled
  // What the *_tokens_per_s rates count: "tokens", or "images" for a CNN (kind "cnn").
  std::string unit = "tokens";
  std::vector<std::string> assumptions;  // each factor with its number and data id
};

// Which cards a data entry applies to: exact ids, or every given field matching (vendor,
// a substring of the architecture, segment, form factor).
struct CardMatch {
  std::vector<std::string> gpus, segments, form_factors;
  std::string vendor, architecture;
  bool matches(const Gpu& g) const;
};

struct MatmulEntry {  // achievable dense matmul rate, measured
  std::string id, stack;
  CardMatch match;
  std::optional<double> tflops, fraction, fp8_tflops, fp8_fraction;
  std::optional<double> fp32_fraction;  // FP32 (CUDA-core SGEMM) rate / the card's FP32 spec
  // The BLAS library this rate was measured through ("rocBLAS"), for the engines that multiply
  // through it (Engine::prefill_library); "": the card's achievable rate, whatever the library.
  std::string library;
};

struct EfficiencyEntry {  // end-to-end training / achievable matmul rate
  std::string id;
  CardMatch match;
  double value = 0;
  std::optional<double> fp8_factor;  // this stack's FP8 linear-layer factor, where measured
};

struct Engine {  // a decode engine (--engine)
  std::string name, label;
  std::vector<std::string> aliases;
  double kernel_gddr = 1, kernel_hbm = 1, kernel_unified = 1;  // of achievable bandwidth
  // On Ampere GDDR cards (GA10x: 6 MB of L2 where the RTX 4090 the gddr figures come from has
  // 72 MB), where the engine was measured there or a figure was borrowed; 0: kernel_gddr.
  double kernel_gddr_ampere = 0;
  // On Apple's base and Pro chips, whose GPU fills their memory system where a Max or Ultra
  // part's does not (the unified figure is an M2 Ultra's); 0: kernel_unified.
  double kernel_unified_base = 0;
  double int8_factor = 1, int4_factor = 1;  // quantized weights: dequantization cost
  // Its W4A16 GEMM (int4 weights dequantized to 16-bit, 16-bit tensor-core MMA) at serving
  // batches, as a fraction of its 16-bit GEMM rate; on Hopper where the kernel differs there.
  // 0: no measurement of the engine's own (constants.prefill_quantized_factor applies).
  double int4_gemm = 0, int4_gemm_hopper = 0;
  // Whether those kernels take 8-bit weights too (llama.cpp's MMQ multiplies Q8_0 as Q4_0).
  bool int4_gemm_int8 = false;
  // Architectures (catalog prefixes) other than NVIDIA Ampere and newer where int4_gemm's
  // kernels run: llama.cpp's MMQ on AMD matrix cores (WMMA on RDNA 3/4, MFMA on CDNA 3).
  std::vector<std::string> int4_gemm_also_on;
  // Prompt GEMMs in FP16 cuBLAS/hipBLAS (llama.cpp on NVIDIA before June 2024, on AMD RDNA 3 in
  // 2024-2025): on `dequant_vendor`'s cards (NVIDIA: Volta and newer) a pass of more than
  // `dequant_above` tokens first writes an FP16 copy of every quantized weight, then multiplies
  // at the 16-bit rate. 0: the engine multiplies the weights as they are.
  int dequant_above = 0;
  std::string dequant_vendor;
  // Quantized prompts on cards without int8 matrix units (catalog prefixes `dp4a_on`): the
  // vector dot-product instruction at 4 x the FP32 rate, of which the GEMMs reach this share.
  double dp4a_efficiency = 0;
  std::vector<std::string> dp4a_on;
  double layer_overhead_s = 0;  // per layer per decode step
  // Whether llama.cpp's --split-mode row exists on this back end (engines.*.row_split; not on
  // Vulkan); only llama.cpp engines split rows at all.
  bool row_split = true;
  // Its int4/int8 formats quantize the LM head with the rest (MLX); else the head stays 16-bit.
  bool quantized_head = false;
  // per mixture-of-experts layer per decode step, beside its bytes (router, top-k, grouped
  // GEMMs, combine); 0 where the engine's figure has none
  double moe_layer_overhead_s = 0;
  // Eager engines whose host issues every op (transformers generate()): the host's time per
  // step and per layer, a floor under the step; 0 for engines the host never waits on.
  double host_step_s = 0, host_layer_s = 0;
  // The BLAS library its prompt GEMMs go through ("rocBLAS"), where a card's rate through it
  // is measured apart (MatmulEntry::library); "": the card's achievable rate.
  std::string prefill_library;
  double prefill_efficiency = 1;         // of the achievable matmul rate
  bool prefill_fp16_accumulate = false;  // GeForce: FP16-accumulate GEMMs
  // Apple GPUs (Metal back end): the engine's own measured prompt efficiency and its
  // quantized-weight factor there; 0 when the engine has no Metal measurement.
  double metal_prefill_efficiency = 0, metal_prefill_quantized_factor = 0;
  // Where the engine runs otherwise than its own figures say, and the entry that describes it
  // there: llama.cpp without CUDA graphs on Pascal and Metal (graphless_on), its SYCL back end
  // on Intel GPUs (backend_on). Checked in order; empty: it runs the same everywhere.
  struct Variant {
    std::string key;                         // graphless_on | backend_on
    std::vector<std::string> architectures;  // prefixes of the catalog's architecture
    std::string engine, says;                // the entry, and what the output says of it
  };
  std::vector<Variant> variants;
};

struct ClusterNetwork {  // between nodes
  std::string id, label;
  CardMatch match;
  double bytes_per_s_per_gpu = 0;  // achieved per-GPU NIC rate (spec x efficiency)
};

// data/throughput.json, parsed. Scalars carry their id in that file as a comment.
struct ThroughputConstants {
  double int4_bits_per_weight = 4.5, int8_bits_per_weight = 8.5;
  double kv_cache_bytes_per_value = 2;
  double qlora_dequant_bytes = 2.5;  // per 4-bit weight per pass: NF4 read + bf16 write
  double fp8_training_factor = 1;    // FP8 (TE) end-to-end vs BF16, per achievable rate
  // Passes over each activation tensor in forward (write, read) and backward (read it,
  // write and read its gradient): the memory-bound ops' traffic in a training step.
  double activation_forward_passes = 2, activation_backward_passes = 3;
  // A CNN's passes over each saved activation per step, by the precision's PyTorch path
  // (cnn_activation_traffic_passes, measured on ResNet-50): training and forward only.
  struct CnnPasses {
    double fp16 = 5, bf16 = 5, fp32 = 5;
  };
  CnnPasses cnn_train_passes, cnn_infer_passes{2, 2, 2};
  // TF32 tensor-core rate over the 16-bit rate, where PyTorch runs fp32 convolutions in TF32
  // (tf32_fraction_of_16bit; 0: never).
  double tf32_fraction = 0;
  // Eager PyTorch training: the host's cost per launched kernel and the kernels a step
  // launches per transformer layer and per CNN block (eager_training_host; 0: no floor).
  double host_kernel_s = 0, kernels_per_layer = 0, kernels_per_cnn_block = 0;
  // Eager attention's measured traffic per score element beyond SDPA, forward and backward.
  double eager_forward_bytes = 48, eager_backward_bytes = 48;
  // Charge the memory-bound ops and the optimizer step (data always does; unit fixtures that
  // check the matmul arithmetic alone switch it off).
  bool memory_bound_training = true;
  double prefill_quantized_factor = 1;  // int8/int4 weights dequantized in prompt GEMMs
  double ddp_bucket_bytes = 25e6;       // the last bucket cannot overlap
  double comm_overlap_fraction = 1;     // of the compute window communication hides behind
  double allreduce_latency_pcie_s = 0;
  // GPUs one CPU socket hosts on a PCIe board; a ring over more crosses the CPUs' link and
  // NCCL sends those hops through host memory (0: no such split).
  int pcie_gpus_per_socket = 0;
  // A small all-reduce over a PCIe ring that crosses the sockets, by message bytes (measured
  // on such a box; allreduce_latency_pcie_s stays within a socket). Empty: no such table.
  std::map<int, double> allreduce_latency_pcie_cross_s;
  std::map<int, double> allreduce_latency_linked_s;  // by GPU count
  int llama_cpp_ubatch = 512;
  // llama.cpp --split-mode row: CUDA calls the host issues per card for each split matmul,
  // and what one enqueued call costs without CUDA graphs.
  double row_split_calls_per_card = 6, host_launch_s = 2.5e-6;
  std::map<int, double> host_copy_fraction;  // by PCIe generation
  // llama.cpp --n-cpu-moe: the host memory's spec bandwidth where the user gives none (a
  // desktop's two DDR5 channels), the share of it the CPU's expert matmuls read at decode, and
  // the prompt batch from which the GPU back end runs host-resident weights' matmuls itself
  // (copying them over PCIe) instead of the CPU.
  double host_memory_bytes_per_s = 89.6e9, host_decode_fraction = 0.6;
  double cpu_adam_bytes_per_param = 28;  // host memory an offloaded Adam step moves per param
  int op_offload_min_batch = 32;
  double matmul_default_fraction = 0.77, fp8_default_fraction = 0.72;
  double training_efficiency_default = 0.6;
  std::vector<MatmulEntry> matmul;
  std::vector<EfficiencyEntry> training_efficiency;
  std::map<std::string, double> memory_types;  // achievable / spec bandwidth
  std::map<std::string, Engine> engines;
  std::map<std::string, double> links;  // bus bandwidth / per-direction link bandwidth
  std::vector<ClusterNetwork> cluster_networks;
};

// Parses data/throughput.json's document; Error(data) naming origin and key on a bad field.
ThroughputConstants parse_throughput_constants(const nlohmann::json& doc,
                                               const std::string& origin);

// The embedded data/throughput.json, parsed once.
const ThroughputConstants& default_throughput_constants();

// The engine a workload decodes with: its --engine (a name or alias), else llama.cpp at
// batch 1 and vLLM for batched serving. Error(usage) for an unknown name, listing the known.
const Engine& engine_for(const Workload& w, const ThroughputConstants& k);
// The variant of `e` that applies on `g` (the first whose architectures match), or null.
const Engine::Variant* variant_on(const Engine& e, const Gpu& g);
// The engine as it runs on `g`: its variant's entry there, else itself.
const Engine& engine_on(const Engine& e, const Gpu& g, const ThroughputConstants& k);
// Every accepted --engine spelling (names and aliases), for help text and validation.
std::vector<std::string> engine_names();
// Error(usage) unless `name` is empty or a known engine.
void require_engine(const std::string& name);
// Error(usage) when the workload asks for llama.cpp's row split (--split-mode row) with an
// engine other than llama.cpp, or for a mixture of experts (llama.cpp splits no expert
// tensors by rows).
void require_split_mode(const Workload& w);

// GPUs that share one machine (and its fast link) before a cluster network joins machines:
// the card's NVLink domain where it spans more than 8 (GB200 NVL72), else 8.
int node_size(const Gpu& g);
// The network joining nodes of this card, if it clusters at all (consumer cards do not).
const ClusterNetwork* cluster_network(const Gpu& g, const ThroughputConstants& k);
const ClusterNetwork* cluster_network(const Gpu& g);
// Whether `cards` of the card can work as one configuration: one machine, or machines its
// cluster network joins. (Serving replicas need not: each is its own configuration.)
bool gangs(const Gpu& g, int cards);

// Machines that are not the card's own nodes: separate rented instances of `gpus_per_node`
// GPUs each, joined by the provider's network rather than a cluster fabric.
struct NodeNetwork {
  int gpus_per_node = 1;
  double gbps = 0;    // line rate per machine, Gbit/s each direction
  bool rdma = false;  // GPUDirect RDMA (links.nic-rdma), else NCCL over TCP (links.nic-tcp)
  std::string label;  // what the network is, for the assumption texts
};

// `linked`: the cards of a node share a fast GPU-to-GPU link (NVLink etc.), else PCIe.
// Beyond node_size(gpu) cards, nodes are joined by the card's cluster network; with `nodes`,
// nodes of nodes->gpus_per_node cards are joined by that network instead.
// Error(usage) when count < 1, or when the card cannot run that many (no cluster network).
Throughput estimate_throughput(const Workload& w, const Gpu& gpu, int count, bool linked,
                               const NodeNetwork* nodes = nullptr);
Throughput estimate_throughput(const Workload& w, const Gpu& gpu, int count, bool linked,
                               const ThroughputConstants& k, const NodeNetwork* nodes = nullptr);

// While one is alive on its thread, estimate_throughput leaves the numbers out of its
// assumption texts (the same figures, unreadable notes): for the ranker's configurations that
// are counted and never shown, where formatting them cost more than the model itself.
class ThroughputTextsOff {
 public:
  ThroughputTextsOff();
  ~ThroughputTextsOff();
  ThroughputTextsOff(const ThroughputTextsOff&) = delete;
  ThroughputTextsOff& operator=(const ThroughputTextsOff&) = delete;
};

// train for training modes, decode for inference
double primary_tokens_per_s(const Workload& w, const Throughput& t);

// Wall-clock hours to process `tokens`; infinity when tokens_per_s <= 0 and tokens > 0.
// Error(usage) for negative or non-finite tokens.
double hours_for_tokens(double tokens, double tokens_per_s);

}  // namespace gpusel
