#!/usr/bin/env python3
"""Adds the columns serving_report needs to the research rows (serving_rows.csv, S1-S203).

Run once: python3 serving_rows_map.py /work/research/serving_rows.csv > serving_measured.csv
The original columns (with each row's source) are kept as they are; the added columns say how
gpusel reads the row. Nothing here looks at gpusel's estimates: every choice comes from the
row itself, its notes, or the cited dataset statistics below.

Dataset lengths (mean, sd in tokens), from the MLCommons dataset pickles as summarised in
openshift-psap/performance-dashboard@71007029fb5b:mlperf-data/summaries/*.csv:
  llama2-70b (OpenOrca, 24,576): input 222.3 +- 171.5, reference output 218.9 +- 172.3
  mixtral-8x7b (15,000): input 427.4 +- 328.6, output 144.8 +- 112.7
  llama3.1-405b (8,313): input 9428.6 +- 4066.9, output 684.7 +- 260.8
MLPerf rows take the row's measured tokens per sample as the output mean, the dataset's sd.
"""
import csv
import re
import sys

GPUS = [
    ("H200-SXM-141GB-CTS", "h200-sxm"), ("H200-SXM-141GB", "h200-sxm"), ("H200 SXM 141GB", "h200-sxm"),
    ("H200 141GB HBM3", "h200-sxm"), ("H200-NVL-141GB", "h200-nvl"),
    ("H100-SXM-80GB", "h100-sxm"), ("H100 SXM 80GB", "h100-sxm"), ("H100 80GB HBM3", "h100-sxm"),
    ("H100 80GB (SXM assumed", "h100-sxm"), ("H100 80GB", "h100-sxm"),
    ("H100-NVL-94GB", "h100-nvl"), ("H100 NVL", "h100-nvl"), ("H100-PCIe-80GB", "h100-pcie"),
    ("A100-SXM-80GB", "a100-80gb-sxm"), ("A100-SXM4-80GB", "a100-80gb-sxm"),
    ("A100-PCIe-80GB", "a100-80gb-pcie"), ("A100-PCIE-80GB", "a100-80gb-pcie"),
    ("GH200 Grace Hopper Superchip 96GB", "gh200"), ("B200", "b200"), ("L40S", "l40s"),
    ("MI300X", "mi300x"), ("MI325X", "mi325x"), ("RTX 4090", "rtx-4090"), ("RTX 3090", "rtx-3090"),
    ("RTX PRO 6000 Blackwell", "rtx-pro-6000-blackwell"),
]
MODELS = [("Llama-2-70B", "llama-2-70b"), ("Llama-2-7B", "llama-2-7b"),
          ("Llama-3.1-405B", "llama-3.1-405b"), ("Mixtral-8x7B", "mixtral-8x7b"),
          ("Llama-3.1-8B", "llama-3.1-8b"), ("Llama-3.1-70B", "llama-3.1-70b"),
          ("Llama-3.3-70B", "llama-3.3-70b"), ("Qwen3-235B-A22B", "qwen3-235b-a22b"),
          ("Qwen3-30B-A3B", "qwen3-30b-a3b"), ("Meta-Llama-3-8B", "llama-3-8b")]
DATASET = {"llama-2-70b": (222.3, 171.5, 172.3), "llama-2-7b": (222.3, 171.5, 172.3),
           "mixtral-8x7b": (427.4, 328.6, 112.7), "llama-3.1-405b": (9428.6, 4066.9, 260.8)}
# MLPerf layouts (tp per replica) where the row does not state them: NVIDIA's own configs in
# closed/NVIDIA/configs (v4.1): Llama 2 70B TP2 on 80-94 GB Hopper, TP1 on H200/GH200, TP4 on
# L40S; Mixtral TP1; 405B on one 8-GPU node.
LAYOUT = {("llama-2-70b", "h100-sxm"): 2, ("llama-2-70b", "h100-nvl"): 2,
          ("llama-2-70b", "h100-pcie"): 2, ("llama-2-70b", "h200-sxm"): 1,
          ("llama-2-70b", "gh200"): 1, ("llama-2-70b", "l40s"): 4, ("llama-2-70b", "mi300x"): 1,
          ("llama-2-70b", "mi325x"): 1, ("llama-3.1-405b", "h200-sxm"): 8,
          ("llama-3.1-405b", "h100-sxm"): 8}
# Engine settings a row states (configs, server logs): max running sequences, memory fraction.
OVERRIDES = {
    "S16": (896, None), "S17": (896, None), "S18": (1024, None), "S19": (1024, None),
    "S20": (1024, None), "S27": (850, None), "S28": (1024, None), "S29": (1024, None),
    "S30": (768, 0.97), "S31": (2048, 0.97), "S32": (768, 0.97), "S33": (2048, 0.97),
    "S39": (1024, 0.95), "S40": (1024, 0.95), "S41": (1024, 0.95),
    "S47": (896, None), "S48": (896, None), "S50": (1200, None), "S51": (3072, None),
    "S191": (256, 0.9), "S192": (256, 0.9), "S193": (256, 0.9), "S194": (256, 0.9),
    "S199": (40, None), "S200": (40, None), "S201": (40, None),
}
for i in range(155, 182):  # TensorRT-LLM 1.0 perf overview: --kv_cache_free_gpu_mem_fraction 0.95
    OVERRIDES[f"S{i}"] = (None, 0.95)
# Assumed layouts for rows that do not state them (one engine instance over the cards, or one
# replica per card where the model fits one card).
ASSUMED_TP = {"S35": 8, "S36": 8, "S37": 4, "S38": 4, "S42": 2, "S43": 1, "S44": 1, "S45": 1,
              "S46": 2, "S49": 1, "S53": 1, "S66": 1, "S67": 1, "S68": 1, "S69": 1, "S70": 1}
# One engine instance: the NeuralMagic / GATEOverflow harness (MLCommons reference SUT_API.py,
# neuralmagic/inference@04e477edfbb3:language/llama2-70b/SUT_API.py) sends every query to the
# one --api_server the run names (`assert len(self.api_servers) == 1`; each README's cm command
# gives --api_server=http://localhost:8000). Where the row does not state TP, that server runs
# vLLM's default --tensor-parallel-size 1 when the model fits one card.
ONE_SERVER = {"S35", "S36", "S39", "S40", "S41", "S42", "S43", "S44", "S45"}
# TensorRT-LLM 0.14's performance overview builds every engine with `trtllm-bench build
# --dataset` (its 'Engine Building' section), which sizes the engine from the dataset
# (tensorrt_llm/bench/build/tuning.py, calc_engine_setting / finetune_setting, e.g.
# NVIDIA/TensorRT-LLM@04cba882084a): max_batch_size = the requests its optimistic KV estimate
# holds (0.95 of all memory less the weights), capped at 4096; max_num_tokens = max_batch_size
# x (1 + ISL/OSL), capped at 32768. Neither binds below the KV pool except at those caps.
TRTLLM_BENCH_014 = (4096, 32768)
# Harnesses that drive the engine in their own process without an HTTP server: AMD's MLPerf
# v4.1 SUT (closed/AMD/code/llama2-70b-99.9/VllmFp8/queue_llm.py: vllm LLMEngine in-process,
# sync_server.py: skip_tokenizer_init=True). Every other row goes through a server.
IN_PROCESS = {"S30", "S31", "S32", "S33", "S34"}
UNDERLOADED = {"S24", "S35", "S39", "S43"}  # research notes: TPOT p50 < 50 % of the limit
# MLPerf rows without a stated output: the tokens per sample the benchmark's other rows measure.
MLPERF_OUTPUT = {"llama-2-70b": "292", "mixtral-8x7b": "146", "llama-3.1-405b": "650"}


def find(table, text):
    for key, value in table:
        if key.lower() in text.lower():
            return value
    return ""


def split_of(notes):
    return "fit" if "[FIT-ALLOWED" in notes else "held-out"


def engine_of(engine, version=""):
    e = engine.lower()
    if "lmdeploy" in e or "mlc" in e or "gaudi" in e or "reference" in e:
        return ""
    if "tensorrt" in e or "nim" in e:
        return "tensorrt-llm"
    if "vllm" in e:
        # A stated release before v0.6.0 runs the V0 engine that schedules and processes
        # outputs between steps (data/serving.json engines.vllm-0.5); unstated: current vLLM.
        m = re.search(r"(?:vllm\s*)?\b0\.(\d+)\.\d+", version.lower())
        return "vllm-0.5" if m and int(m.group(1)) < 6 else "vllm"
    return ""


def precision_of(p):
    p = p.lower()
    if "fp4" in p:
        return ""
    if "int4" in p or "gptq" in p or "q4" in p:
        return "int4"
    if "fp8" in p:
        return "fp8"
    if "bf16" in p and "fp16" not in p:
        return "bf16"
    if "fp16" in p or "bf16" in p:
        return "fp16"
    return ""


def kv_of(row, engine):
    kv = row["kv_dtype"].lower()
    if kv.startswith("fp8"):
        return "fp8"
    if "int8" in kv:
        return "int8"
    mlperf = row["round_or_version"].startswith("MLPerf")
    if engine == "tensorrt-llm" and row["precision"].lower().startswith("fp8") and (
            mlperf or "ModelOpt" in row["precision"]):
        return "fp8"  # NVIDIA's FP8 recipes quantize the KV cache too (v4.1 rows say so)
    if mlperf and ("MI300X" in row["gpu"] or "MI325X" in row["gpu"]):
        return "fp8"  # AMD: w_fp8_a_fp8_o_fp8 with FP8 KV scales (S30)
    return "auto"


def kind_of(row):
    s, c = row["scenario"].lower(), row["concurrency_or_rps"].lower()
    if "closed-loop" in s:
        return "users"
    if "poisson request rate" in s:
        return "poisson"
    if s.startswith("interactive"):
        return "interactive"
    if s.startswith("server") or s.startswith("offline+server"):
        return "server"
    if s.startswith("offline") or "infinite" in c:
        return "offline"
    return ""


def limits(kind, model):
    if kind == "interactive":
        return 450, 40
    if kind == "server":
        return (6000, 175) if model == "llama-3.1-405b" else (2000, 200)
    return "", ""


def load_of(row, kind):
    c = row["concurrency_or_rps"]
    if kind == "users":
        return re.search(r"concurrency=(\d+)", c).group(1)
    if kind == "poisson":
        return re.search(r"request_rate=([\d.]+)", c).group(1)
    m = re.search(r"achieved ([\d.]+)", c)
    return m.group(1) if m else ""


def lengths(row, model, kind):
    if row["prompt_len"] and kind in ("offline", "users", "poisson") and not row[
            "round_or_version"].startswith("MLPerf"):
        return row["prompt_len"], "0", row["output_len"], "0"
    if model in DATASET:
        pin, psd, osd = DATASET[model]
        out = row["output_len"] or ""
        return f"{pin}", f"{psd}", out, f"{osd}"
    return "", "", "", ""


def skip_reason(row, gpu, model, prec, engine, kind, out):
    if "GPT-J" in row["model"]:
        return "GPT-J beam search, samples/s only"
    if not engine:
        return "engine not modelled (" + row["engine"] + ")"
    if not gpu:
        return "card not in the catalog (" + row["gpu"] + ")"
    if not model:
        return "model not a preset"
    if not prec:
        return "precision not expressible (" + row["precision"] + ")"
    if not kind or not row["output_tokens_per_s"]:
        return "no throughput figure"
    if not out:
        return "output length not stated"
    return ""


def main(path):
    rows = list(csv.DictReader(open(path, newline="")))
    extra = ["split", "gpu_id", "model_id", "w_precision", "kv", "engine_id", "tp_used",
             "replicas", "prompt_mean", "prompt_sd", "output_mean", "output_sd", "kind", "load",
             "ttft_limit_ms", "tpot_limit_ms", "max_seqs", "mem_fraction", "throughput_use",
             "skip", "assumed", "frontend", "batched_tokens"]
    w = csv.DictWriter(sys.stdout, fieldnames=list(rows[0].keys()) + extra, lineterminator="\n")
    w.writeheader()
    for row in rows:
        gpu, model = find(GPUS, row["gpu"]), find(MODELS, row["model"])
        if "GH200" in row["gpu"] and "144GB" in row["gpu"]:
            gpu = ""  # the catalog's gh200 is the 96 GB HBM3 part
        engine = engine_of(row["engine"], row["engine_version"])
        prec, kind = precision_of(row["precision"]), kind_of(row)
        pin, psd, out, osd = lengths(row, model, kind)
        assumed = []
        if not out and row["round_or_version"].startswith("MLPerf") and model in MLPERF_OUTPUT:
            out = MLPERF_OUTPUT[model]; assumed.append("output " + out + " (other rows)")
        tp = row["tp"]
        if not tp and row["id"] in ASSUMED_TP:
            tp = str(ASSUMED_TP[row["id"]]); assumed.append("tp")
        if not tp and (model, gpu) in LAYOUT:
            tp = str(LAYOUT[(model, gpu)]); assumed.append("tp (NVIDIA/AMD v4.1 config)")
        pp = int(row["pp"] or 1)
        n = int(row["n_gpus"] or 1)
        per = int(tp or 1) * pp
        if row["id"] in ONE_SERVER and n > per:
            assumed.append("one engine instance (SUT_API)")
        skip = skip_reason(row, gpu, model, prec, engine, kind, out)
        if not skip and not tp and n > 1:
            skip = "layout (TP) not stated"
        if not skip and "GB200" in row["gpu"]:
            skip = "72-GPU NVLink rack: layout not stated"
        use = "capacity"
        if row["id"] in UNDERLOADED:
            use = "latency-only"
        if kind == "poisson":  # a capacity figure only where the source says it overloaded
            use = "capacity" if "overload" in row["notes"].lower() else "latency-only"
        ms, mf = OVERRIDES.get(row["id"], (None, None))
        bt = ""
        if row["round_or_version"] == "TensorRT-LLM perf-overview v0.14.0":
            ms, bt = TRTLLM_BENCH_014
        tl, pl = limits(kind, model)
        kv = kv_of(row, engine)
        if kv != "auto" and not row["kv_dtype"]:
            assumed.append("kv " + kv)
        w.writerow({**row, "split": split_of(row["notes"]), "gpu_id": gpu, "model_id": model,
                    "w_precision": prec, "kv": kv, "engine_id": engine, "tp_used": tp or "1",
                    "replicas": 1 if row["id"] in ONE_SERVER else max(1, n // per),
                    "prompt_mean": pin, "prompt_sd": psd,
                    "output_mean": out, "output_sd": osd, "kind": kind,
                    "load": load_of(row, kind), "ttft_limit_ms": tl, "tpot_limit_ms": pl,
                    "max_seqs": ms or "", "mem_fraction": mf or "", "throughput_use": use,
                    "skip": skip, "assumed": "; ".join(assumed),
                    "frontend": "in-process" if row["id"] in IN_PROCESS else "server",
                    "batched_tokens": bt})


if __name__ == "__main__":
    main(sys.argv[1])
