"""The transfers of ops whose layout the literals of the code decide: `as_strided` with literal
sizes and strides, `torch.tensor` of literal data."""
from __future__ import annotations

from typing import Optional

from contiglint.layout.model import stride_facts as sf
from contiglint.layout.model import transfer as tr
from contiglint.layout.model.sizes import literal
from contiglint.layout.model.transfer import Call
from contiglint.layout.model.values import (
    CONTIGUOUS,
    UNKNOWN_TENSOR,
    Const,
    IntVal,
    Kind,
    Seq,
    Tensor,
    Value,
)


def as_strided(call: Call) -> Value:
    """Literal sizes and strides: the exact layout they make (contiguous, dense, holes,
    overlaps; the geometry when it can be expressed). Otherwise nothing is known."""
    sizes, strides = (_literal_ints(call.arg(i, name)) for i, name in ((0, "size"),
                                                                        (1, "stride")))
    if strides and not sizes and _repeats(call.arg(0, "size"), strides):
        return Tensor(Kind.BROADCAST, None, call.origin, partial=call.origin,
                      min_rank=len(strides))
    if not sizes or not strides or None in sizes or None in strides or len(sizes) != len(strides):
        return Tensor(Kind.UNKNOWN, min_rank=len(sizes or ()))
    geometry = sf.strided(sizes, strides)
    if geometry is not None:
        return Tensor.of(geometry, call.origin, partial=call.origin)
    kind = sf.stride_facts(sizes, strides)
    if kind is None:
        return Tensor(Kind.UNKNOWN, min_rank=len(sizes))
    if kind[0] is Kind.CONTIGUOUS:
        return tr.fresh(call, [literal(s) for s in sizes])
    return Tensor(kind[0], None, call.origin, partial=call.origin, min_rank=len(sizes))


def _repeats(sizes, strides: list[int]) -> bool:
    """Sizes not all literal, strides literal: two dims of the same non-zero stride, or a
    stride-0 dim, overlap (`as_strided((n, n), (1, 1))`, a Toeplitz or sliding window view)
    unless their sizes are 1; as for any unknown size, they are taken to be larger."""
    items = sizes.items if isinstance(sizes, Seq) else None
    if items is None or len(items) != len(strides):
        return False
    live = [st for st, n in zip(strides, items)
            if not (isinstance(n, IntVal) and n.size is not None and not n.size[1] and
                    n.size[0] <= 1)]
    return 0 in live or len(set(live)) < len(live)


def _literal_ints(value) -> Optional[list[int]]:
    """`(2, 2)` given as one argument: its integers when every one is a literal."""

    items = value.items if isinstance(value, Seq) else None
    if items is None or not all(isinstance(v, IntVal) and v.size is not None and not v.size[1]
                                for v in items):
        return None
    return [v.size[0] for v in items]


def _nested_shape(value: Value) -> Optional[list]:
    """The shape of a nested list of numbers (`[[1, 2], [3, 4]]` is (2, 2)); None unless every
    item at one depth is a list of the same length, down to numbers."""
    if not isinstance(value, Seq):
        return [] if isinstance(value, IntVal) or (isinstance(value, Const) and isinstance(
            value.value, (int, float, bool))) else None
    if not value.items:
        return None
    inner = [_nested_shape(item) for item in value.items]
    if inner[0] is None or any(shape != inner[0] for shape in inner):
        return None
    return [literal(len(value.items))] + inner[0]


def from_data(call: Call) -> Value:
    """`torch.tensor([[1, 2]])` is contiguous; from an array or a tensor, `tensor`/`as_tensor`/
    `from_numpy` keep its strides (measured: `torch.tensor(a.T)` is non-contiguous), and
    `empty_strided` takes the strides it is given: unknown."""
    if call.name.endswith("tensor") and isinstance(call.this, Seq):
        shape = _nested_shape(call.this)
        return tr.fresh(call, shape) if shape is not None else CONTIGUOUS
    if isinstance(call.this, Tensor) and call.this.kind is Kind.PERMUTED and \
            call.name != "torch.empty_strided":
        return tr.densify(call.this)  # a transposed numpy array keeps its strides
    return UNKNOWN_TENSOR
