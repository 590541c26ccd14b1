"""The abstract values the flow pass computes, and their join.

The value that matters is `Tensor`: its `kind` says what rules need (contiguous, permuted,
strided, broadcast, unknown), its `geometry` (when the rank is known) says exactly which dims sit
where in memory, its `origin` says where contiguity was lost, and `maybe` says that only some
paths make it so. The other values carry what it takes to get there: shapes and sizes, tuples
(for `q, k, v = x.unbind(0)`), instances of the module's own classes, references to torch names.
"""
from __future__ import annotations

import ast
from dataclasses import field
from enum import Enum
from typing import Optional, Union

from contiglint.layout.model.frozen import evolve, record
from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.sizes import Size, substitute


class Kind(Enum):
    CONTIGUOUS = "contiguous"
    PERMUTED = "permuted"  # dense, dims out of memory order (transpose, permute, channels_last)
    STRIDED = "strided"  # non-dense: slices, narrow, select, step, chunk on an inner dim
    BROADCAST = "broadcast"  # overlapping: expand, broadcast_to, overlapping unfold/as_strided
    UNKNOWN = "unknown"


NONCONTIGUOUS = (Kind.PERMUTED, Kind.STRIDED, Kind.BROADCAST)


@record
class Origin:
    """Where a layout was made: the op's source text and its position."""

    op: str
    line: int
    column: int

    def describe(self) -> str:
        return f"{self.op} on line {self.line}"


@record
class Tensor:
    kind: Kind = Kind.UNKNOWN
    geometry: Optional[Geometry] = None
    origin: Optional[Origin] = None
    maybe: bool = False
    partial: Optional[Origin] = None  # a view that may cover only part of a larger storage
    min_rank: int = 0  # a lower bound on the rank when the geometry is unknown
    assumed: Optional[Geometry] = None  # the geometry at rank `min_rank`, when that is unknown
    dtype: Optional[str] = None  # "float32", ... where the code shows it
    kept_by: Optional[Origin] = None  # a `.to()`/`.cuda()`/`.cpu()` copy that kept the layout
    # what an op made of the tensor is lost, not because the tensor came in: its layout
    # (UNKNOWN: `x.transpose(0, -2)` at an unknown rank may swap a dim with itself, never
    # assumed contiguous) or, for a known layout, its sizes (`torch.cat([a, b], -2)` at an
    # unknown rank). Unlike a tensor that came in, whose sizes a caller chooses, it is given
    # no geometry of free sizes when a later op fixes the rank: a witness would invent them
    lost: bool = False
    # contiguous, but a size-1 dim may keep the stride it had in a layout that was not: torch
    # skips size-1 dims in is_contiguous(), so a check that held or a `.contiguous()` that
    # returned its input says nothing of their strides (a dtype view reads the last one's)
    stale_unit_strides: bool = False

    @staticmethod
    def of(geometry: Optional[Geometry], origin: Optional[Origin], *, kind: Optional[Kind] = None,
           partial: Optional[Origin] = None, min_rank: int = 0) -> "Tensor":
        """A tensor whose kind follows from its geometry (or `kind` when the rank is unknown)."""
        if geometry is not None and kind is not Kind.UNKNOWN:
            kind = classify(geometry)
        kind = kind or Kind.UNKNOWN
        return Tensor(kind, geometry, origin if kind in NONCONTIGUOUS else None, False, partial,
                      geometry.rank if geometry is not None else min_rank)

    @property
    def noncontiguous(self) -> bool:
        return self.kind in NONCONTIGUOUS

    @property
    def rank(self) -> Optional[int]:
        return self.geometry.rank if self.geometry is not None else None

    @property
    def made_by_op(self) -> bool:
        """Whether an op made this tensor, not a caller: one that broke its layout
        (non-contiguous) or whose result the model lost. Where its sizes are unknown too, they
        are not free: a witness may not choose them."""
        return self.noncontiguous or self.lost

    @property
    def made_sizes(self) -> bool:
        """Whether an op made this tensor's sizes and the model knows neither them nor a
        geometry assumed at its least rank: `lost`, or a non-contiguous result of unknown dims
        (`x.narrow(-1, 0, 2)` at an unknown rank). A later op that fixes the rank must not give
        it free sizes: a witness would pick values no input gives."""
        return self.lost or self.noncontiguous and self.geometry is None and \
            self.assumed is None

    @property
    def witness_geometry(self) -> Optional[Geometry]:
        """The geometry a witness may give sizes to: the known one, else the one assumed at
        the least rank, unless an op derived the sizes (a caller does not choose them)."""
        if self.geometry is not None:  # with sizes an op made and the model lost: none
            return None if self.lost and None in self.geometry.sizes else self.geometry
        if self.lost or self.assumed is None or self.assumed.rank != self.min_rank:
            return None  # a geometry assumed above the least rank is a rank the code does
            # not show (`x.narrow(-2, ...)` of x of 2 dims or more, cut as at 3)
        return self.assumed

    @property
    def channels_last(self) -> bool:
        return self.geometry is not None and self.geometry.is_channels_last()


def classify(geometry: Geometry) -> Kind:
    if geometry.is_contiguous() or any(a.size == (0, ()) for a in geometry.axes):
        # torch: a tensor with no elements is contiguous whatever its strides
        return Kind.CONTIGUOUS
    if geometry.is_overlapping():
        return Kind.BROADCAST
    return Kind.PERMUTED if geometry.is_dense() else Kind.STRIDED


@record
class Seq:
    """A tuple or list: known items, or unknown length with every item like `each`."""

    items: Optional[tuple["Value", ...]] = None
    each: "Value" = None  # type: ignore[assignment]
    chained: bool = False  # an nn.Sequential: calling it calls each item on the last's output

    def item(self, index: int) -> "Value":
        if self.items is not None and -len(self.items) <= index < len(self.items):
            return self.items[index]
        return self.each if self.each is not None else OPAQUE

    def element(self) -> "Value":
        if self.items:
            out = self.items[0]
            for item in self.items[1:]:
                out = join(out, item)
            return out
        return self.each if self.each is not None else OPAQUE


@record
class Mapping:
    """A dict literal with constant keys (`{"res2": feats}`), so `d["res2"]` keeps its layout."""

    keys: tuple[object, ...]
    values: tuple["Value", ...]
    rest: "Value" = None  # type: ignore[assignment]  # stored under keys that are not known

    def get(self, key: object) -> "Value":
        if key in self.keys:
            return self.values[self.keys.index(key)]
        return self.rest if self.rest is not None else OPAQUE

    def element(self) -> "Value":
        values = self.values + ((self.rest,) if self.rest is not None else ())
        return Seq(values).element() if values else OPAQUE

    def stored(self, key: object, value: "Value", known: bool) -> "Mapping":
        """The mapping after `d[key] = value` (`known`: the key is a constant)."""
        if known and self.rest is None:
            if key in self.keys:
                at = self.keys.index(key)
                return Mapping(self.keys, self.values[:at] + (value,) + self.values[at + 1:])
            return Mapping(self.keys + (key,), self.values + (value,))
        if known:
            return Mapping(self.keys, self.values, join(self.rest, value))
        return Mapping(self.keys, tuple(join(v, value) for v in self.values),
                       value if self.rest is None else join(self.rest, value))


@record
class Dims:
    """`x.shape` or `x.size()`: the sizes when the rank is known."""

    sizes: Optional[tuple[Size, ...]]


@record
class IntVal:
    size: Size


@record
class Instance:
    """An instance of one of the module's own classes."""

    cls: str


@record
class Function:
    """A function or method defined in the module; `bound` is the receiver of a method."""

    key: str
    bound: Optional["Value"] = None


@record
class Partial:
    """`functools.partial(f, *args, **kwargs)`: calling it calls `f` with these in front; the
    argument expressions are kept so that sinks on them point at where they were bound."""

    func: "Value"
    args: tuple["Value", ...] = ()
    kwargs: tuple[tuple[str, "Value"], ...] = ()
    call: Optional[ast.Call] = field(default=None, compare=False)


@record
class Ref:
    """A resolved external name: a module (`torch.nn.functional`), function, class or constant;
    `instance` marks an object built by calling the class (`nn.Linear(4, 4)`)."""

    qualname: str
    instance: bool = False
    width: Optional[Size] = None  # out_features / out_channels given to the constructor
    config: tuple[tuple[str, object], ...] = ()  # literal keyword arguments of the constructor


@record
class Const:
    value: object


class _Marker:
    """A value known only by what it is not; there is one of each, compared by identity."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


OPAQUE = _Marker("OPAQUE")  # anything else: may be a tensor of unknown layout, may be anything
NOT_TENSOR = _Marker("NOT_TENSOR")  # the code shows it is not a tensor (numpy, str, numbers)
UNKNOWN_TENSOR = Tensor()
CONTIGUOUS = Tensor(Kind.CONTIGUOUS)
CONTIGUOUS_SCALAR = Tensor(Kind.CONTIGUOUS, Geometry.contiguous([]))

Value = Union[Tensor, Seq, Mapping, Dims, IntVal, Instance, Function, Partial, Ref, Const,
              _Marker]


def bind_size(value: Value, name: str, size: int) -> Value:
    """`value` on a path where the size symbol `name` is `size`: every tensor's dims, every
    size and tuple of sizes that has it as a factor take the number, so `if n == 1:` makes a
    transposed `(b, 4, n)` tensor one whose dims merge."""
    def sizes(items):
        return tuple(substitute(s, name, size) for s in items)

    def geometry(g):
        return None if g is None else evolve(g, axes=tuple(
            evolve(a, size=substitute(a.size, name, size)) for a in g.axes),
            extents=tuple((b, substitute(e, name, size)) for b, e in g.extents))

    if isinstance(value, Tensor) and (value.geometry is not None or value.assumed is not None):
        bound = evolve(value, geometry=geometry(value.geometry), assumed=geometry(value.assumed))
        if bound.geometry is not None and bound.geometry != value.geometry:
            kind = classify(bound.geometry) if value.kind is not Kind.UNKNOWN else Kind.UNKNOWN
            bound = evolve(bound, kind=kind, origin=bound.origin if kind in NONCONTIGUOUS
                           else None)
        return bound
    if isinstance(value, IntVal):
        return IntVal(substitute(value.size, name, size))
    if isinstance(value, Dims) and value.sizes is not None:
        return Dims(sizes(value.sizes))
    if isinstance(value, Seq):
        return Seq(None if value.items is None else tuple(bind_size(v, name, size)
                                                           for v in value.items),
                   None if value.each is None else bind_size(value.each, name, size),
                   value.chained)
    return value


def at_ranks(tensor: Tensor, lowest: int, highest: Optional[int]) -> Tensor:
    """`tensor` on a path where its rank is between `lowest` and `highest` (None: no bound),
    as a test of it states (`if x.ndim == 1:`, `assert x.dim() >= 3`). A layout the model
    knows at a rank outside that range cannot be on the path: what is left is a tensor of
    unknown layout (a join of paths may hold others), whose sizes the code did not show. At
    one rank, a tensor that keeps its layout and has no geometry gets one of unknown sizes, as
    `B, N, C = x.shape` does. A 0-d tensor holds one element and is contiguous."""
    rank = tensor.rank
    if highest == 0:  # a 0-d tensor holds one element: contiguous whatever made it
        return CONTIGUOUS_SCALAR

    def outside(r: int) -> bool:
        return r < lowest or highest is not None and r > highest

    if rank is not None and outside(rank) or rank is None and tensor.noncontiguous and \
            highest is not None and tensor.min_rank > highest:
        exact = highest is not None and lowest == highest
        return Tensor(Kind.UNKNOWN, Geometry.contiguous([None] * lowest) if exact else None,
                      min_rank=lowest, lost=True)
    if rank is not None:
        return tensor
    least = max(tensor.min_rank, lowest)
    assumed = tensor.assumed
    if assumed is not None and (assumed.rank != least or outside(assumed.rank)):
        assumed = None  # the assumed geometry is one at a rank the path excludes
    if highest == least and not tensor.noncontiguous:
        return evolve(tensor, geometry=Geometry.contiguous([None] * least), min_rank=least,
                      assumed=None)
    return evolve(tensor, min_rank=least, assumed=assumed)


def not_at_rank(tensor: Tensor, excluded: int) -> Tensor:
    """`tensor` on a path where its rank is not `excluded` (`if x.ndim != 2:`)."""
    if tensor.rank is not None:
        return tensor if tensor.rank != excluded else Tensor(Kind.UNKNOWN, lost=True)
    return at_ranks(tensor, excluded + 1, None) if tensor.min_rank >= excluded else tensor


def join(a: Value, b: Value) -> Value:
    """The value that covers both paths."""
    if a is b or a == b:  # most joins meet the same value from both paths
        return a
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return _join_tensors(a, b)
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        tensor = a if isinstance(a, Tensor) else b
        return evolve(tensor, maybe=True) if tensor.noncontiguous else UNKNOWN_TENSOR
    if isinstance(a, Seq) and isinstance(b, Seq):
        chained = a.chained and b.chained
        if a.items is not None and b.items is not None and len(a.items) == len(b.items):
            return Seq(tuple(join(x, y) for x, y in zip(a.items, b.items)), chained=chained)
        if a.items == ():  # an empty list on one path adds no element (a list being built)
            return Seq(each=b.element())
        if b.items == ():
            return Seq(each=a.element())
        return Seq(each=join(a.element(), b.element()))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if a.keys == b.keys:
            rest = b.rest if a.rest is None else a.rest if b.rest is None else join(a.rest, b.rest)
            return Mapping(a.keys, tuple(join(x, y) for x, y in zip(a.values, b.values)), rest)
        if not a.keys and a.rest is None:  # a dict being filled: `{}` on the first path
            return b
        if not b.keys and b.rest is None:
            return a
        common = tuple(k for k in a.keys if k in b.keys)
        return Mapping(common, tuple(join(a.get(k), b.get(k)) for k in common),
                       join(a.element(), b.element()))
    if isinstance(a, Dims) and isinstance(b, Dims):
        if a.sizes is not None and b.sizes is not None and len(a.sizes) == len(b.sizes):
            return Dims(tuple(x if x == y else None for x, y in zip(a.sizes, b.sizes)))
        return Dims(None)
    if isinstance(a, IntVal) and isinstance(b, IntVal):
        return IntVal(None)
    if isinstance(a, Const) and a.value is None:
        return b
    if isinstance(b, Const) and b.value is None:
        return a
    return OPAQUE


def _join_tensors(a: Tensor, b: Tensor) -> Tensor:
    if a.noncontiguous or b.noncontiguous:
        broken = a if a.noncontiguous else b
        if a.noncontiguous and b.noncontiguous and a.geometry is None and b.geometry is not None:
            broken = b  # both break contiguity: keep the dims that are known
        other = b if broken is a else a
        same = other.noncontiguous and other.kind == broken.kind and not other.maybe
        geometry = broken.geometry
        if other.geometry is not None and broken.geometry is not None \
                and other.geometry.rank != broken.geometry.rank:
            geometry = None
        return evolve(broken, maybe=broken.maybe or not same, geometry=geometry,
                       partial=a.partial or b.partial)
    kind = a.kind if a.kind == b.kind else Kind.UNKNOWN
    geometry = a.geometry if a.geometry == b.geometry else None
    if geometry is None and a.geometry is not None and b.geometry is not None \
            and a.geometry.rank == b.geometry.rank:
        geometry = Geometry.contiguous([x if x == y else None
                                        for x, y in zip(a.geometry.sizes, b.geometry.sizes)])
    maybe = kind is Kind.CONTIGUOUS and (a.maybe or b.maybe)  # contiguous for some sizes
    return Tensor(kind, geometry, None, maybe, a.partial or b.partial,
                  min(a.min_rank, b.min_rank),
                  stale_unit_strides=a.stale_unit_strides or b.stale_unit_strides)
