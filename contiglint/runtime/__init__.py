"""Runtime watch mode: report where non-contiguous tensors reached layout-sensitive ops.

    import contiglint.runtime
    with contiglint.runtime.watch() as report:
        loss = model(x).sum(); loss.backward()
    print(report)                         # aggregated, deduplicated, most expensive first

    print(contiglint.runtime.describe(t))  # one-look summary of a tensor's layout

From a shell: `contiglint run script.py [args]` (or `python -m contiglint.runtime script.py`);
under pytest: `pytest --contiglint-runtime`.

The static linter guesses from source; this watcher sees what torch actually did, in user code
only (torch and site-packages internals are attributed to the user line that called them). Codes
shared with the static rules mean the same hazard; CTG2xx are runtime-only (see `codes.py`).

Child processes (torch.multiprocessing.spawn, multiprocessing fork/spawn, DataLoader worker
processes, subprocess) are watched too under `contiglint run` (`watch(children=True)`), and
their reports merged. Uncaught layout failures that no op observation saw (inside library
code, torch.compile tracing, numpy buffers, a child's traceback) are attributed to the user
line that led to them.

Limits: a `torch.compile`d function is opaque (its ops run as a compiled graph, not through
Python dispatch), so only failures raised while compiling it are seen; calls on other threads
(autograd's engine threads, user threads) are not seen; CUDA work is observed at launch, not
completion; a child killed by a signal reports nothing.

This package imports torch lazily, so importing it (e.g. via the pytest plugin) is free.
"""
from __future__ import annotations

from typing import Any

__all__ = ["watch", "describe", "Report", "Entry"]

_LAZY = {
    "watch": "contiglint.runtime.watcher",
    "describe": "contiglint.runtime.layout_description",
    "Report": "contiglint.runtime.report",
    "Entry": "contiglint.runtime.report",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'contiglint.runtime' has no attribute {name!r}")
