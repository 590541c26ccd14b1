"""Emulated CUDA on a machine without one: device moves become stride-preserving CPU copies.

Fixtures for device-move hazards call `.cuda()`, `.to('cuda')` or pass `device='cuda'`. Without
a GPU those raise, and the hazard (the copy keeps a non-contiguous tensor's strides) is never
seen. torch's `_to_copy` decides the strides of a device copy without looking at the device
(dense input: `empty_strided` with the same strides; otherwise dense strides in the same dim
order), and `.to('cpu', copy=True)` runs that very code on the CPU. So a move to CUDA becomes
`.to('cpu', copy=True, ...)` with the caller's dtype and memory_format, and a factory's
`device='cuda'` becomes the CPU. Identity is the one thing not emulated: on a GPU, moving a
tensor that is already there returns it; here every move copies (the layout is the same).

The mode must sit *below* the tracer's mode (entered first), so that the tracer records the
call as the user wrote it and this mode then rewrites what actually runs. While a program
that mentions CUDA runs, `torch.cuda.is_available()` says True (`cuda_reported_available`).
"""
from __future__ import annotations

import contextlib
import sys
from typing import Any, Iterator

import torch
from torch.overrides import TorchFunctionMode

from contiglint.verify.frames import FileFilter, FrameClassifier

_TO_KEYWORDS = ("non_blocking", "copy", "memory_format")


def is_cuda(device: Any) -> bool:
    if isinstance(device, torch.device):
        return device.type == "cuda"
    if isinstance(device, str):
        return device.split(":", 1)[0].strip() == "cuda"
    return isinstance(device, int) and not isinstance(device, bool)  # x.to(0) is cuda:0


class CudaEmulation(TorchFunctionMode):
    """Rewrites moves to CUDA into CPU copies; `moves` lists (line, op) of each rewritten call
    made from the files `files` selects, so the report can say what was emulated."""

    def __init__(self, files: FileFilter = None) -> None:
        super().__init__()
        self._classifier = FrameClassifier(files)
        self.moves: list[tuple[int, str]] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func is torch.Tensor.cuda:
            self._note("Tensor.cuda")
            options = {k: v for k, v in kwargs.items() if k in _TO_KEYWORDS}
            options["copy"] = True
            return func_to(args[0], options)
        if func is torch.Tensor.to:
            rewritten = _rewrite_to(args, kwargs)
            if rewritten is not None:
                self._note("Tensor.to")
                return func(*rewritten[0], **rewritten[1])
        elif is_cuda(kwargs.get("device")):
            kwargs["device"] = "cpu"
            kwargs.pop("pin_memory", None)
        return func(*args, **kwargs)

    def _note(self, op: str) -> None:
        located = self._classifier.call_site(sys._getframe(2), indirect=True)
        if located is not None:
            self.moves.append((located[0].line, op))


def func_to(tensor: torch.Tensor, options: dict) -> torch.Tensor:
    return torch.Tensor.to(tensor, "cpu", **options)


def _rewrite_to(args: tuple, kwargs: dict):
    """`Tensor.to(self, device?, dtype?, non_blocking?, copy?, *, memory_format)` with any
    CUDA device replaced by the CPU and copy forced; None when no CUDA device is named."""
    args = list(args)
    if is_cuda(kwargs.get("device")):
        kwargs["device"] = "cpu"
    elif len(args) > 1 and not isinstance(args[1], (torch.Tensor, torch.dtype)) \
            and is_cuda(args[1]):
        args[1] = "cpu"
    else:
        return None
    if len(args) > 4:  # positional copy flag: (self, device, dtype, non_blocking, copy)
        args[4] = True
    else:
        kwargs["copy"] = True
    return tuple(args), kwargs


@contextlib.contextmanager
def cuda_reported_available() -> Iterator[None]:
    """`torch.cuda.is_available()` answers True, so that a program choosing its device with
    it (`device = "cuda" if torch.cuda.is_available() else "cpu"`) takes its CUDA path under
    the emulation. Used only for programs that mention CUDA at all."""
    original = torch.cuda.is_available
    torch.cuda.is_available = lambda: True
    try:
        yield
    finally:
        torch.cuda.is_available = original
