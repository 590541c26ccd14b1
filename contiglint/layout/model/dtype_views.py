"""`.view(dtype)`: the same memory read as another dtype, given by position (`x.view(torch.int32)`)
or by keyword (`x.view(dtype=torch.int32)`; `ops` tells these from a shape view).

What torch does (measured in tests/test_dtype_views.py): between dtypes of the same element size
the sizes and strides stay as they are. Between sizes that differ the last dim must be
unit-stride (else it raises, which CTG101 reports): its size scales by the ratio of the element
sizes and the other strides with it, so the tensor keeps its layout class (contiguous stays
contiguous, a slice stays strided, a transpose of leading dims stays permuted). The geometry
keeps its shape of dims in memory; only the last size changes (unknown unless both element
sizes and the size are literals).
"""
from __future__ import annotations

from typing import Optional

from contiglint.catalogue.dtypes import element_size
from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.sizes import Size, literal
from contiglint.layout.model.transfer import Call
from contiglint.layout.model.values import Kind, Tensor, Value


def dtype_view(call: Call, dtype: Optional[str]) -> Value:
    """The tensor read as `dtype` ("int32"; None when the code does not show which)."""
    tensor = call.tensor
    source = element_size(tensor.dtype) if tensor.dtype else None
    target = element_size(dtype) if dtype else None
    if source is not None and source == target:
        return evolve(tensor, dtype=dtype)  # same sizes, same strides
    return evolve(tensor, geometry=_rescaled(tensor.geometry, source, target),
                  assumed=_rescaled(tensor.assumed, source, target), dtype=dtype)


def _rescaled(geometry: Optional[Geometry], source: Optional[int],
              target: Optional[int]) -> Optional[Geometry]:
    if geometry is None or geometry.rank == 0:
        return geometry  # a 0-dim tensor raises unless the sizes match
    last = geometry.axes[-1]
    # the last dim's base axis now counts elements of the other size: its size in `extents`,
    # in elements of the old one, no longer holds
    return evolve(geometry.with_axis(-1, size=_scaled(last.size, source, target)),
                  extents=tuple(e for e in geometry.extents if e[0] not in last.base))


def _scaled(size: Size, source: Optional[int], target: Optional[int]) -> Size:
    if size is None or size[1] or source is None or target is None:
        return None
    total = size[0] * source
    return literal(total // target) if total % target == 0 else None


def last_dim_unit_stride(tensor: Tensor) -> Optional[bool]:
    """Whether the tensor's last dim has stride 1, as a dtype view to another element size
    needs (None: the model cannot tell)."""
    geometry = tensor.geometry
    if tensor.stale_unit_strides and not _last_above_one(geometry):
        return None  # a size-1 last dim may keep the stride of a layout that was not contiguous
    if geometry is not None and geometry.rank and geometry.axes[-1].size == (1, ()):
        # an unknown layout's geometry holds its sizes, not where its dims lie in memory, and
        # a possible one's where they lie on one path only
        return None if tensor.kind is Kind.UNKNOWN or tensor.maybe else \
            _size_one_last_unit_stride(geometry)
    if not tensor.noncontiguous:
        if tensor.kind is Kind.UNKNOWN or tensor.maybe:
            return None
        assumed = tensor.assumed if geometry is None else None
        checked = geometry if geometry is not None else assumed
        if checked is not None and not checked.is_contiguous():
            # contiguous by a check the code made (`if x.is_contiguous():`), which holds where
            # the dims out of memory order have size 1: a size-1 last dim of another stride
            # among them (torch checks the stride all the same)
            return _last_innermost(checked) or None
        if assumed is not None and assumed.rank and assumed.axes[-1].size == (1, ()) and \
                _size_one_last_unit_stride(assumed) is not True:
            return None  # at the least rank, a size-1 last dim of another stride (an unfold)
        return True
    if tensor.maybe and tensor.lost:
        return None  # a layout only possible, of a tensor whose own an op lost: strides unknown
    if geometry is None:
        geometry = tensor.assumed  # trailing dims are where a step or transpose shows
        if geometry is None:
            return False if tensor.kind is Kind.PERMUTED else None
        if geometry.rank and geometry.axes[-1].size == (1, ()):
            # of some paths only (`maybe`): on the others the size-1 last dim may have
            # another stride (a transpose of the contiguous copy a join met)
            unit = _size_one_last_unit_stride(geometry)
            return None if unit and tensor.maybe else unit
    unit = _last_innermost(geometry)
    if unit and tensor.maybe:
        # the layout of some paths only: on the others (`elsewhere` where it is known) the last
        # dim may lie elsewhere in memory (a transpose of the contiguous copy a join met)
        other = tensor.alternative
        return True if other is not None and _last_innermost(other) else None
    return unit


def _last_innermost(geometry) -> Optional[bool]:
    """Whether the last dim of a size other than 1 walks the innermost memory dim, whole or
    cut: its stride is 1. Where every dim has size 1, what their strides say."""
    live = [a for a in geometry.axes if a.size != (1, ())]
    if not live:
        return _size_one_last_unit_stride(geometry) if geometry.rank else True
    last = live[-1]
    return last.span in ("full", "cut") and bool(last.base) and last.base[-1] == geometry.memory[-1]


def _size_one_last_unit_stride(geometry) -> Optional[bool]:
    """torch checks `stride(-1) == 1` even when the last dim has size 1 (pytorch#116333):
    `randn(1, 3).t()` is contiguous with strides (1, 3) and its dtype views raise, while a
    transposed tensor whose last dim came from a size-1 dim of stride 1 views. The stride of a
    size-1 dim is that of its base axis: 1 when every base axis inner to it in memory has size
    1, not 1 when one of them is a dim of another size; a size-1 dim added by a view or
    unsqueeze has a stride the geometry does not keep."""
    last = geometry.axes[-1]
    if last.span == "step":
        return False  # a step of 2 or more multiplies the stride, which is 0 or at least 1
    if last.span not in ("full", "cut") or not last.base:
        return None
    unit = {b for a in geometry.axes if a.size == (1, ()) and a.span == "full" for b in a.base}
    inner = geometry.memory[geometry.memory.index(last.base[-1]) + 1:]
    if all(b in unit for b in inner):
        return True
    live = {b for a in geometry.axes if a.size != (1, ()) for b in a.base}
    return False if any(b in live for b in inner) else None


def _last_above_one(geometry: Optional[Geometry]) -> bool:
    last = geometry.axes[-1].size if geometry is not None and geometry.rank else None
    return last is not None and not last[1] and last[0] > 1
