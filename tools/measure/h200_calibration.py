#!/usr/bin/env python3
"""Measure, on one GPU, what gpusel predicts: achievable matmul rate (MAMF-style sweep), memory
bandwidth, batch-1 decode under CUDA graphs, and peak memory and tokens/s of Hugging Face
transformers + PEFT training steps and generate().

Models are built from their published shapes (data/models.json) with random weights: no
download, so the machine needs no network. Memory and speed do not depend on the weights' values
(random token ids; generate() is forced to its full length).

Status: prepared on 2026-12-04 for a lent H200 (torch 2.11, transformers 5.17, peft on the
device image); NOT yet run: the device refused new loans that session. Check its output
before recording any figure in tests/calibration.

Usage: python3 tools/measure/h200_calibration.py OUT_DIR
Writes OUT_DIR/results.jsonl (one JSON object per measurement, written as it finishes) and
prints a log. Every experiment is guarded: one failure (an OOM included) is recorded and the
next one runs.
"""
import gc
import json
import os
import subprocess
import sys
import time
import traceback

import torch
import torch.nn.functional as F

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
RESULTS = open(os.path.join(OUT, "results.jsonl"), "a", buffering=1)
T0 = time.time()

# Shapes from data/models.json (each cites its config.json).
SHAPES = {
    "llama-2-7b": dict(layers=32, hidden=4096, heads=32, kv=32, hd=128, inter=11008,
                       vocab=32000, tied=False, bias=False),
    "llama-3.1-8b": dict(layers=32, hidden=4096, heads=32, kv=8, hd=128, inter=14336,
                         vocab=128256, tied=False, bias=False),
    "llama-3.2-1b": dict(layers=16, hidden=2048, heads=32, kv=8, hd=64, inter=8192,
                         vocab=128256, tied=True, bias=False),
    "llama-3.2-3b": dict(layers=28, hidden=3072, heads=24, kv=8, hd=128, inter=8192,
                         vocab=128256, tied=True, bias=False),
    "qwen2.5-7b": dict(layers=28, hidden=3584, heads=28, kv=4, hd=128, inter=18944,
                       vocab=152064, tied=False, bias=True),
}


def log(*a):
    print(f"[{time.time() - T0:7.1f}s]", *a, flush=True)


def record(kind, **kw):
    kw["kind"] = kind
    RESULTS.write(json.dumps(kw) + "\n")
    log(kind, json.dumps(kw))


def clean():
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()


def guarded(name, fn, *args, **kw):
    try:
        fn(*args, **kw)
    except torch.cuda.OutOfMemoryError as e:
        record("oom", experiment=name, args=repr(args), kwargs=repr(kw),
               error=str(e).splitlines()[0][:300],
               peak_allocated=torch.cuda.max_memory_allocated(),
               peak_reserved=torch.cuda.max_memory_reserved())
    except Exception:
        record("error", experiment=name, args=repr(args), kwargs=repr(kw),
               error=traceback.format_exc()[-1500:])
    clean()


def cuda_time(fn, warmup, iters):
    """Mean seconds per call over `iters`, timed with CUDA events after `warmup` calls."""
    for _ in range(warmup):
        fn()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / 1000 / iters


def wall_time(fn, warmup, iters):
    """Mean wall seconds per call over `iters` after `warmup` calls, the GPU synchronised
    before and after: a step as the training loop sees it, the host's time included."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    t = time.time()
    for _ in range(iters):
        fn()
    torch.cuda.synchronize()
    return (time.time() - t) / iters


def environment():
    import transformers
    try:
        import peft
        peft_v = peft.__version__
    except Exception:
        peft_v = None
    smi = subprocess.run(
        ["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm,"
         "clocks.max.mem,power.limit,pci.bus_id", "--format=csv,noheader"],
        capture_output=True, text=True).stdout.strip()
    torch.cuda.init()
    torch.zeros(1, device="cuda")
    free, total = torch.cuda.mem_get_info()
    p = torch.cuda.get_device_properties(0)
    record("env", torch=torch.__version__, cuda=torch.version.cuda,
           cudnn=torch.backends.cudnn.version(), transformers=transformers.__version__,
           peft=peft_v, gpu=p.name, sm_count=p.multi_processor_count,
           total_memory=p.total_memory, nvidia_smi=smi,
           context_used_bytes=total - free, python=sys.version.split()[0])


# ---------------------------------------------------------------- matmul and bandwidth
def mamf(dtype_name, sizes, warmup=5, iters=20):
    """Best and median TFLOP/s over m x n x k shapes: the maximum achievable matmul rate."""
    best, rates = (0, None), []
    for m in sizes:
        for n in sizes:
            for k in sizes:
                if dtype_name == "fp8":
                    a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
                    b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()
                    one = torch.tensor(1.0, device="cuda")

                    def f():
                        torch._scaled_mm(a, b, scale_a=one, scale_b=one,
                                         out_dtype=torch.bfloat16)
                else:
                    dt = {"bf16": torch.bfloat16, "fp16": torch.float16,
                          "fp32": torch.float32, "tf32": torch.float32}[dtype_name]
                    torch.backends.cuda.matmul.allow_tf32 = dtype_name == "tf32"
                    a = torch.randn(m, k, device="cuda", dtype=dt)
                    b = torch.randn(k, n, device="cuda", dtype=dt)

                    def f():
                        torch.mm(a, b)
                s = cuda_time(f, warmup, iters)
                tf = 2 * m * n * k / s / 1e12
                rates.append(tf)
                if tf > best[0]:
                    best = (tf, (m, n, k))
                del a, b
    torch.backends.cuda.matmul.allow_tf32 = False
    rates.sort()
    record("mamf", dtype=dtype_name, best_tflops=round(best[0], 1), best_shape=best[1],
           median_tflops=round(rates[len(rates) // 2], 1), shapes=len(rates),
           sizes=sizes, warmup=warmup, iters=iters)


def bandwidth():
    n = 1 << 30  # 1 Gi fp32 elements = 4 GiB per tensor
    x = torch.rand(n, device="cuda")
    y = torch.empty_like(x)
    z = torch.rand(n, device="cuda")
    res = {}
    s = cuda_time(lambda: y.copy_(x), 2, 10)
    res["copy_GBps"] = 2 * 4 * n / s / 1e9
    s = cuda_time(lambda: x.sum(), 2, 10)
    res["read_sum_GBps"] = 4 * n / s / 1e9
    s = cuda_time(lambda: torch.add(x, z, alpha=2.0, out=y), 2, 10)
    res["triad_GBps"] = 3 * 4 * n / s / 1e9
    s = cuda_time(lambda: y.fill_(1.0), 2, 10)
    res["write_GBps"] = 4 * n / s / 1e9
    record("bandwidth", bytes_per_tensor=4 * n, **{k: round(v, 1) for k, v in res.items()})


# ---------------------------------------------------------------- batch-1 decode, CUDA graph
class Decoder:
    """A Llama-shaped decoder written with plain PyTorch ops, bf16 weights, static KV cache:
    the shape of gpt-fast's loop without torch.compile. One token per replay of a CUDA graph."""

    def __init__(self, s, batch, max_len):
        dev, dt = "cuda", torch.bfloat16
        h, hd, L = s["hidden"], s["hd"], s["layers"]
        self.s, self.batch, self.max_len = s, batch, max_len
        r = lambda *shape: torch.randn(*shape, device=dev, dtype=dt) * 0.02
        self.emb = r(s["vocab"], h)
        self.head = self.emb if s["tied"] else r(s["vocab"], h)
        self.layers = []
        for _ in range(L):
            self.layers.append(dict(
                wqkv=r((s["heads"] + 2 * s["kv"]) * hd, h), wo=r(h, s["heads"] * hd),
                w13=r(2 * s["inter"], h), w2=r(h, s["inter"]),
                n1=torch.ones(h, device=dev, dtype=dt), n2=torch.ones(h, device=dev, dtype=dt),
                k=torch.zeros(batch, s["kv"], max_len, hd, device=dev, dtype=dt),
                v=torch.zeros(batch, s["kv"], max_len, hd, device=dev, dtype=dt)))
        self.norm = torch.ones(h, device=dev, dtype=dt)
        inv = 1.0 / (500000.0 ** (torch.arange(0, hd, 2, device=dev).float() / hd))
        ang = torch.outer(torch.arange(max_len, device=dev).float(), inv)
        self.cos, self.sin = ang.cos().to(dt), ang.sin().to(dt)
        self.tok = torch.zeros(batch, 1, dtype=torch.long, device=dev)
        self.pos = torch.zeros(1, dtype=torch.long, device=dev)
        self.ar = torch.arange(max_len, device=dev)

    def weight_bytes(self):
        n = sum(t.numel() for l in self.layers for k, t in l.items() if k not in ("k", "v"))
        n += self.head.numel() + self.norm.numel()
        return 2 * n  # the embedding table: one row per token, not counted

    def kv_bytes(self):
        return sum(l["k"].numel() + l["v"].numel() for l in self.layers) * 2

    def rope(self, x):
        c = self.cos.index_select(0, self.pos).view(1, 1, 1, -1)
        s = self.sin.index_select(0, self.pos).view(1, 1, 1, -1)
        x1, x2 = x[..., 0::2], x[..., 1::2]
        return torch.stack((x1 * c - x2 * s, x1 * s + x2 * c), -1).flatten(-2)

    def step(self):
        s, b, hd = self.s, self.batch, self.s["hd"]
        x = F.embedding(self.tok, self.emb)  # b,1,h
        mask = (self.ar <= self.pos).view(1, 1, 1, -1)
        for l in self.layers:
            y = F.rms_norm(x, (s["hidden"],), l["n1"])
            qkv = F.linear(y, l["wqkv"])
            q, k, v = qkv.split([s["heads"] * hd, s["kv"] * hd, s["kv"] * hd], -1)
            q = self.rope(q.view(b, 1, s["heads"], hd).transpose(1, 2))
            k = self.rope(k.view(b, 1, s["kv"], hd).transpose(1, 2))
            v = v.view(b, 1, s["kv"], hd).transpose(1, 2)
            l["k"].index_copy_(2, self.pos, k)
            l["v"].index_copy_(2, self.pos, v)
            a = F.scaled_dot_product_attention(q, l["k"], l["v"], attn_mask=mask,
                                               enable_gqa=True)
            x = x + F.linear(a.transpose(1, 2).reshape(b, 1, -1), l["wo"])
            y = F.rms_norm(x, (s["hidden"],), l["n2"])
            g, u = F.linear(y, l["w13"]).chunk(2, -1)
            x = x + F.linear(F.silu(g) * u, l["w2"])
        x = F.rms_norm(x, (s["hidden"],), self.norm)
        logits = F.linear(x, self.head)
        self.tok.copy_(logits.argmax(-1))
        self.pos.add_(1)


def decode(name, batch, max_len=512, start=128, tokens=256):
    s = SHAPES[name]
    d = Decoder(s, batch, max_len)
    d.pos.fill_(start)
    with torch.no_grad():
        eager = cuda_time(d.step, 3, 20)
        d.pos.fill_(start)
        st = torch.cuda.Stream()
        st.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(st):
            for _ in range(3):
                d.step()
        torch.cuda.current_stream().wait_stream(st)
        d.pos.fill_(start)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            d.step()
        d.pos.fill_(start)
        graph = cuda_time(g.replay, 5, tokens)
    wb, kvb = d.weight_bytes(), d.kv_bytes()
    record("decode", model=name, batch=batch, kv_len_static=max_len,
           positions=f"{start}..{start + 5 + tokens}", graph_s_per_token=graph,
           graph_tokens_per_s=batch / graph, eager_s_per_token=eager,
           eager_tokens_per_s=batch / eager, weight_bytes_read=wb, kv_bytes_read=kvb,
           achieved_GBps_weights=wb / graph / 1e9, achieved_GBps_all=(wb + kvb) / graph / 1e9,
           peak_allocated=torch.cuda.max_memory_allocated())
    del d, g


# ---------------------------------------------------------------- transformers + PEFT
def hf_model(name, dtype, attn="sdpa"):
    from transformers import LlamaConfig, LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM
    s = SHAPES[name]
    common = dict(vocab_size=s["vocab"], hidden_size=s["hidden"],
                  intermediate_size=s["inter"], num_hidden_layers=s["layers"],
                  num_attention_heads=s["heads"], num_key_value_heads=s["kv"],
                  tie_word_embeddings=s["tied"], max_position_embeddings=32768)
    if name.startswith("qwen"):
        cfg, cls = Qwen2Config(**common), Qwen2ForCausalLM
    else:
        cfg, cls = LlamaConfig(head_dim=s["hd"], **common), LlamaForCausalLM
    try:
        cfg._attn_implementation = attn
    except Exception:
        pass
    old = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with torch.device("cuda"):
            m = cls(cfg)
    finally:
        torch.set_default_dtype(old)
    return m


def train(name, mode, batch, seq, ckpt, targets="all-linear", rank=16, steps=6, warm=2,
          accum=1, dtype=None, autocast=True, attn="sdpa"):
    """One process's training steps as Trainer(bf16=True) runs them: autocast bf16, fused
    AdamW (Trainer's default optimizer with torch >= 2.8), loss on all positions.
    full: fp32 weights (from_pretrained's default dtype); lora: bf16 base, PEFT adapters.
    accum micro-batches per optimizer step; dtype "fp32"/"bf16" overrides the model's dtype
    (bf16 without autocast: a model loaded with torch_dtype=bfloat16); attn the
    attention implementation (h200_round3.py)."""
    clean()
    base0 = torch.cuda.memory_allocated()
    dtype = dtype or ("fp32" if mode == "full" else "bf16")
    model = hf_model(name, torch.float32 if dtype == "fp32" else torch.bfloat16, attn)
    model.config.use_cache = False
    if ckpt:  # before PEFT wraps the model, as Trainer(gradient_checkpointing=True) does
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if mode == "lora":
        from peft import LoraConfig, get_peft_model
        tm = (["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
              if targets == "all-linear" else ["q_proj", "v_proj"])
        model = get_peft_model(model, LoraConfig(r=rank, lora_alpha=2 * rank, lora_dropout=0.0,
                                                 target_modules=tm, task_type="CAUSAL_LM"))
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    n_train = sum(p.numel() for p in params)
    n_all = sum(p.numel() for p in model.parameters())
    trainable_dtypes = sorted({str(p.dtype) for p in params})
    opt = torch.optim.AdamW(params, lr=1e-5, fused=True)
    x = torch.randint(0, SHAPES[name]["vocab"], (batch, seq), device="cuda")
    weights_bytes = torch.cuda.memory_allocated() - base0
    torch.cuda.reset_peak_memory_stats()

    def step():
        for _ in range(accum):
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=autocast):
                loss = model(input_ids=x, labels=x).loss / accum
            loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    dt = wall_time(step, warm, steps)
    record("train", model=name, mode=mode, batch=batch, seq=seq, grad_ckpt=ckpt,
           lora_targets=targets if mode == "lora" else None,
           lora_rank=rank if mode == "lora" else None,
           params=n_all, trainable=n_train, trainable_dtypes=trainable_dtypes,
           weights_bytes=weights_bytes,
           peak_allocated=torch.cuda.max_memory_allocated(),
           peak_reserved=torch.cuda.max_memory_reserved(), s_per_step=dt,
           tokens_per_s=batch * seq * accum / dt, steps_timed=steps, warmup_steps=warm,
           grad_accum=accum, model_dtype=dtype, optimizer="torch.optim.AdamW(fused=True)",
           autocast="bf16" if autocast else None, attn=attn)
    del model, opt, params, x


def generate(name, prompt, new):
    """model.generate as a user runs it: bf16 weights, greedy, DynamicCache, sdpa."""
    clean()
    model = hf_model(name, torch.bfloat16).eval()
    x = torch.randint(0, SHAPES[name]["vocab"], (1, prompt), device="cuda")
    wb = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    kw = dict(max_new_tokens=new, min_new_tokens=new, do_sample=False, pad_token_id=0)
    with torch.no_grad():
        model.generate(x, **kw)  # warm-up (and the peak)
        torch.cuda.synchronize()
        t = time.time()
        model.generate(x, **kw)
        torch.cuda.synchronize()
        total = time.time() - t
        t = time.time()
        for _ in range(3):
            model(input_ids=x, use_cache=True, logits_to_keep=1)
        torch.cuda.synchronize()
        prefill = (time.time() - t) / 3
    record("generate", model=name, prompt=prompt, new_tokens=new, weights_bytes=wb,
           peak_allocated=torch.cuda.max_memory_allocated(),
           peak_reserved=torch.cuda.max_memory_reserved(), total_s=total,
           prefill_s=prefill, prefill_tokens_per_s=prompt / prefill,
           decode_tokens_per_s=(new - 1) / max(total - prefill, 1e-9))
    del model, x


def main():
    guarded("env", environment)
    guarded("bandwidth", bandwidth)
    sizes = [4096, 8192, 12288, 16384]
    guarded("mamf-bf16", mamf, "bf16", sizes)
    guarded("mamf-fp8", mamf, "fp8", sizes)
    guarded("mamf-tf32", mamf, "tf32", [8192, 16384])
    guarded("mamf-fp32", mamf, "fp32", [8192])
    guarded("decode", decode, "llama-2-7b", 1)
    guarded("decode", decode, "llama-3.1-8b", 1)
    guarded("decode", decode, "llama-3.1-8b", 16)
    guarded("train", train, "llama-3.2-1b", "full", 4, 2048, False)
    guarded("train", train, "llama-3.2-1b", "full", 8, 2048, True)
    guarded("train", train, "llama-3.2-3b", "full", 4, 2048, True)
    guarded("train", train, "llama-3.1-8b", "lora", 4, 2048, True)
    guarded("train", train, "llama-3.1-8b", "lora", 2, 1024, False, "qv")
    guarded("train", train, "llama-3.1-8b", "lora", 1, 4096, False)
    guarded("train", train, "qwen2.5-7b", "lora", 2, 2048, True)
    guarded("generate", generate, "llama-3.1-8b", 8192, 32)
    guarded("generate", generate, "llama-3.1-8b", 128, 128)
    guarded("train", train, "llama-3.1-8b", "full", 1, 2048, True, steps=3, warm=1)
    log("done")


if __name__ == "__main__":
    main()
