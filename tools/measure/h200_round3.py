#!/usr/bin/env python3
"""Third H200 measurement (2026-12-04): training steps that test the memory mechanisms of round
11 directly: gradient accumulation (gradients alive through the next forward), pure bf16
models (no autocast, bf16 gradients and AdamW states), eager attention (the score matrices) and
a long sequence. Reuses h200_calibration.py's shapes and helpers.

Usage: python3 tools/measure/h200_round3.py OUT_DIR   (appends to OUT_DIR/results.jsonl)
"""
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import h200_calibration as base  # noqa: E402
from h200_calibration import SHAPES, clean, guarded, record  # noqa: E402


def build(name, dtype, attn):
    m = base.hf_model(name, dtype)
    m.config._attn_implementation = attn
    for mod in m.modules():  # the attention modules read the implementation from their config
        if hasattr(mod, "config"):
            mod.config._attn_implementation = attn
    return m


def train(name, mode, batch, seq, ckpt, accum=1, dtype="fp32", autocast=True, attn="sdpa",
          steps=4, warm=2):
    """As h200_calibration.train, with gradient accumulation (micro-batches per optimizer
    step), the model's dtype (fp32: Trainer's default load; bf16: torch_dtype=bfloat16),
    autocast on or off and the attention implementation."""
    clean()
    model = build(name, torch.float32 if dtype == "fp32" else torch.bfloat16, attn)
    model.config.use_cache = False
    if ckpt:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if mode == "lora":
        from peft import LoraConfig, get_peft_model
        tm = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
        model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, lora_dropout=0.0,
                                                 target_modules=tm, task_type="CAUSAL_LM"))
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-5, fused=True)
    x = torch.randint(0, SHAPES[name]["vocab"], (batch, seq), device="cuda")
    torch.cuda.reset_peak_memory_stats()

    def step():
        for _ in range(accum):
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=autocast):
                loss = model(input_ids=x, labels=x).loss / accum
            loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    for _ in range(warm):
        step()
    torch.cuda.synchronize()
    t = time.time()
    for _ in range(steps):
        step()
    torch.cuda.synchronize()
    dt = (time.time() - t) / steps
    record("train", model=name, mode=mode, batch=batch, seq=seq, grad_ckpt=ckpt,
           grad_accum=accum, model_dtype=dtype, autocast="bf16" if autocast else None,
           attn=attn, lora_targets="all-linear" if mode == "lora" else None,
           lora_rank=16 if mode == "lora" else None,
           params=sum(p.numel() for p in model.parameters()),
           trainable=sum(p.numel() for p in params),
           trainable_dtypes=sorted({str(p.dtype) for p in params}),
           peak_allocated=torch.cuda.max_memory_allocated(),
           peak_reserved=torch.cuda.max_memory_reserved(), s_per_step=dt,
           tokens_per_s=batch * seq * accum / dt, steps_timed=steps, warmup_steps=warm,
           optimizer="torch.optim.AdamW(fused=True)")
    del model, opt, params, x


def main():
    guarded("env", base.environment)
    guarded("train", train, "llama-3.2-1b", "full", 4, 2048, False, accum=2)
    guarded("train", train, "llama-3.2-1b", "full", 4, 2048, False, dtype="bf16",
            autocast=False)
    guarded("train", train, "llama-3.2-3b", "full", 2, 2048, True, dtype="bf16",
            autocast=False)
    guarded("train", train, "llama-3.2-3b", "lora", 2, 2048, False, dtype="bf16", attn="eager")
    guarded("train", train, "llama-3.1-8b", "lora", 1, 8192, True, dtype="bf16")
    guarded("train", train, "llama-3.1-8b", "full", 1, 2048, True, dtype="bf16",
            autocast=False, steps=3, warm=1)
    guarded("train", train, "llama-3.2-3b", "full", 2, 2048, True, accum=4)
    base.log("done")


if __name__ == "__main__":
    main()
