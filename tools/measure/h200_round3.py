#!/usr/bin/env python3
"""Third H200 measurement (2026-12-04): training steps that test the memory mechanisms of round
11 directly: gradient accumulation (gradients alive through the next forward), pure bf16
models (no autocast, bf16 gradients and AdamW states), eager attention (the score matrices) and
a long sequence, through h200_calibration.py's train().

Usage: python3 tools/measure/h200_round3.py OUT_DIR   (appends to OUT_DIR/results.jsonl)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import h200_calibration as base  # noqa: E402
from h200_calibration import guarded, train  # noqa: E402


def main():
    # As run on 2026-12-04: 4 timed steps after 2 warm-up (train's default is 6).
    guarded("env", base.environment)
    guarded("train", train, "llama-3.2-1b", "full", 4, 2048, False, accum=2, steps=4)
    guarded("train", train, "llama-3.2-1b", "full", 4, 2048, False, dtype="bf16",
            autocast=False, steps=4)
    guarded("train", train, "llama-3.2-3b", "full", 2, 2048, True, dtype="bf16",
            autocast=False, steps=4)
    guarded("train", train, "llama-3.2-3b", "lora", 2, 2048, False, dtype="bf16", attn="eager",
            steps=4)
    guarded("train", train, "llama-3.1-8b", "lora", 1, 8192, True, dtype="bf16", steps=4)
    guarded("train", train, "llama-3.1-8b", "full", 1, 2048, True, dtype="bf16",
            autocast=False, steps=3, warm=1)
    guarded("train", train, "llama-3.2-3b", "full", 2, 2048, True, accum=4, steps=4)
    base.log("done")


if __name__ == "__main__":
    main()
