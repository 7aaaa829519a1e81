// The assumption texts of what llama.cpp keeps in host RAM and runs there: whole layers
// (--gpu-layers) and a mixture of experts' routed experts (--n-cpu-moe, --cpu-moe).
#include "gpusel/memory/estimator.hpp"
#include "throughput_infer_ctx.hpp"

namespace gpusel::tput {
namespace {

void describe_host_layers(const Ctx& c, const StepModel& m, Throughput& t) {
  t.assumptions.push_back(
      "layers in host RAM (llama.cpp --gpu-layers " + std::to_string(c.w.gpu_layers) +
      "): " + std::to_string(host_layers(c.w)) + " of " + std::to_string(c.w.model.layers) +
      " layers" + (output_on_host(c.w) ? " and the output layer" : "") + ", " +
      num(m.host_dense_bytes / 1e9) + " GB a token; decode: the CPU reads them at " +
      num(m.host_read_bw / 1e9) + " GB/s [host_decode_fraction of the host memory]; prompt " +
      "batches of " + std::to_string(m.op_offload_min) + "+ tokens copy them to the GPU at " +
      num(m.host_copy_bw / 1e9) + " GB/s; in series with the GPU's layers");
}

}  // namespace

void describe_host_experts(const Ctx& c, Throughput& t) {
  const StepModel m = build_step(c, 1, 1);
  if (m.host_dense_bytes > 0) describe_host_layers(c, m, t);
  if (m.host_routed_bytes <= 0) return;
  const bool given = c.w.host_memory_bytes_per_s > 0;
  t.assumptions.push_back(
      "experts in host RAM (llama.cpp --n-cpu-moe): " + std::to_string(cpu_moe_layers(c.w)) +
      " of " + std::to_string(moe_layer_count(c.w.model)) + " MoE layers, " +
      num(m.host_routed_bytes / 1e9) + " GB; decode: the CPU reads the experts a token picks at " +
      num(m.host_read_bw / 1e9) + " GB/s (" +
      num((given ? c.w.host_memory_bytes_per_s : c.k.host_memory_bytes_per_s) / 1e9) +
      " GB/s host memory" +
      (!given                          ? " [host_memory_gbs]"
       : c.w.host_memory_basis.empty() ? " [--host-mem-bw]"
                                       : " [the " + c.w.host_memory_basis + " platform's RAM]") +
      " x " + num(c.k.host_decode_fraction) + " [host_decode_fraction]); prompt batches of " +
      std::to_string(m.op_offload_min) +
      "+ tokens copy the picked experts to the GPU over PCIe at " + num(m.host_copy_bw / 1e9) +
      " GB/s [llama_cpp_op_offload_batch, host_copy_fraction]; in series with the GPU's layers");
}

}  // namespace gpusel::tput
