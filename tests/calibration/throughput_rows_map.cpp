// How the wording of throughput_measured.csv maps to gpusel's terms: architectures (the
// published configurations: Llama/Mistral litgpt config.py as tabulated in shared
// ESTIMATOR.md; Llama 3.1 405B its config.json; MPT: llm-foundry benchmarking yamls; GPT-3:
// Brown et al. 2020 Table 2.1; GPT-2 124M: Hugging Face gpt2 config.json (n_layer 12, n_embd
// 768, n_head 12, vocab 50257, tied); BERT-large: Devlin et al. 2019; Transformer-XL large: Dai et
// al. 2019 WT103 config), catalog cards, precisions, engines and sequence lengths.
#include <algorithm>
#include <regex>
#include <stdexcept>

#include "gpusel/data/catalog.hpp"
#include "gpusel/data/models.hpp"
#include "gpusel/json/embedded.hpp"
#include "throughput_rows_map.hpp"

namespace tput_calibration {
namespace {

using gpusel::ModelArch;
using gpusel::Precision;

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
    {"llama-3.1-405b", "decoder", 405.85, 126, 16384, 128, 8, 53248, 128256, false, "swiglu",
     "rmsnorm"},
    {"mistral-7b", "decoder", 7.24, 32, 4096, 32, 8, 14336, 32000, false, "swiglu", "rmsnorm"},
    {"mpt-1b", "decoder", 1.316, 24, 2048, 16, 16, 8192, 50368, true, "gelu", "layernorm"},
    {"mpt-7b", "decoder", 6.659, 32, 4096, 32, 32, 16384, 50368, true, "gelu", "layernorm"},
    {"mpt-13b", "decoder", 12.854, 40, 5120, 40, 40, 20480, 50368, true, "gelu", "layernorm"},
    {"mpt-30b", "decoder", 29.975, 48, 7168, 64, 64, 28672, 50368, true, "gelu", "layernorm"},
    {"mpt-70b", "decoder", 64.862, 80, 8192, 64, 64, 32768, 50368, true, "gelu", "layernorm"},
    {"gpt-3-175b", "decoder", 175, 96, 12288, 96, 96, 49152, 50257, true, "gelu", "layernorm"},
    {"gpt-2-124m", "decoder", 0.124, 12, 768, 12, 12, 3072, 50257, true, "gelu", "layernorm"},
    {"bert-large", "encoder", 0.335, 24, 1024, 16, 16, 4096, 30522, true, "gelu", "layernorm"},
    {"transformer-xl-large", "decoder", 0.52, 18, 1024, 16, 16, 4096, 267735, true, "gelu",
     "layernorm"},
    // meta-llama/Llama-3.2-1B and -3B, Qwen/Qwen2.5-7B config.json (as data/models.json).
    {"llama-3.2-1b", "decoder", 1.236, 16, 2048, 32, 8, 8192, 128256, true, "swiglu", "rmsnorm"},
    {"llama-3.2-3b", "decoder", 3.213, 28, 3072, 24, 8, 8192, 128256, true, "swiglu", "rmsnorm"},
    {"qwen2.5-7b", "decoder", 7.616, 28, 3584, 28, 4, 18944, 152064, false, "swiglu", "rmsnorm"},
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), ::tolower);
  return s;
}

std::string arch_key(const std::string& model) {
  const std::string m = lower(model);
  if (has(m, "transformer-xl")) return "transformer-xl-large";
  if (has(m, "bert")) return "bert-large";
  if (has(m, "gpt-2")) return "gpt-2-124m";
  if (has(m, "3.2 1b")) return "llama-3.2-1b";
  if (has(m, "3.2 3b")) return "llama-3.2-3b";
  if (has(m, "qwen2.5 7b")) return "qwen2.5-7b";
  for (const char* mpt : {"mpt-1b", "mpt-7b", "mpt-13b", "mpt-30b", "mpt-70b"})
    if (has(m, mpt)) return mpt;
  if (has(m, "175b")) return "gpt-3-175b";
  if (has(m, "405b")) return "llama-3.1-405b";
  if (has(m, "mistral")) return "mistral-7b";
  const bool v3 = has(m, "llama 3");
  if (has(m, "70b")) return v3 ? "llama-3-70b" : "llama-2-70b";
  if (has(m, "13b")) return "llama-2-13b";
  return v3 || has(m, "8b") ? "llama-3-8b" : "llama-2-7b";
}

// Row gpu names -> catalog ids, with what the mapping leaves out.
const std::map<std::string, std::pair<std::string, std::string>> kCards = {
    {"RTX 4090", {"rtx-4090", ""}},
    {"RTX 4090 (PCIe)", {"rtx-4090", ""}},
    {"RTX 4090 (PCIe, no NVLink)", {"rtx-4090", ""}},
    {"RTX 4090 (PCIe 4.0 x16, no NVLink)", {"rtx-4090", ""}},
    {"RTX 3090", {"rtx-3090", "NVLink bridge not stated: PCIe assumed"}},
    {"RTX 3090 (280 W cap, no NVLink, older board)", {"rtx-3090", "280 W power cap not modelled"}},
    {"RTX 3090 Ti", {"rtx-3090-ti", ""}},
    {"RTX A5000", {"rtx-a5000", "NVLink bridge not stated: PCIe assumed"}},
    {"RTX A6000", {"rtx-a6000", ""}},
    {"RTX 6000 Ada", {"rtx-6000-ada", ""}},
    {"RTX 6000 Ada (PCIe)", {"rtx-6000-ada", ""}},
    {"RTX 4070 Laptop GPU 8GB", {"rtx-4070-laptop", ""}},
    {"Tesla P40 24GB", {"tesla-p40", ""}},
    {"Quadro RTX 8000 (NVLink)", {"quadro-rtx-8000", ""}},
    {"TITAN RTX 24GB (NVLink, NV2)", {"titan-rtx", ""}},
    {"TITAN RTX 24GB (P2P disabled)", {"titan-rtx", "NCCL_P2P_DISABLE: through host memory"}},
    {"AMD MI250X (one GCD)", {"mi250x-gcd", ""}},
    {"V100 16GB", {"v100-sxm2-32gb", "V100 variant not stated: SXM2 rates assumed"}},
    {"A100 40GB", {"a100-40gb-sxm", "MosaicML cluster: SXM"}},
    {"A100 40GB SXM4", {"a100-40gb-sxm", ""}},
    {"A100 80GB", {"a100-80gb-sxm", "MosaicML cluster: SXM"}},
    {"A100 80GB SXM4", {"a100-80gb-sxm", ""}},
    {"A100 80GB SXM4 (330W cap)", {"a100-80gb-sxm", "330 W power cap not modelled"}},
    {"A100 80GB SXM4 (330W cap, NVLink)", {"a100-80gb-sxm", "330 W power cap not modelled"}},
    {"A100 80GB PCIe", {"a100-80gb-pcie", ""}},
    {"A100 (PCIe interconnect per source)",
     {"a100-80gb-pcie", "A100 memory not stated: 80GB (70B fp16 on 2 cards needs >40 GB each)"}},
    {"H100 80GB", {"h100-sxm", "MosaicML cluster: SXM"}},
    {"H200 141GB SXM (lent, 700 W)", {"h200-sxm", ""}},
    {"H100 80GB PCIe", {"h100-pcie", "NVLink bridge not stated: PCIe assumed"}},
    {"H100 PCIe 80GB", {"h100-pcie", ""}},
    {"H100 80GB SXM5", {"h100-sxm", ""}},
    {"H100 80GB SXM5 (NVLink)", {"h100-sxm", ""}},
    {"H100 SXM 80GB (DGX-H100)", {"h100-sxm", ""}},
    {"H100 80GB SXM (Grand Teton, RoCE 400 Gb/s per GPU)", {"h100-sxm", ""}},
    {"AMD MI300X", {"mi300x", ""}},
    {"RX 7900 XTX", {"rx-7900-xtx", ""}},
    {"Intel Arc A770 16GB", {"arc-a770-16gb", ""}},
    {"Intel Gaudi 2", {"gaudi-2", ""}},
    {"Intel Gaudi 2 (HL-225H, 8 per node)", {"gaudi-2", ""}},
    {"Intel Gaudi 3", {"gaudi-3", ""}},
    {"Apple M2 Ultra (192GB)", {"apple-m2-ultra", "GPU core count not stated: 76-core assumed"}},
    {"Apple M2 Ultra (GPU cores not stated)", {"apple-m2-ultra", "76-core assumed"}},
    {"Apple M1 Pro", {"apple-m1-pro", "GPU core count not stated: 16-core assumed"}},
    {"Apple M2 (MacBook Air)", {"apple-m2", "GPU core count not stated: 10-core assumed"}},
    {"Apple M5 (10-core GPU)", {"apple-m5", ""}},
    {"RX 5700 XT", {"rx-5700-xt", ""}},
    // llama-bench's device names (rows L01-L76).
    {"A100-SXM4-80GB", {"a100-80gb-sxm", ""}},
    {"A40", {"a40", ""}},
    {"AMD Instinct MI300X", {"mi300x", ""}},
    {"H100 PCIe", {"h100-pcie", ""}},
    {"L40S", {"l40s", ""}},
    {"RTX 2080 Ti", {"rtx-2080-ti", ""}},
    {"RTX 2060 6GB", {"rtx-2060", ""}},
    {"AMD Instinct MI50", {"mi50-32gb", "16 or 32 GB not stated: the 32 GB board"}},
    {"RTX 3070", {"rtx-3070", ""}},
    {"RTX 3080", {"rtx-3080", "10 or 12 GB not stated: the 10 GB card"}},
    {"RTX 3080 Ti", {"rtx-3080-ti", ""}},
    {"RTX 4000 Ada Generation", {"rtx-4000-ada", ""}},
    {"RTX 4070 Ti", {"rtx-4070-ti", ""}},
    {"RTX 4080", {"rtx-4080", ""}},
    {"RTX 5000 Ada Generation", {"rtx-5000-ada", ""}},
    {"RTX 6000 Ada Generation", {"rtx-6000-ada", ""}},
    {"RX 6800 XT", {"rx-6800-xt", ""}},
    {"Radeon 8060S (Ryzen AI Max+ 395)",
     {"ryzen-ai-max-plus-395-128gb", "memory size not stated: 128 GB"}},
    {"Radeon AI PRO R9700", {"radeon-ai-pro-r9700", ""}},
};

}  // namespace

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

int first_int(const std::string& s, int fallback) {
  std::smatch m;
  return std::regex_search(s, m, std::regex(R"(\d+)")) ? std::stoi(m.str()) : fallback;
}

// Vision models and BERT-base come from the embedded presets: a CNN's stages, FLOPs and saved
// activations and a ViT's patches live there, not in the table above.
const ModelArch* preset_for(const std::string& model) {
  static const auto presets = gpusel::parse_models(
      gpusel::parse_json_text(std::string(gpusel::embedded_text("data/models.json")),
                              "data/models.json"),
      "data/models.json");
  const std::string m = lower(model);
  for (const auto& [name, id] : {std::pair{"resnet-50", "resnet-50"},
                                 {"resnet-101", "resnet-101"},
                                 {"vit-b/16", "vit-b-16"},
                                 {"vit-l/16", "vit-l-16"},
                                 {"bert-base", "bert-base-uncased"}})
    if (has(m, name)) return &gpusel::require_model(presets, id);
  return nullptr;
}

ModelArch arch_for(const std::string& model) {
  if (const ModelArch* preset = preset_for(model)) return *preset;
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

std::optional<std::pair<std::string, std::string>> card_for(const std::string& gpu) {
  const auto it = kCards.find(gpu);
  if (it == kCards.end()) return std::nullopt;
  return it->second;
}

Precision precision_of(const std::string& text) {
  const std::string p = lower(text);
  if (has(p, "fp8")) return Precision::fp8;
  if (has(p, "q4") || has(p, "int4") || has(p, "4-bit") || has(p, "gptq") || has(p, "nf4") ||
      has(p, "exl2") || has(p, "awq"))
    return Precision::int4;
  if (has(p, "q8") || has(p, "int8")) return Precision::int8;
  if (has(p, "fp32")) return Precision::fp32;
  if (has(p, "bf16")) return Precision::bf16;
  return Precision::fp16;
}

// llama.cpp builds before CUDA graphs (ggml-org/llama.cpp PR #6766, merged 2024-05-08) launch
// every kernel from the host each token: the rows' commits and dates say which they ran.
bool llama_cpp_before_graphs(const std::string& f) {
  for (const char* mark :
       {"2023", "jan 2024", "feb 2024", "mar 2024", "9476b01", "32d9f7d9", "15499eb"})
    if (has(f, mark)) return true;
  return false;
}

// ROCm builds had no HIP graphs before ggml-org/llama.cpp PR #11362 (2025-01-22), and had them
// off by default until PR #22254 (2026-04-22): the rows' dates (or a later PR) say which ran.
bool rocm_before_graphs(const std::string& f, const std::string& source) {
  if (!has(f, "rocm") && !has(f, "hip")) return false;
  std::smatch m;
  if (std::regex_search(f, m, std::regex(R"((20\d\d)-(\d\d)(?:-(\d\d))?)")))
    return m.str(1) + m.str(2) + (m[3].matched ? m.str(3) : "01") < "20260422";
  return !std::regex_search(source, m, std::regex(R"(#(\d+))")) || std::stoi(m[1]) < 22254;
}

// CUDA builds with graphs of 2024 (PR #6766, May 2024, to the first half of 2025) pay the
// per-layer cost of their time: engines.llama.cpp-2024. The rows' dates say which they ran.
bool llama_cpp_2024(const std::string& f) { return has(f, "cuda") && has(f, "2024"); }

// CUDA builds with graphs but before MMQ became the default for 4-bit prompts (PR #8075,
// 2024-06-23) multiplied them through cuBLAS: engines.llama.cpp-cublas.
bool cuda_before_mmq(const std::string& f) {
  if (!has(f, "cuda")) return false;
  std::smatch m;
  if (!std::regex_search(f, m, std::regex(R"((20\d\d)-(\d\d)-(\d\d))"))) return false;
  return m.str(1) + m.str(2) + m.str(3) < "20240623";
}

// ggml_cuda_should_use_mmq's AMD branch over time: 4-bit prompt GEMMs went to hipBLAS on
// RDNA 3/3.5 from PR #4697 (2023-12-30) to PR #17576 (2025-12-05), on RDNA 4 from PR #12372
// (2025-03-26) to PR #17156 (2025-11-24), on CDNA from PR #11601 (2025-02-02) to PR #14624
// (2025-07-27); before and after, MMQ (dp4a, then the matrix cores).
std::string rocm_prompt_engine(const std::string& engine, const std::string& framework,
                               const std::string& architecture) {
  if (engine != "llama.cpp-nograph") return engine;
  std::smatch m;
  const std::string f = lower(framework);
  if (!std::regex_search(f, m, std::regex(R"((20\d\d)-(\d\d)(?:-(\d\d))?)"))) return engine;
  const std::string date = m.str(1) + m.str(2) + (m[3].matched ? m.str(3) : "01");
  const auto within = [&](const char* from, const char* to) { return date >= from && date < to; };
  const bool hip = (architecture.rfind("RDNA 3", 0) == 0 && within("20231230", "20251205")) ||
                   (architecture.rfind("RDNA 4", 0) == 0 && within("20250326", "20251124")) ||
                   (architecture.rfind("CDNA", 0) == 0 && within("20250202", "20250727"));
  return hip ? "llama.cpp-hipblas" : engine;
}

std::string engine_of(const std::string& framework, const std::string& source) {
  const std::string f = lower(framework);
  if (has(f, "llama.cpp") && (llama_cpp_before_graphs(f) || rocm_before_graphs(f, source)))
    return "llama.cpp-nograph";
  if (has(f, "llama.cpp") && cuda_before_mmq(f)) return "llama.cpp-cublas";
  if (has(f, "llama.cpp") && llama_cpp_2024(f)) return "llama.cpp-2024";
  // ExLlamaV2 of 2023: the author's October 2023 benchmark table (engines.exllamav2-2023)
  if (has(f, "exllamav2") && has(f, "2023")) return "exllamav2-2023";
  for (const auto& [word, engine] :
       std::vector<std::pair<const char*, const char*>>{{"generate()", "transformers"},
                                                        {"llama.cpp", "llama.cpp"},
                                                        // vLLM of Oct 2023: before CUDA
                                                        // graphs (v0.2.5, PR #1926)
                                                        {"vllm acbed3e", "vllm-eager"},
                                                        {"exllamav2", "exllamav2"},
                                                        {"tensorrt-llm", "tensorrt-llm"},
                                                        {"mlc", "mlc"},
                                                        {"bigdl-llm", "ipex-llm"},
                                                        {"ipex-llm", "ipex-llm"},
                                                        {"vllm", "vllm"},
                                                        {"optimum habana", "vllm"},
                                                        {"gpt-fast", "gpt-fast"},
                                                        {"mlx", "mlx"}})
    if (has(f, word)) return engine;
  return "";
}

std::pair<int, int> prompt_and_output(const std::string& s) {
  std::smatch m;
  const auto find = [&](const char* re) { return std::regex_search(s, m, std::regex(re)); };
  if (find(R"(tg(\d+))")) return {1, std::stoi(m[1])};
  if (find(R"(pp(\d+))")) return {std::stoi(m[1]), 0};
  if (find(R"(in (\d+) / out (\d+))")) return {std::stoi(m[1]), std::stoi(m[2])};
  if (find(R"(input (\d+), output (\d+))")) return {std::stoi(m[1]), std::stoi(m[2])};
  if (find(R"(prompt (\d+), (?:generate )?(\d+))")) return {std::stoi(m[1]), std::stoi(m[2])};
  if (find(R"(-n (\d+))")) return {1, std::stoi(m[1])};
  if (find(R"((\d+) generated)"))
    return {7, std::stoi(m[1])};  // MLC's prompt "What is the meaning of life?" ~7 tokens
  if (find(R"(prompt (\d+))")) return {std::stoi(m[1]), 0};
  if (has(s, "tg") || has(s, "short prompt")) return {16, 128};  // llama-bench / README default
  return {first_int(s, 2048), 0};
}

std::string parallel_note(const Row& r) {
  const std::string& m = r.at("method");
  std::string out;
  if (std::regex_search(m, std::regex(R"(PP([2-9]|[1-9]\d))")) && !has(m, "VP"))
    out += std::string(out.empty() ? "" : "; ") +
           "interleaving not stated: vpp 1 (the full 1F1B bubble)";
  if (has(r.at("batch"), "tokens global"))
    out += std::string(out.empty() ? "" : "; ") + "micro-batch not stated: 1";
  return out;
}

std::string unexpressible(const Row& r) {
  // transformers generate() runs at its host's pace: a host still busy with inductor's
  // compile workers (the same process had just run torch.compile) is not the host it describes.
  if (has(r.at("notes"), "compile workers alive"))
    return "host busy with torch.compile's workers: superseded by the clean runs "
           "(h200_generate.py)";
  // Lambda's harness (lambdal/deeplearning-benchmark@aa5addb, DLE Transformer-XL at
  // LambdaLabsML/DeepLearningExamples@c1781a37): full softmax over 267,735 words, tied,
  // klen 512, apex O2, Adam at lr 0. The FLOPs are countable (about 3.5 GFLOP per token), but
  // the runs reach 11-39 % of dense peak (H100 SXM 11 %, RTX 3090 39 %) for no sourced reason,
  // and its multi-GPU runs have no gradient sync (multi_gpu=None: independent copies).
  if (has(r.at("model"), "Transformer-XL"))
    return "Transformer-XL (Lambda's harness): relative-position attention over 512 keys and a "
           "267k-word softmax reach 11-39 % of dense peak, unexplained; multi-GPU runs are "
           "independent copies (no gradient sync)";
  return "";
}

}  // namespace tput_calibration
