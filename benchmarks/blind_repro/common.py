"""Shared by the blind-corpus reproduction scripts: pinned trees on sys.path, one-line outcomes.

Scripts import the pinned package from the cached tree (`~/.cache/contiglint/blind/trees`, or
$CONTIGLINT_BLIND_DIR/trees) with torch alone plus the pure dependencies in `<cache>/deps`,
installed with
    pip install --no-deps --target <cache>/deps tqdm==4.67.1 einops==0.8.2 julius==0.2.7 \
        tensorly==0.9.0 fsspec==2025.3.0
The scripts put both on sys.path themselves, so each runs as
`python benchmarks/blind_repro/<script>.py` from the repository root. Where a package's
`__init__` drags in heavy or binary dependencies, `bare_import` loads just the flagged module
(its parent packages become empty stubs) and `stub_module` stands in for an absent import that
the flagged code path never uses. Triton kernels cannot run on CPU: a kernel that takes no
strides is emulated by reading the tensor's flat storage in data_ptr order (`flat_read`).
"""
from __future__ import annotations

import json
import os
import importlib
import sys
import types
import warnings
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
PINNED = json.loads((HERE.parent / "blind.json").read_text())["packages"]
env = os.environ.get("CONTIGLINT_BLIND_DIR")
CACHE = Path(env).expanduser() if env else Path.home() / ".cache" / "contiglint" / "blind"
warnings.filterwarnings("ignore")


def use_packages(*names: str) -> None:
    for name in names:
        tree = CACHE / "trees" / f"{name}-{PINNED[name]}"
        if not tree.is_dir():
            sys.exit(f"{tree} missing: run python benchmarks/realcode.py --corpus blind")
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
        print(f"{label}: RAISES {type(e).__name__}: {(str(e).splitlines() or [''])[0][:160]}")


def stub_module(name: str, **attrs) -> types.ModuleType:
    """Register an empty module (and its parents) standing in for an absent dependency."""
    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        sub = ".".join(parts[:i])
        if sub not in sys.modules:
            mod = types.ModuleType(sub)
            mod.__path__ = []
            sys.modules[sub] = mod
            if i > 1:
                setattr(sys.modules[".".join(parts[:i - 1])], parts[i - 1], mod)
    mod = sys.modules[name]
    for k, v in attrs.items():
        setattr(mod, k, v)
    return mod


def bare_import(name: str, module: str, subdir: str = ""):
    """Import `module` from the pinned tree of package `name` without running its parents' __init__."""
    root = tree(name) / subdir if subdir else tree(name)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    if (CACHE / "deps").is_dir() and str(CACHE / "deps") not in sys.path:
        sys.path.append(str(CACHE / "deps"))
    parts = module.split(".")
    for i in range(1, len(parts)):
        sub = ".".join(parts[:i])
        path = str(root.joinpath(*parts[:i]))
        if sub not in sys.modules:
            pkg = types.ModuleType(sub)
            pkg.__path__ = [path]
            sys.modules[sub] = pkg
        elif path not in list(getattr(sys.modules[sub], "__path__", [path])):
            sys.modules[sub].__path__.append(path)  # a stub_module parent: give it the real dir
    return importlib.import_module(module)


class contiguous_spy:
    """Record, for every Tensor.contiguous() called from `file_suffix` (at `line` if given),
    whether the receiver was already contiguous, i.e. whether the call returned it unchanged."""

    def __init__(self, file_suffix: str, line: int | None = None):
        self.file_suffix, self.line, self.seen = file_suffix, line, []

    def __enter__(self):
        self._orig = orig = torch.Tensor.contiguous
        spy = self

        def contiguous(t, *a, **k):
            f = sys._getframe(1)
            if f.f_code.co_filename.endswith(spy.file_suffix) and spy.line in (None, f.f_lineno):
                out = orig(t, *a, **k)
                spy.seen.append((f.f_lineno, out.data_ptr() == t.data_ptr() and out.stride() == t.stride()))
                return out
            return orig(t, *a, **k)

        torch.Tensor.contiguous = contiguous
        return self

    def __exit__(self, *exc):
        torch.Tensor.contiguous = self._orig
        return False

    def summary(self) -> str:
        lines = sorted({ln for ln, _ in self.seen})
        return ", ".join(f"line {ln}: {sum(1 for l, n in self.seen if l == ln and n)}/"
                         f"{sum(1 for l, _ in self.seen if l == ln)} calls were no-ops" for ln in lines) or "no calls"
