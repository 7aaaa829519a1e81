// Reading the calibration CSV and translating each row's configuration, column by column,
// into a Workload. The rules are per column, never per row id.
#include "calibration_rows.hpp"

#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "gpusel/base/text.hpp"

namespace calibration {
namespace {

using gpusel::Mode;
using gpusel::Precision;
using gpusel::Workload;

std::vector<std::string> split_record(std::istream& in) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (int ch; (ch = in.get()) != EOF;) {
    if (quoted) {
      if (ch == '"' && in.peek() == '"')
        cells.back() += char(in.get());
      else if (ch == '"')
        quoted = false;
      else
        cells.back() += char(ch);
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      cells.emplace_back();
    } else if (ch == '\n') {
      return cells;
    } else if (ch != '\r') {
      cells.back() += char(ch);
    }
  }
  return cells.size() == 1 && cells[0].empty() ? std::vector<std::string>{} : cells;
}

bool has(const std::string& text, const std::string& word) {
  return gpusel::to_lower(text).find(gpusel::to_lower(word)) != std::string::npos;
}

double number(const std::string& s) {
  std::size_t used = 0;
  double v = std::stod(s, &used);
  return v;
}

// Model names of the data -> preset ids of data/models.json.
const std::map<std::string, std::string>& preset_ids() {
  static const std::map<std::string, std::string> ids{
      {"phi-1.5", "phi-1.5"},
      {"StableLM-base-alpha-3B", "stablelm-base-alpha-3b"},
      {"Llama-2-7B", "llama-2-7b"},
      {"Llama-2-13B", "llama-2-13b"},
      {"Llama-2-70B", "llama-2-70b"},
      {"Falcon-40B", "falcon-40b"},
      {"CodeLlama-34B", "codellama-34b"},
      {"Llama-3-8B", "llama-3-8b"},
      {"Mistral-7B-v0.1", "mistral-7b-v0.1"},
      {"Gemma-2B", "gemma-2b"},
      {"Gemma-7B", "gemma-7b"},
      {"Gemma-2-9B", "gemma-2-9b"},
      {"Phi-3-mini-4k-instruct", "phi-3-mini-4k"},
      {"TinyLlama-1.1B", "tinyllama-1.1b"},
      {"Llama-3.2-3B", "llama-3.2-3b"},
      {"Llama-3.2-1B", "llama-3.2-1b"},
      {"bert-large-uncased", "bert-large-uncased"},
      {"bert-large-uncased (seq-cls)", "bert-large-uncased"},
      {"bigcode/octocoder", "octocoder"},
      {"Qwen-1.8B", "qwen-1.8b"},
      {"Qwen-1.8B-Chat", "qwen-1.8b"},
      {"Qwen-7B", "qwen-7b"},
      {"Qwen-7B-Chat", "qwen-7b"},
      {"Qwen-7B(-Chat)", "qwen-7b"},
      {"Qwen-14B", "qwen-14b"},
      {"Qwen-14B-Chat", "qwen-14b"},
      {"Qwen-72B", "qwen-72b"},
      {"Qwen-72B-Chat", "qwen-72b"},
      {"llama-7b (decapoda)", "llama-7b"},
      {"llama-13b (decapoda)", "llama-13b"},
      {"LLaMA-7B", "llama-7b"}};
  return ids;
}

// The preset a row's model names: the table above, else the name normalised the way preset
// ids are written ("meta-llama/Llama-3.1-8B" -> llama-3.1-8b, "ResNet-50" -> resnet-50).
std::string preset_id(const std::string& name, const std::vector<gpusel::ModelArch>& presets) {
  if (auto it = preset_ids().find(name); it != preset_ids().end()) return it->second;
  std::string n = gpusel::to_lower(name);
  n = std::regex_replace(n, std::regex(R"(\s*\(.*\))"), "");
  if (auto slash = n.rfind('/'); slash != std::string::npos) n = n.substr(slash + 1);
  n = std::regex_replace(n, std::regex(R"([\s_]+)"), "-");
  for (const std::string& candidate :
       {n, std::regex_replace(n, std::regex(R"(-(hf|instruct|chat|base)$)"), "")})
    for (const auto& m : presets)
      if (m.id == candidate || gpusel::to_lower(m.name) == candidate) return m.id;
  return "";
}

std::string mode_or_skip(const Row& r, Mode& mode) {
  const std::string m = r.at("method");
  if (m == "LoRA")
    mode = Mode::lora;
  else if (m == "QLoRA" || m == "LoRA (8-bit base)")
    mode = Mode::qlora;
  else if (m == "full")
    mode = Mode::full;
  else if (m == "inference" || m == "weights loaded (no compute)")
    mode = Mode::inference;
  else if (m == "inference (weights only)")
    return "a file size of GGUF Q4_0 weights, not a run";
  else
    return "measures the CUDA context alone (the constant's source, not a workload)";
  return "";
}

void set_precision(const Row& r, Workload& w) {
  const std::string p = r.at("weights_precision") + " " + r.at("quant");
  if (has(p, "int8") || has(p, "8-bit"))
    w.precision = Precision::int8;
  else if (has(p, "4") || has(p, "nf4") || has(p, "gptq"))
    w.precision = Precision::int4;
  else if (has(p, "amp"))  // torch AMP: fp32 weights, fp16 autocast
    w.precision = Precision::fp16, w.amp = true;
  else if (has(p, "fp32") || has(p, "tf32"))  // TF32 computes on fp32 tensors
    w.precision = Precision::fp32;
  else
    w.precision = Precision::bf16;
  if (has(p, "gptq")) w.precision = has(p, "int8") ? Precision::int8 : Precision::int4;
  // NF4 without the nested quantization unless the row says "-dq"/"double quant";
  // GPTQ's group-128 scales and zeros (~0.16 bit) are closest to the double-quant case.
  w.double_quant = has(p, "-dq") || has(p, "double quant") || has(p, "gptq");
}

// The cards the data names -> ids of data/gpus.json, so that a bound row is judged on the
// card as `gpusel fit --gpu ID` sees it (a T4's ECC keeps 1/16 of its GDDR6: 15360 MiB).
// The V100s and A100s are HBM cards: either form factor has the same usable memory.
std::string catalog_gpu_id(const std::string& gpu) {
  static const std::map<std::string, std::string> ids{{"T4 16GB", "t4"},
                                                      {"V100 16GB", "v100-pcie-16gb"},
                                                      {"V100 32GB", "v100-sxm2-32gb"},
                                                      {"A100 40GB", "a100-40gb-sxm"},
                                                      {"A100 80GB", "a100-80gb-sxm"},
                                                      {"RTX A6000 48GB", "rtx-a6000"},
                                                      {"RTX 4090 24GB", "rtx-4090"}};
  const auto it = ids.find(gpu);
  return it == ids.end() ? "" : it->second;
}

// "padded to longest in batch": the peak comes from the longest sample, which the
// location lists per tokenizer ("longest sample: Llama2 1304 tok, phi1.5 1044, ...").
int longest_sample(const Row& r) {
  const std::string loc = r.at("location"), model = gpusel::to_lower(r.at("model"));
  std::smatch m;
  if (has(model, "phi") && std::regex_search(loc, m, std::regex(R"(phi1\.5 (\d+))")))
    return std::stoi(m[1]);
  if (has(model, "stablelm") && std::regex_search(loc, m, std::regex(R"(StableLM (\d+))")))
    return std::stoi(m[1]);
  std::regex_search(loc, m, std::regex(R"(Llama2 (\d+))"));
  return m.empty() ? 1304 : std::stoi(m[1]);
}

// Tokens per sample; inference rows also get a prompt length. Empty string = expressed.
std::string set_lengths(const Row& r, Workload& w) {
  const std::string s = r.at("seq_len");
  std::smatch m;
  if (s.empty()) {
    w.seq_len = 1;  // weights loaded, nothing run
  } else if (std::regex_match(s, m, std::regex(R"(<?=?(\d+))"))) {
    w.seq_len = std::stoi(m[1]);
  } else if (has(s, "padded to longest")) {
    w.seq_len = longest_sample(r);
  } else if (has(s, "long prompt")) {
    return "prompt length not stated ('a few thousand tokens')";
  } else if (std::regex_search(s, m, std::regex(R"(prompt (\d+) \+ gen (\d+))"))) {
    w.prompt_len = std::stoi(m[1]), w.seq_len = w.prompt_len + std::stoi(m[2]);
  } else if (std::regex_search(s, m, std::regex(R"(gen (\d+))"))) {
    w.seq_len = std::stoi(m[1]) + 32, w.prompt_len = 32;  // short prompt, then generation
  } else if (has(s, "short prompt")) {
    // litgpt generate's default max_new_tokens is 50; the HF tutorial generates 60.
    const int gen = has(s, "60 new") ? 60 : 50;
    w.seq_len = gen + 20, w.prompt_len = 20;
  } else {
    return "sequence length '" + s + "' not understood";
  }
  return "";
}

void set_training(const Row& r, Workload& w) {
  const std::string settings = r.at("other_settings") + " " + r.at("location");
  std::smatch img;
  if (std::regex_search(r.at("other_settings"), img, std::regex(R"(image (\d+))")))
    w.image_size = std::stoi(img[1]);
  const std::string opt = r.at("optimizer");
  const bool paged = has(opt, "paged");
  w.optimizer = has(opt, "adafactor") ? gpusel::Optimizer::adafactor
                : has(opt, "sgd")     ? gpusel::Optimizer::sgd
                : has(opt, "8bit")
                    ? (paged ? gpusel::Optimizer::paged_adamw_8bit : gpusel::Optimizer::adamw_8bit)
                : paged ? gpusel::Optimizer::paged_adamw
                        : gpusel::Optimizer::adamw;
  w.batch = r.at("micro_batch").empty() ? 1 : std::stoi(r.at("micro_batch"));
  w.grad_accum = r.at("grad_accum").empty() ? 1 : std::stoi(r.at("grad_accum"));

  w.grad_ckpt = r.at("grad_ckpt") == "on";
  std::smatch m;
  w.lora_rank = std::regex_search(settings, m, std::regex(R"(r=(\d+))")) ? std::stoi(m[1]) : 8;
  w.lora_targets = has(settings, "all linear") || has(settings, "all layers")
                       ? gpusel::LoraTargets::all_linear
                       : gpusel::LoraTargets::qv;  // litgpt's and PEFT's default
  w.train_embeddings = has(r.at("other_settings"), "(emb)");
}

void set_parallel(const Row& r, Workload& w) {
  const std::string settings = r.at("other_settings");
  w.gpus = r.at("n_gpus").empty() ? 1 : std::stoi(r.at("n_gpus"));
  if (has(settings, "fsdp"))
    w.shard = gpusel::Shard::fsdp;
  else if (has(settings, "zero3"))
    w.shard = gpusel::Shard::zero3;
  // Qwen's only full-parameter script is DeepSpeed's (finetune_ds.sh), on any GPU count.
  else if (w.mode == Mode::full && (w.gpus > 1 || has(r.at("source"), "qwen")))
    w.shard = gpusel::Shard::zero3;
  if (w.mode == Mode::full && w.shard != gpusel::Shard::none && w.precision == Precision::bf16)
    w.amp = true;  // DeepSpeed/FSDP mixed precision keeps fp32 master weights
}

// FlashAttention/SDPA where the source says so or its framework uses it by default.
void set_attention(const Row& r, Workload& w) {
  const std::string text = r.at("location") + " " + r.at("other_settings");
  bool flash =
      has(r.at("source"), "litgpt") || has(text, "flash-attn 2") || has(text, "sdpa flash");
  if (has(text, "no flash") || has(text, "eager attention")) flash = false;
  w.flash_attn = flash;
}

std::string set_measurement(const Row& r, Case& c) {
  const std::string metric = r.at("metric"), status = r.at("status"), per = r.at("per");
  if (has(metric, "allocated") || has(metric, "active"))  // torchtune logs peak_memory_active
    c.metric = Metric::allocated;
  else if (has(metric, "reserved"))
    c.metric = Metric::reserved;
  else if (has(metric, "nvidia-smi"))
    c.metric = Metric::total;
  else if (has(metric, "not stated") || has(metric, "fit"))
    c.metric = Metric::reserved;
  else
    return "metric '" + metric + "' is not a device peak";
  if (has(status, "oom"))
    c.kind = Kind::oom;
  else if (has(status, "fit-bound"))
    c.kind = Kind::fits;
  c.suspect = has(status, "flagged");
  if (c.kind != Kind::point) {
    std::smatch m;
    const std::string gpu = r.at("gpu");
    if (!std::regex_search(gpu, m, std::regex(R"((\d+)\s*GB)"))) return "GPU size unknown";
    c.capacity_bytes = std::stod(m[1]) * 1e9;
    c.gpu_id = catalog_gpu_id(gpu);
    return "";
  }
  if (r.at("mem_GB_1e9").empty()) return "no measured value";
  c.measured_bytes = number(r.at("mem_GB_1e9")) * 1e9;
  // Qwen's README "GB" are GiB (bytes / 1024^3): its Qwen-7B BF16 row at 512 tokens reads
  // 15.2, below the 15.44e9 bytes of the weights alone.
  if (has(r.at("source"), "QwenLM")) c.measured_bytes *= 1.073741824;
  if (has(per, "total") || has(per, "all gpus")) c.measured_bytes /= c.workload.gpus;
  std::smatch m;
  const std::string where = r.at("location") + " " + r.at("other_settings");
  if (std::regex_search(where, m, std::regex(R"(~?(\d+) MiB (CUDA )?context)")))
    c.context_bytes = std::stod(m[1]) * 1048576.0;
  return "";
}

}  // namespace

std::vector<Row> read_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  const auto header = split_record(in);
  std::vector<Row> rows;
  for (auto cells = split_record(in); !cells.empty(); cells = split_record(in)) {
    if (cells.size() != header.size())
      throw std::runtime_error(path + ": row with " + std::to_string(cells.size()) + " cells");
    Row row;
    for (std::size_t i = 0; i < header.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

Conversion convert(const Row& row, const std::vector<gpusel::ModelArch>& presets) {
  Case c;
  c.id = row.at("id"), c.model = row.at("model"), c.source = row.at("source");
  c.status = row.at("status");
  Workload& w = c.workload;
  if (auto why = mode_or_skip(row, w.mode); !why.empty()) return {std::nullopt, why};
  const std::string id = preset_id(row.at("model"), presets);
  if (id.empty()) return {std::nullopt, "no preset for model " + row.at("model")};
  w.model = gpusel::require_model(presets, id);
  w.model_from_preset = true;
  set_precision(row, w);
  if (auto why = set_lengths(row, w); !why.empty()) return {std::nullopt, why};
  c.framework = framework_of(row);
  // The framework's loss and recipe defaults; the row's stated settings override below.
  gpusel::apply_framework(w, gpusel::framework_profile(c.framework), false, true);
  apply_source_versions(row, w);
  set_training(row, w);
  // lit-gpt/litgpt step a quantized model with bnb.optim.PagedAdamW whatever optimizer the row
  // names (Lightning-AI/litgpt@064fd523, 2023-08-21, finetune/lora.py; litgpt/finetune/lora.py
  // @58c5b188 line 180 when the config-hub table was measured).
  if (c.framework == "litgpt" && w.mode == Mode::qlora)
    w.optimizer = gpusel::Optimizer::paged_adamw;
  if (w.model.cnn) c.framework = "pytorch";  // a plain training loop: no framework profile
  // Every inference row was measured in PyTorch (transformers' generate, litgpt's): its caching
  // allocator, the whole prompt in one forward pass; not llama.cpp, the batch-1 default.
  if (w.mode == Mode::inference) w.engine = "transformers";
  set_parallel(row, w);
  set_attention(row, w);
  // Several GPUs without a sharding strategy: HF's naive model parallelism (device_map), the
  // layers split over the cards, as --shard none lays it out.
  if (w.gpus > 1 && gpusel::is_training(w.mode) && w.shard == gpusel::Shard::none)
    w.shard_given = true;
  if (auto why = set_measurement(row, c); !why.empty()) return {std::nullopt, why};
  // Development used the Qwen and Hugging Face rows; litgpt's were held out until the end.
  // Rows whose status says held-out (our own H200 run, 2026-12-04) were recorded after the
  // estimator's constants were set and never tuned on.
  c.held_out = has(c.source, "litgpt") || has(c.status, "held-out");
  return {c, ""};
}

const char* to_string(Metric m) {
  switch (m) {
    case Metric::allocated:
      return "allocated";
    case Metric::reserved:
      return "reserved";
    case Metric::total:
      return "device total";
  }
  return "?";
}

}  // namespace calibration
