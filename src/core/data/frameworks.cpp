// Framework profiles: data/frameworks.json parsed into typed, cited behaviours.
#include "gpusel/data/frameworks.hpp"

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_schema.hpp"
#include "gpusel/json/json_source.hpp"
#include "json/json_fields.hpp"

namespace gpusel {
namespace {

using nlohmann::json;

template <typename T>
Cited<T> cited(const json& behaviours, const char* key, const std::string& at) {
  const std::string here = at + ".behaviours." + key;
  const json& rec = detail::required_ref(behaviours, key, at + ".behaviours");
  return {detail::required<T>(rec, "value", here),
          detail::required<std::string>(rec, "source", here),
          detail::required<std::string>(rec, "as_of", here)};
}

// A ZeRO key: a number of elements, or "auto" (HF's rule, resolved with the model's width).
double zero_value(const json& z, const char* key, const std::string& at) {
  const json& v = z.at(key);
  if (v.is_string() && v.get<std::string>() == "auto") return ZeroSettings::kAuto;
  if (!v.is_number() || !(v.get<double>() > 0))
    throw data_error(at + ".zero: '" + key + "' must be a positive number or \"auto\"");
  return v.get<double>();
}

Cited<ZeroSettings> parse_zero(const json& behaviours, const std::string& at) {
  const Cited<json> raw = cited<json>(behaviours, "zero", at);
  Cited<ZeroSettings> out{{}, raw.source, raw.as_of};
  ZeroSettings& z = out.value;
  z.reduce_bucket_size = zero_value(raw.value, "reduce_bucket_size", at);
  z.prefetch_bucket_size = zero_value(raw.value, "prefetch_bucket_size", at);
  z.param_persistence_threshold = zero_value(raw.value, "param_persistence_threshold", at);
  z.max_live_parameters = zero_value(raw.value, "max_live_parameters", at);
  z.max_reuse_distance = zero_value(raw.value, "max_reuse_distance", at);
  z.sub_group_size = zero_value(raw.value, "sub_group_size", at);
  // Optional: absent or "auto" keeps DeepSpeed's stage-dependent default.
  if (const auto it = raw.value.find("overlap_comm"); it != raw.value.end() && it->is_boolean())
    z.overlap_comm = it->get<bool>() ? 1 : 0;
  return out;
}

LossImpl parse_loss(const json& losses, const char* key, const std::string& at) {
  const std::string here = at + ".losses." + key;
  const json& rec = detail::required_ref(losses, key, at + ".losses");
  LossImpl l;
  l.kept = detail::required<double>(rec, "kept_bytes_per_logit", here);
  l.transient = detail::required<double>(rec, "transient_bytes_per_logit", here);
  l.compiled_kept =
      detail::present<double>(rec, "compiled_kept_bytes_per_logit", here).value_or(-1);
  l.chunks = detail::required<int>(rec, "chunks", here);
  l.chunk_tokens = detail::required<int>(rec, "chunk_tokens", here);
  l.fused = detail::required<std::string>(rec, "fused", here);
  l.source = detail::required<std::string>(rec, "source", here);
  l.as_of = detail::required<std::string>(rec, "as_of", here);
  return l;
}

void parse_behaviours(FrameworkProfile& f, const json& b, const std::string& at) {
  f.kbit_upcast_embeddings = cited<bool>(b, "kbit_upcast_embeddings", at);
  f.kbit_upcast_norms = cited<bool>(b, "kbit_upcast_norms", at);
  f.adapter_dtype = cited<std::string>(b, "adapter_dtype", at);
  f.adapter_input_cast = cited<bool>(b, "adapter_input_cast", at);
  f.autocast = cited<bool>(b, "autocast", at);
  f.lora_dropout = cited<double>(b, "lora_dropout", at);
  f.four_bit_keeps_input = cited<bool>(b, "four_bit_keeps_input", at);
  f.eight_bit_keeps_input = cited<bool>(b, "eight_bit_keeps_input", at);
  f.separate_lm_head = cited<bool>(b, "separate_lm_head", at);
  f.quantizes_lm_head = cited<bool>(b, "quantizes_lm_head", at);
  f.dequant_copies = cited<int>(b, "dequant_copies", at);
  f.dequant_saved = cited<bool>(b, "dequant_saved", at);
  f.norm_saved_bytes = cited<double>(b, "norm_saved_bytes", at);
  f.fused_lora_kernels = cited<bool>(b, "fused_lora_kernels", at);
  f.fused_qkv = cited<bool>(b, "fused_qkv", at);
  f.kv_repeat = cited<bool>(b, "kv_repeat", at);
  f.optimizer_in_backward = cited<std::string>(b, "optimizer_in_backward", at);
  f.optimizer_step_temporaries = cited<int>(b, "optimizer_step_temporaries", at);
  f.grads_freed_each_step = cited<bool>(b, "grads_freed_each_step", at);
  f.activation_offload = cited<bool>(b, "activation_offload", at);
  f.offload_gpu_checkpoints = cited<int>(b, "offload_gpu_checkpoints", at);
  f.fsdp_checkpointing = cited<bool>(b, "fsdp_checkpointing", at);
  f.fsdp_root_unit = cited<std::string>(b, "fsdp_root_unit", at);
  f.fsdp_no_sync_accumulation = cited<bool>(b, "fsdp_no_sync_accumulation", at);
  f.fsdp_frozen_grads = cited<bool>(b, "fsdp_frozen_grads", at);
  f.compile = cited<bool>(b, "compile", at);
  f.loss = cited<std::string>(b, "loss", at);
  f.default_shard = cited<std::string>(b, "default_shard", at);
  f.default_optimizer = cited<std::string>(b, "default_optimizer", at);
  f.default_optimizer_quantized = cited<std::string>(b, "default_optimizer_quantized", at);
  f.zero = parse_zero(b, at);
}

// A document of the schema's shape (checked by parse_frameworks, or shipped and checked by the
// tests) into profiles.
std::vector<FrameworkProfile> read_frameworks(const json& doc, const std::string& origin) {
  std::vector<FrameworkProfile> out;
  const auto& list = doc.at("frameworks");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& rec = list[i];
    const std::string at = detail::record_at(origin, "frameworks", i, rec);
    FrameworkProfile f;
    f.id = detail::required<std::string>(rec, "id", at);
    f.name = detail::required<std::string>(rec, "name", at);
    f.version = detail::required<std::string>(rec, "version", at);
    f.as_of = detail::required<std::string>(rec, "as_of", at);
    parse_behaviours(f, rec.at("behaviours"), at);
    f.loss_full = parse_loss(rec.at("losses"), "full", at);
    f.loss_chunked = parse_loss(rec.at("losses"), "chunked", at);
    for (const auto& seen : out)
      if (seen.id == f.id) throw data_error(at + ": duplicate id '" + f.id + "'");
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace

std::vector<FrameworkProfile> parse_frameworks(const json& doc, const std::string& origin) {
  // The schema holds every range and enum; a document that passes it has the right shape.
  const json& schema = embedded_json("data/schema/frameworks.schema.json");
  const auto issues = check_schema(schema, doc);
  if (!issues.empty())
    throw data_error(origin + ": " + (issues[0].pointer.empty() ? "/" : issues[0].pointer) + ": " +
                     issues[0].message);
  return read_frameworks(doc, origin);
}

const std::vector<FrameworkProfile>& shipped_frameworks() {
  static const std::vector<FrameworkProfile> all = [] {
    const std::string origin = "data/frameworks.json";
    return read_frameworks(embedded_json(origin), origin);  // checked by the tests
  }();
  return all;
}

std::vector<std::string> framework_names() {
  std::vector<std::string> out;
  for (const auto& f : shipped_frameworks()) out.push_back(f.id);
  return out;
}

const FrameworkProfile& framework_profile(std::string_view id) {
  const std::string key = to_lower(id);
  for (const auto& f : shipped_frameworks())
    if (f.id == key) return f;
  std::string list;
  for (const auto& n : framework_names()) list += (list.empty() ? "" : "|") + n;
  throw usage_error("unknown framework '" + std::string(id) + "'" +
                    did_you_mean(id, framework_names()) + " (expected " + list + ")");
}

}  // namespace gpusel
