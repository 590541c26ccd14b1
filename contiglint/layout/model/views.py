"""Ops that return views by moving, adding or removing dims (transpose, permute, movedim,
unsqueeze, squeeze), and `apply_view`, which every view op uses to change a geometry
(`.view`/`reshape`/`flatten`: reshape_views.py; cuts: part_views.py; whether `.view(shape)`
can succeed: view_verdict.py; the layout of literal strides: stride_facts.py; the ops on the dims
after a lead of unknown length: leads.py).

Each transfer computes the exact result geometry when the input's rank is known, and falls back
to a coarse kind (permuted, strided, broadcast) when it is not. An input of unknown layout is
treated as contiguous for the purpose of *breaking* contiguity: `param.transpose(1, 2)` is
non-contiguous whatever `param` was, in all but contrived cases.
"""
from __future__ import annotations

from typing import Callable, Optional

from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.leads import after_lead, lead_kept
from contiglint.layout.model.sizes import is_one
from contiglint.layout.model.transfer import Call
from contiglint.layout.model.path_joins import join
from contiglint.layout.model.values import Kind, Tensor, classify

GeometryChange = Callable[[Geometry], Optional[Geometry]]


def apply_view(call: Call, change: GeometryChange, coarse: Optional[Kind], min_rank: int = 0,
               rank: Optional[int] = None, partial: bool = False) -> Tensor:
    """Apply a geometry change; `coarse` is the kind when the geometry is unknown (None: keep)."""
    tensor = call.tensor
    geometry = tensor.geometry
    uncut = tensor.kind is not Kind.UNKNOWN or tensor.partial is None or (
        tensor.assumed is not None and tensor.assumed.rank == rank)  # a cut kept at this rank
    if geometry is None and rank is not None and rank < tensor.min_rank:
        return _lost(tensor, rank)  # the op names fewer dims than the tensor has: torch raises
    if geometry is None and rank is not None and not tensor.lost and uncut and \
            tensor.kind in (Kind.UNKNOWN, Kind.CONTIGUOUS):
        # the op fixes the rank: the geometry assumed at that rank (a cut of unknown extent
        # keeps its cut), else a contiguous one of free sizes, unless the geometry assumed at
        # another rank says more than that (a size-1 dim, a named size, a cut): its dims are
        # not free at this rank, and where they sit is not known
        assumed = tensor.assumed
        if assumed is not None and assumed.rank == rank:
            geometry = assumed.named_after(call.owner)
        elif assumed is None or assumed.unsized:
            geometry = Geometry.contiguous([None] * rank).named_after(call.owner)
        else:
            return _lost(tensor, rank)
    elif geometry is None and rank is not None and tensor.noncontiguous and not tensor.lost \
            and tensor.assumed is not None and tensor.assumed.rank == rank:
        geometry = tensor.assumed  # the op fixes the rank at the one the geometry assumed
    part = call.origin if partial else None
    if geometry is not None and rank is not None and geometry.rank != rank \
            and not tensor.noncontiguous:
        geometry = Geometry.contiguous([None] * rank)  # the op knows the rank better
    if geometry is not None:
        result = changed_geometry(tensor, geometry, change, call, part)
        if result is not None:
            return result
    # a cut of unknown extent, or a layout an earlier op lost: not assumed contiguous
    cut = tensor.kind is Kind.UNKNOWN and (tensor.partial is not None or tensor.lost)
    if not tensor.noncontiguous:
        # rank unknown: work on the geometry assumed at the smallest rank the code implies
        # (not for a cut tensor whose cut is not in the assumed geometry: it may have holes)
        implied = max(min_rank, tensor.min_rank, 1)
        base = tensor.assumed
        if base is not None and base.rank > implied and tensor.kind is Kind.UNKNOWN:
            base = None  # assumed at a rank above the least one: a guess for the ops that
            # fix the rank, which this op does not (a narrow to 1 of x's last dim)
        # the geometry assumed at a lower rank names sizes (x.size(0)) that a rank this op
        # implies does not place: the free sizes assumed there are not free
        named = assumed_unplaced(tensor, implied)
        if base is None or base.rank < implied:
            base = None if cut else Geometry.contiguous([None] * implied)
        assumed = change(base) if base is not None else None
        if assumed is not None:
            # the op adds or drops dims at every rank alike: the input's least rank moves
            # by as many (a geometry assumed above the least rank stays above it)
            least = max(max(tensor.min_rank, min_rank) + assumed.rank - base.rank, 0)
            result = _assumed_result(tensor, assumed, call, part or tensor.partial,
                                     min(least, assumed.rank))
            if result.kind is Kind.CONTIGUOUS and \
                    not _keeps_contiguous(change, Geometry.contiguous([None] * base.rank)):
                # contiguous through a size-1 dim of the rank assumed (`e[..., None,
                # :].transpose(0, 1)` swaps that dim at rank 1 only): at other ranks, not
                result = evolve(result, maybe=True)
            return evolve(result, lost=True) if named else result
    kind = tensor.kind if coarse is None else coarse
    if tensor.noncontiguous and kind is not Kind.CONTIGUOUS:
        if coarse is Kind.PERMUTED and tensor.kind in (Kind.STRIDED, Kind.BROADCAST):
            kind = tensor.kind  # moving dims keeps holes and overlaps (measured)
        elif coarse is not None and (coarse is not tensor.kind or coarse is Kind.PERMUTED):
            kind = Kind.UNKNOWN  # dims unknown: a second transpose or a select of the moved
            # dim can restore contiguity (x.t().t(), x.transpose(0, 1).select(1, i))
        kept = _kept_assumption(tensor, change, kind)
        if kept is not None:
            return evolve(kept, min_rank=max(min_rank, kept.min_rank), partial=part or
                          tensor.partial)
        return Tensor(kind, None, tensor.origin if kind is not Kind.UNKNOWN else None,
                      tensor.maybe, part or tensor.partial, max(min_rank, tensor.min_rank),
                      lost=tensor.lost or kind is Kind.UNKNOWN)  # not assumed contiguous after
        # this, and sizes an op made stay so
    if kind is Kind.PERMUTED and cut or kind is Kind.STRIDED and tensor.lost:
        kind = Kind.UNKNOWN  # moving the dims of a cut of unknown extent: holes or not; and
        # cutting a layout an op lost may drop the dim that broke it (measured:
        # `x.transpose(0, -2).select(1, 0)` of a 3-d x is contiguous)
    origin = call.origin if kind in (Kind.PERMUTED, Kind.STRIDED, Kind.BROADCAST) else None
    # sizes an earlier op made (`lost`) stay so: no geometry of free sizes is assumed for them
    assumed = change(Geometry.contiguous([None] * min_rank)) \
        if origin and min_rank > 1 and not tensor.lost else None
    return Tensor(kind, None, origin, False, part or tensor.partial,
                  max(min_rank, tensor.min_rank), assumed,
                  lost=tensor.lost or kind is Kind.UNKNOWN and coarse is Kind.UNKNOWN)  # an op
    # whose effect is not known made it: its sizes are not free either


def changed_geometry(tensor: Tensor, geometry: Geometry, change: GeometryChange, call: Call,
                     part) -> Optional[Tensor]:
    """The op on `tensor` laid out as `geometry` (None where `change` cannot say). A tensor
    that holds a known layout on each path (`Tensor.alternative`) gives the join of the op's
    results on the two (`join` decides what two broken layouts keep, as for any two paths);
    one non-contiguous on some paths only, whose other paths the op would break where it
    restores this one, gives a layout the model does not know."""
    changed = change(geometry)
    if changed is None:
        return None
    other = tensor.alternative if geometry is tensor.geometry else None
    moved = change(other) if other is not None else None
    if moved is not None and moved.rank == changed.rank:
        this_path = _result(evolve(tensor, maybe=False, elsewhere=None), changed, call, part)
        that_path = _result(Tensor.of(other, None, partial=tensor.partial), moved, call, part)
        return join(this_path, that_path)  # broken both ways: what the join keeps
    result = _result(tensor, changed, call, part)
    if tensor.maybe and not result.noncontiguous and not _keeps_contiguous(change, geometry):
        return Tensor(Kind.UNKNOWN, changed, None, False, result.partial, changed.rank)
    return result


def _kept_assumption(tensor: Tensor, change: GeometryChange, kind: Kind) -> Optional[Tensor]:
    """A non-contiguous tensor whose geometry is assumed at its least rank, under an op that
    does not fix the rank (`x.mT.unsqueeze(1)`): the op's result at that rank, still an
    assumption, where the op keeps the kind there too. Dropping it gave a later op that fixes
    the rank (`.repeat(1, 3, 1, 1)`) free sizes for dims whose sizes the code names."""
    assumed = tensor.assumed
    if assumed is None or tensor.lost or assumed.rank != tensor.min_rank or \
            kind is not tensor.kind:
        return None
    changed = change(assumed)
    if changed is None or classify(changed) is not kind:
        return None
    return Tensor(kind, None, tensor.origin, tensor.maybe, tensor.partial, changed.rank, changed)


def _lost(tensor: Tensor, rank: int) -> Tensor:
    """A tensor of this rank whose layout the model does not know and never assumes."""
    return Tensor(Kind.UNKNOWN, None, None, False, tensor.partial, rank, lost=True)


def _keeps_contiguous(change: GeometryChange, geometry: Geometry) -> bool:
    """Does the op keep a contiguous tensor of these sizes contiguous? A tensor non-contiguous
    on some paths holds another tensor on the others: contiguous (a fused attention's output
    is laid out (B, L, H, D) and `attn.permute(0, 2, 1, 3)` makes it contiguous, while the math
    path's contiguous output, permuted, is not) or whatever a caller passed. Where the op
    makes this path's tensor contiguous and does not keep a contiguous one so, contiguity on
    some paths proves nothing about the others."""
    changed = change(Geometry.contiguous(geometry.sizes))
    return changed is not None and classify(changed) is Kind.CONTIGUOUS


def _assumed_result(tensor: Tensor, assumed: Geometry, call: Call, partial, rank: int):
    """A result computed on an assumed geometry: its contiguity claim stands (the op moved or
    cut the dims it names whatever the true rank), but its geometry stays an assumption. The
    result's least rank `rank` is the assumed geometry's where the op was applied at the
    least rank the input can have (a select of a tensor of 3 dims or more has 2 or more)."""
    kind = classify(assumed)
    if kind in (Kind.PERMUTED, Kind.STRIDED, Kind.BROADCAST):
        return Tensor(kind, None, call.origin, False, partial, rank, assumed, lost=tensor.lost)
    return Tensor(tensor.kind, None, None, tensor.maybe and tensor.kind is Kind.CONTIGUOUS,
                  partial, rank, assumed, lost=tensor.lost)


def _result(tensor: Tensor, geometry: Geometry, call: Call, part) -> Tensor:
    partial = part or tensor.partial
    # a view keeps the strides of the dims it keeps: a size-1 dim's stride that torch left
    # open stays so (`Tensor.stale_unit_strides`)
    result = Tensor.of(geometry, None, partial=partial)
    if tensor.stale_unit_strides:
        result = evolve(result, stale_unit_strides=True)
    if result.noncontiguous:
        origin = tensor.origin if tensor.noncontiguous and tensor.origin else call.origin
        if result.kind is Kind.STRIDED and tensor.kind is Kind.UNKNOWN and tensor.partial:
            origin = tensor.partial  # the holes come from the earlier cut, not from this op
        # of a tensor whose layout an op lost (its geometry holds sizes), a layout only
        # possible: it is this where that tensor is contiguous
        return evolve(result, origin=origin, lost=tensor.lost,
                      maybe=tensor.maybe or tensor.kind is Kind.UNKNOWN and tensor.lost)
    if tensor.kind is Kind.UNKNOWN:
        return Tensor(Kind.UNKNOWN, geometry, None, False, partial, geometry.rank,
                      lost=tensor.lost)
    return evolve(result, maybe=tensor.maybe and tensor.kind is Kind.CONTIGUOUS)  # contiguous
    # for generic sizes only (a reshape that views at size 1) stays so


def _norm(dim: Optional[int], rank: int) -> Optional[int]:
    if dim is None:
        return None
    dim = dim + rank if dim < 0 else dim
    return dim if 0 <= dim < rank else None


def least_rank(dim: int) -> int:
    """The least rank that has `dim` (counted from the front or from the back)."""
    return dim + 1 if dim >= 0 else -dim


# --- permutations -----------------------------------------------------------------------------
def transpose(call: Call) -> Tensor:
    a, b = call.int_arg(0, "dim0"), call.int_arg(1, "dim1")

    def change(g: Geometry):
        i, j = _norm(a, g.rank), _norm(b, g.rank)
        if i is None or j is None:
            return None
        order = list(range(g.rank))
        order[i], order[j] = order[j], order[i]
        return g.permuted(order)

    distinct = _apart(a, b, call.tensor)  # 1, -3 may name the same dim when the rank is unknown
    tensor = call.tensor
    if a is not None and a == b:
        return tensor  # swapping a dim with itself: the tensor itself
    if not distinct:
        lost = _maybe_one_dim(a, b, tensor)  # swapped or not
        if lost is not None:
            return lost
    return lead_kept(tensor, apply_view(call, change, Kind.PERMUTED if distinct else
                                         Kind.UNKNOWN, _least_rank(a, b)), (a, b))


def _least_rank(a: Optional[int], b: Optional[int]) -> int:
    """The least rank that has both dims (a dim not known counts as 0)."""
    return max(least_rank(a or 0), least_rank(b or 0))


def _maybe_one_dim(a: Optional[int], b: Optional[int], tensor: Tensor) -> Optional[Tensor]:
    """What moving dim `a` to `b` (or swapping them) gives where they may be one dim at
    some rank the tensor may have (`_apart` says they are not apart): moved or not, its
    layout is lost. None where the tensor's dims are known or already broken."""
    if tensor.geometry is not None or tensor.noncontiguous:
        return None
    return Tensor(Kind.UNKNOWN, None, None, False, tensor.partial,
                  max(_least_rank(a, b), tensor.min_rank), lost=True)


def assumed_unplaced(tensor: Tensor, rank: int) -> bool:
    """Whether the geometry assumed for `tensor` says more than free sizes (a size-1 dim, a
    named size) at a rank below `rank`, which an op needs: it has no place at that rank."""
    base = tensor.assumed
    return base is not None and base.rank < rank and not base.unsized


def _apart(a: Optional[int], b: Optional[int], tensor: Tensor) -> bool:
    """Whether dims `a` and `b` are two dims, in the same order, at every rank the tensor
    may have: of one sign, or (one counted from the front, one from the back) where its
    least rank is above the one at which they meet (0 and -1 meet at rank 1)."""
    if a is None or b is None or a == b:
        return False
    if tensor.geometry is not None:
        return _norm(a, tensor.geometry.rank) != _norm(b, tensor.geometry.rank)
    return (a < 0) == (b < 0) or tensor.min_rank > max(a, b) - min(a, b)


def matrix_transpose(call: Call) -> Tensor:
    """`.mT`, `.mH`, `.adjoint()`: swap the last two dims."""
    def change(g: Geometry):
        if g.rank < 2:
            return None
        return g.permuted(list(range(g.rank - 2)) + [g.rank - 1, g.rank - 2])
    return lead_kept(call.tensor, apply_view(call, change, Kind.PERMUTED, 2), (-1, -2))


def t(call: Call) -> Tensor:
    """`.t()`/`.T`: a no-op below 2-D, swaps 2-D, reverses dims for `.T` on N-D. `t()` raises
    above 2-D, so a `t()` that permutes anything has exactly two dims: a later
    `.view(2, -1)` of it asks for the same rank, not a merge."""
    def change(g: Geometry):
        return g if g.rank < 2 else g.permuted(list(reversed(range(g.rank))))
    exact = 2 if call.name.rsplit(".", 1)[-1] == "t" and \
        call.tensor.geometry is None and call.tensor.kind in (Kind.UNKNOWN, Kind.CONTIGUOUS) \
        and call.tensor.min_rank <= 2 else None
    return apply_view(call, change, Kind.PERMUTED, 2, rank=exact)


def permute(call: Call) -> Tensor:
    order = call.int_list(0, "dims")
    if order is None or any(d is None for d in order):
        return apply_view(call, lambda g: None, Kind.UNKNOWN)
    rank = len(order)
    order = [d + rank if d < 0 else d for d in order]
    if sorted(order) != list(range(rank)):  # out of range or repeated: torch raises
        return apply_view(call, lambda g: None, Kind.UNKNOWN)
    identity = order == list(range(rank))
    return apply_view(call, lambda g: g.permuted(order) if g.rank == rank else None,
                      Kind.UNKNOWN if identity else Kind.PERMUTED, rank, rank=rank)


def movedim(call: Call) -> Tensor:
    source, dest = call.int_arg(0, "source"), call.int_arg(1, "destination")

    def change(g: Geometry):
        s, d = _norm(source, g.rank), _norm(dest, g.rank)
        if s is None or d is None:
            return None
        order = [i for i in range(g.rank) if i != s]
        order.insert(d, s)
        return g.permuted(order)

    same = source is None or dest is None or source == dest or (source < 0) != (dest < 0)
    tensor = call.tensor
    if source is not None and source == dest:
        return tensor  # moving a dim to where it is: the tensor itself
    if not _apart(source, dest, tensor):
        # -1 and 0 name one dim at rank 1 and two above it (measured: `torch.movedim(x, -1,
        # 0)` of a 3-d x is not contiguous)
        lost = _maybe_one_dim(source, dest, tensor)
        if lost is not None:
            return lost
    return apply_view(call, change, Kind.UNKNOWN if same else Kind.PERMUTED)


# --- adding and removing size-1 dims ----------------------------------------------------------
def unsqueeze(call: Call) -> Tensor:
    dim = call.int_arg(0, "dim")

    def change(g: Geometry):
        if dim is None:
            return None
        d = dim + g.rank + 1 if dim < 0 else dim
        return g.inserted(d) if 0 <= d <= g.rank else None

    # the input has at least `dim` dims (-dim - 1 for a negative one): at that rank the
    # new dim is the last, at every rank it has size 1
    least = 0 if dim is None else dim if dim >= 0 else -dim - 1
    tensor = call.tensor
    if dim is not None and dim < 0 and tensor.lead is not None and \
            tensor.assumed is not None and -dim - 1 <= tensor.assumed.rank:
        # a dim counted from the back, among those after the lead: the lead stays
        kept = after_lead(call, unsqueeze, tensor.lead)
        if kept is not None:
            return kept
    return apply_view(call, change, None, least)


def _without(g: Geometry, gone: list[int]) -> Geometry:
    """Drop size-1 axes, and their base axes from memory (they have no extent)."""
    bases = {b for i in gone if g.axes[i].span == "full" for b in g.axes[i].base}
    return Geometry(tuple(a for i, a in enumerate(g.axes) if i not in gone),
                    tuple(b for b in g.memory if b not in bases))


def squeeze(call: Call) -> Tensor:
    dim = call.int_arg(0, "dim")

    def change(g: Geometry):
        if dim is None:
            if any(a.size is None for a in g.axes):
                return None
            return _without(g, [i for i, a in enumerate(g.axes) if is_one(a.size)])
        d = _norm(dim, g.rank)
        if d is None:
            return None
        if is_one(g.axes[d].size):
            return _without(g, [d])
        return g

    geometry = call.tensor.geometry
    d = _norm(dim, geometry.rank) if geometry is not None else None
    if d is not None and geometry.axes[d].size is None:
        # the dim may or may not have size 1: the rank is unknown, the layout is not (a
        # size-1 dim never decides contiguity)
        return evolve(call.tensor, geometry=None, min_rank=geometry.rank - 1, assumed=None)
    return apply_view(call, change, None)
