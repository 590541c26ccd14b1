"""Run fla (fla-core 0.6.0 + flash-linear-attention 0.6.0 layers) Python wrappers on CPU.

Needs triton (imported only, never launched: `pip install --no-deps --target <cache>/deps
triton==3.9.0 einops==0.8.2`). Each Triton kernel the wrappers launch is replaced by a recorder
that notes, per tensor argument, its shape, whether it is contiguous and whether a strideless
read (numel() elements from data_ptr in memory order, emulated with as_strided) equals the
tensor's logical order. Nothing is computed by the kernels: outputs stay as allocated.
"""
from __future__ import annotations

import sys
import torch
from common import use_packages, tree, flat_read

use_packages("fla-core")
sys.path.insert(1, str(tree("flash-linear-attention")))
import fla  # noqa: E402
fla.__path__.append(str(tree("flash-linear-attention") / "fla"))

LAUNCHES: list[tuple[str, dict]] = []


def _arg_names(kernel):
    k = kernel
    while not hasattr(k, "arg_names") and hasattr(k, "fn"):
        k = k.fn
    return list(getattr(k, "arg_names", []))


class Recorder:
    def __init__(self, name, kernel):
        self.name, self.names = name, _arg_names(kernel)

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            named = dict(zip(self.names, args))
            named.update(kwargs)
            LAUNCHES.append((self.name, named))
        return launch


def patch(module, *names):
    for n in names:
        setattr(module, n, Recorder(n, getattr(module, n)))


def describe(named: dict, only=None) -> str:
    parts = []
    for k, v in named.items():
        if only and k not in only:
            continue
        if isinstance(v, torch.Tensor):
            ok = torch.equal(flat_read(v), v) if v.numel() and v.dtype != torch.bool else True
            parts.append(f"{k}:{tuple(v.shape)} contig={v.is_contiguous()} flat_read_ok={ok}")
        elif only:
            parts.append(f"{k}:{type(v).__name__}={v!r}")
    return "; ".join(parts)


def show(prefix="  ", only=None, kernels=None, clear=True):
    for name, named in LAUNCHES:
        if kernels and name not in kernels:
            continue
        print(f"{prefix}{name}: {describe(named, only)}")
    if clear:
        LAUNCHES.clear()
