"""YOLOv8 n/s/m/l/x rebuilt from the published yolov8.yaml (scales, layer list) with plain
PyTorch modules, to count parameters and the values autograd saves per image (train mode).
Usage: /usr/bin/python3 yolo_saved.py  (CPU, Debian python3-torch 1.13)"""
import math, sys
import torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from saved_bytes import saved

def div8(x):
    return int(math.ceil(x / 8) * 8)

class Conv(nn.Module):
    def __init__(s, c1, c2, k=1, st=1):
        super().__init__()
        s.conv = nn.Conv2d(c1, c2, k, st, k // 2, bias=False); s.bn = nn.BatchNorm2d(c2); s.act = nn.SiLU()
    def forward(s, x):
        return s.act(s.bn(s.conv(x)))

class Bottleneck(nn.Module):
    def __init__(s, c, shortcut):
        super().__init__()
        s.cv1, s.cv2, s.add = Conv(c, c, 3), Conv(c, c, 3), shortcut
    def forward(s, x):
        y = s.cv2(s.cv1(x))
        return x + y if s.add else y

class C2f(nn.Module):
    def __init__(s, c1, c2, n, shortcut):
        super().__init__()
        s.c = int(c2 * 0.5)
        s.cv1 = Conv(c1, 2 * s.c, 1); s.cv2 = Conv((2 + n) * s.c, c2, 1)
        s.m = nn.ModuleList(Bottleneck(s.c, shortcut) for _ in range(n))
    def forward(s, x):
        y = list(s.cv1(x).chunk(2, 1))
        for m in s.m:
            y.append(m(y[-1]))
        return s.cv2(torch.cat(y, 1))

class SPPF(nn.Module):
    def __init__(s, c1, c2):
        super().__init__()
        c_ = c1 // 2
        s.cv1, s.cv2, s.m = Conv(c1, c_, 1), Conv(4 * c_, c2, 1), nn.MaxPool2d(5, 1, 2)
    def forward(s, x):
        y = [s.cv1(x)]
        for _ in range(3):
            y.append(s.m(y[-1]))
        return s.cv2(torch.cat(y, 1))

class Detect(nn.Module):
    def __init__(s, nc, ch, reg_max=16):
        super().__init__()
        c2, c3 = max(16, ch[0] // 4, reg_max * 4), max(ch[0], min(nc, 100))
        s.cv2 = nn.ModuleList(nn.Sequential(Conv(x, c2, 3), Conv(c2, c2, 3), nn.Conv2d(c2, 4 * reg_max, 1)) for x in ch)
        s.cv3 = nn.ModuleList(nn.Sequential(Conv(x, c3, 3), Conv(c3, c3, 3), nn.Conv2d(c3, nc, 1)) for x in ch)
        s.dfl = nn.Conv2d(reg_max, 1, 1, bias=False)  # frozen DFL conv (16 weights)
    def forward(s, xs):
        return [torch.cat((a(x), b(x)), 1) for x, a, b in zip(xs, s.cv2, s.cv3)]

SCALES = {"n": (0.33, 0.25, 1024), "s": (0.33, 0.50, 1024), "m": (0.67, 0.75, 768),
          "l": (1.00, 1.00, 512), "x": (1.00, 1.25, 512)}

class YOLOv8(nn.Module):
    def __init__(s, scale, nc=80):
        super().__init__()
        d, w, mx = SCALES[scale]
        C = lambda c: div8(min(c, mx) * w)
        R = lambda n: max(round(n * d), 1)
        s.b = nn.ModuleList([Conv(3, C(64), 3, 2), Conv(C(64), C(128), 3, 2), C2f(C(128), C(128), R(3), True),
            Conv(C(128), C(256), 3, 2), C2f(C(256), C(256), R(6), True), Conv(C(256), C(512), 3, 2),
            C2f(C(512), C(512), R(6), True), Conv(C(512), C(1024), 3, 2), C2f(C(1024), C(1024), R(3), True),
            SPPF(C(1024), C(1024))])
        s.up = nn.Upsample(None, 2, "nearest")
        s.h12 = C2f(C(1024) + C(512), C(512), R(3), False)
        s.h15 = C2f(C(512) + C(256), C(256), R(3), False)
        s.h16 = Conv(C(256), C(256), 3, 2)
        s.h18 = C2f(C(256) + C(512), C(512), R(3), False)
        s.h19 = Conv(C(512), C(512), 3, 2)
        s.h21 = C2f(C(512) + C(1024), C(1024), R(3), False)
        s.det = Detect(nc, (C(256), C(512), C(1024)))
    def forward(s, x):
        outs = []
        for i, m in enumerate(s.b):
            x = m(x); outs.append(x)
        p4 = s.h12(torch.cat([s.up(outs[9]), outs[6]], 1))
        p3 = s.h15(torch.cat([s.up(p4), outs[4]], 1))
        p4b = s.h18(torch.cat([s.h16(p3), p4], 1))
        p5 = s.h21(torch.cat([s.h19(p4b), outs[9]], 1))
        return s.det([p3, p4b, p5])

if __name__ == "__main__":
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 640
    for sc in "nsmlx":
        m = YOLOv8(sc).train()
        params = list(m.parameters()) + list(m.buffers())
        n_p = sum(p.numel() for p in m.parameters())
        vals = []
        for b in (1, 2):
            x = torch.randn(b, 3, size, size)
            n, _ = saved(lambda: m(x), params)
            vals.append(n)
        per = vals[1] - vals[0]
        print(f"yolov8{sc}: params {n_p:,} (yaml says n 3,157,200 s 11,166,560 m 25,902,640 l 43,691,520 x 68,229,648); "
              f"saved fp32 {per/1e6:.0f} MB/image at {size} = {per/4/1e6:.1f}M values")
