"""What `contiglint.runtime.watch()` costs: forward+backward of a small transformer block and a
small CNN on CPU, with and without the watcher. Prints medians and the ratio.

    python benchmarks/runtime_overhead.py [--repeats 15] [--steps 10]

The models are defined in this file, so their ops count as user code and are all observed
(the worst case: every tensor op in forward is a direct call from a user line).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch
from torch import nn
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import contiglint.runtime as runtime  # noqa: E402


class Block(nn.Module):
    """Pre-norm transformer block with hand-written attention (many small user-level ops)."""

    def __init__(self, width=128, heads=4):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))

    def forward(self, x):
        b, n, w = x.shape
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        q, k, v = (t.view(b, n, self.heads, w // self.heads).transpose(1, 2) for t in (q, k, v))
        attention = (q @ k.transpose(-2, -1) / (w // self.heads) ** 0.5).softmax(-1)
        x = x + self.proj((attention @ v).transpose(1, 2).reshape(b, n, w))
        return x + self.mlp(self.norm2(x))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv2d(c_in, c_out, 3, padding=1)
                                   for c_in, c_out in ((3, 16), (16, 32), (32, 32)))
        self.bns = nn.ModuleList(nn.BatchNorm2d(c) for c in (16, 32, 32))
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        for conv, bn in zip(self.convs, self.bns):
            x = F.max_pool2d(F.relu(bn(conv(x))), 2)
        return self.fc(x.mean((2, 3)))


def step(model, x):
    model.zero_grad(set_to_none=True)
    model(x).square().mean().backward()


def timed(model, x, steps, watched):
    start = time.perf_counter()
    if watched:
        with runtime.watch():
            for _ in range(steps):
                step(model, x)
    else:
        for _ in range(steps):
            step(model, x)
    return (time.perf_counter() - start) / steps


def measure(name, model, x, repeats, steps):
    for watched in (False, True):
        timed(model, x, 2, watched)  # warm-up
    plain, watched = [], []
    for _ in range(repeats):  # interleaved, so drift affects both equally
        plain.append(timed(model, x, steps, False))
        watched.append(timed(model, x, steps, True))
    base, under = statistics.median(plain), statistics.median(watched)
    print(f"{name:<22} plain {base * 1e3:8.2f} ms/step   watched {under * 1e3:8.2f} ms/step   "
          f"ratio {under / base:5.2f}x   (+{(under - base) * 1e3:.2f} ms)")
    return under / base


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, {args.threads} threads, median of {args.repeats} x "
          f"{args.steps} forward+backward steps")
    measure("transformer block", Block(), torch.randn(8, 64, 128), args.repeats, args.steps)
    measure("small CNN", CNN(), torch.randn(8, 3, 32, 32), args.repeats, args.steps)
    measure("transformer (tiny)", Block(32, 2), torch.randn(2, 8, 32), args.repeats, args.steps)


if __name__ == "__main__":
    main()
