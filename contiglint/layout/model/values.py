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

from contiglint.layout.model.frozen import record
from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.sizes import Size


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
    # a non-contiguous layout on some paths and a known contiguous one of the same sizes on
    # others: that one (`x` is a fused attention's (B, L, H, D)-laid output on one branch,
    # the math branch's contiguous one on the other), so that an op that makes the first
    # contiguous makes the second not (`x.transpose(1, 2)`). Every sink's verdict reads the
    # first: the contiguous one fails none. None: the other paths hold whatever a caller
    # passed, as `maybe` alone says. Read it through `alternative`
    elsewhere: Optional[Geometry] = None
    # leading dims of unknown number (none included) that are the items of this `Lead` (the
    # one object a starred unpack of a shape gave: `x.view(*batch, d // 2, 2)`), `assumed`
    # holding the dims after them: an op on those dims alone keeps it (`.transpose(-1, -2)`),
    # every other drops it (op_transfers.Op), so a view back into `(*batch, d)` is decided by
    # the dims after the lead, for every number of leading dims
    lead: Optional["Lead"] = None

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
    def alternative(self) -> Optional[Geometry]:
        """The other paths' geometry (`elsewhere`) while the tensor still claims its own
        geometry's layout and both have the same sizes; an op that changed one and not the
        other (a dim renamed, a kind narrowed by a test) leaves none."""
        other = self.elsewhere
        if other is None or self.geometry is None or other.sizes != self.geometry.sizes or \
                not self.noncontiguous:
            return None
        return other if classify(self.geometry) is self.kind else None

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
            return path_joins.join_all(self.items)
        return self.each if self.each is not None else OPAQUE


@record(eq=False)
class Lead(Seq):
    """The leading sizes of a shape whose rank is not known, as a starred unpack gives them
    (`*batch, d = x.shape`): any number of items, none included. Compared by identity: a
    tensor's `lead` is one unpack's, not any other of the same look. `owner`: the source text
    of the tensor whose shape it leads (`x`), whose `x.size(0)` a witness at one leading dim
    names (leads.at_one_leading_dim)."""

    owner: Optional[str] = None

    __eq__ = object.__eq__
    __hash__ = object.__hash__


@record
class Spread(Seq):
    """`*xs` among a call's arguments, where the code does not show how many items `xs` has:
    it stands for any number of positional arguments, each like `each` (`f(*shape)` binds
    every parameter from its place on to an item, or to its default). `of`: the `Lead` it
    spreads, where it is one."""

    of: Optional[Lead] = None


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
            return Mapping(self.keys, self.values, path_joins.join(self.rest, value))
        join = path_joins.join
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
    """An instance of one of the module's own classes, or of a class it does not define
    (`AUTOGRAD_CONTEXT`): not a tensor, with attributes of unknown value."""

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
# the `ctx` autograd passes a custom Function's static methods: `ctx.T` is what forward stored
AUTOGRAD_CONTEXT = Instance("torch.autograd.function.FunctionCtx")
CONTIGUOUS = Tensor(Kind.CONTIGUOUS)
CONTIGUOUS_SCALAR = Tensor(Kind.CONTIGUOUS, Geometry.contiguous([]))

Value = Union[Tensor, Seq, Mapping, Dims, IntVal, Instance, Function, Partial, Ref, Const,
              _Marker]


# the join of two paths' values, which Seq and Mapping use (imported last: it builds on this
# module's records)
from contiglint.layout.model import path_joins  # noqa: E402
