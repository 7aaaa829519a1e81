#!/usr/bin/env python3
"""Re-derives data/throughput.json "training_efficiency" for the memory-bound term.

Each source run's end-to-end rate (MFU or TFLOP/s per GPU, read off its source and noted in
the data) gives its time per token t = F / (MAMF x e_end_to_end), F the hardware FLOPs per
token as gpusel counts them. gpusel now charges the memory-bound ops and the optimizer step
separately (throughput_traffic.cpp: M bytes per token at the achievable bandwidth BW), so
the matmul efficiency that stays is e = F / (MAMF x (t - M / BW)). Nothing here reads a
calibration row; run it to reproduce the numbers in the data's notes.
"""
import statistics

FWD, BWD = 2, 3  # activation_traffic_passes


def per_token(h, L, heads, vocab, n, seq, ckpt, micro=None, ga=1, shards=8, flash=True):
    att = 4 * L * h * seq
    lin_x, att_x = (4, 4) if ckpt else (3, 3)
    flops = lin_x * 2 * n + att_x * att
    layer = 34 * h + (0 if flash else 5 * heads * seq)
    m = L * (FWD + BWD + (FWD if ckpt else 0)) * layer + 4 * vocab * (FWD + BWD)
    if micro:  # AdamW with fp32 master weights under autocast: 30 B per parameter
        m += n / shards * 30 / (micro * seq * ga)
    return flops, m


def derive(name, e_end, mamf, bw, **run):
    f, m = per_token(**run)
    t = f / (mamf * 1e12 * e_end)
    mem = m / bw
    e = f / (mamf * 1e12 * (t - mem))
    print(f"{name:28s} e_end {e_end:.2f} memory share {mem / t:5.1%} -> matmul e {e:.2f}")
    return e


A100, A100_40, H100 = (271.2, 2039e9 * 0.91), (271.2, 1555e9 * 0.96), (794.5, 3350e9 * 0.91)
MPT = {
    "1b": dict(h=2048, L=24, heads=16, vocab=50368, n=1.3e9),
    "7b": dict(h=4096, L=32, heads=32, vocab=50368, n=6.7e9),
    "13b": dict(h=5120, L=40, heads=40, vocab=50368, n=12.9e9),
    "30b": dict(h=7168, L=48, heads=64, vocab=50368, n=29.9e9),
    "70b": dict(h=8192, L=80, heads=64, vocab=50368, n=69e9),
}
print("default (A100 llm-foundry, Gaudi 2, nanoGPT 4090, BLOOM):")
default = [
    derive("MPT-1B A100", 0.69, *A100, seq=2048, ckpt=False, micro=14, **MPT["1b"]),
    derive("MPT-7B A100", 0.74, *A100, seq=2048, ckpt=False, micro=6, **MPT["7b"]),
    derive("MPT-13B A100", 0.69, *A100, seq=2048, ckpt=False, micro=2, ga=3, **MPT["13b"]),
    derive("MPT-30B A100 ckpt", 0.85, *A100, seq=2048, ckpt=True, micro=3, ga=21, **MPT["30b"]),
    derive("MPT-70B A100 ckpt", 0.82, *A100, seq=2048, ckpt=True, micro=8, ga=4, shards=64,
           **MPT["70b"]),
    derive("MPT-7B A100-40GB ckpt", 0.79, *A100_40, seq=2048, ckpt=True, micro=18, shards=32,
           **MPT["7b"]),
    derive("MPT-7B Gaudi 2", 0.62, 418.7, 2450e9 * 0.91, seq=2048, ckpt=False, **MPT["7b"]),
    derive("nanoGPT 124M RTX 4090", 0.54, 166.9, 1008e9 * 0.90, h=768, L=12, heads=12,
           vocab=50304, n=124e6, seq=1024, ckpt=False, micro=12, ga=40, shards=1),
    derive("BLOOM-176B A100", 0.66, *A100, h=14336, L=70, heads=112, vocab=250880, n=176e9,
           seq=2048, ckpt=True),
]
print(f"  median {statistics.median(default):.2f}")
print("Hopper (H100 llm-foundry, Llama 3 405B):")
hopper = [
    derive("MPT-1B H100", 0.52, *H100, seq=2048, ckpt=False, micro=14, **MPT["1b"]),
    derive("MPT-7B H100", 0.58, *H100, seq=2048, ckpt=False, micro=6, **MPT["7b"]),
    derive("MPT-13B H100", 0.50, *H100, seq=2048, ckpt=False, micro=2, **MPT["13b"]),
    derive("MPT-30B H100 ckpt", 0.63, *H100, seq=2048, ckpt=True, micro=3, ga=21, **MPT["30b"]),
    derive("MPT-70B H100 ckpt", 0.71, *H100, seq=2048, ckpt=True, micro=8, ga=4, shards=64,
           **MPT["70b"]),
]
for e_end in (0.48, 0.54):
    hopper.append(derive(f"Llama 3 405B ({e_end})", e_end, *H100, h=16384, L=126, heads=128,
                         vocab=128256, n=405e9, seq=8192, ckpt=False))
print(f"  median {statistics.median(hopper):.2f}")

# ROCm on CDNA 3: SemiAnalysis's runs in ROCm/TransformerEngine issues #72, #78, #79 (October
# 2024, PyTorch nightly on ROCm 6.2, BF16 torch.compile) over MI300X's MAMF (668.4, TunableOp).
# Sequence lengths are not in the issues' text: 4096 for Llama 3 (the memory-bound share moves
# the result by under 0.01 between 2048 and 8192), 1024 for GPT-2 XL (its context).
print("CDNA 3 (MI300X, SemiAnalysis):")
MI300X = (668.4, 5300e9 * 0.91)
cdna3 = [
    derive("Llama 3 8B FSDP", 410.42 / 668.4, *MI300X, h=4096, L=32, heads=32, vocab=128256,
           n=8.03e9, seq=4096, ckpt=False, micro=4),
    derive("Llama 3 70B 4-layer proxy", 491.22 / 0.94 / 668.4, *MI300X, h=8192, L=4, heads=64,
           vocab=128256, n=5.5e9, seq=4096, ckpt=False, micro=12),
    derive("GPT-2 XL 1 GPU", 215.79 / 668.4, *MI300X, h=1600, L=48, heads=25, vocab=50257,
           n=1.56e9, seq=1024, ckpt=False, micro=16, shards=1),
]
print(f"  median {statistics.median(cdna3):.2f}")

# FP8: llm-foundry MPT-1B seq 512 on 8x H100, BF16 52,275 and FP8 (Transformer Engine)
# 70,315 tokens/s/GPU. The BF16 twin gives the stack's matmul efficiency e; the FP8 run,
# less its memory-bound time (casts included) and its 16-bit attention at e, gives the FP8
# linear layers' rate; over FP8 MAMF (1402.6) x e that is fp8_training_factor.
print("FP8 (MPT-1B seq 512, H100):")
cfg = dict(seq=512, ckpt=False, micro=56, ga=4, **MPT["1b"])
f, m = per_token(**cfg)
t_bf = 1 / 52275
e_bf = f / (794.5e12 * (t_bf - m / H100[1]))
h, L = 2048, 24
casts = 2 * L * 3 * (2 * h + h + 4 * h)
t_fp8 = 1 / 70315
lin = 6 * 1.3e9
att_s = (f - lin) / (794.5e12 * e_bf)
lin_rate = lin / (t_fp8 - (m + casts) / H100[1] - att_s)
print(f"  BF16 matmul e {e_bf:.3f}; FP8 linear {lin_rate / 1e12:.0f} TFLOPS "
      f"= {lin_rate / (1402.6e12 * e_bf):.3f} x FP8 MAMF x e")

# FP8 on Gaudi 2: Fishman et al. (arXiv 2409.12517, Intel/Habana, ICLR 2025) train Llama 2 7B
# in FP8 on Gaudi 2 at up to ~1.34x the throughput of their BF16 baseline (abstract; Habana's
# Megatron-DeepSpeed, FusedSDPA attention). The BF16 run takes the Gaudi stack's matmul
# efficiency; the FP8 run, less its memory-bound time (casts included) and its 16-bit
# attention, leaves the FP8 linear layers' rate; over FP8 MAMF (826.5) x e that is the Gaudi
# stack's FP8 factor. Sequence 4096 (Llama 2's context) is assumed: the abstract gives none.
print("FP8 (Llama 2 7B seq 4096, Gaudi 2):")
GAUDI2 = (418.7, 2450e9 * 0.91)
e_g = 0.66  # training_efficiency.gaudi
h, L, inter, n7 = 4096, 32, 11008, 6.61e9
f, m = per_token(h=h, L=L, heads=32, vocab=32000, n=n7, seq=4096, ckpt=False)
lin = 6 * n7
att_s = (f - lin) / (GAUDI2[0] * 1e12 * e_g)
t_bf = lin / (GAUDI2[0] * 1e12 * e_g) + att_s + m / GAUDI2[1]
casts = 2 * L * 3 * (2 * h + h + inter)
t_fp8 = t_bf / 1.34
lin_rate = lin / (t_fp8 - (m + casts) / GAUDI2[1] - att_s)
print(f"  FP8 linear {lin_rate / 1e12:.0f} TFLOPS = {lin_rate / (826.5e12 * e_g):.3f} x FP8 MAMF x e")
