// Rows of throughput_measured.csv -> cases: the workload, card, count and link each row
// describes, and what it measured in the estimate's terms.
#include "throughput_rows.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "gpusel/data/quantization.hpp"

namespace tput_calibration {
namespace {

using gpusel::Mode;
using gpusel::Offload;
using gpusel::Precision;
using gpusel::Shard;

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

// Micro-batch per GPU: "micro 8 x GA4", "6 per GPU", "global 1024" over the GPUs, "28".
int micro_batch(const Row& r) {
  const std::string& b = r.at("batch");
  const int n = std::stoi(r.at("n_gpus"));
  if (has(b, "per-GPU batch as 1-GPU run")) return has(r.at("gpu"), "6000 Ada") ? 32 : 48;
  if (b.rfind("global", 0) == 0) return std::max(1, first_int(b, n) / n);
  if (has(b, "tokens global")) return 1;  // Llama 3's 4D runs: micro-batch not stated
  return first_int(b, 1);
}

// "TP4 PP4 CP2 VP5, GBS128" / "16M tokens/batch": Megatron degrees (--tp/--pp/--vpp/--cp) and
// the micro-batches each pipeline (or, without one, each GPU) runs per step (--grad-accum).
void set_parallel_degrees(const Row& r, gpusel::Workload& w) {
  const std::string& method = r.at("method");
  const auto degree = [&](const char* key) {
    std::smatch m;
    return std::regex_search(method, m, std::regex(std::string(key) + R"((\d+))")) ? std::stoi(m[1])
                                                                                   : 1;
  };
  w.tp = degree("TP"), w.pp = degree("PP"), w.vpp = w.pp > 1 ? degree("VP") : 1;
  w.cp = degree("CP");
  // Without model parallelism every GPU runs its share of the global batch as accumulated
  // micro-batches.
  const bool mp = gpusel::model_parallel(w);
  if (!mp) w.tp = w.pp = w.vpp = w.cp = 1;
  const int dp = mp ? gpusel::data_parallel(w) : w.gpus;
  std::smatch m;
  double samples = 0;
  if (std::regex_search(method, m, std::regex(R"(GBS(\d+))"))) samples = std::stod(m[1]);
  if (std::regex_search(method, m, std::regex(R"((\d+)M tokens)")))
    samples = std::stod(m[1]) * (1 << 20) / w.seq_len;
  if (samples > 0) w.grad_accum = std::max(1, int(samples / (w.batch * dp)));
}

// The LoRA recipes the rows' stacks run.
void lora_settings(const std::string& how, gpusel::Workload& w) {
  // A row that states its adapters ("LoRA r=16 q,v"): rank and targets as written.
  std::smatch rank;
  if (std::regex_search(how, rank, std::regex(R"(LoRA r=(\d+))"))) {
    w.lora_rank = std::stoi(rank[1]);
    w.lora_targets = has(how, "q,v") ? gpusel::LoraTargets::qv : gpusel::LoraTargets::all_linear;
  }
  // mlx-examples lora.py (ml-explore/mlx-examples@0d863ab lora/lora.py): adapters on q_proj
  // and v_proj of the last --lora-layers 16 blocks (rank 8: lora/models.py
  // LoRALinear.from_linear), batch 4, no gradient checkpointing: --lora-layers 16.
  if (has(how, "lora.py")) {
    w.lora_targets = gpusel::LoraTargets::qv, w.lora_rank = 8;
    gpusel::set_lora_layers(w, 16);
  }
  // NeMo 1.x LoRA (the 24.07 tables): one rank-32 adapter on the fused QKV projection, no
  // adapter dropout (examples/nlp/language_modeling/tuning/conf/
  // megatron_gpt_finetuning_config.yaml, peft.lora_tuning: target_modules ['attention_qkv'],
  // adapter_dim 32, adapter_dropout 0.0). --lora-targets qv moves the same bytes (q and v
  // adapters: 22·h per token and layer against the fused one's 21·h).
  if (w.mode == Mode::lora && has(how, "NeMo")) {
    w.lora_targets = gpusel::LoraTargets::qv, w.lora_rank = 32;
    w.framework.lora_dropout.value = 0;
  }
}

void training_workload(const Row& r, gpusel::Workload& w) {
  const std::string& method = r.at("method");
  const std::string how = method + " " + r.at("framework");
  const std::string& p = r.at("precision_or_quant");
  w.mode = has(p, "NF4") || has(method, "QLoRA") ? Mode::qlora
           : has(method, "LoRA")                 ? Mode::lora
                                                 : Mode::full;
  if (w.mode == Mode::qlora) w.precision = Precision::int4;
  w.amp = has(p, "AMP");
  w.batch = micro_batch(r);
  std::smatch ga;
  const std::string& batch = r.at("batch");
  if (std::regex_search(batch, ga, std::regex(R"(GA(\d+))"))) w.grad_accum = std::stoi(ga[1]);
  w.seq_len = first_int(r.at("seq_len"), 2048);
  // Vision rows state the image side ("224 px"): --image-size; a ViT's length follows from it.
  if (has(r.at("seq_len"), " px")) w.image_size = w.seq_len;
  if (has(how, "SGD")) w.optimizer = gpusel::Optimizer::sgd;
  // Stacks that predate FlashAttention/SDPA write the attention scores (--no-flash-attn):
  // NVIDIA DeepLearningExamples' BERT and Transformers 4.3.
  w.flash_attn = !has(how, "DeepLearningExamples") && !has(how, "Transformers 4.3") &&
                 !has(how, "eager attention");
  const std::string notes = r.at("notes") + " " + method;
  w.grad_ckpt = (has(notes, "act. ckpt") && !has(notes, "no act. ckpt")) ||
                has(notes, "gradient checkpointing on");
  // NeMo runs use Megatron's distributed optimizer (ZeRO-1); the Llama 3 stack shards
  // gradients and optimizer states but keeps the weights after forward (arXiv 2407.21783
  // s3.3.2: ZeRO-2-like).
  w.shard = has(how, "FSDP")    ? Shard::fsdp
            : has(how, "NeMo")  ? Shard::zero1
            : has(how, "4D-pa") ? Shard::zero2
                                : Shard::ddp;
  if (has(method, "offload")) w.offload = Offload::params;
  lora_settings(how, w);
  // NeMo's pretraining recipes (NeMo-Framework-Launcher conf/training: llama/llama2_7b.yaml,
  // llama/llama3_70b.yaml, gpt3/175b.yaml) overlap the distributed optimizer's gradient
  // reduce and weight gather (optim.overlap_grad_sync, overlap_param_sync) and, with tensor
  // and pipeline parallelism, the TP collectives (ub_tp_comm_overlap) and the pipeline sends
  // (overlap_p2p_comm): --comm-overlap. Their SFT/LoRA recipes are not read: left off.
  w.comm_overlap = has(how, "NeMo") && has(method, "pretrain");
  set_parallel_degrees(r, w);
  if (w.gpus == 1) w.shard = Shard::none;
}

gpusel::Workload workload_for(const Row& r, bool inference) {
  gpusel::Workload w;
  w.model = arch_for(r.at("model"));
  // transformers' BertForMaskedLM scores the vocabulary at every position: --mlm.
  w.model.mlm_head = has(r.at("framework"), "BertForMaskedLM");
  w.model_from_preset = true;
  w.precision = precision_of(r.at("precision_or_quant"));
  w.gpus = std::stoi(r.at("n_gpus"));
  if (!inference) {
    training_workload(r, w);
    return w;
  }
  const std::string& how = r.at("method") + " " + r.at("framework");
  w.mode = Mode::inference;
  w.engine = engine_of(r.at("framework"), r.at("source"));
  // llama.cpp rows name their GGUF type (Q4_0, Q4_K_M, Q8_0): --precision q4_k_m ..., whose
  // bits per weight cover every tensor (data/quantizations.json).
  if (w.engine.rfind("llama.cpp", 0) == 0)
    if (gpusel::find_gguf(r.at("precision_or_quant")))
      gpusel::set_precision(w, r.at("precision_or_quant"));
  // ExLlamaV2's EXL2 at a stated bits per weight ("EXL2 2.5 bpw"): --precision int4
  // --weight-bits 2.5.
  std::smatch bpw;
  if (std::regex_search(r.at("precision_or_quant"), bpw, std::regex(R"(EXL2 (\d+(?:\.\d+)?) bpw)")))
    gpusel::set_weight_bits(w, std::stod(bpw[1]));
  // GPTQ with a stated group size ("GPTQ 4-bit g128"): 4-bit weights plus, per group of g
  // weights, an fp16 scale and a packed 4-bit zero point (AutoGPTQ's qweight, scales and
  // qzeros tensors): 4 + 20/g bits, --weight-bits 4.16 for g128.
  std::smatch group;
  if (std::regex_search(r.at("precision_or_quant"), group, std::regex(R"(GPTQ 4-bit g(\d+))")))
    gpusel::set_weight_bits(w, 4 + 20.0 / std::stod(group[1]));
  const auto [prompt, out] = prompt_and_output(r.at("seq_len"));
  w.prompt_len = prompt, w.seq_len = prompt + out;
  const std::string& b = r.at("batch");
  w.batch = std::regex_match(b, std::regex(R"(\d+)")) ? std::stoi(b) : 1;
  w.shard = has(how, "tensor parallel") && w.gpus > 1 ? Shard::tp : Shard::none;
  // llama.cpp before ggml-org/llama.cpp#4766 (January 2024) split every weight matrix by rows
  // over the GPUs (today's -sm row): --split-mode row.
  w.row_split = w.gpus > 1 && w.engine == "llama.cpp-nograph" &&
                (has(r.at("framework"), "2023") || has(r.at("framework"), "9476b01"));
  // vLLM's FP8 on Gaudi (Intel Neural Compressor) runs with the KV cache in FP8 too: the
  // documented command is `--quantization inc --kv-cache-dtype fp8_inc`
  // (vllm-project/vllm@e6dff3c:docs/features/quantization/inc.md).
  if (w.precision == Precision::fp8 && has(r.at("gpu"), "Gaudi") && w.engine == "vllm")
    w.kv_dtype = gpusel::KvDtype::fp8;
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

bool same_series(const Row& a, const Row& b) {
  for (const char* col :
       {"kind", "source", "model", "gpu", "method", "precision_or_quant", "batch", "seq_len"})
    if (a.at(col) != b.at(col)) return false;
  return true;
}

// The 1-GPU (or smallest) run a speedup row is measured against: from its notes, else the
// like-for-like series' smallest count (same source, model, card, method, precision, batch).
// {total tokens/s, count}; count 0 = none: the row is then judged as absolute throughput.
std::pair<double, int> series_base(const Row& r, const std::vector<Row>& rows) {
  std::smatch m;
  const std::string& notes = r.at("notes");
  if (std::regex_search(notes, m, std::regex(R"(1 GPU \((\d+(?:\.\d+)?)\))")) ||
      std::regex_search(notes, m, std::regex(R"(1 GPU (\d+(?:\.\d+)?)(?![\dx.]))")))
    return {total_tokens(r, std::stod(m[1]), 1), 1};
  const Row* base = nullptr;
  for (const Row& o : rows)
    if (same_series(o, r) && (!base || std::stoi(o.at("n_gpus")) < std::stoi(base->at("n_gpus"))))
      base = &o;
  if (!base || base->at("n_gpus") == r.at("n_gpus")) return {0, 0};
  const int n = std::stoi(base->at("n_gpus"));
  return {total_tokens(*base, std::stod(base->at("value")), n), n};
}

std::optional<Case> make_case(const Row& r, const std::vector<Row>& rows, const gpusel::Gpu& gpu,
                              const std::string& note, bool fit) {
  Case c;
  c.id = r.at("id"), c.kind = r.at("kind"), c.source = r.at("source"), c.fit = fit;
  c.gpu = gpu, c.gpu_id = gpu.id, c.note = note;
  if (const std::string p = parallel_note(r); !p.empty())
    c.note += (c.note.empty() ? "" : "; ") + p;
  const bool inference = is_inference_row(r);
  c.workload = workload_for(r, inference);
  c.workload.engine = rocm_prompt_engine(c.workload.engine, r.at("framework"), gpu.architecture);
  c.count = c.workload.gpus;
  c.linked = (has(r.at("gpu"), "NVLink") && !has(r.at("gpu"), "no NVLink")) ||
             gpu.interconnect.kind == "nvlink" || gpu.interconnect.kind == "infinity-fabric" ||
             gpu.interconnect.kind == "gaudi-roce";
  const double value = std::stod(r.at("value"));
  if (inference) {
    const bool prompt = r.at("kind") == "prefill" || has(r.at("method"), "prefill");
    c.quantity = prompt ? Quantity::prefill : Quantity::decode;
    c.measured = value;
    return c;
  }
  const auto [base_total, base_n] =
      r.at("kind") == "scaling" ? series_base(r, rows) : std::pair<double, int>{0, 0};
  if (base_n == 0) {  // absolute throughput per GPU
    c.quantity = Quantity::train_per_gpu;
    c.measured = total_tokens(r, value, c.count) / c.count;
    return c;
  }
  c.quantity = Quantity::speedup;
  c.base_count = base_n;
  c.measured = total_tokens(r, value, c.count) / base_total;
  return c;
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

bool cited(const std::string& src, const std::vector<std::string>& sources) {
  std::smatch m;
  // Our own runs: the script and the kind of measurement ("tools/measure/h200_round2.py
  // decode_compiled"); a constant read off one kind leaves the script's other kinds held out.
  if (std::regex_search(src, m, std::regex(R"(tools/measure/[\w.]+\.py \w+)"))) {
    const std::string run = m[0];
    return std::any_of(sources.begin(), sources.end(),
                       [&](const std::string& s) { return s.find(run) != std::string::npos; });
  }
  // A paper: the same arXiv identifier (Llama 3's Table 4 gives the Hopper training
  // efficiency and the Llama 3.1 405B rows alike).
  if (std::regex_search(src, m, std::regex(R"(arXiv[ :](\d{4}\.\d{4,5}))", std::regex::icase))) {
    const std::regex paper("arxiv\\.org/(abs|pdf)/" + std::string(m[1]) + R"((?!\d))");
    return std::any_of(sources.begin(), sources.end(),
                       [&](const std::string& s) { return std::regex_search(s, paper); });
  }
  if (!std::regex_search(src, m, std::regex(R"(^([\w.-]+/[\w.-]+))"))) return false;
  const std::string repo = m[1];
  std::string number;
  if (std::regex_search(src, m, std::regex(R"(#(\d+))"))) number = m[1];
  const std::string escaped = std::regex_replace(repo, std::regex(R"([.])"), "\\.");
  // The whole repository name: NVIDIA/NeMo is not NVIDIA/NeMo-Framework-Launcher.
  const std::regex whole(R"((^|[^\w.-]))" + escaped + R"(($|[^\w.-]))");
  return std::any_of(sources.begin(), sources.end(), [&](const std::string& s) {
    if (number.empty()) return std::regex_search(s, whole);
    for (const char* kind : {"/pull/", "/issues/", "/discussions/"})
      if (std::regex_search(s, std::regex(escaped + kind + number + R"((?!\d))"))) return true;
    return false;
  });
}

std::vector<Conversion> convert_all(const std::vector<Row>& rows, const gpusel::Catalog& catalog,
                                    const std::vector<std::string>& cited_sources) {
  std::vector<Conversion> out;
  for (const Row& r : rows) {
    Conversion cv{std::nullopt, "", r.at("id"), r.at("source"),
                  cited(r.at("source"), cited_sources)};
    const auto card = card_for(r.at("gpu"));
    const gpusel::Gpu* gpu = card ? catalog.find(card->first) : nullptr;
    const std::string why = unexpressible(r);
    if (!gpu)
      cv.skip_reason = "card '" + r.at("gpu") + "' not in the catalog" +
                       (card ? " (id " + card->first + ")" : "");
    else if (!why.empty())
      cv.skip_reason = why;
    else if (r.at("kind") == "scaling" && !is_inference_row(r) &&
             series_base(r, rows).second == 0 && has(r.at("notes"), "speedup vs 1 GPU 1.0x"))
      cv.skip_reason = "series base (speedup 1 by definition)";
    else
      cv.c = make_case(r, rows, *gpu, card->second, cv.fit);
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

std::string kind_of(Quantity q) {
  return q == Quantity::decode ? "decode" : q == Quantity::prefill ? "prefill" : "train";
}

}  // namespace tput_calibration
