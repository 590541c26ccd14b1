"""`describe(t)`: everything about a tensor's memory layout, in one look.

Answers the questions people otherwise ask torch one call at a time: is it contiguous, in which
memory format, does it overlap itself (expanded), where does it start in its storage, and is it
a window into a bigger storage (so raw pointers, `torch.save` and collectives see more or other
memory than the tensor's elements).
"""
from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import torch

from contiglint.verify.layout_summary import is_dense, overlapping


@dataclass(frozen=True)
class LayoutDescription:
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: str
    device: str
    memory_formats: tuple[str, ...]   # formats in which the tensor is contiguous
    dense: bool                       # non-overlapping and dense: a permutation is contiguous
    overlapping: bool
    storage_offset: int
    storage_bytes: int
    tensor_bytes: int

    @property
    def contiguous(self) -> bool:
        return "contiguous_format" in self.memory_formats

    @property
    def shares_storage(self) -> bool:
        return self.storage_bytes > self.tensor_bytes

    def facts(self) -> list[tuple[str, str]]:
        formats = ", ".join(self.memory_formats) or "none"
        if self.overlapping:
            kind = "overlapping (several indices address one element: expanded/unfolded)"
        elif self.dense:
            kind = "dense" + ("" if self.contiguous else " but permuted (a copy keeps the order)")
        else:
            kind = "non-dense (gaps between elements: sliced or stepped)"
        storage = f"{self.storage_bytes} bytes, offset {self.storage_offset} elements"
        if self.shares_storage:
            storage += f" (a view into a bigger base: tensor spans {self.tensor_bytes} bytes)"
        elif self.storage_bytes < self.tensor_bytes:
            storage += f" (less than numel x itemsize = {self.tensor_bytes}: raw readers of " \
                       "numel elements go out of bounds)"
        return [
            ("shape", str(self.shape)), ("strides", str(self.strides)),
            ("dtype / device", f"{self.dtype} / {self.device}"),
            ("contiguous in", formats), ("layout", kind), ("storage", storage),
        ]

    def __str__(self) -> str:
        width = max(len(name) for name, _ in self.facts())
        return "\n".join(f"{name:<{width}}  {value}" for name, value in self.facts())

    def _repr_html_(self) -> str:
        rows = "".join(f"<tr><th style='text-align:left'>{html.escape(name)}</th>"
                       f"<td style='text-align:left'><code>{html.escape(value)}</code></td></tr>"
                       for name, value in self.facts())
        return f"<table class='contiglint-layout'>{rows}</table>"


_FORMATS = (
    ("contiguous_format", torch.contiguous_format, None),
    ("channels_last", torch.channels_last, 4),
    ("channels_last_3d", torch.channels_last_3d, 5),
)


def describe(tensor: Any) -> LayoutDescription:
    """Describe a strided tensor's layout. Works on any device, including meta."""
    if not isinstance(tensor, torch.Tensor) or tensor.layout is not torch.strided:
        raise TypeError(f"describe() needs a strided torch.Tensor, got {type(tensor).__name__}")
    shape, strides = tuple(tensor.shape), tuple(tensor.stride())
    formats = tuple(name for name, memory_format, ndim in _FORMATS
                    if (ndim is None or tensor.dim() == ndim)
                    and tensor.is_contiguous(memory_format=memory_format))
    overlaps = overlapping(tensor, shape, strides)
    dense = not overlaps and is_dense(shape, strides)
    try:
        storage_bytes = tensor.untyped_storage().nbytes()
    except (RuntimeError, NotImplementedError):
        storage_bytes = 0
    return LayoutDescription(shape, strides, str(tensor.dtype).replace("torch.", ""),
                             str(tensor.device), formats, dense, overlaps,
                             tensor.storage_offset(), storage_bytes,
                             tensor.numel() * tensor.element_size())
