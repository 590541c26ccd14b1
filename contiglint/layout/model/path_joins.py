"""The join of the values two paths give one name: what every path that reaches a point
has in common (values.py holds the values themselves).

Two tensors of one layout keep it (each size the paths disagree on is unknown); a tensor
broken on one path only is non-contiguous `maybe`, and remembers the other path's layout
where it is known and contiguous (`Tensor.elsewhere`); two broken in different known ways
keep only the kind they share. Sequences join item by item where their lengths agree,
mappings key by key.
"""
from __future__ import annotations

from typing import Optional, Sequence

from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.values import (
    OPAQUE,
    UNKNOWN_TENSOR,
    Const,
    Dims,
    IntVal,
    Kind,
    Mapping,
    Seq,
    Tensor,
    Value,
)


def join(a: Value, b: Value) -> Value:
    """The value that covers both paths."""
    if a is b or a == b:  # most joins meet the same value from both paths
        return a
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return _join_tensors(a, b)
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        tensor = a if isinstance(a, Tensor) else b
        return evolve(tensor, maybe=True, lead=None) if tensor.noncontiguous else UNKNOWN_TENSOR
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


def join_all(values: Sequence[Value]) -> Value:
    """The join of every value (OPAQUE for none)."""
    out = None
    for value in values:
        out = value if out is None else join(out, value)
    return OPAQUE if out is None else out


def _paths(tensor: Tensor) -> set[Optional[Geometry]]:
    """The geometries a tensor has on the paths that reach it (None: one the model does not
    know, or whatever a caller passed)."""
    if tensor.geometry is None or tensor.lost:
        return {None}
    if tensor.maybe or tensor.elsewhere is not None:
        return {tensor.geometry, tensor.alternative}
    return {tensor.geometry}


def _other_path(a: Tensor, b: Tensor, kept: Optional[Geometry]) -> Optional[Geometry]:
    """The join's `elsewhere`: the one other layout the paths are known to hold beside
    `kept`, where it is contiguous (the others, if any, are what `maybe` says: a fused
    attention's output on a device the model does not see)."""
    paths = (_paths(a) | _paths(b)) - {None}
    if kept is None or len(paths) != 2 or kept not in paths:
        return None
    (other,) = paths - {kept}
    return other if other.sizes == kept.sizes and other.is_contiguous() else None


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
        if other.noncontiguous and geometry is not None and other.geometry is not None and \
                not _same_layout(other.geometry, geometry):
            # broken on both paths, each its own known way: what a sink does depends on the
            # path (a view merges the dims of one layout and not the other's), so only the
            # kind both share is known, at the rank both have
            return evolve(broken, maybe=broken.maybe or not same, geometry=None,
                          assumed=None, partial=a.partial or b.partial, elsewhere=None,
                          min_rank=min(a.min_rank, b.min_rank), lead=None)
        if other.noncontiguous and geometry is not None and other.geometry is not None:
            geometry = _sizes_joined(geometry, other.geometry)  # one layout, sizes per path
        return evolve(broken, maybe=broken.maybe or not same, geometry=geometry,
                      partial=a.partial or b.partial, elsewhere=_other_path(a, b, geometry),
                      lead=a.lead if a.lead is b.lead else None)  # one unpack's on both
    kind = a.kind if a.kind == b.kind else Kind.UNKNOWN
    geometry = a.geometry if a.geometry == b.geometry else None
    if geometry is None and a.geometry is not None and b.geometry is not None \
            and a.geometry.rank == b.geometry.rank:
        geometry = Geometry.contiguous([x if x == y else None
                                        for x, y in zip(a.geometry.sizes, b.geometry.sizes)])
    maybe = kind is Kind.CONTIGUOUS and (a.maybe or b.maybe)  # contiguous for some sizes
    # the geometry each assumed at its least rank: where they differ and one names sizes (x's
    # own, a size-1 dim), a later op that fixes the rank may not give the join free sizes
    assumed = a.assumed if a.assumed == b.assumed else None
    least = min(a.min_rank, b.min_rank)
    if geometry is None and assumed is None and (a.geometry is None) != (b.geometry is None):
        known, other = (a, b) if a.geometry is not None else (b, a)
        if other.assumed == known.geometry and other.min_rank == known.geometry.rank:
            # one path's geometry is what the other assumes at its least rank (`x + scale`
            # where `scale` may be None): that rank and those sizes hold on both
            assumed, least = other.assumed, other.min_rank
    named = assumed is None and not (_free(a.assumed) and _free(b.assumed))
    # a size-1 dim's stride that one path holds and the join's geometry does not (a narrow
    # of a diagonal to one element is contiguous at stride N + 1): open
    stale = a.stale_unit_strides or b.stale_unit_strides or geometry != a.geometry and \
        odd_unit_strides(a.geometry) or geometry != b.geometry and odd_unit_strides(b.geometry)
    # one unpack's lead on both, with the same dims after it: it leads the join too
    lead = a.lead if a.lead is b.lead and assumed is not None and \
        a.min_rank == b.min_rank == assumed.rank else None
    return Tensor(kind, geometry, None, maybe, a.partial or b.partial,
                  least, assumed, a.dtype if a.dtype == b.dtype else None,
                  a.kept_by or b.kept_by, a.lost or b.lost or named, stale, lead=lead)


def odd_unit_strides(geometry: Optional[Geometry]) -> bool:
    """Contiguous, with a size-1 dim at another stride than a fresh tensor's."""
    return geometry is not None and geometry.is_contiguous() and \
        geometry != Geometry.contiguous(list(geometry.sizes))


def _same_layout(a: Geometry, b: Geometry) -> bool:
    """The same dims in the same places of memory, whatever the sizes (a method's state
    joined with what a call with literal sizes stored)."""
    return a.memory == b.memory and len(a.axes) == len(b.axes) and \
        all((x.base, x.span, x.walks) == (y.base, y.span, y.walks)
            for x, y in zip(a.axes, b.axes)) and \
        [base for base, _ in a.extents] == [base for base, _ in b.extents]


def _sizes_joined(a: Geometry, b: Geometry) -> Geometry:
    """Two geometries of the same layout (`_same_layout`), with each size both paths give
    kept and each other one unknown: `(2, C, H, W)` from one call and `(1, C, H, W)` from
    another are `(?, C, H, W)`."""
    if a == b:
        return a
    axes = tuple(x if x.size == y.size else evolve(x, size=None)
                 for x, y in zip(a.axes, b.axes))
    extents = tuple(x if x == y else (x[0], None) for x, y in zip(a.extents, b.extents))
    return evolve(a, axes=axes, extents=extents)


def _free(assumed: Optional[Geometry]) -> bool:
    return assumed is None or assumed.unsized
