"""A tensor's layout as plain data: what the tracer keeps instead of the tensor.

The tracer must never keep a tensor alive (that would change memory use and the lifetime of
storages the program is measuring), so every tensor it sees is reduced to a `TensorLayout` of
ints and strings at the moment of the call. Storage addresses are kept as ints so that later
analysis can still tell "the result shares memory with the input" from "torch copied".
"""
from __future__ import annotations

from typing import Any, NamedTuple, Optional

import torch

_TensorBase = torch._C.TensorBase
_has_internal_overlap = getattr(torch, "_debug_has_internal_overlap", None)
_STRIDED = torch.strided
_DEVICE_NAMES: dict = {}
_DTYPE_NAMES = {dtype: str(dtype).replace("torch.", "") for dtype in (
    torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32,
    torch.int16, torch.int8, torch.uint8, torch.bool, torch.complex64, torch.complex128)}


class TensorLayout(NamedTuple):
    """Shape, strides and storage facts of one tensor at one moment.

    `overlapping`: several indices address the same element (a stride-0 dim of size > 1,
    `unfold` with step < size, some `as_strided`). `shares_storage`: the storage holds more bytes
    than this tensor spans, i.e. it is a view into a bigger base (so raw-memory readers see
    neighbours). `storage_ptr` is None when the tensor has no accessible storage (meta, fake,
    sparse, some subclasses); then the storage facts are unknown, not false.
    A NamedTuple rather than a frozen dataclass: it is built for every tensor argument of
    every observed call, and tuple construction is several times cheaper.
    """

    shape: tuple[int, ...]
    strides: tuple[int, ...]
    contiguous: bool
    channels_last: bool
    overlapping: bool
    storage_offset: int
    device: str
    dtype: str
    element_size: int
    shares_storage: bool
    data_ptr: Optional[int]
    storage_ptr: Optional[int]

    @property
    def numel(self) -> int:
        count = 1
        for size in self.shape:
            count *= size
        return count

    @property
    def nbytes(self) -> int:
        return self.numel * self.element_size

    @property
    def dense(self) -> bool:
        """Non-overlapping and dense: some permutation of the dims is contiguous."""
        return not self.overlapping and is_dense(self.shape, self.strides)

    def as_json(self) -> dict:
        return {
            "shape": list(self.shape), "strides": list(self.strides),
            "contiguous": self.contiguous, "channels_last": self.channels_last,
            "overlapping": self.overlapping, "storage_offset": self.storage_offset,
            "device": self.device, "dtype": self.dtype, "shares_storage": self.shares_storage,
        }


def summarize(value: Any) -> Optional[TensorLayout]:
    """The layout of `value` if it is a strided tensor, else None. Never raises.

    Call with torch function handling disabled (the tracer does), so that these metadata
    queries are not themselves observed.
    """
    if not isinstance(value, _TensorBase):
        return None
    try:
        if value.layout is not _STRIDED:
            return None
        shape = tuple(value.shape)
        strides = value.stride()
        contiguous = value.is_contiguous()
        channels_last = False
        if not contiguous and len(shape) in (4, 5):
            channels_last = value.is_contiguous(
                memory_format=torch.channels_last if len(shape) == 4 else torch.channels_last_3d)
        element_size = value.element_size()
        offset = value.storage_offset()
        device_object = value.device
        device = _DEVICE_NAMES.get(device_object)
        if device is None:
            device = _DEVICE_NAMES.setdefault(device_object, str(device_object))
        dtype = _DTYPE_NAMES.get(value.dtype) or str(value.dtype).replace("torch.", "")
    except Exception:  # noqa: BLE001 - exotic tensors (nested, functorch wrappers)
        return None
    data_ptr = storage_ptr = None
    shares = False
    if device != "meta":
        try:
            storage = _TensorBase.untyped_storage(value)
            storage_ptr = storage.data_ptr()
            data_ptr = _TensorBase.data_ptr(value)
            shares = storage.nbytes() > _numel(shape) * element_size
        except Exception:  # noqa: BLE001 - fake/functional tensors have no real storage
            data_ptr = storage_ptr = None
    overlaps = False if contiguous else overlapping(value, shape, strides)
    return TensorLayout(shape, strides, contiguous, channels_last, overlaps, offset, device,
                        dtype, element_size, shares, data_ptr, storage_ptr)


def overlapping(tensor: Any, shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """torch's own answer when it has one (0 = no, 1 = yes, 2 = too hard), else geometry."""
    if _has_internal_overlap is not None and tensor is not None:
        try:
            answer = _has_internal_overlap(tensor)
            if answer in (0, 1):
                return bool(answer)
        except Exception:  # noqa: BLE001
            pass
    return strides_overlap(shape, strides)


def strides_overlap(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """Conservative overlap test: sort the dims by stride; each must step past the extent of
    all smaller ones. Exact for stride-0 expansion and unfold; may say True for exotic
    interleavings that do not actually collide (torch calls those "too hard" as well)."""
    if _numel(shape) == 0:
        return False
    extent = 0
    for size, stride in sorted(((s, abs(st)) for s, st in zip(shape, strides) if s > 1),
                               key=lambda pair: pair[1]):
        if stride <= extent:
            return True
        extent += (size - 1) * stride
    return False


def is_dense(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """Every element addressed exactly once with no gaps, in some dim order."""
    expected = 1
    for size, stride in sorted(((s, st) for s, st in zip(shape, strides) if s > 1),
                               key=lambda pair: pair[1]):
        if stride != expected:
            return False
        expected *= size
    return True


def _numel(shape: tuple[int, ...]) -> int:
    count = 1
    for size in shape:
        count *= size
    return count
