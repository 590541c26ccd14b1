"""The result layout of elementwise ops (TensorIterator): it follows the first operand of the
highest rank, exactly when every operand's geometry is known (`iterator_layout`), and a
broadcast grows the size-1 dims of the followed operand into a fresh allocation. Also the ops
that follow their input's layout on one device only (`sort`'s indices, `device_layout`)."""
from __future__ import annotations

from typing import Optional, Sequence

from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.geometry import Axis, Geometry
from contiglint.layout.model.leads import operands_after_lead
from contiglint.layout.model.sizes import ONE, is_made
from contiglint.layout.model.transfer import Call, copies_unit_strides_open, densify, preserve
from contiglint.layout.model.path_joins import odd_unit_strides
from contiglint.layout.model.values import (
    CONTIGUOUS,
    OPAQUE,
    UNKNOWN_TENSOR,
    Kind,
    Origin,
    Seq,
    Tensor,
    Value,
)


def first_operand(operands: Sequence[Value]) -> Tensor:
    """TensorIterator: the result follows the first operand of the highest rank."""
    tensors = [v for v in operands if isinstance(v, Tensor)]
    if not tensors:
        unknown_operands = [v for v in operands if v is OPAQUE]
        return UNKNOWN_TENSOR if unknown_operands else CONTIGUOUS
    ranks = [t.rank for t in tensors]
    if all(r is not None for r in ranks):
        best = max(ranks)
        return next(t for t in tensors if t.rank == best)
    if any(v is OPAQUE for v in operands[: operands.index(tensors[0])]):
        return UNKNOWN_TENSOR
    first = tensors[0]
    rank = max(t.min_rank for t in tensors)  # an operand of unknown rank may have more dims
    alone = all(evolve(t, dtype=None) == evolve(first, dtype=None) for t in tensors) and \
        OPAQUE not in operands  # `x * x`, `x + 1`, `torch.where(x > 0, x, 0.0)` have x's
    # shape (a mask of x is x but for its dtype): the sizes assumed for x, in a dense layout
    if alone and first.assumed is not None:
        assumed = first.assumed.densified()
    else:
        assumed = _beside_unshaped(first, operands)
        if assumed is not None:
            rank = assumed.rank  # the first operand's (a known geometry sets no `min_rank`)
    lost = any(t.made_sizes for t in tensors)  # sizes an op made are not free
    if all(t.kind is Kind.CONTIGUOUS for t in tensors):
        return Tensor(Kind.CONTIGUOUS, min_rank=rank, assumed=assumed, lost=lost)
    if first.kind is Kind.CONTIGUOUS or first.kind is Kind.UNKNOWN:
        # which the other operands may order
        return Tensor(Kind.UNKNOWN, min_rank=rank, assumed=assumed, lost=lost)
    return Tensor(first.kind, None, first.origin, first.maybe, first.partial, rank,
                  first.assumed if first.geometry is None else assumed, lost=lost)


def _beside_unshaped(first: Tensor, operands: Sequence[Value]) -> Optional[Geometry]:
    """The result's geometry at its least rank where the first operand's geometry is known
    and every other operand is one whose shape a caller chooses (a parameter, a module's
    weight, a tensor of unknown rank no op sized): where each of them has one element, the
    result is the first operand's dense layout at its sizes (TensorIterator follows it:
    `ones(B, N, C) / scale` is (B, N, C) contiguous for a 0-d `scale`). Other shapes of
    theirs may add dims or grow its size-1 dims, so this is only what is assumed at the
    least rank, never its geometry. None elsewhere."""
    geometry = first.geometry if first.geometry is not None else first.witness_geometry
    if geometry is None or not _beside_unshaped_only(first, operands, geometry.rank) or \
            any(size is not None and any(is_made(name) for name in size[1])
                for size in geometry.sizes):
        return None  # sizes an op made: no caller's to name
    return geometry.densified()


def _beside_unshaped_only(first: Tensor, operands: Sequence[Value], rank: int) -> bool:
    """Whether `first` comes first among `operands` and every other one is a caller's
    shape (see `_beside_unshaped`) of at most `rank` dims."""
    others = operands[1:]
    return bool(others) and first is operands[0] and not first.made_sizes and all(
        o is OPAQUE or isinstance(o, Tensor) and o.geometry is None and o.min_rank <= rank and
        not o.made_sizes and o.lead is None for o in others)


def broadcast_shape(tensors: Sequence[Tensor]) -> Optional[tuple[list, bool]]:
    """The sizes operands of known geometry broadcast to: per dim (aligned from the last), the
    one size other than 1, or 1; and whether some dim is undecided (`?`: two sizes that differ
    as written, or one unknown beside another, either of which may be the 1). None when an
    operand's rank is not known."""
    if any(t.geometry is None for t in tensors):
        return None
    shape: list = []
    undecided = False
    for live in _live_sizes(tensors):
        undecided = undecided or len(live) > 1
        shape.append(ONE if not live else next(iter(live)) if len(live) == 1 else None)
    return shape, undecided


def _live_sizes(tensors: Sequence[Tensor]) -> list[set]:
    """Per dim of the broadcast shape (operands aligned from the last dim), the sizes other
    than 1 that the operands of known geometry give it (None among them: one not known)."""
    rank = max(t.geometry.rank for t in tensors)
    return [{t.geometry.sizes[position - rank + t.geometry.rank] for t in tensors
             if position - rank + t.geometry.rank >= 0} - {ONE} for position in range(rank)]


def iterator_layout(tensors: Sequence[Tensor], origin: Origin) -> Optional[Tensor]:
    """TensorIterator's output for operands of known geometry: dims are ordered innermost
    first by comparing, for each pair of dims, the strides of the first operand in which
    neither dim is broadcast (stride 0 or a size-1 dim that grows); a pair no operand
    decides keeps its logical order. The output is allocated dense in that order. None when
    the broadcast shape is not known well enough to tell which dims grow."""
    lives = _live_sizes(tensors)
    rank = len(lives)
    shape: list = []
    for live in lives:
        if len(live - {None}) > 1:
            return None
        # an operand's unknown size is the known one or 1: where that matters, it is "?"
        shape.append(next(iter(live - {None}), None) if live else ONE)

    def rank_in_memory(t: Tensor, dim: int):
        """Where the operand's dim lives (bigger is more inner); None when broadcast."""
        g = t.geometry
        local = dim - rank + g.rank
        if local < 0:
            return None
        axis = g.axes[local]
        if axis.span == "broadcast" or (axis.size == ONE and shape[dim] != ONE) or \
                not axis.base:
            return None
        if axis.size is None and shape[dim] is not None:
            return "?"  # may be a size-1 dim that grows
        return g.memory.index(axis.base[0])

    def should_swap(first: int, second: int) -> Optional[int]:
        for t in tensors:
            a, b = rank_in_memory(t, first), rank_in_memory(t, second)
            if a is None or b is None:
                continue
            if "?" in (a, b):
                return None
            return 1 if a < b else -1  # the first is further out in memory: swap
        return 0

    perm = list(reversed(range(rank)))  # innermost first
    for i in range(1, rank):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[dim0], perm[dim1])
            if comparison is None:
                return None
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    order = list(reversed(perm))  # outermost first
    axes = [None] * rank
    for position, dim in enumerate(order):
        axes[dim] = Axis(shape[dim], (position,))
    result = Tensor.of(Geometry(tuple(axes), tuple(range(rank))), None)
    if any(t.stale_unit_strides or copies_unit_strides_open(t.geometry) for t in tensors):
        # where the operands are contiguous (a size of 1), TensorIterator allocates the
        # output contiguous, whatever order the strides give elsewhere
        result = evolve(result, stale_unit_strides=True)
    if result.noncontiguous:
        source = next((t for t in tensors if t.noncontiguous and t.origin), None)
        result = evolve(result, origin=source.origin if source else origin,
                         maybe=any(t.maybe for t in tensors))
    return result


def elementwise(call: Call) -> Value:
    """The result of an elementwise op: its layout (`_layout`), with an operand's dtype only
    where every tensor operand has it (`torch.where(x > 0, x, 0.0)` has x's dtype, not the
    condition's bool, though it follows the condition's layout)."""
    result = operands_after_lead(call, _layout) or _layout(call)
    if isinstance(result, Tensor) and result.lead is None:
        operands = [a for a in call.args if isinstance(a, Tensor) or a is OPAQUE]
        result = with_first_lead(result, [call.this] + operands)
    if isinstance(result, Tensor) and result.dtype is not None:
        dtypes = {a.dtype for a in [call.this] + list(call.args) if isinstance(a, Tensor)}
        if dtypes != {result.dtype}:
            return evolve(result, dtype=None)
    return result


def with_first_lead(result: Tensor, operands: list) -> Tensor:
    """The first operand's `Tensor.lead` where the result has its dims after the lead and
    the first is the only operand (a unary op that keeps the shape: op_transfers.SAME_SHAPE),
    or the others are a caller's shapes of no more dims than the ones after it
    (`torch.ones(*batch, n, d) / scale`: at a 0-d `scale`, the
    result has `batch`'s dims and (n, d), as the view `.view(*batch, n * d)` reads it); no
    lead elsewhere (a broadcast may add or grow leading dims), nor of a cut (its holes
    between the leading dims' blocks are TensorIterator's to close or keep)."""
    first = operands[0] if operands else None
    if isinstance(first, Tensor) and first.lead is not None and first.geometry is None and \
            first.partial is None and result.geometry is None and result.assumed is not None and \
            result.min_rank == first.min_rank == result.assumed.rank and \
            (len(operands) == 1 or _beside_unshaped_only(first, operands, first.min_rank)):
        return evolve(result, lead=first.lead)
    return evolve(result, lead=None) if result.lead is not None else result


def _layout(call: Call) -> Value:
    operands = [call.this] + [a for a in call.args if isinstance(a, Tensor) or a is OPAQUE]
    if call.name.endswith("rsub") and len(operands) > 1:
        operands[0], operands[1] = operands[1], operands[0]  # rsub(x, y) is y - x
    tensors = [o for o in operands if isinstance(o, Tensor)]
    if tensors and OPAQUE not in operands and all(
            t.geometry is not None and t.kind is not Kind.UNKNOWN for t in tensors):
        exact = iterator_layout(tensors, call.origin)
        if exact is not None:
            return exact
    if operands and (operands[0] is OPAQUE or (isinstance(operands[0], Tensor) and operands[0]
                                               .kind is Kind.UNKNOWN)) and \
            any(t.kind is not Kind.UNKNOWN for t in tensors):
        # the first operand may decide the layout, and its layout is unknown; the shape is
        # the broadcast one where every operand's rank is known
        shape = broadcast_shape(tensors) if OPAQUE not in operands else None
        if shape is not None:
            sizes, undecided = shape
            return Tensor(Kind.UNKNOWN, Geometry.contiguous(sizes), min_rank=len(sizes),
                          lost=undecided or any(t.made_sizes for t in tensors))
        return Tensor(Kind.UNKNOWN, min_rank=max(t.min_rank for t in tensors))
    first = first_operand(operands)
    if first.kind is Kind.BROADCAST and any(o is not first and not (
            isinstance(o, Tensor) and o.kind is Kind.CONTIGUOUS) for o in operands):
        # measured: expanded + x.t() follows x.t() (the stride-0 dims defer to the next operand)
        return Tensor(Kind.UNKNOWN, min_rank=first.min_rank)
    result = broadcast(densify(first), [o for o in operands if isinstance(o, Tensor)])
    if isinstance(result, Tensor) and any(isinstance(o, Tensor) and odd_unit_strides(o.geometry)
                                          for o in operands):
        # contiguous with a size-1 dim at another stride than a fresh tensor's: some ops keep
        # it and some do not (measured: `x.mT * 2` keeps it, `-x.mT` and `x.mT + x.mT` do not)
        result = evolve(result, stale_unit_strides=True)
    return result


def broadcast(result: Tensor, operands: Sequence[Tensor]) -> Tensor:
    """`(1, n) * (n, 1)` is (n, n): where the followed operand has a size-1 dim that another
    operand of the same rank does not, the output is a fresh allocation of the broadcast shape
    (contiguous when the followed operand was), not a view of that operand's geometry."""
    geometry = result.geometry
    if geometry is None:
        return result
    others = [o.geometry for o in operands if o.geometry is not None and o.geometry is not
              geometry and o.geometry.rank == geometry.rank]
    grown = [i for i, axis in enumerate(geometry.axes) if axis.size == (1, ())
             and any(other.axes[i].size != (1, ()) for other in others)]
    if not grown:
        return result
    sizes = [None if i in grown else axis.size for i, axis in enumerate(geometry.axes)]
    if any(o.noncontiguous for o in operands if o.geometry is not geometry):
        # in the grown dims another operand decides the order (a (b, t, 1) mask times
        # x.transpose(1, 2) follows x there)
        return Tensor(Kind.UNKNOWN, min_rank=geometry.rank)
    if result.kind is Kind.CONTIGUOUS:
        return Tensor(Kind.CONTIGUOUS, Geometry.contiguous(sizes))
    return evolve(result, geometry=None, min_rank=geometry.rank)


def pointwise(call: Call) -> Value:
    """Unary elementwise ops (neg, exp, ...): the input's dense layout, as `preserve`, but a
    size-1 dim of a contiguous input at another stride than a fresh tensor's is open (measured:
    `-x.mT` gives it stride 1 where `x.mT.clone()` and `.to()` keep it)."""
    result = preserve(call)
    if isinstance(result, Tensor) and odd_unit_strides(call.tensor.geometry):
        return evolve(result, stale_unit_strides=True)
    return result


def sort(call: Call) -> Value:
    """sort: values in the input's dense layout; indices contiguous on the CPU and in that
    layout on CUDA (catalogue.shapes.DEVICE_LAYOUTS)."""
    values = preserve(call)
    indices = evolve(values, maybe=True, dtype="int64") if isinstance(values, Tensor) and \
        values.noncontiguous else evolve(values, dtype="int64") \
        if isinstance(values, Tensor) and values.kind is Kind.CONTIGUOUS else UNKNOWN_TENSOR
    return Seq((values, indices))


def device_layout(call: Call) -> Value:
    """An op whose result is contiguous on one device and keeps the input's dense layout on
    another (catalogue.shapes.DEVICE_LAYOUTS): that layout, only possible."""
    result = preserve(call)
    return evolve(result, maybe=True) if isinstance(result, Tensor) and \
        result.noncontiguous else result
