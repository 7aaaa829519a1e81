#!/usr/bin/env python3
"""Eager attention as transformers writes it (eager_attention_forward: q.k^T * scaling, + the
4-D causal mask, softmax in fp32, cast back, dropout p=0, probs.v), timed forward and forward +
backward against sdpa (is_causal) on the same tensors; a lent H200, 2026-12-04.

Usage: python3 tools/measure/h200_eager_attention.py OUT_DIR  (appends to OUT_DIR/results.jsonl)
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from h200_calibration import cuda_time, record  # noqa: E402  (opens OUT_DIR/results.jsonl)


def eager(q, k, v, mask, scaling):
    w = torch.matmul(q, k.transpose(2, 3)) * scaling
    w = w + mask
    w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
    w = F.dropout(w, p=0.0, training=True)
    return torch.matmul(w, v)


def case(b, a, s, d):
    dt, dev = torch.bfloat16, "cuda"
    q, k, v = (torch.randn(b, a, s, d, device=dev, dtype=dt, requires_grad=True) for _ in range(3))
    mask = torch.full((s, s), float("-inf"), device=dev).triu(1).to(dt)[None, None].expand(b, 1, s, s)
    g = torch.randn(b, a, s, d, device=dev, dtype=dt)
    sc = d ** -0.5
    res = {}
    with torch.no_grad():
        res["eager_fwd_s"] = cuda_time(lambda: eager(q, k, v, mask, sc), 3, 10)
        res["sdpa_fwd_s"] = cuda_time(
            lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True), 3, 10)

    def eager_fb():
        eager(q, k, v, mask, sc).backward(g)

    def sdpa_fb():
        F.scaled_dot_product_attention(q, k, v, is_causal=True).backward(g)

    res["eager_fwd_bwd_s"] = cuda_time(eager_fb, 3, 10)
    res["sdpa_fwd_bwd_s"] = cuda_time(sdpa_fb, 3, 10)
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    out = eager(q, k, v, mask, sc)
    res["eager_saved_bytes"] = torch.cuda.memory_allocated() - base - out.numel() * 2
    del out
    scores = b * a * s * s
    res["eager_extra_fwd_bwd_ns_per_score"] = (res["eager_fwd_bwd_s"] - res["sdpa_fwd_bwd_s"]) / scores * 1e9
    res["eager_fwd_bwd_ns_per_score"] = res["eager_fwd_bwd_s"] / scores * 1e9
    record("eager_attention", b=b, heads=a, s=s, head_dim=d, score_elements=scores,
           torch=torch.__version__, gpu=torch.cuda.get_device_name(), **res)
    del q, k, v, g, mask
    torch.cuda.empty_cache()


for shape in [(2, 24, 2048, 128), (4, 32, 1024, 128), (1, 32, 4096, 128), (8, 16, 512, 64)]:
    try:
        case(*shape)
    except Exception as e:  # one failure must not lose the others
        print("error", shape, repr(e)[:300], flush=True)
