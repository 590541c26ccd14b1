"""What the engine knows of one abstract value, in words and as data.

A `Layout` says: the shape (literal or symbolic sizes, `?` for a size the engine does not know),
the strides where every size they depend on is known, the order of the dims in memory, and
whether the tensor is contiguous: yes, no, or unknown, with the reason. Nothing is filled in by
guessing: a fact the value does not hold is reported as unknown. Where a value is
non-contiguous on some paths only (`maybe`), its dims and strides describe those paths and say
so.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.sizes import ONE, Size, is_one, multiply, size_text
from contiglint.layout.model.values import (
    NOT_TENSOR, Kind, Mapping, Origin, Seq, Tensor, Value,
)

YES, NO, UNKNOWN = "yes", "no", "unknown"


@dataclass
class Layout:
    """What explain says of one value (see the module docstring)."""

    tensor: bool  # False: the value is not known to be a tensor
    contiguous: str  # YES, NO or UNKNOWN
    why: str
    kind: str = "unknown"
    shape: Optional[list[str]] = None  # None: the rank is not known
    min_rank: int = 0
    strides: Optional[list[str]] = None  # in elements; "?" for a stride not known
    memory_order: Optional[list[int]] = None  # logical dims, outermost first in memory
    out_of_order: Optional[str] = None  # "H↔N": the dims a permutation swapped
    some_paths: bool = False  # non-contiguous on some paths only: shape/strides are theirs
    dtype: Optional[str] = None
    notes: list[str] = field(default_factory=list)

    def as_json(self) -> dict:
        return {"tensor": self.tensor, "contiguous": self.contiguous, "why": self.why,
                "kind": self.kind, "shape": self.shape, "min_rank": self.min_rank,
                "strides": self.strides, "memory_order": self.memory_order,
                "out_of_order": self.out_of_order,
                "non_contiguous_on_some_paths": self.some_paths, "dtype": self.dtype,
                "notes": self.notes}

    def shape_text(self) -> str:
        if self.shape is None:
            return "unknown" + (f" (rank at least {self.min_rank})" if self.min_rank else "")
        return "(" + ", ".join(self.shape) + ("," if len(self.shape) == 1 else "") + ")"

    def lines(self) -> list[str]:
        """The summary as `name: value` lines (explain's text, the hover's body)."""
        if not self.tensor:
            return [f"value: {self.why}"]
        where = " (on the paths where it is non-contiguous)" if self.some_paths else ""
        out = [f"shape: {self.shape_text()}{where}"]
        if self.strides is not None:
            out.append(f"strides: ({', '.join(self.strides)}){where}")
        if self.memory_order is not None and self.shape is not None:
            names = dim_names(self.shape)
            out.append("memory order (outer to inner): "
                       + ", ".join(names[d] for d in self.memory_order) + where)
        elif self.shape is not None:
            out.append("strides and memory order: unknown")
        out.append(f"contiguous: {self.contiguous}: {self.why}")
        if self.dtype:
            out.append(f"dtype: {self.dtype}")
        out.extend(f"note: {note}" for note in self.notes)
        return out


def dim_names(shape: list[str]) -> list[str]:
    """A name per dim: its size where that is a name no other dim has (`N`), else `dim 2`."""
    return [text if text.isidentifier() and shape.count(text) == 1 else f"dim {index}"
            for index, text in enumerate(shape)]


def describe(value: Value) -> Layout:
    if isinstance(value, Seq):
        element = value.element()
        layout = describe(element)
        count = len(value.items) if value.items is not None else None
        layout.notes.insert(0, f"a sequence of {count if count is not None else 'some'} "
                               "values; described: what every item of it is (their join)")
        return layout
    if isinstance(value, Mapping):
        layout = describe(value.element())
        layout.notes.insert(0, "a mapping; described: what every value in it is (their join)")
        return layout
    if value is NOT_TENSOR:
        return Layout(False, UNKNOWN, "not a tensor (the code shows it is something else)")
    if not isinstance(value, Tensor):
        return Layout(False, UNKNOWN, "unknown: the engine does not know what this is "
                                      "(it may be a tensor of any layout)")
    return _tensor(value)


def _tensor(tensor: Tensor) -> Layout:
    geometry = tensor.geometry
    shape = [size_text(s) for s in geometry.sizes] if geometry is not None else None
    layout = Layout(True, UNKNOWN, "", tensor.kind.value, shape, tensor.min_rank,
                    dtype=tensor.dtype)
    # an overlapping geometry (expand, overlapping unfold) marks the dims that share memory,
    # not their strides: neither strides nor an order are claimed for it
    knows_order = geometry is not None and tensor.kind is not Kind.UNKNOWN and \
        not geometry.is_overlapping()
    if knows_order:
        layout.memory_order = geometry.memory_order()
        layout.strides = strides(geometry)
        layout.out_of_order = swapped(geometry, shape)
    if tensor.kind is Kind.CONTIGUOUS:
        layout.contiguous = YES
        layout.why = "its dims lie in memory in their logical order, with no gaps" \
            if geometry is not None else "the op that made it returns a contiguous tensor"
    elif tensor.noncontiguous:
        layout.why = _broken(tensor, layout.out_of_order)
        if tensor.maybe:
            layout.some_paths = True
            layout.why = "non-contiguous on some paths only: " + layout.why
        else:
            layout.contiguous = NO
    else:
        layout.why = _unknown(tensor)
    if tensor.partial is not None:
        layout.notes.append("a view of part of a larger storage (since "
                            f"{_at(tensor.partial)})")
    if tensor.kept_by is not None:
        layout.notes.append(f"{_at(tensor.kept_by)} copied it keeping its strides")
    return layout


def _at(origin: Origin) -> str:
    return f"`{origin.op}` on line {origin.line}"


def _broken(tensor: Tensor, out_of_order: Optional[str]) -> str:
    since = f" since {_at(tensor.origin)}" if tensor.origin is not None else ""
    if tensor.kind is Kind.PERMUTED:
        dims = f" ({out_of_order})" if out_of_order else ""
        return f"its dims are out of memory order{dims}{since}"
    if tensor.kind is Kind.BROADCAST:
        return f"expanded: several indices share one element (stride 0){since}"
    return f"not dense: a slice, step or dropped dim leaves gaps in memory{since}"


def _unknown(tensor: Tensor) -> str:
    origin = tensor.origin
    if origin is not None and origin.op == "grad_output":
        return (f"a gradient (the parameter on line {origin.line}): its layout is whatever "
                "the consumer of the forward output made")
    if tensor.geometry is not None:
        return ("the engine does not claim a layout here (an op whose result's layout "
                "depends on what it cannot see, or that raises for this input)")
    return ("the engine does not know its layout (a parameter, an unmodelled call, or paths "
            "that disagree)")


def strides(geometry: Geometry) -> Optional[list[str]]:
    """Each dim's stride in elements, `?` where a size it depends on is not known; None when
    no stride is known. A base axis's size is known when one logical dim spans it, whole."""
    base_size: dict[int, Size] = {}
    for axis in geometry.axes:
        if axis.span == "full" and len(axis.base) == 1:
            base_size[axis.base[0]] = axis.size
    below: dict[int, Size] = {}  # base axis -> product of the sizes of the base axes inside it
    running: Size = ONE
    for base in reversed(geometry.memory):
        below[base] = running
        running = multiply(running, base_size.get(base))
    out = []
    for axis in geometry.axes:
        if not axis.base or axis.span == "step" or is_one(axis.size):
            out.append("?")  # a size-1 dim's stride is whatever torch chose: not claimed
        else:
            out.append(size_text(below[axis.base[-1]]))
    return None if all(text == "?" for text in out) else out


def swapped(geometry: Geometry, shape: Optional[list[str]]) -> Optional[str]:
    """`H↔N` when exactly two dims are out of memory order (a transpose); for other
    permutations, the dims in memory order (`B, H, N, D`)."""
    live = [d for d in range(geometry.rank) if not is_one(geometry.axes[d].size)
            and geometry.axes[d].base]
    order = [d for d in geometry.memory_order() if d in live]
    if order == live or shape is None:
        return None
    names = dim_names(shape)
    moved = [d for d, m in zip(live, order) if d != m]
    if len(moved) == 2:
        return f"{names[moved[0]]}↔{names[moved[1]]}"
    return "in memory: " + ", ".join(names[d] for d in order)
