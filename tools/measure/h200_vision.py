#!/usr/bin/env python3
"""Fourth H200 measurement (2026-12-04, round 12): the non-LLM models gpusel rates in images/s
or encoder tokens/s, which the calibration had only from published tables on older cards:
ResNet-50/101 and ViT-B/16, L/16 (torchvision, random weights) and BERT-base/large
(transformers, built from BertConfig), trained and run as their reference recipes do.

What it records (OUT_DIR/results.jsonl, one JSON object per line, through h200_calibration):
- cnn_train / vit_train: images/s and peak memory of SGD-momentum training steps (NVIDIA
  DeepLearningExamples' ResNet recipe: momentum 0.875, channels_last under AMP,
  cudnn.benchmark) for each precision: AMP bf16, AMP fp16, fp32 with PyTorch's default TF32
  convolutions (cudnn.allow_tf32 = True) and strict fp32 (allow_tf32 = False).
- cnn_infer: images/s of the forward pass alone (AMP, no grad).
- cnn_profile: one AMP training step's CUDA kernel time split into convolution/GEMM kernels
  and everything else (batch norm, ReLU, residual adds, pooling, layout and optimizer
  kernels), and the bytes autograd saves per image: what gpusel's CNN model must charge
  between the convolutions.
- bert_train: tokens/s and peak memory of masked-LM training steps (AdamW fused, AMP bf16,
  sdpa attention).

Usage: python3 tools/measure/h200_vision.py OUT_DIR [round2|round3|round4|round5]
"""
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import h200_calibration as base  # noqa: E402
from h200_calibration import clean, guarded, log, record, wall_time  # noqa: E402

import torch  # noqa: E402
import torchvision  # noqa: E402

torch.backends.cudnn.benchmark = True

PRECISIONS = {  # name -> (autocast dtype or None, cudnn TF32 allowed, channels_last)
    "amp_bf16": (torch.bfloat16, True, True),
    "amp_fp16": (torch.float16, True, True),
    "fp32_tf32": (None, True, False),
    "fp32_strict": (None, False, False),
}
# Round 2 only (main() sweeps PRECISIONS above): fp32 convolutions in channels_last.
EXTRA = {"fp32_tf32_cl": (None, True, True)}
SETTINGS = {**PRECISIONS, **EXTRA}


def vision_model(name):
    return getattr(torchvision.models, name)(weights=None).cuda()


def vision_step(model, opt, x, y, precision):
    dtype = SETTINGS[precision][0]
    with torch.autocast("cuda", dtype=dtype or torch.float32, enabled=dtype is not None):
        loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)


def vision_setup(name, batch, precision, size=224):
    _, tf32, cl = SETTINGS[precision]
    torch.backends.cudnn.allow_tf32 = tf32
    model = vision_model(name).train()
    if cl:
        model = model.to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.875, weight_decay=3.05e-5)
    x = torch.randn(batch, 3, size, size, device="cuda")
    if cl:
        x = x.to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (batch,), device="cuda")
    return model, opt, x, y


def vision_train(name, batch, precision, steps=10, warm=4, kind="cnn_train"):
    clean()
    base0 = torch.cuda.memory_allocated()
    model, opt, x, y = vision_setup(name, batch, precision)
    weights = torch.cuda.memory_allocated() - base0
    torch.cuda.reset_peak_memory_stats()
    dt = wall_time(lambda: vision_step(model, opt, x, y, precision), warm, steps)
    record(kind, model=name, batch=batch, image=224, precision=precision,
           params=sum(p.numel() for p in model.parameters()), weights_bytes=weights,
           peak_allocated=torch.cuda.max_memory_allocated(),
           peak_reserved=torch.cuda.max_memory_reserved(), s_per_step=dt,
           images_per_s=batch / dt, steps_timed=steps, warmup_steps=warm,
           optimizer="SGD(momentum=0.875)", cudnn_benchmark=True)
    torch.backends.cudnn.allow_tf32 = True
    del model, opt, x, y


def vision_infer(name, batch, precision="amp_bf16", iters=20):
    clean()
    model, _, x, _ = vision_setup(name, batch, precision)
    model.eval()
    dtype = SETTINGS[precision][0]

    def f():
        with torch.no_grad(), torch.autocast("cuda", dtype=dtype):
            model(x)

    dt = base.cuda_time(f, 5, iters)
    record("cnn_infer", model=name, batch=batch, image=224, precision=precision,
           s_per_batch=dt, images_per_s=batch / dt)
    del model, x


def category(kernel):
    k = kernel.lower()
    if any(s in k for s in ("conv", "gemm", "xmma", "cutlass", "sm80_", "sm90_", "implicit",
                            "wgrad", "dgrad", "fprop", "nchwtonhwc", "nhwctonchw")):
        return "conv_gemm" if "tonhwc" not in k and "tonchw" not in k else "layout"
    if "norm" in k or "bn_" in k or "batch" in k:
        return "batch_norm"
    if "pool" in k:
        return "pooling"
    if "multi_tensor" in k or "sgd" in k or "foreach" in k:
        return "optimizer"
    return "elementwise_other"


def saved_bytes(model, x, y, dtype):
    """Bytes autograd keeps for backward (unique storages), for one forward of the batch."""
    seen, total = set(), [0]

    def pack(t):
        key = t.untyped_storage().data_ptr()
        if key not in seen:
            seen.add(key)
            total[0] += t.untyped_storage().nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        with torch.autocast("cuda", dtype=dtype or torch.float32, enabled=dtype is not None):
            loss = torch.nn.functional.cross_entropy(model(x), y)
    del loss
    return total[0]


def kernel_times(step, warm=4, steps=3):
    """The CUDA kernels of `steps` profiled calls after `warm` unprofiled ones, as
    {kernel name: [microseconds per call, launches per call]}."""
    for _ in range(warm):
        step()
    torch.cuda.synchronize()
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
    out = defaultdict(lambda: [0.0, 0.0])
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            out[e.name][0] += e.time_range.elapsed_us() / steps
            out[e.name][1] += 1 / steps
    return dict(out)


def split(times, kind):
    """Kernel time and launches per call, summed by kind(name)."""
    us, count = defaultdict(float), defaultdict(float)
    for name, (t, n) in times.items():
        us[kind(name)] += t
        count[kind(name)] += n
    return us, count


def top(times, n, width):
    return [[k[:width], round(v[0], 1)] for k, v in
            sorted(times.items(), key=lambda kv: -kv[1][0])[:n]]


def vision_profile(name, batch, precision="amp_bf16", train=True):
    """CUDA kernel time per step by category (3 profiled steps after 4 warm-up ones)."""
    clean()
    precision_run = precision
    model, opt, x, y = vision_setup(name, batch, precision_run)
    dtype = SETTINGS[precision_run][0]
    if not train:
        model.eval()

    def one():
        if train:
            vision_step(model, opt, x, y, precision_run)
        else:
            with torch.no_grad(), torch.autocast("cuda", dtype=dtype or torch.float32,
                                                 enabled=dtype is not None):
                model(x)

    times = kernel_times(one)
    us, count = split(times, category)
    saved = saved_bytes(model, x, y, dtype) / batch if train else None
    record("cnn_profile", model=name, batch=batch, precision=precision,
           channels_last=SETTINGS[precision_run][2], train=train,
           kernel_us_per_step={k: round(v, 1) for k, v in us.items()},
           kernels_per_step={k: int(round(v)) for k, v in count.items()},
           saved_bytes_per_image=saved, top_kernels_us=top(times, 25, 90))
    torch.backends.cudnn.allow_tf32 = True
    del model, opt, x, y


def bert_config(size):
    """BERT-base (BertConfig's defaults) or BERT-large, sdpa attention."""
    from transformers import BertConfig
    cfg = BertConfig() if size == "base" else BertConfig(
        hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096)
    cfg._attn_implementation = "sdpa"
    return cfg


def autocast_step(loss_of, opt):
    """One training step as the runs here take it: bf16 autocast, backward, the optimizer."""
    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = loss_of()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    return step


def bert_train(size, batch, seq, steps=10, warm=3):
    from transformers import BertForMaskedLM
    clean()
    cfg = bert_config(size)
    base0 = torch.cuda.memory_allocated()
    model = BertForMaskedLM(cfg).cuda().train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)
    weights = torch.cuda.memory_allocated() - base0
    x = torch.randint(0, cfg.vocab_size, (batch, seq), device="cuda")
    torch.cuda.reset_peak_memory_stats()
    dt = wall_time(autocast_step(lambda: model(input_ids=x, labels=x).loss, opt), warm, steps)
    record("bert_train", model=f"bert-{size}", batch=batch, seq=seq,
           params=sum(p.numel() for p in model.parameters()), weights_bytes=weights,
           peak_allocated=torch.cuda.max_memory_allocated(),
           peak_reserved=torch.cuda.max_memory_reserved(), s_per_step=dt,
           tokens_per_s=batch * seq / dt, autocast="bf16", attn="sdpa",
           optimizer="torch.optim.AdamW(fused=True)", labels="all positions")
    del model, opt, x


def main():
    guarded("env", base.environment)
    record("versions", torchvision=torchvision.__version__)
    for precision in PRECISIONS:
        guarded("cnn_train", vision_train, "resnet50", 256, precision)
    guarded("cnn_train", vision_train, "resnet101", 256, "amp_bf16")
    guarded("cnn_train", vision_train, "resnet101", 256, "fp32_tf32")
    guarded("cnn_train", vision_train, "resnet50", 128, "amp_bf16")
    guarded("cnn_infer", vision_infer, "resnet50", 256)
    guarded("cnn_infer", vision_infer, "resnet50", 256, "amp_fp16")
    guarded("cnn_profile", vision_profile, "resnet50", 256)
    guarded("vit_train", vision_train, "vit_b_16", 128, "amp_bf16", kind="vit_train")
    guarded("vit_train", vision_train, "vit_l_16", 64, "amp_bf16", kind="vit_train")
    guarded("bert_train", bert_train, "base", 32, 512)
    guarded("bert_train", bert_train, "base", 64, 128)
    guarded("bert_train", bert_train, "large", 16, 512)
    log("done")


def round2():
    """Second run the same day: the kernel split for every precision, and inference."""
    guarded("env", base.environment)
    guarded("cnn_profile", vision_profile, "resnet50", 256, "amp_fp16")
    guarded("cnn_profile", vision_profile, "resnet50", 256, "fp32_tf32")
    guarded("cnn_profile", vision_profile, "resnet50", 256, "fp32_strict")
    guarded("cnn_profile", vision_profile, "resnet50", 256, "fp32_tf32_cl")
    guarded("cnn_train", vision_train, "resnet50", 256, "fp32_tf32_cl")
    guarded("cnn_profile", vision_profile, "resnet50", 256, "amp_bf16", train=False)
    guarded("cnn_profile", vision_profile, "resnet50", 256, "amp_fp16", train=False)
    guarded("cnn_profile", vision_profile, "resnet50", 64, "amp_fp16")
    guarded("cnn_train", vision_train, "resnet50", 64, "amp_fp16")
    guarded("cnn_train", vision_train, "resnet101", 256, "amp_fp16")
    log("done")


def host_vs_gpu(label, build, steps=6, warm=3):
    """Wall time per step against the CUDA kernel time per step and the kernels launched: is
    the step bound by the GPU or by the host's eager op dispatch?"""
    clean()
    step = build()
    wall = wall_time(step, warm, steps)
    times = kernel_times(step, 0, 3)  # warm already
    gpu = sum(t for t, _ in times.values()) / 1e6
    record("host_vs_gpu", label=label, wall_s_per_step=wall, kernel_s_per_step=gpu,
           kernels_per_step=int(round(sum(n for _, n in times.values()))),
           host_bound=wall > 1.2 * gpu)
    del step


def bert_builder(size, batch, seq):
    def build():
        from transformers import BertForMaskedLM
        cfg = bert_config(size)
        model = BertForMaskedLM(cfg).cuda().train()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)
        x = torch.randint(0, cfg.vocab_size, (batch, seq), device="cuda")
        return autocast_step(lambda: model(input_ids=x, labels=x).loss, opt)
    return build


def vision_builder(name, batch, precision):
    def build():
        model, opt, x, y = vision_setup(name, batch, precision)
        return lambda: vision_step(model, opt, x, y, precision)
    return build


def round3():
    """Third run: where the encoder and small-batch steps spend their time."""
    guarded("env", base.environment)
    for size, b, s in (("base", 64, 128), ("base", 32, 512), ("base", 128, 512),
                       ("large", 16, 512)):
        guarded("host_vs_gpu", host_vs_gpu, f"bert-{size} {b}x{s}", bert_builder(size, b, s))
    for name, b in (("vit_b_16", 128), ("vit_b_16", 256), ("vit_l_16", 64)):
        guarded("host_vs_gpu", host_vs_gpu, f"{name} {b} amp_bf16",
                vision_builder(name, b, "amp_bf16"))
    for b in (64, 256):
        guarded("host_vs_gpu", host_vs_gpu, f"resnet50 {b} amp_fp16",
                vision_builder("resnet50", b, "amp_fp16"))
    log("done")


def encoder_kind(name):
    """An encoder step's kernel by kind: attention, GEMM, normalisation, optimizer, other."""
    k = name.lower()
    if "flash" in k or "fmha" in k or "attention" in k or "sdpa" in k:
        return "attention"
    if any(s in k for s in ("gemm", "nvjet", "cutlass", "xmma", "sm90_", "sm80_")):
        return "gemm"
    if "norm" in k:
        return "norm"
    if "multi_tensor" in k or "adam" in k or "sgd" in k:
        return "optimizer"
    return "other"


def kernel_split(label, build, steps=3, warm=3):
    """One step's CUDA kernel time by kind of kernel: GEMMs, attention, normalisation, the
    rest (elementwise, casts, loss) and the optimizer; and the 12 largest kernels."""
    clean()
    step = build()
    times = kernel_times(step, warm, steps)
    us, _ = split(times, encoder_kind)
    record("kernel_split", label=label, us_per_step={k: round(v, 1) for k, v in us.items()},
           top_kernels_us=top(times, 12, 100))
    del step


def bert_body_builder(size, batch, seq):
    """BertModel (no LM head) with a mean-square loss on its output: the encoder alone."""
    def build():
        from transformers import BertModel
        cfg = bert_config(size)
        model = BertModel(cfg, add_pooling_layer=False).cuda().train()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)
        x = torch.randint(0, cfg.vocab_size, (batch, seq), device="cuda")
        return autocast_step(
            lambda: model(input_ids=x).last_hidden_state.float().pow(2).mean(), opt)
    return build


def round4():
    """Fourth run: where ViT and BERT encoder steps spend their GPU time."""
    guarded("env", base.environment)
    guarded("kernel_split", kernel_split, "vit_b_16 128 amp_bf16",
            vision_builder("vit_b_16", 128, "amp_bf16"))
    guarded("kernel_split", kernel_split, "vit_l_16 64 amp_bf16",
            vision_builder("vit_l_16", 64, "amp_bf16"))
    guarded("kernel_split", kernel_split, "bert-base body 128x512",
            bert_body_builder("base", 128, 512))
    guarded("host_vs_gpu", host_vs_gpu, "bert-base body 128x512",
            bert_body_builder("base", 128, 512))
    guarded("host_vs_gpu", host_vs_gpu, "bert-base body 32x128",
            bert_body_builder("base", 32, 128))
    guarded("kernel_split", kernel_split, "bert-large body 32x512",
            bert_body_builder("large", 32, 512))
    guarded("host_vs_gpu", host_vs_gpu, "bert-large body 32x512",
            bert_body_builder("large", 32, 512))
    log("done")


def gemm_sweep(tokens=16384):
    """bf16 GEMM TFLOP/s at a transformer layer's shapes for hidden sizes 512-8192 (M tokens):
    QKV, attention output, MLP up and down, forward (x @ W) and the two backward products
    (dX = dY @ W^T, dW = X^T @ dY). Groundwork for a size-dependent GEMM efficiency."""
    clean()
    for h in (512, 768, 1024, 1536, 2048, 3072, 4096, 8192):
        total_flops, total_s, per = 0.0, 0.0, {}
        for name, k, n in (("qkv", h, 3 * h), ("out", h, h), ("up", h, 4 * h), ("down", 4 * h, h)):
            x = torch.randn(tokens, k, device="cuda", dtype=torch.bfloat16)
            w = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
            dy = torch.randn(tokens, n, device="cuda", dtype=torch.bfloat16)
            for kind, f in (("fwd", lambda: x @ w), ("dx", lambda: dy @ w.t()),
                            ("dw", lambda: x.t() @ dy)):
                sec = base.cuda_time(f, 3, 20)
                flops = 2.0 * tokens * k * n
                per[f"{name}_{kind}"] = round(flops / sec / 1e12, 1)
                total_flops += flops
                total_s += sec
            del x, w, dy
        record("gemm_sweep", hidden=h, tokens=tokens, tflops=per,
               layer_tflops=round(total_flops / total_s / 1e12, 1))
    clean()


def round5():
    """Fifth run: GEMM rate against hidden size (no model change rests on it yet)."""
    guarded("env", base.environment)
    guarded("gemm_sweep", gemm_sweep)
    guarded("gemm_sweep", gemm_sweep, 4096)
    log("done")


if __name__ == "__main__":
    {"round2": round2, "round3": round3, "round4": round4, "round5": round5}.get(sys.argv[2] if len(sys.argv) > 2 else "", main)()
