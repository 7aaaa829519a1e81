#pragma once
// Internal pieces of the throughput model shared by the speed/ sources.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gpusel/data/catalog.hpp"
#include "gpusel/memory/workload.hpp"
#include "gpusel/speed/throughput.hpp"

namespace gpusel::tput {

// LoRA and QLoRA train adapters only (no weight gradients of the base).
inline bool adapters(Mode m) { return m == Mode::lora || m == Mode::qlora; }

using K = ThroughputConstants;

// --- loading (throughput_data.cpp, throughput_tables.cpp) ------------------------------
// The "value" of the sourced record parent[key]; Error(data) "at.key: ..." without one.
const nlohmann::json& sourced(const nlohmann::json& parent, const std::string& key,
                              const std::string& at);
double in_range(const nlohmann::json& v, const std::string& where, double lo, double hi);
double number(const nlohmann::json& parent, const std::string& key, const std::string& at,
              double lo, double hi);
bool flag(const nlohmann::json& parent, const std::string& key, const std::string& at);
void parse_tables(const nlohmann::json& doc, const std::string& origin, ThroughputConstants& k);

// --- the workload's shape (throughput_compute.cpp) ---------------------------------------
struct Shape {
  double matmul = 0;     // active parameters multiplied per token, LM head's matmul included
  double head = 0;       // the LM head's share (kept 16-bit when the body is quantized)
  double total = 0;      // all parameters (MoE: every expert), for gradients and gathers
  double trainable = 0;  // parameters with gradients in this mode
  double embedding = 0;  // trained input-embedding parameters (0 when frozen)
  double attn_dim = 0;   // heads x head_dim
  int layers = 0;
  double hidden = 0;
  double heads = 0;
  double inter = 0;   // MLP width per token (MoE: the active experts')
  double logits = 0;  // vocabulary width of a decoder's LM head (0: none scored)
  double kv_dim = 0;  // kv_heads x head_dim
  bool gated = true;  // SwiGLU-style MLP: gate and up read the same input
};
Shape shape_of(const Workload& w);

// --- memory-bound work of a training step (throughput_traffic.cpp) -----------------------
// The card's achievable bandwidth: spec x the memory type's measured fraction, bytes/s.
double achievable_bandwidth(const Gpu& g, const K& k);
// Bytes per token the non-matmul ops (norms, softmax, activations, residuals, dropout,
// eager attention scores, the loss) move in one training step; FP8 adds its casts.
double activation_traffic_per_token(const Workload& w, const Shape& s, bool fp8_casts, const K& k);
// Bytes the optimizer step reads and writes on one card per optimizer step.
double optimizer_traffic(const Workload& w, const Shape& s, int shards);

// --- achievable compute (throughput_compute.cpp) -----------------------------------------
double spec16(const Gpu& g);  // catalog dense 16-bit TFLOPS: BF16, else FP16, else FP32
struct Achievable {
  double tflops16 = 0;                  // measured or derived achievable 16-bit matmul TFLOPS
  double fraction = 1;                  // of spec16 (1 where the card has no spec figure)
  std::optional<double> fp8;            // achievable FP8 TFLOPS, only where the card has FP8 math
  std::optional<double> fp32_fraction;  // measured SGEMM fraction of the FP32 spec, if any
  std::string fp32_id;                  // the matmul entry it comes from
  std::string what;                     // "h100-sxm (CUDA ...): 794.5 TFLOPS" for the assumptions
};
Achievable achievable(const Gpu& g, const K& k);
// The matmul entry of the card measured through `library` (MatmulEntry::library); nullptr: none.
const MatmulEntry* library_entry(const Gpu& g, const K& k, const std::string& library);
double training_efficiency(const Gpu& g, const K& k, std::string& id);
// The FP8 linear layers' rate / (FP8 achievable x training efficiency): the matching
// training_efficiency entry's own fp8_factor where its stack was measured, else
// constants.fp8_training_factor (Transformer Engine on H100). `id` names the figure used.
double fp8_training_factor(const Gpu& g, const K& k, std::string& id);

// The rates a training step's GEMMs run at (throughput.cpp): the achievable 16-bit rate, FP8
// linear layers where the card has FP8 tensor cores, FP32 without AMP.
struct Peaks {
  double linear = 0, attention = 0;  // achievable TFLOPS per card
  double spec = 0;                   // the dense spec those are measured against
  bool fp8 = false;                  // the linear layers run on FP8 tensor cores
};
Peaks training_peaks(const Workload& w, const Gpu& g, const K& k, Throughput& t);

// An eager PyTorch training step's host floor: the kernels it launches x the host's measured
// cost each (eager_training_host), a third more under checkpointing (forward replayed); none
// under torch.compile. step_s is raised to it, with the assumption line and bound "host",
// when the host is the slower.
double apply_host_floor(const Workload& w, double kernels, double step_s, const K& k,
                        Throughput& t);

// --- convolutional networks (throughput_cnn.cpp) ------------------------------------------
// Images/s of a CNN (kind "cnn"): its published forward FLOPs per image against the card's
// achievable rate and training efficiency, plus the bytes its activations move at the
// achievable bandwidth; several cards run data-parallel.
void estimate_cnn(const Workload& w, const Gpu& g, int count, bool linked, const K& k,
                  const Shape& s, Throughput& t, const NodeNetwork* nodes);

// --- links and collectives (throughput_link.cpp) -----------------------------------------
struct Fabric {
  int count = 1, per_node = 8, nodes = 1;
  double intra = 0;  // ring bus bandwidth inside a node, bytes/s per GPU
  double inter = 0;  // achieved NIC rate per GPU between nodes, bytes/s (0: one node)
  bool linked = false;
  // PCIe boards: GPUs under one CPU socket, and the bus bandwidth of a ring that spans more
  // (its hops between sockets go through host memory). socket 0: no such split.
  int socket = 0;
  double cross = 0;
  std::string what;  // "nvlink 900 GB/s x 0.8 [links.nvlink]" ...
};
// `nodes`: separate machines over their own network (rented instances), else the card's nodes.
Fabric fabric_of(const Gpu& g, int count, bool linked, const K& k,
                 const NodeNetwork* nodes = nullptr);
double allreduce_s(const Fabric& f, double bytes);  // ring all-reduce over all f.count GPUs
double gather_s(const Fabric& f, double bytes);     // all-gather or reduce-scatter
// One small all-reduce of `bytes` over `group` GPUs of f: by GPU count over a fast link, by
// message size over a PCIe ring that crosses the CPU sockets, else the PCIe figure.
double latency_s(const Fabric& f, int group, double bytes, const K& k);
// Which of those figures latency_s took, for the assumption texts: "63.8 us [...]".
std::string latency_what(const Fabric& f, int group, double bytes, const K& k);
// Host <-> device copy rate per GPU, bytes/s per direction.
double host_bytes_per_s(const Gpu& g, const K& k);

// Training: the communication (and offload traffic) of one micro-batch step that does not
// hide behind its compute. `forward_s`/`backward_s`: that step's compute on one card.
double exposed_step_s(const Workload& w, const Shape& s, const Gpu& g, const Fabric& f,
                      double forward_s, double backward_s, const K& k,
                      std::vector<std::string>& notes);

// Training over tp x pp x cp x dp (--tp/--pp/--cp, throughput_parallel.cpp): the pipeline
// bubble and the tensor, pipeline, context and data-parallel traffic not hidden, in the same
// terms as exposed_step_s. `attention_s`: the step's attention kernels, of forward_s +
// backward_s, behind which the context-parallel ring runs. Error(usage) when tp exceeds the
// GPUs of one node.
struct StepTimes {
  double forward_s = 0, backward_s = 0, attention_s = 0;
};
double model_parallel_exposed_s(const Workload& w, const Shape& s, const Gpu& g, const Fabric& f,
                                const StepTimes& step, const K& k, std::vector<std::string>& notes);

// Gradients as they are reduced, bytes: fp32 for LoRA adapters, AMP and fp32 training; the
// weights' 16-bit dtype otherwise (throughput_link.cpp).
double grad_bytes(const Workload& w, const Shape& s);

// --shard hsdp (throughput_parallel.cpp): FSDP's traffic inside each group of shard_group
// GPUs, plus the all-reduce of each GPU's gradient shard across the replicas once per step.
double hybrid_exposed_s(const Workload& w, const Shape& s, const Gpu& g, const Fabric& f,
                        double fwd, double bwd, const K& k, std::vector<std::string>& notes);

// Short number formatting for the assumption texts: 3 significant digits.
std::string num(double v);
// Whether the assumption texts are wanted: false while a ThroughputTextsOff is alive on this
// thread, when the ranker's configurations counted and never shown skip building them.
bool texts_on();

}  // namespace gpusel::tput
