"""A value on a path where a test the code made holds: a size bound to a number (`if n ==
1:`), a rank bounded (`if x.ndim == 1:`, `assert x.dim() >= 3`) or excluded. The flow pass's
branches (flow/branch_statements.py) refine each side's environment with these."""
from __future__ import annotations

from typing import Optional

from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.sizes import literal, own_size_names, substitute
from contiglint.layout.model.values import (CONTIGUOUS_SCALAR, NONCONTIGUOUS, Dims, IntVal, Kind,
                                            Seq, Tensor, Value, classify)


def bind_size(value: Value, name: str, size: int, owner: Optional[str] = None) -> Value:
    """`value` on a path where the size symbol `name` is `size`: every tensor's dims, every
    size and tuple of sizes that has it as a factor take the number, so `if n == 1:` makes a
    transposed `(b, 4, n)` tensor one whose dims merge. `owner`: the name `value` is bound
    to; where its rank is not known, a test of its own dim (`v.shape[0] == 1`) fixes that dim
    of the geometry assumed at its least rank, where no name stood for it."""
    def sizes(items):
        return tuple(substitute(s, name, size) for s in items)

    def geometry(g):
        return None if g is None else evolve(g, axes=tuple(
            evolve(a, size=substitute(a.size, name, size)) for a in g.axes),
            extents=tuple((b, substitute(e, name, size)) for b, e in g.extents))

    if isinstance(value, Tensor) and (value.geometry is not None or value.assumed is not None):
        assumed = geometry(value.assumed)
        if owner is not None and value.geometry is None and assumed.rank == value.min_rank:
            assumed = _own_dim_bound(assumed, owner, name, size)
        known = geometry(value.geometry)
        if owner is not None and known is not None:
            # a dim no name stood for (the `-1` of a view): `v.size(-1) == 1` is of that dim
            known = _own_dim_bound(known, owner, name, size)
        bound = evolve(value, geometry=known, assumed=assumed,
                       elsewhere=geometry(value.elsewhere))
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


def _own_dim_bound(assumed: Geometry, owner: str, name: str, size: int) -> Geometry:
    """`assumed` (at the tensor's least rank, or its geometry where the rank is known) where
    `name` is the owner's own `owner.size(i)` of a dim of unknown size: that dim has `size`
    elements there."""
    axes = tuple(evolve(axis, size=literal(size))
                 if axis.size is None and name in own_size_names(owner, index, assumed.rank)
                 else axis for index, axis in enumerate(assumed.axes))
    return assumed if axes == assumed.axes else evolve(assumed, axes=axes)


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
    if highest == least and not tensor.noncontiguous and \
            not (tensor.kind is Kind.UNKNOWN and tensor.lost):  # a layout an op lost, or a
        # stride test's, is not the contiguous one a tensor that came in is taken for
        return evolve(tensor, geometry=Geometry.contiguous([None] * least), min_rank=least,
                      assumed=None)
    return evolve(tensor, min_rank=least, assumed=assumed)


def not_at_rank(tensor: Tensor, excluded: int) -> Tensor:
    """`tensor` on a path where its rank is not `excluded` (`if x.ndim != 2:`)."""
    if tensor.rank is not None:
        return tensor if tensor.rank != excluded else Tensor(Kind.UNKNOWN, lost=True)
    return at_ranks(tensor, excluded + 1, None) if tensor.min_rank >= excluded else tensor
