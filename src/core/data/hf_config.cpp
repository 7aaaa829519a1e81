// Hugging Face config.json -> ModelArch. Field names per model_type follow the transformers
// configuration classes (configuration_<type>.py); defaults are taken only where those
// classes define them and configs omit them (noted at each use).
#include "gpusel/data/hf_config.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/json/json_source.hpp"
#include "hf_config_internal.hpp"

namespace gpusel {
namespace hf {

using nlohmann::json;

bool Cfg::has(const char* key) const { return j.contains(key) && !j[key].is_null(); }

void Cfg::fail(const std::string& what) const {
  throw data_error(path + ": " + what + " (model_type " + type + ")");
}

int Cfg::count(const char* key, long max) const {
  if (!has(key)) fail("missing field '" + scope + key + "'");
  // Whole JSON integers only, range-checked before any narrowing: 1e10 layers or a 2^64
  // vocabulary is refused with the range named, never truncated (the limits are models.json's).
  const json& v = j[key];
  const bool in_range = v.is_number_unsigned()  ? v.get<std::uint64_t>() <= std::uint64_t(max)
                        : v.is_number_integer() ? v.get<std::int64_t>() <= max
                                                : false;
  if (!v.is_number_integer() || !in_range || v.get<std::int64_t>() < 1)
    fail("field '" + scope + key + "' must be a whole number from 1 to " + std::to_string(max) +
         " (got " + quote_input(v.dump()) + ")");
  return static_cast<int>(v.get<std::int64_t>());
}

std::optional<int> Cfg::maybe_count(const char* key, long max) const {
  if (!has(key)) return std::nullopt;
  return count(key, max);
}

std::optional<bool> Cfg::flag(const char* key) const {
  if (!has(key)) return std::nullopt;
  if (!j[key].is_boolean()) fail("field '" + scope + key + "' must be true or false");
  return j[key].get<bool>();
}

std::string Cfg::text(const char* key, const std::string& fallback) const {
  if (!has(key)) return fallback;
  if (!j[key].is_string()) fail("field '" + scope + key + "' must be a string");
  return j[key].get<std::string>();
}

}  // namespace hf

namespace {

using nlohmann::json;

const std::vector<std::string>& types() {
  static const std::vector<std::string> t{
      "llama",       "mistral", "mixtral", "qwen2",    "qwen2_moe",   "qwen3",      "qwen3_moe",
      "qwen3_next",  "gemma",   "gemma2",  "gemma3",   "gemma3_text", "phi3",       "deepseek_v2",
      "deepseek_v3", "kimi_k2", "gpt_oss", "glm4_moe", "llama4",      "llama4_text"};
  return t;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// The widths, heads and vocabulary every supported type names the same way.
void read_common(ModelArch& m, const hf::Cfg& c) {
  // The bounds are data/schema/models.schema.json's, so a config reads as a preset would.
  m.layers = c.count("num_hidden_layers", 10000);
  m.hidden = c.count("hidden_size", 1048576);
  m.heads = c.count("num_attention_heads", 65536);
  // transformers: num_key_value_heads None means multi-head attention (one KV head per head).
  m.kv_heads = c.maybe_count("num_key_value_heads", 65536).value_or(m.heads);
  if (m.kv_heads > m.heads) c.fail("num_key_value_heads exceeds num_attention_heads");
  if (!c.has("head_dim") && m.hidden % m.heads != 0)
    c.fail("missing field '" + c.scope + "head_dim' (hidden_size is not a multiple of the heads)");
  m.head_dim = c.maybe_count("head_dim", 65536).value_or(m.hidden / m.heads);
  m.intermediate = c.count("intermediate_size", 16777216);
  m.vocab = c.count("vocab_size");
  m.max_context = c.count("max_position_embeddings");
  const bool gemma = c.type.rfind("gemma", 0) == 0;
  // Every supported config class defaults tie_word_embeddings to False except Gemma's.
  m.tied_embeddings = c.flag("tie_word_embeddings").value_or(gemma);
  m.mlp = gemma ? "geglu" : "swiglu";
  const std::string act = c.text(gemma ? "hidden_activation" : "hidden_act",
                                 c.text("hidden_act", gemma ? "gelu_pytorch_tanh" : "silu"));
  const bool known = gemma ? act.rfind("gelu", 0) == 0 : act == "silu" || act == "swish";
  if (!known) c.fail("hidden_act '" + act + "' is not the gated MLP this model_type has");
  // Qwen2's attention always has q/k/v biases; the others say so in attention_bias.
  m.qkv_bias =
      c.type == "qwen2" || c.type == "qwen2_moe" || c.flag("attention_bias").value_or(false);
}

// Gemma 3 multimodal: SigLIP vision tower (pre-norm ViT with biases, patch and position
// embeddings, post-norm) and the projector into the text width, as the preset counts it.
double gemma3_vision_params(const hf::Cfg& v, int text_hidden) {
  const double h = v.count("hidden_size"), i = v.count("intermediate_size");
  const double layers = v.count("num_hidden_layers"), patch = v.count("patch_size");
  const double side = v.count("image_size") / patch;
  const double block = 4 * h * h + 4 * h + 2 * h * i + i + h + 4 * h;
  const double embed = 3 * patch * patch * h + h + side * side * h;
  return layers * block + embed + 2 * h + h * text_hidden + h;
}

void read_model(ModelArch& m, const hf::Cfg& c) {
  read_common(m, c);
  hf::read_attention_kinds(m, c);
  hf::read_moe(m, c);
  hf::read_mla(m, c);
  hf::read_linear_attention(m, c);
}

// The id a config file's model goes by: its folder's name, else the file's. A file name is
// input data: control characters show as \xnn, so a name with a newline cannot forge a line
// of output ("x\nfits: ..."), and a long one is cut.
std::string model_id(const std::string& path) {
  const std::filesystem::path p(path);
  if (p.filename() == "config.json" && p.has_parent_path() && !p.parent_path().filename().empty())
    return quote_input(p.parent_path().filename().string(), 128);
  return quote_input(p.stem().string(), 128);
}

// Multimodal wrappers keep the decoder in text_config, written as a diff against the text
// config class's defaults (a missing text_config is all defaults, as transformers reads it).
json text_config(const json& config, const std::string& type, const std::string& path) {
  json text = config.contains("text_config") ? config["text_config"] : json::object();
  if (!text.is_object()) throw data_error(path + ": field 'text_config' must be an object");
  json d = type == "gemma3" ? hf::gemma3_text_defaults() : hf::llama4_text_defaults();
  d.merge_patch(text);
  return d;
}

}  // namespace

std::vector<std::string> hf_model_types() { return types(); }

ModelArch model_from_hf_config(const json& config, const std::string& path) {
  if (!config.is_object()) throw data_error(path + ": a config.json must be a JSON object");
  if (!config.contains("model_type") || !config["model_type"].is_string())
    throw data_error(path + ": missing field 'model_type' (is this a Hugging Face config.json?)");
  const std::string type = config["model_type"].get<std::string>();
  if (config.contains("_name_or_path") && !config["_name_or_path"].is_string())
    throw data_error(path + ": field '_name_or_path' must be a string");
  const auto& known = types();
  if (std::find(known.begin(), known.end(), type) == known.end())
    throw data_error(path + ": model_type '" + quote_input(type) +
                     "' is not supported (supported: " + join(known) +
                     "); use --params COUNT for an approximate shape");
  ModelArch m;
  m.id = model_id(path);
  m.name = config.value("_name_or_path", m.id);
  m.family = type;
  m.source = path;
  const bool nested = type == "gemma3" || type == "llama4";
  const json text = nested ? text_config(config, type, path) : config;
  const std::string text_type = type == "gemma3"   ? "gemma3_text"
                                : type == "llama4" ? "llama4_text"
                                                   : type;
  read_model(m, hf::Cfg{text, path, text_type, nested ? "text_config." : ""});
  if (type == "gemma3" && config.contains("vision_config"))
    m.vision_params = gemma3_vision_params(
        hf::Cfg{config["vision_config"], path, type, "vision_config."}, m.hidden);
  const ArchParams a = arch_params(m);
  m.params = a.total;
  if (m.moe) m.active_params = a.active;
  m.notes = "read from " + path + " (model_type " + type + "); parameters computed from the shape" +
            (type == "llama4" ? "; the vision encoder is not counted" : "");
  return m;
}

ModelArch read_hf_config(const std::string& path) {
  return hf_config_from_text(read_file(path), path);
}

ModelArch hf_config_from_text(std::string_view text, const std::string& path) {
  return model_from_hf_config(parse_located(text, path).doc, path);
}

}  // namespace gpusel
