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
from contiglint.layout.model.values import Value


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
    return geometry.with_axis(-1, size=_scaled(geometry.axes[-1].size, source, target))


def _scaled(size: Size, source: Optional[int], target: Optional[int]) -> Size:
    if size is None or size[1] or source is None or target is None:
        return None
    total = size[0] * source
    return literal(total // target) if total % target == 0 else None
