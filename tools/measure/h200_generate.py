#!/usr/bin/env python3
"""transformers generate() decode on one host, every model in one process (a lent H200,
2026-12-04): eager PyTorch, DynamicCache, sdpa, greedy. Its per-token time is the host's
Python dispatch per layer, not the GPU, so the four sizes are run back to back, twice.

Usage: python3 tools/measure/h200_generate.py OUT_DIR   (appends to OUT_DIR/results.jsonl)
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import h200_calibration as base  # noqa: E402
from h200_calibration import guarded  # noqa: E402


def main():
    guarded("env", base.environment)
    for rep in range(2):
        for name in ["llama-3.2-1b", "llama-3.2-3b", "qwen2.5-7b", "llama-3.1-8b"]:
            guarded("generate", base.generate, name, 128, 256)
    guarded("generate", base.generate, "llama-3.1-8b", 4096, 256)
    base.log("cpu", os.cpu_count(), open("/proc/cpuinfo").read().split("model name")[1].split("\n")[0]
             if os.path.exists("/proc/cpuinfo") else "?")
    base.log("done")


if __name__ == "__main__":
    main()
