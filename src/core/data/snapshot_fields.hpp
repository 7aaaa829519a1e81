#pragma once
// One field list per shipped record type (not a public header): the snapshot's Writer and
// Reader (snapshot_io.hpp) both walk these, so a field is written and read back in the same
// place. A field added to a record and not here reads back as its default: the unit test
// (tests/unit/data/snapshot_test.cpp) compares every field of the snapshot's records with
// what the loaders build from the JSON, and fails.
#include "gpusel/data/catalog.hpp"
#include "gpusel/data/cloud.hpp"
#include "gpusel/data/models.hpp"
#include "gpusel/data/platforms.hpp"
#include "gpusel/data/quantization.hpp"
#include "snapshot_io.hpp"

namespace gpusel::snapshot {

template <typename A, either<Price> T>
void fields(A& a, T& p) {
  a(p.amount, p.currency, p.kind, p.as_of, p.source);
}

template <typename A, either<Interconnect> T>
void fields(A& a, T& i) {
  a(i.kind, i.bandwidth_gbs, i.max_gpus);
}

template <typename A, either<MemoryShare> T>
void fields(A& a, T& m) {
  a(m.os, m.setting, m.fraction, m.gb, m.how, m.source, m.as_of, m.note);
}

// The raw record is its place in the document; the reader views the embedded text there.
inline void raw_record(Writer& w, const Gpu& g) {
  w.raw(g.raw_record().offset(), g.raw_record().text().size());
}
inline void raw_record(Reader& r, Gpu& g) {
  const auto [offset, size] = r.raw();
  g.set_raw(RawRecord(r.document(), offset, size));
}

template <typename A, either<Gpu> T>
void fields(A& a, T& g) {
  a(g.id, g.name, g.vendor, g.architecture, g.segment, g.form_factor, g.memory_type);
  a(g.launch_year, g.vram_gb, g.ecc, g.unified_memory, g.unified_memory_share);
  a(g.bandwidth_gbs, g.fp32_tflops, g.bf16_tflops_dense, g.fp16_tflops_dense,
    g.fp16_acc16_tflops_dense, g.int8_tops_dense, g.fp8_tflops_dense, g.fp4_tflops_dense);
  a(g.tdp_w, g.interconnect, g.pcie_gen, g.pcie_lanes, g.ecosystem, g.platform_target, g.market);
  a(g.prices);
  raw_record(a, g);
}

template <typename A, either<Catalog> T>
void fields(A& a, T& c) {
  a(c.reviewed, c.gpus);
}

template <typename A, either<Figure> T>
void fields(A& a, T& f) {
  a(f.value, f.low, f.high, f.unit, f.source, f.as_of);
}

template <typename A, either<CloudDefaults> T>
void fields(A& a, T& d) {
  a(d.spot_ratio, d.spot_availability, d.commit_1y_discount, d.commit_3y_discount);
  a(d.storage_per_gb_month, d.egress_per_gb, d.instance_network);
}

template <typename A, either<InstanceNetwork> T>
void fields(A& a, T& n) {
  a(n.gbps, n.rdma, n.source, n.as_of, n.notes, n.published, n.nvlink_domain);
}

template <typename A, either<Offer> T>
void fields(A& a, T& o) {
  a(o.id, o.provider, o.offer, o.gpu, o.region, o.currency, o.billing, o.as_of, o.source);
  a(o.notes, o.gpus_per_instance, o.on_demand_per_hour, o.spot_per_hour, o.monthly);
  a(o.commit_1y_per_hour, o.commit_3y_per_hour, o.marketplace, o.network);
}

template <typename A, either<Cloud> T>
void fields(A& a, T& c) {
  a(c.reviewed, c.defaults, c.has_defaults, c.offers);
}

template <typename A, either<MoeSpec> T>
void fields(A& a, T& m) {
  a(m.experts, m.active, m.shared_experts, m.expert_intermediate, m.dense_layers);
}

template <typename A, either<MlaSpec> T>
void fields(A& a, T& m) {
  a(m.kv_lora_rank, m.qk_rope_head_dim, m.q_lora_rank);
}

template <typename A, either<LinearAttentionSpec> T>
void fields(A& a, T& l) {
  a(l.kind, l.num_key_heads, l.key_head_dim, l.num_value_heads, l.value_head_dim, l.conv_kernel);
}

template <typename A, either<CnnStage> T>
void fields(A& a, T& s) {
  a(s.stride, s.channels, s.mid_channels, s.blocks);
}

template <typename A, either<CnnSpec> T>
void fields(A& a, T& c) {
  a(c.image_size, c.gflops, c.gflops_are_macs, c.saved_values, c.stages, c.optimizer);
}

template <typename A, either<ShippedWeights> T>
void fields(A& a, T& w) {
  a(w.precision, w.weight_bits, w.experts_only, w.gguf_other_bits, w.gguf_source, w.source,
    w.as_of);
}

template <typename A, either<ModelArch> T>
void fields(A& a, T& m) {
  a(m.id, m.name, m.family, m.kind, m.params, m.active_params);
  a(m.layers, m.hidden, m.heads, m.kv_heads, m.head_dim, m.intermediate, m.vocab);
  a(m.tied_embeddings, m.mlp, m.norm, m.qkv_bias, m.max_context, m.sliding_window);
  a(m.layer_pattern, m.moe, m.mla, m.linear_attention, m.vision_params, m.image_tokens);
  a(m.image_size, m.cnn, m.shipped, m.remainder_linear, m.source, m.as_of, m.notes);
}

template <typename A, either<PlatformMatch> T>
void fields(A& a, T& m) {
  a(m.gpu_ids, m.segments, m.form_factors, m.unified_memory, m.used, m.max_count, m.max_tdp_w);
}

template <typename A, either<Platform> T>
void fields(A& a, T& p) {
  a(p.id, p.name, p.network, p.name_zh, p.match, p.gpus_per_host, p.psu, p.cost, p.sold_in);
  a(p.ram_gb, p.ram_max_gb, p.ram_bandwidth_gbs, p.host_power_w);
}

template <typename A, either<Network> T>
void fields(A& a, T& n) {
  a(n.id, n.name, n.name_zh, n.cost_per_gpu);
}

template <typename A, either<PsuStep> T>
void fields(A& a, T& s) {
  a(s.watts, s.price);
}

template <typename A, either<Platforms> T>
void fields(A& a, T& p) {
  a(p.origin, p.reviewed, p.psu_rest_w, p.psu_headroom, p.psu_steps, p.platforms, p.networks);
  a(p.ram_usd_per_gb, p.ram_os_reserve_gb, p.ram_step_gb);
}

template <typename A, either<GgufType> T>
void fields(A& a, T& g) {
  a(g.name, g.bits_per_weight, g.klass, g.basis, g.source, g.as_of);
}

template <typename A, either<KvCacheType> T>
void fields(A& a, T& k) {
  a(k.name, k.bytes_per_value, k.basis, k.source, k.as_of);
}

template <typename A, either<Quantizations> T>
void fields(A& a, T& q) {
  a(q.reviewed, q.gguf, q.kv_cache);
}

}  // namespace gpusel::snapshot
