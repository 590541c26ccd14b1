"""torch's own rules on concrete sizes and strides, as plain Python.

The abstract model (geometry.py, views.py) decides layouts for symbolic sizes. A witness
(witness.py) turns such a layout into one concrete tensor and asks these functions what torch
does with it, so a finding names sizes under which torch really fails. Each function is a port
of the ATen code it names, and tests/test_witness.py holds each one to torch itself on generated
sizes and strides.
"""
from __future__ import annotations

from math import prod
from typing import Optional, Sequence

VIEW_ERROR = "view size is not compatible with input tensor's size and stride"
STRIDE_ERROR = "self.stride(-1) must be 1 to view"
OVERLAP_ERROR = ("unsupported operation: more than one element of the written-to tensor refers "
                 "to a single memory location")


def is_contiguous(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """`Tensor.is_contiguous()` (c10 `compute_contiguous`): row-major strides, size-1 dims
    ignored; a tensor without elements is contiguous."""
    if 0 in sizes:
        return True
    expected = 1
    for size, stride in zip(reversed(sizes), reversed(strides)):
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def has_internal_overlap(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """ATen `has_internal_overlap` says Yes: a dim of two or more elements with stride 0, so
    that several elements are one memory location. An in-place op that checks for overlap
    (`add_`, `copy_`, `mul_`, ...) raises OVERLAP_ERROR on such a tensor; `fill_` and an item
    assignment write the location once for all of them. (Where no dim has stride 0, ATen
    answers No or TooHard, and no op raises.)"""
    return any(stride == 0 and size > 1 for size, stride in zip(sizes, strides))


def shares_elements(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """Are two elements one memory location? (Their offsets, sums of index times stride, are
    compared: the tensors a witness builds are small.) Where no dim has stride 0, torch
    detects none of it: an in-place op writes such an element once per alias."""
    offsets = {0}
    count = 1
    for size, stride in zip(sizes, strides):
        offsets = {o + i * stride for o in offsets for i in range(size)}
        count *= size
    return count > 0 and len(offsets) < count


def view_strides(sizes: Sequence[int], strides: Sequence[int],
                 target: Sequence[int]) -> Optional[tuple[int, ...]]:
    """The strides `.view(target)` gives a tensor of these sizes and strides, or None where
    torch raises 'view size is not compatible...' (ATen `computeStride`). `target` has no -1
    and the same number of elements."""
    if not sizes:
        return (1,) * len(target)
    numel = prod(sizes)
    if numel == 0 and list(sizes) == list(target):
        return tuple(strides)
    out = [0] * len(target)
    if numel == 0:
        for d in range(len(target) - 1, -1, -1):
            out[d] = 1 if d == len(target) - 1 else max(target[d + 1], 1) * out[d + 1]
        return tuple(out)
    view_d = len(target) - 1
    chunk_base_stride = strides[-1]
    tensor_numel = view_numel = 1
    for tensor_d in range(len(sizes) - 1, -1, -1):
        tensor_numel *= sizes[tensor_d]
        if tensor_d == 0 or (sizes[tensor_d - 1] != 1 and
                             strides[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or target[view_d] == 1):
                out[view_d] = view_numel * chunk_base_stride
                view_numel *= target[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = strides[tensor_d - 1]
                tensor_numel = view_numel = 1
    if view_d != -1:
        return None
    return tuple(out)


def dtype_view_error(sizes: Sequence[int], strides: Sequence[int], offset: int,
                     itemsize: int, new_itemsize: int) -> Optional[str]:
    """Why `.view(dtype)` from `itemsize` to `new_itemsize` bytes raises, or None when it
    does not (ATen `view_dtype`)."""
    if itemsize == new_itemsize:
        return None
    if not sizes:
        return "self.dim() cannot be 0 to view"
    if itemsize > new_itemsize:
        return STRIDE_ERROR if strides[-1] != 1 else None
    ratio = new_itemsize // itemsize  # torch checks in this order
    if sizes[-1] % ratio:
        return "self.size(-1) must be divisible by"
    if offset % ratio:
        return "self.storage_offset() must be divisible by"
    if strides[-1] != 1:
        return STRIDE_ERROR
    for dim, stride in enumerate(strides[:-1]):
        if stride % ratio:
            return f"self.stride({dim}) must be divisible by"
    return None
