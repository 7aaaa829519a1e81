#!/usr/bin/env python3
"""Second H200 measurement (2026-12-04): gpt-fast-style compiled batch-1 decode, transformers
generate() across sizes (the per-layer host time of eager decoding) and two more training
steps. Reuses the shapes, helpers and guards of h200_calibration.py.

Usage: python3 tools/measure/h200_round2.py OUT_DIR   (writes OUT_DIR/results.jsonl)
"""
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import h200_calibration as base  # noqa: E402  (opens OUT_DIR/results.jsonl from argv)
from h200_calibration import Decoder, SHAPES, cuda_time, guarded, record  # noqa: E402


def compiled_decode(name, batch, max_len=512, start=128, tokens=200):
    """gpt-fast's decode: the step compiled whole by torch.compile (fullgraph; inductor fuses
    the elementwise work), then replayed as one CUDA graph per token, captured here by hand
    (gpt-fast gets the graph from mode='reduce-overhead'; its KV cache is a module buffer)."""
    d = Decoder(SHAPES[name], batch, max_len)
    step = torch.compile(d.step, fullgraph=True)
    t0 = time.time()
    with torch.no_grad():
        d.pos.fill_(start)
        st = torch.cuda.Stream()
        st.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(st):
            for _ in range(3):
                step()
        torch.cuda.current_stream().wait_stream(st)
        torch.cuda.synchronize()
        compile_s = time.time() - t0
        d.pos.fill_(start)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            step()
        d.pos.fill_(start)
        s = cuda_time(g.replay, 5, tokens)
    wb, kvb = d.weight_bytes(), d.kv_bytes()
    record("decode_compiled", model=name, batch=batch, kv_len_static=max_len,
           s_per_token=s, tokens_per_s=batch / s, weight_bytes_read=wb, kv_bytes_read=kvb,
           achieved_GBps_weights=wb / s / 1e9, achieved_GBps_all=(wb + kvb) / s / 1e9,
           compile_s=compile_s, torch_compile="fullgraph=True (inductor), CUDA graph by hand")
    del d, step, g
    torch._dynamo.reset()


def main():
    guarded("env", base.environment)
    guarded("decode_compiled", compiled_decode, "llama-3.1-8b", 1)
    guarded("decode_compiled", compiled_decode, "llama-3.2-1b", 1)
    guarded("generate", base.generate, "llama-3.2-1b", 128, 128)
    guarded("generate", base.generate, "llama-3.2-3b", 128, 128)
    guarded("generate", base.generate, "qwen2.5-7b", 128, 128)
    guarded("train", base.train, "llama-3.1-8b", "lora", 8, 2048, True)
    guarded("train", base.train, "llama-3.2-1b", "full", 16, 1024, True)
    guarded("decode_compiled", compiled_decode, "llama-3.2-3b", 1)
    base.log("done")


if __name__ == "__main__":
    main()
