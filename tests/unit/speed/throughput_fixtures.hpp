#pragma once
// Shared by the throughput tests: constants with every refinement at 1 or a round number,
// a round card, and workloads whose FLOPs and bytes are easy to write down.
#include <string>
#include <vector>

#include "gpusel/data/catalog.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/data/models.hpp"
#include "gpusel/memory/workload.hpp"
#include "gpusel/speed/throughput.hpp"

namespace tput_fixtures {

using namespace gpusel;

// A card of the shipped catalog.
inline const Gpu& shipped_gpu(const std::string& id) {
  static const Catalog c = load_catalog({});
  return require_gpu(c, id);
}

// A shipped preset's inference at batch 1 with `prompt` tokens prefilled of `seq` in all.
inline Workload preset_inference(const std::string& model, const std::string& precision,
                                 const std::string& engine, int seq, int prompt) {
  static const std::vector<ModelArch> models = load_models({});
  Workload w;
  w.model = require_model(models, model);
  w.model_from_preset = true;
  w.mode = Mode::inference;
  set_precision(w, precision);
  w.seq_len = seq, w.prompt_len = prompt;
  w.engine = engine;
  return w;
}

inline Engine engine(const std::string& name, double kernel_hbm, double kernel) {
  Engine e;
  e.name = e.label = name;
  e.kernel_gddr = e.kernel_unified = kernel, e.kernel_hbm = kernel_hbm;
  e.prefill_efficiency = 0.5;
  e.prefill_fp16_accumulate = name == "llama.cpp";
  return e;
}

inline ThroughputConstants plain() {
  ThroughputConstants k;
  k.int4_bits_per_weight = 4, k.int8_bits_per_weight = 8, k.kv_cache_bytes_per_value = 0;
  k.qlora_dequant_bytes = 0, k.fp8_training_factor = 1, k.prefill_quantized_factor = 1;
  k.ddp_bucket_bytes = 0, k.comm_overlap_fraction = 1;
  k.memory_bound_training = false;  // the matmul arithmetic alone; memory_ops_test turns it on
  k.allreduce_latency_pcie_s = 0, k.allreduce_latency_linked_s = {{2, 0}, {8, 0}};
  k.host_copy_fraction = {{4, 1.0}};
  k.matmul_default_fraction = 1, k.fp8_default_fraction = 1, k.training_efficiency_default = 0.5;
  k.memory_types = {{"GDDR6", 1.0}};
  k.engines = {{"llama.cpp", engine("llama.cpp", 0.6, 0.8)}, {"vllm", engine("vllm", 0.9, 0.9)}};
  k.links = {{"nvlink", 1.0}, {"pcie-p2p", 1.0}, {"pcie-host", 0.5}};
  ClusterNetwork ib;
  ib.id = ib.label = "ib", ib.match.form_factors = {"sxm"}, ib.bytes_per_s_per_gpu = 50e9;
  k.cluster_networks = {ib};
  return k;
}

// A decoder whose matmul parameter count is exactly `params`: tied embeddings, so the LM
// head's multiply is the embedding table already counted in `params`.
inline ModelArch decoder(double params, int layers = 32, int hidden = 4096) {
  ModelArch m;
  m.id = m.name = "test";
  m.params = params;
  m.layers = layers, m.hidden = hidden, m.heads = 32, m.kv_heads = 8;
  m.head_dim = hidden / 32, m.intermediate = 4 * hidden, m.vocab = 32000;
  m.tied_embeddings = true;
  return m;
}

inline Workload inference(double params, Precision p = Precision::bf16) {
  Workload w;
  w.model = decoder(params);
  w.mode = Mode::inference;
  w.precision = p;
  w.seq_len = 2, w.prompt_len = 1;
  return w;
}

inline Workload training(Mode mode, double params) {
  Workload w;
  w.model = decoder(params);
  w.mode = mode;
  w.precision = mode == Mode::qlora ? Precision::int4 : Precision::bf16;
  w.grad_ckpt = false;
  w.seq_len = 100, w.batch = 1;
  return w;
}

// 1000 GB/s GDDR6, `bf16` TFLOPS dense BF16, NVLink 600 GB/s in groups of 8: a round card.
inline Gpu card(double bf16 = 100, std::optional<double> acc16 = std::nullopt) {
  Gpu g;
  g.id = "round", g.vendor = "nvidia", g.segment = "datacenter", g.form_factor = "sxm";
  g.ecosystem = "cuda";
  g.architecture = "Test", g.memory_type = "GDDR6";
  g.bandwidth_gbs = 1000, g.fp32_tflops = bf16 / 4;
  g.bf16_tflops_dense = g.fp16_tflops_dense = bf16;
  g.fp16_acc16_tflops_dense = acc16;
  g.pcie_gen = 4, g.pcie_lanes = 16;
  g.interconnect = {"nvlink", 600, 8};
  return g;
}

// Attention FLOPs per token, forward: 4·L·d·s.
inline double attention(const Workload& w) {
  return 4.0 * w.model.layers * w.model.heads * w.model.head_dim * w.seq_len;
}

inline std::string joined(const Throughput& t) {
  std::string all;
  for (const auto& a : t.assumptions) all += a + "\n";
  return all;
}

}  // namespace tput_fixtures
