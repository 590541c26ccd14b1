"""Shared by the fresh-corpus reproduction scripts: pinned trees on sys.path, one-line outcomes.

Scripts import the pinned package from the cached tree (`~/.cache/contiglint/fresh/trees`, or
$CONTIGLINT_FRESH_DIR/trees) where it imports with torch alone plus the pure dependencies in
`<cache>/deps`, installed with
    pip install --no-deps --target <cache>/deps gpytorch==1.15.2 linear_operator==0.6.1 \
        pyre_extensions typing_inspect mypy_extensions multipledispatch threadpoolctl \
        jaxtyping==0.3.2 wadler_lindig opt_einsum pyro-api==0.1.2 tqdm==4.67.1 \
        pillow==11.3.0 triton==3.9.0 einops==0.8.2
(triton is only imported, never launched); the scripts put both on sys.path themselves, so each
runs as `python benchmarks/fresh_repro/<script>.py` from the repository root. Triton kernels cannot run on CPU: a kernel that takes no strides is emulated by
reading the tensor's flat storage in data_ptr order (`flat_read`).
"""
from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
PINNED = json.loads((HERE.parent / "fresh.json").read_text())["packages"]
env = os.environ.get("CONTIGLINT_FRESH_DIR")
CACHE = Path(env).expanduser() if env else Path.home() / ".cache" / "contiglint" / "fresh"
warnings.filterwarnings("ignore")


def use_packages(*names: str) -> None:
    for name in names:
        tree = CACHE / "trees" / f"{name}-{PINNED[name]}"
        if not tree.is_dir():
            sys.exit(f"{tree} missing: run python benchmarks/realcode.py --corpus fresh")
        sys.path.insert(0, str(tree))
    if (CACHE / "deps").is_dir():
        sys.path.insert(len(names), str(CACHE / "deps"))


def tree(name: str) -> Path:
    return CACHE / "trees" / f"{name}-{PINNED[name]}"


def flat_read(t: torch.Tensor) -> torch.Tensor:
    """What a strideless kernel reads for `t`: numel() elements from data_ptr in memory order."""
    return torch.as_strided(t, (t.numel(),), (1,), t.storage_offset()).reshape(t.shape)


def report(label: str, fn) -> None:
    try:
        out = fn()
        print(f"{label}: {out}")
    except Exception as e:  # noqa: BLE001
        print(f"{label}: RAISES {type(e).__name__}: {str(e).splitlines()[0][:160]}")
