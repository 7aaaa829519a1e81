"""Count the bytes autograd keeps for backward (saved tensors), deduplicated by storage.

Runs on CPU with Debian's python3-torch (1.13) and python3-torchvision (0.14).
Usage: /usr/bin/python3 saved_bytes.py
Prints per-image saved bytes for torchvision ResNet-50/101 and ViT-B/16, L/16 (fp32),
and per-token saved bytes for hand-written Llama-style blocks in several LoRA setups.
"""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class Recorder:
    def __init__(self):
        self.seen = {}

    def pack(self, t):
        if isinstance(t, torch.Tensor) and t.device.type != "meta":
            try:
                st = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
                key = (st.data_ptr(), st.nbytes())
                self.seen[key] = st.nbytes()
            except Exception:
                self.seen[(id(t), t.numel())] = t.numel() * t.element_size()
        return t

    def unpack(self, t):
        return t

    def total(self, exclude=()):
        ex = set()
        for p in exclude:
            st = p.untyped_storage() if hasattr(p, "untyped_storage") else p.storage()
            ex.add((st.data_ptr(), st.nbytes()))
        return sum(v for k, v in self.seen.items() if k not in ex)


def saved(fn, params=()):
    r = Recorder()
    with torch.autograd.graph.saved_tensors_hooks(r.pack, r.unpack):
        out = fn()
    return r.total(exclude=params), out


def vision():
    import torchvision
    for name in ["resnet50", "resnet101", "vit_b_16", "vit_l_16"]:
        m = getattr(torchvision.models, name)()
        m.train()
        params = list(m.parameters()) + list(m.buffers())
        res = []
        for b in (1, 2):
            x = torch.randn(b, 3, 224, 224)
            n, out = saved(lambda: m(x), params)
            res.append(n)
        per_img = res[1] - res[0]
        nparam = sum(p.numel() for p in m.parameters())
        print(f"{name}: params {nparam/1e6:.2f}M; saved for backward fp32 {per_img/1e6:.1f} MB/image "
              f"({per_img/4/1e6:.1f}M values), batch-independent {(res[0]-per_img)/1e6:.1f} MB")


class RMSNormHF(nn.Module):  # same op sequence as transformers' LlamaRMSNorm
    def __init__(self, h):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(h))

    def forward(self, x):
        dt = x.dtype
        x32 = x.to(torch.float32)
        var = x32.pow(2).mean(-1, keepdim=True)
        x32 = x32 * torch.rsqrt(var + 1e-6)
        return self.weight * x32.to(dt)


class Lora(nn.Module):
    """Base linear (frozen) plus A/B adapters; `style` picks how the adapter input is cast."""
    def __init__(self, d_in, d_out, r, style, dropout, adapter_dtype):
        super().__init__()
        self.base = nn.Linear(d_in, d_out, bias=False)
        self.base.weight.requires_grad_(False)
        self.style = style
        if style != "none":
            self.A = nn.Linear(d_in, r, bias=False).to(adapter_dtype)
            self.B = nn.Linear(r, d_out, bias=False).to(adapter_dtype)
            self.drop = nn.Dropout(dropout) if dropout > 0 else nn.Identity()

    def forward(self, x):
        if self.style == "peft4":  # bitsandbytes Linear4bit: compute in bf16, output in input dtype
            y = self.base(x.to(torch.bfloat16)).to(x.dtype)
        else:
            y = self.base(x)
        if self.style == "none":
            return y
        cast = self.style == "peft" or (self.style == "peft4" and not torch.is_autocast_cpu_enabled())
        xa = x.to(self.A.weight.dtype) if cast else x
        out = self.B(self.A(self.drop(xa))) * 2.0
        return (y + out).to(y.dtype) if self.style != "tt" else y + out


class Block(nn.Module):
    def __init__(self, h, heads, kv, inter, r, style, dropout, adapter_dtype):
        super().__init__()
        hd = h // heads
        mk = lambda i, o: Lora(i, o, r, style, dropout, adapter_dtype)
        self.h, self.heads, self.kv, self.hd = h, heads, kv, hd
        self.n1, self.n2 = RMSNormHF(h), RMSNormHF(h)
        self.q, self.k, self.v, self.o = mk(h, heads * hd), mk(h, kv * hd), mk(h, kv * hd), mk(heads * hd, h)
        self.g, self.u, self.d = mk(h, inter), mk(h, inter), mk(inter, h)
        for n in (self.n1, self.n2):
            n.weight.requires_grad_(False)

    def forward(self, x):
        b, s, _ = x.shape
        y = self.n1(x)
        q = self.q(y).view(b, s, self.heads, self.hd).transpose(1, 2)
        k = self.k(y).view(b, s, self.kv, self.hd).transpose(1, 2)
        v = self.v(y).view(b, s, self.kv, self.hd).transpose(1, 2)
        a = self.attn(q, k, v).transpose(1, 2).reshape(b, s, -1)
        x = x + self.o(a)
        y = self.n2(x)
        return x + self.d(F.silu(self.g(y)) * self.u(y))

    def attn(self, q, k, v):
        # Stand-in for a flash kernel: a custom op saving q, k, v, out and an fp32 logsumexp,
        # which is what FlashAttention-2 and PyTorch's flash SDPA save (see memory.md s5).
        return FlashLike.apply(q, k, v, self.heads // self.kv)


class FlashLike(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, rep):
        kk = k.repeat_interleave(rep, 1)
        vv = v.repeat_interleave(rep, 1)
        sc = (q.float() @ kk.float().transpose(-1, -2)) / math.sqrt(q.shape[-1])
        n = sc.shape[-1]
        sc = sc + torch.triu(torch.full((n, n), float("-inf")), 1)
        lse = torch.logsumexp(sc, -1)
        out = (torch.softmax(sc, -1) @ vv.float()).to(q.dtype)
        ctx.save_for_backward(q, k, v, out, lse)
        return out

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError


def llama_cases():
    h, heads, kv, inter, r, s = 512, 8, 2, 1792, 8, 64  # Llama-3 proportions, scaled down
    cases = [
        ("frozen bf16 base, no adapters", "none", 0.0, torch.bfloat16, torch.bfloat16, False),
        ("torchtune: bf16 adapters, dropout 0", "tt", 0.0, torch.bfloat16, torch.bfloat16, False),
        ("PEFT fp32 adapters, autocast bf16, dropout 0", "peft", 0.0, torch.float32, torch.bfloat16, True),
        ("PEFT fp32 adapters, autocast bf16, dropout 0.05", "peft", 0.05, torch.float32, torch.bfloat16, True),
        ("PEFT fp32 adapters, no autocast, dropout 0", "peft", 0.0, torch.float32, torch.bfloat16, False),
        ("PEFT fp32 adapters, no autocast, dropout 0.05", "peft", 0.05, torch.float32, torch.bfloat16, False),
        ("HF QLoRA kbit-prep: fp32 residual+norms, Linear4bit, autocast, drop 0", "peft4", 0.0, torch.float32, torch.float32, True),
        ("HF QLoRA kbit-prep: same, dropout 0.05", "peft4", 0.05, torch.float32, torch.float32, True),
        ("qlora.py/TRL<0.26: bf16 residual, fp32 norm weights, autocast, drop 0", "peft4", 0.0, torch.float32, "mixed", True),
        ("TRL>=0.26 QLoRA: bf16 everything, bf16 adapters, autocast, drop 0", "peft4", 0.0, torch.bfloat16, torch.bfloat16, True),
    ]
    print(f"Llama-style block h={h} q={heads*h//heads} kv={kv*h//heads} I={inter} r={r}; bytes saved per token:")
    for label, style, p, adt, xdt, ac in cases:
        torch.manual_seed(0)
        blk = Block(h, heads, kv, inter, r, style, p, adt)
        if style != "peft" or True:
            for mod in blk.modules():
                if isinstance(mod, nn.Linear) and not mod.weight.requires_grad:
                    mod.weight.data = mod.weight.data.to(torch.bfloat16)
        # kbit-prep emulation: norm weights fp32 when the residual is fp32 (or "mixed": fp32
        # norm weights on a bf16 residual, as qlora.py and TRL's peft_module_casting_to_bf16 do)
        mixed = xdt == "mixed"
        if mixed:
            xdt = torch.bfloat16
        elif xdt == torch.bfloat16:
            blk.n1.weight.data = blk.n1.weight.data.bfloat16(); blk.n2.weight.data = blk.n2.weight.data.bfloat16()
        blk.train()
        params = list(blk.parameters())
        x = torch.randn(1, s, h, dtype=xdt, requires_grad=True)
        def run():
            if ac:
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    return blk(x)
            if xdt == torch.bfloat16 and style == "peft":
                # without autocast an fp32 adapter output is added to bf16: cast back as PEFT does
                return blk(x)
            return blk(x)
        try:
            n, _ = saved(run, params)
            print(f"  {label:70s} {n/s:8.0f} B/token = {n/s/h:6.2f} x h (incl. adapter weight casts)")
        except Exception as e:
            print(f"  {label:70s} failed: {type(e).__name__}: {e}")


if __name__ == "__main__":
    torch.set_grad_enabled(True)
    import sys
    if "--no-vision" not in sys.argv:
        vision()
    llama_cases()
