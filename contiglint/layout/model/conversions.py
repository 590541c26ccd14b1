"""Conversions and their dtypes: `.to()`, `.float()`, `.cpu()`, `.contiguous()` and
`.view(shape or dtype)` as op-table transfers (op_transfers.py), and the dtype every
layout-keeping op carries through (`keeping_dtype`).

A conversion to the tensor's own dtype returns the tensor itself, a real one densifies it, and
one to a dtype the code does not show is either (its layout unknown, its sizes not free).
"""
from __future__ import annotations

from typing import Optional

from contiglint.catalogue import dtypes
from contiglint.layout.model import dtype_views
from contiglint.layout.model import reshape_views as rv
from contiglint.layout.model import transfer as tr
from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.transfer import Call, Transfer
from contiglint.layout.model.values import Const, Kind, Ref, Tensor, Value


CONVERSION_DTYPES = dtypes.CONVERSIONS
DTYPE_NAMES = dtypes.ALIASES


def dtype_of(value) -> Optional[str]:
    """`torch.float16` (a Ref) as "float16"; None for anything else."""
    if isinstance(value, Ref) and value.qualname.startswith("torch."):
        name = value.qualname[len("torch."):]
        return DTYPE_NAMES.get(name, name) if name.replace("_", "").isalnum() and (
            name in DTYPE_NAMES or name.startswith(("float", "int", "uint", "bfloat",
                                                    "complex", "bool"))) else None
    return None


def keeping_dtype(transfer: Transfer) -> Transfer:
    """Views and layout-preserving ops keep their input's dtype (elementwise ops only when
    every tensor operand has that dtype; `.view(dtype)` and `dtype=` change it)."""
    def apply(call: Call) -> Value:
        result = transfer(call)
        source = call.tensor.dtype
        if source is None or not isinstance(result, Tensor) or result.dtype is not None:
            return result
        if any(dtype_of(v) for v in list(call.args) + list(call.kwargs.values())):
            return result
        if any(isinstance(a, Tensor) and a.dtype != source for a in call.args):
            return result
        return evolve(result, dtype=source)
    apply.__name__ = getattr(transfer, "__name__", "transfer")
    apply.__doc__ = getattr(transfer, "__doc__", None)
    return apply


def contiguous(call: Call) -> Value:
    fmt = call.memory_format()
    if fmt in ("channels_last", "channels_last_3d"):
        return tr.channels_last(call.tensor, call.origin, 5 if fmt.endswith("3d") else 4,
                                call.owner)
    tensor = call.tensor
    if tensor.kind is Kind.CONTIGUOUS and not tensor.maybe:
        return tensor  # returned itself (size-1 dims keep their strides)
    sizes = tensor.geometry.sizes if tensor.geometry is not None else None
    geometry = None if sizes is None else Geometry.contiguous(list(sizes))
    kept = tensor.partial if tensor.kind in (Kind.CONTIGUOUS, Kind.UNKNOWN) else None
    assumed = tensor.assumed  # at an unknown rank, the sizes assumed for the tensor stay
    keeps = geometry is None and assumed is not None and assumed.rank == tensor.min_rank
    # where the tensor is contiguous already it is returned itself, size-1 strides and all
    # (measured: x.unfold(-2, 1, 1).contiguous() keeps its last dim's stride of C)
    stale = tensor.stale_unit_strides or dtype_views.last_dim_unit_stride(tensor) is not True
    return Tensor(Kind.CONTIGUOUS, geometry, partial=kept, min_rank=tensor.min_rank,  # may be
                  assumed=Geometry.contiguous(list(assumed.sizes)) if keeps else None,  # self
                  lost=tensor.lost, stale_unit_strides=stale,
                  lead=tensor.lead if keeps else None)  # the leading dims stay outermost


def convert(call: Call) -> Value:
    """`.to()`, `.float()`, `.cpu()`: a dtype/device that is already the tensor's returns the
    tensor itself (measured: `x[:, ::2].float() is x[:, ::2]`), a real conversion densifies it.
    Where both dtypes are known, which one happens is known; otherwise a non-dense input
    gives an unknown layout."""
    target = _target_dtype(call)
    tensor = call.tensor
    copies = isinstance(call.kwargs.get("copy"), Const) and call.kwargs["copy"].value is True
    device = any(isinstance(v, Const) and isinstance(v.value, str) for v in call.args) or \
        "device" in call.kwargs or call.name in ("cuda", "xpu")
    if target is not None and tensor.dtype is not None and not device and \
            call.memory_format() is None and not copies:
        if target == tensor.dtype:
            return tensor  # no conversion: the tensor itself
        return evolve(tr.densify(tensor), dtype=target)
    result = _convert_layout(call)
    if isinstance(result, Tensor) and result is not tensor and result.kind is Kind.PERMUTED \
            and call.name in ("to", "cuda", "cpu"):
        result = evolve(result, kept_by=call.origin)  # a copy keeps the strides
    return evolve(result, dtype=target) if isinstance(result, Tensor) and \
        target is not None else result


def _target_dtype(call: Call) -> Optional[str]:
    if call.name in CONVERSION_DTYPES:
        return CONVERSION_DTYPES[call.name]
    if call.name in ("to", "type"):
        given = [dtype_of(v) for v in list(call.args) + [call.kwargs.get("dtype")]]
        return next((d for d in given if d), None)
    if call.name == "type_as" and call.args and isinstance(call.args[0], Tensor):
        return call.args[0].dtype
    return None


def _convert_layout(call: Call) -> Value:
    result = tr.preserve(call)
    copies = isinstance(call.kwargs.get("copy"), Const) and call.kwargs["copy"].value is True
    tensor = call.tensor
    if call.memory_format() == "contiguous_format" and not copies and not tensor.channels_last:
        # measured: x.t().to(memory_format=torch.contiguous_format) is x.t() itself (torch
        # aliases when the tensor's suggested format matches); with a dtype it may copy
        if not call.args:
            return tensor
        if tensor.kind is Kind.CONTIGUOUS:
            return tensor
        return _itself_or_copy(tensor)
    if call.tensor.kind is Kind.BROADCAST or (call.tensor.kind is Kind.STRIDED and not copies
                                              and call.memory_format() is None):
        return _itself_or_copy(tensor)
    if tensor.kind is Kind.UNKNOWN and tensor.geometry is None and not copies and \
            call.memory_format() is None and tensor.assumed is not None and \
            not tensor.assumed.is_dense():
        return _itself_or_copy(tensor)  # as assumed, cut or stepped itself, or a dense copy
    return result


def _itself_or_copy(tensor: Tensor) -> Tensor:
    """A conversion to a dtype the code does not show: the tensor itself (already of that
    dtype) or a dense copy. Layout unknown; the rank is the tensor's, its sizes are not free."""
    return Tensor(Kind.UNKNOWN, min_rank=tensor.rank or tensor.min_rank, lost=True)


_shape_view = keeping_dtype(rv.view)


def view(call: Call) -> Value:
    """`.view(shape)`, or `.view(dtype)` by position or by keyword (`dtype_views`)."""
    if "dtype" in call.kwargs:
        return dtype_views.dtype_view(call, dtype_of(call.kwargs["dtype"]))
    if len(call.args) == 1 and dtype_of(call.args[0]) is not None:
        return dtype_views.dtype_view(call, dtype_of(call.args[0]))
    return _shape_view(call)


# transfers that decide the result's dtype themselves
DTYPE_SETTERS = frozenset({convert, view})
