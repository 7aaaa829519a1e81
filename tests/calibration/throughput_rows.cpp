// Mapping of throughput_measured.csv rows to cases. Architectures are the published
// configurations (Llama/Mistral: litgpt config.py as tabulated in shared ESTIMATOR.md; MPT:
// llm-foundry benchmarking yamls; GPT-3: Brown et al. 2020 Table 2.1; BERT-large: Devlin et
// al. 2019; Transformer-XL large: Dai et al. 2019 WT103 config).
#include "throughput_rows.hpp"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace tput_calibration {
namespace {

using gpusel::Mode;
using gpusel::ModelArch;
using gpusel::Precision;
using gpusel::Shard;

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

void chomp(std::string& s) {  // the CSV has CRLF line ends
  if (!s.empty() && s.back() == '\r') s.pop_back();
}

std::vector<std::string> split_line(const std::string& line, std::istream& in) {
  std::vector<std::string> cells(1);
  std::string text = line;
  chomp(text);
  bool quoted = false;
  for (std::size_t i = 0;; ++i) {
    if (i == text.size()) {
      std::string more;
      if (!quoted || !std::getline(in, more)) break;
      chomp(more);
      text += "\n" + more;  // a quoted cell spans lines
    }
    const char ch = text[i];
    if (quoted && ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
      cells.back() += '"';
      ++i;
    } else if (ch == '"') {
      quoted = !quoted;
    } else if (ch == ',' && !quoted) {
      cells.emplace_back();
    } else {
      cells.back() += ch;
    }
  }
  return cells;
}

struct Arch {
  const char* key;
  const char* kind;
  double params_b;
  int layers, hidden, heads, kv_heads, intermediate;
  long vocab;
  bool tied;
  const char* mlp;
  const char* norm;
};

constexpr Arch kArchs[] = {
    {"llama-2-7b", "decoder", 6.74, 32, 4096, 32, 32, 11008, 32000, false, "swiglu", "rmsnorm"},
    {"llama-2-13b", "decoder", 13.02, 40, 5120, 40, 40, 13824, 32000, false, "swiglu", "rmsnorm"},
    {"llama-2-70b", "decoder", 68.98, 80, 8192, 64, 8, 28672, 32000, false, "swiglu", "rmsnorm"},
    {"llama-3-8b", "decoder", 8.03, 32, 4096, 32, 8, 14336, 128256, false, "swiglu", "rmsnorm"},
    {"llama-3-70b", "decoder", 70.55, 80, 8192, 64, 8, 28672, 128256, false, "swiglu", "rmsnorm"},
    {"mistral-7b", "decoder", 7.24, 32, 4096, 32, 8, 14336, 32000, false, "swiglu", "rmsnorm"},
    {"mpt-1b", "decoder", 1.316, 24, 2048, 16, 16, 8192, 50368, true, "gelu", "layernorm"},
    {"mpt-7b", "decoder", 6.659, 32, 4096, 32, 32, 16384, 50368, true, "gelu", "layernorm"},
    {"mpt-13b", "decoder", 12.854, 40, 5120, 40, 40, 20480, 50368, true, "gelu", "layernorm"},
    {"mpt-30b", "decoder", 29.975, 48, 7168, 64, 64, 28672, 50368, true, "gelu", "layernorm"},
    {"mpt-70b", "decoder", 64.862, 80, 8192, 64, 64, 32768, 50368, true, "gelu", "layernorm"},
    {"gpt-3-175b", "decoder", 175, 96, 12288, 96, 96, 49152, 50257, true, "gelu", "layernorm"},
    {"bert-large", "encoder", 0.335, 24, 1024, 16, 16, 4096, 30522, true, "gelu", "layernorm"},
    {"transformer-xl-large", "decoder", 0.52, 18, 1024, 16, 16, 4096, 267735, true, "gelu",
     "layernorm"},
};

std::string arch_key(const std::string& model) {
  std::string m = model;
  std::transform(m.begin(), m.end(), m.begin(), ::tolower);
  if (has(m, "transformer-xl")) return "transformer-xl-large";
  if (has(m, "bert")) return "bert-large";
  for (const char* mpt : {"mpt-1b", "mpt-7b", "mpt-13b", "mpt-30b", "mpt-70b"})
    if (has(m, mpt)) return mpt;
  if (has(m, "175b")) return "gpt-3-175b";
  if (has(m, "mistral")) return "mistral-7b";
  const bool v3 = has(m, "llama 3");
  if (has(m, "70b")) return v3 ? "llama-3-70b" : "llama-2-70b";
  if (has(m, "13b")) return "llama-2-13b";
  return v3 || has(m, "8b") ? "llama-3-8b" : "llama-2-7b";
}

ModelArch arch_for(const std::string& model) {
  const std::string key = arch_key(model);
  for (const Arch& a : kArchs) {
    if (key != a.key) continue;
    ModelArch m;
    m.id = m.name = a.key;
    m.kind = a.kind;
    m.params = a.params_b * 1e9;
    m.layers = a.layers, m.hidden = a.hidden, m.heads = a.heads, m.kv_heads = a.kv_heads;
    m.head_dim = a.hidden / a.heads, m.intermediate = a.intermediate, m.vocab = a.vocab;
    m.tied_embeddings = a.tied, m.mlp = a.mlp, m.norm = a.norm;
    return m;
  }
  throw std::logic_error("no architecture for " + model);
}

// Row gpu names -> catalog ids. Where the row leaves the variant open, the choice is noted.
const std::map<std::string, std::pair<std::string, std::string>> kCards = {
    {"RTX 4090", {"rtx-4090", ""}},
    {"RTX 4090 (PCIe)", {"rtx-4090", ""}},
    {"RTX 4090 (PCIe, no NVLink)", {"rtx-4090", ""}},
    {"RTX 3090", {"rtx-3090", "NVLink bridge not stated: PCIe assumed"}},
    {"RTX 3090 Ti", {"rtx-3090-ti", ""}},
    {"RTX A6000", {"rtx-a6000", ""}},
    {"RTX 6000 Ada", {"rtx-6000-ada", ""}},
    {"RTX 6000 Ada (PCIe)", {"rtx-6000-ada", ""}},
    {"RTX 4070 Laptop GPU 8GB", {"rtx-4070-laptop", ""}},
    {"Tesla P40 24GB", {"tesla-p40", ""}},
    {"Quadro RTX 8000 (NVLink)", {"quadro-rtx-8000", ""}},
    {"V100 16GB", {"v100-sxm2-32gb", "V100 variant not stated: SXM2 rates assumed"}},
    {"A100 40GB", {"a100-40gb-sxm", "MosaicML cluster: SXM"}},
    {"A100 80GB", {"a100-80gb-sxm", "MosaicML cluster: SXM"}},
    {"A100 80GB SXM4", {"a100-80gb-sxm", ""}},
    {"A100 80GB PCIe", {"a100-80gb-pcie", ""}},
    {"A100 (PCIe interconnect per source)",
     {"a100-80gb-pcie", "A100 memory not stated: 80GB (70B fp16 on 2 cards needs >40 GB each)"}},
    {"H100 80GB", {"h100-sxm", "MosaicML cluster: SXM"}},
    {"H100 80GB PCIe", {"h100-pcie", "NVLink bridge not stated: PCIe assumed"}},
    {"H100 80GB SXM5", {"h100-sxm", ""}},
    {"H100 80GB SXM5 (NVLink)", {"h100-sxm", ""}},
    {"H100 SXM 80GB (DGX-H100)", {"h100-sxm", ""}},
    {"RX 7900 XTX", {"rx-7900-xtx", ""}},
    {"Apple M2 Ultra (192GB)", {"apple-m2-ultra", "GPU core count not stated: 76-core assumed"}},
    {"Apple M2 Ultra (76-core GPU)", {"apple-m2-ultra", ""}},
    {"Apple M2 Max (30-core GPU)", {"apple-m2-max", ""}},
    {"Apple M4 Max (40-core GPU)", {"apple-m4-max", ""}},
    {"Apple M4 Pro (20-core GPU)", {"apple-m4-pro", ""}},
};

int first_int(const std::string& s, int fallback) {
  std::smatch m;
  return std::regex_search(s, m, std::regex(R"(\d+)")) ? std::stoi(m.str()) : fallback;
}

Precision precision_of(const std::string& p) {
  if (has(p, "FP8")) return Precision::fp8;
  if (has(p, "Q4") || has(p, "int4") || has(p, "4-bit") || has(p, "GPTQ")) return Precision::int4;
  if (has(p, "Q8")) return Precision::int8;
  if (has(p, "BF16")) return Precision::bf16;
  return Precision::fp16;
}

// Prompt and generated lengths: "tg128", "pp512", "in 2048 / out 512", "256 generated".
std::pair<int, int> prompt_and_output(const std::string& s) {
  std::smatch m;
  if (std::regex_search(s, m, std::regex(R"(tg(\d+))"))) return {1, std::stoi(m[1])};
  if (std::regex_search(s, m, std::regex(R"(pp(\d+))"))) return {std::stoi(m[1]), 0};
  if (std::regex_search(s, m, std::regex(R"(in (\d+) / out (\d+))")))
    return {std::stoi(m[1]), std::stoi(m[2])};
  if (std::regex_search(s, m, std::regex(R"((\d+) generated)")))
    return {7, std::stoi(m[1])};  // MLC's prompt "What is the meaning of life?" ~7 tokens
  return {first_int(s, 2048), 0};
}

int micro_batch(const Row& r) {
  const std::string& b = r.at("batch");
  if (has(b, "per-GPU batch as 1-GPU run")) return has(r.at("gpu"), "6000 Ada") ? 32 : 48;
  return first_int(b, 1);
}

gpusel::Workload workload_for(const Row& r, bool inference) {
  gpusel::Workload w;
  w.model = arch_for(r.at("model"));
  w.model_from_preset = true;
  const std::string& method = r.at("method");
  const std::string& how = method + " " + r.at("framework");
  w.precision = precision_of(r.at("precision_or_quant"));
  w.batch = inference ? 1 : micro_batch(r);
  w.gpus = std::stoi(r.at("n_gpus"));
  if (inference) {
    w.mode = Mode::inference;
    const auto [prompt, out] = prompt_and_output(r.at("seq_len"));
    w.prompt_len = prompt, w.seq_len = prompt + out;
    w.shard = has(how, "tensor parallel") && w.gpus > 1 ? Shard::tp : Shard::none;
    return w;
  }
  w.mode = has(method, "LoRA") ? Mode::lora : Mode::full;
  w.amp = has(r.at("precision_or_quant"), "AMP");
  w.seq_len = first_int(r.at("seq_len"), 2048);
  const std::string notes = r.at("notes") + " " + method;
  w.grad_ckpt = has(notes, "act. ckpt") && !has(notes, "no act. ckpt");
  // NeMo runs with a tensor-parallel degree above 1 are model parallel (TP x PP); the
  // others use Megatron's distributed optimizer (ZeRO-1-like).
  const bool model_parallel = std::regex_search(method, std::regex(R"(TP[2-9])"));
  w.shard = has(how, "FSDP")   ? Shard::fsdp
            : model_parallel   ? Shard::tp
            : has(how, "NeMo") ? Shard::zero1
                               : Shard::ddp;
  if (w.gpus == 1) w.shard = Shard::none;
  return w;
}

// The row's value as total tokens/s (training rows) given its unit.
double total_tokens(const Row& r, double value, int n) {
  const std::string& unit = r.at("unit");
  if (has(unit, "sequences")) value *= first_int(r.at("seq_len"), 1);
  if (has(unit, "/GPU")) value *= n;
  return value;
}

bool is_inference_row(const Row& r) {
  return r.at("kind") == "decode" || r.at("kind") == "prefill" || has(r.at("method"), "inference");
}

// The 1-GPU (or smallest) run a speedup row is measured against: from its notes, else the
// same source/model/card series' smallest count. {total tokens/s, count}; count 0 = none.
std::pair<double, int> series_base(const Row& r, const std::vector<Row>& rows) {
  std::smatch m;
  const std::string& notes = r.at("notes");
  if (std::regex_search(notes, m, std::regex(R"(1 GPU \((\d+(?:\.\d+)?)\))")) ||
      std::regex_search(notes, m, std::regex(R"(1 GPU (\d+(?:\.\d+)?)(?![\dx.]))")))
    return {total_tokens(r, std::stod(m[1]), 1), 1};
  const Row* base = nullptr;
  for (const Row& o : rows)
    if (o.at("kind") == r.at("kind") && o.at("source") == r.at("source") &&
        o.at("model") == r.at("model") && o.at("gpu") == r.at("gpu") &&
        (!base || std::stoi(o.at("n_gpus")) < std::stoi(base->at("n_gpus"))))
      base = &o;
  if (!base) return {0, 0};
  const int n = std::stoi(base->at("n_gpus"));
  return {total_tokens(*base, std::stod(base->at("value")), n), n};
}

}  // namespace

std::vector<Row> read_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split_line(line, in);
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    chomp(line);
    if (line.empty()) continue;
    const auto cells = split_line(line, in);
    if (cells.size() != header.size())
      throw std::runtime_error(path + ": ragged row starting '" + line.substr(0, 20) + "'");
    Row r;
    for (std::size_t i = 0; i < cells.size(); ++i) r[header[i]] = cells[i];
    rows.push_back(std::move(r));
  }
  return rows;
}

std::map<std::string, bool> split_by_source(const std::vector<Row>& rows) {
  std::vector<std::string> kinds;
  for (const Row& r : rows)
    if (std::find(kinds.begin(), kinds.end(), r.at("kind")) == kinds.end())
      kinds.push_back(r.at("kind"));
  std::map<std::string, bool> fit;
  for (const std::string& kind : kinds) {
    bool next_fit = true;
    for (const Row& r : rows)
      if (r.at("kind") == kind && !fit.count(r.at("source"))) {
        fit[r.at("source")] = next_fit;
        next_fit = !next_fit;
      }
  }
  return fit;
}

std::vector<Conversion> convert_all(const std::vector<Row>& rows, const gpusel::Catalog& catalog) {
  const auto halves = split_by_source(rows);
  std::vector<Conversion> out;
  for (const Row& r : rows) {
    Conversion cv{std::nullopt, "", r.at("id"), r.at("source"), halves.at(r.at("source"))};
    const auto card = kCards.find(r.at("gpu"));
    const gpusel::Gpu* gpu = card == kCards.end() ? nullptr : catalog.find(card->second.first);
    const bool inference = is_inference_row(r);
    const bool train_abs = r.at("kind") == "train";
    if (!gpu) {
      cv.skip_reason = "card '" + r.at("gpu") + "' not in the catalog" +
                       (card == kCards.end() ? "" : " (id " + card->second.first + ")");
    } else if (train_abs && has(r.at("model"), "Transformer-XL")) {
      cv.skip_reason =
          "Transformer-XL: relative-position attention and adaptive softmax are "
          "not expressible as a ModelArch, so FLOPs per token are unknown";
    } else {
      Case c;
      c.id = r.at("id"), c.kind = r.at("kind"), c.source = r.at("source"), c.fit = cv.fit;
      c.gpu = *gpu, c.gpu_id = gpu->id, c.note = card->second.second;
      c.workload = workload_for(r, inference);
      c.count = c.workload.gpus;
      c.linked = (has(r.at("gpu"), "NVLink") && !has(r.at("gpu"), "no NVLink")) ||
                 gpu->interconnect.kind == "nvlink";
      const double value = std::stod(r.at("value"));
      if (inference) {
        c.quantity = r.at("kind") == "prefill" || has(r.at("method"), "prefill") ? Quantity::prefill
                                                                                 : Quantity::decode;
        c.measured = value;
      } else if (train_abs) {
        c.quantity = Quantity::train_per_gpu;
        c.measured = total_tokens(r, value, c.count) / c.count;
      } else {
        const auto [base_total, base_n] = series_base(r, rows);
        c.quantity = Quantity::speedup;
        c.base_count = base_n;
        c.measured = base_total > 0 ? total_tokens(r, value, c.count) / base_total : 0;
        if (base_n == 0 || base_n == c.count) {
          cv.skip_reason = "series base (speedup 1 by definition)";
          out.push_back(cv);
          continue;
        }
      }
      cv.c = std::move(c);
    }
    out.push_back(std::move(cv));
  }
  return out;
}

const char* to_string(Quantity q) {
  switch (q) {
    case Quantity::train_per_gpu:
      return "train tok/s/GPU";
    case Quantity::speedup:
      return "speedup";
    case Quantity::prefill:
      return "prefill tok/s";
    case Quantity::decode:
      return "decode tok/s";
  }
  return "?";
}

}  // namespace tput_calibration
