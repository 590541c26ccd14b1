"""Ops that return views: their result geometry, and whether `.view(shape)` can succeed.

Each transfer computes the exact result geometry when the input's rank is known, and falls back
to a coarse kind (permuted, strided, broadcast) when it is not. An input of unknown layout is
treated as contiguous for the purpose of *breaking* contiguity: `param.transpose(1, 2)` is
non-contiguous whatever `param` was, in all but contrived cases.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Optional

from contiglint.layout.geometry import Axis, Geometry
from contiglint.layout.sizes import ONE, WILDCARD, Size, align, is_one, literal, product
from contiglint.layout.transfer import CONTIGUOUS, Call, fresh
from contiglint.layout.values import (
    OPAQUE,
    UNKNOWN_TENSOR,
    Const,
    IntVal,
    Kind,
    Seq,
    Tensor,
    Value,
    classify,
)

GeometryChange = Callable[[Geometry], Optional[Geometry]]


def apply_view(call: Call, change: GeometryChange, coarse: Optional[Kind], min_rank: int = 0,
               rank: Optional[int] = None, partial: bool = False) -> Tensor:
    """Apply a geometry change; `coarse` is the kind when the geometry is unknown (None: keep)."""
    tensor = call.tensor
    geometry = tensor.geometry
    if geometry is None and rank is not None and tensor.kind in (Kind.UNKNOWN, Kind.CONTIGUOUS):
        geometry = Geometry.contiguous([None] * rank)
    part = call.origin if partial else None
    if geometry is not None and rank is not None and geometry.rank != rank \
            and not tensor.noncontiguous:
        geometry = Geometry.contiguous([None] * rank)  # the op knows the rank better
    if geometry is not None:
        changed = change(geometry)
        if changed is not None:
            return _result(tensor, changed, call, part)
    if not tensor.noncontiguous:
        # rank unknown: work on the geometry assumed at the smallest rank the code implies
        base = tensor.assumed
        if base is None or base.rank < min_rank:
            base = Geometry.contiguous([None] * max(min_rank, 1))
        assumed = change(base)
        if assumed is not None:
            return _assumed_result(tensor, assumed, call, part or tensor.partial, min_rank)
    kind = tensor.kind if coarse is None else coarse
    if tensor.noncontiguous and kind is not Kind.CONTIGUOUS:
        if coarse is Kind.PERMUTED and tensor.kind in (Kind.STRIDED, Kind.BROADCAST):
            kind = tensor.kind  # moving dims keeps holes and overlaps (measured)
        elif coarse is not None and coarse is not tensor.kind:
            kind = Kind.UNKNOWN  # dims unknown: a second transpose or a select of the moved
            # dim can restore contiguity (x.t().t(), x.transpose(0, 1).select(1, i))
        return Tensor(kind, None, tensor.origin if kind is not Kind.UNKNOWN else None,
                      tensor.maybe, part or tensor.partial, max(min_rank, tensor.min_rank))
    origin = call.origin if kind in (Kind.PERMUTED, Kind.STRIDED, Kind.BROADCAST) else None
    assumed = change(Geometry.contiguous([None] * min_rank)) if origin and min_rank > 1 else None
    return Tensor(kind, None, origin, False, part or tensor.partial,
                  max(min_rank, tensor.min_rank), assumed)


def _assumed_result(tensor: Tensor, assumed: Geometry, call: Call, partial, min_rank: int):
    """A result computed on an assumed geometry: its contiguity claim stands (the op moved or
    cut the dims it names whatever the true rank), but its geometry stays an assumption."""
    kind = classify(assumed)
    rank = max(min_rank, tensor.min_rank, assumed.rank)
    if kind in (Kind.PERMUTED, Kind.STRIDED, Kind.BROADCAST):
        return Tensor(kind, None, call.origin, False, partial, rank, assumed)
    return Tensor(tensor.kind, None, None, False, partial, rank, assumed)


def _result(tensor: Tensor, geometry: Geometry, call: Call, part) -> Tensor:
    partial = part or tensor.partial
    result = Tensor.of(geometry, None, partial=partial)
    if result.noncontiguous:
        origin = tensor.origin if tensor.noncontiguous and tensor.origin else call.origin
        return replace(result, origin=origin, maybe=tensor.maybe)
    if tensor.kind is Kind.UNKNOWN:
        return Tensor(Kind.UNKNOWN, geometry, None, False, partial, geometry.rank)
    return replace(result, maybe=False)


def _norm(dim: Optional[int], rank: int) -> Optional[int]:
    if dim is None:
        return None
    dim = dim + rank if dim < 0 else dim
    return dim if 0 <= dim < rank else None


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

    distinct = a is not None and b is not None and a != b and (a < 0) == (b < 0)  # 1, -3 may
    # name the same dim when the rank is unknown
    min_rank = max((d + 1 if d >= 0 else -d) for d in (a or 0, b or 0))
    return apply_view(call, change, Kind.PERMUTED if distinct else Kind.UNKNOWN, min_rank)


def matrix_transpose(call: Call) -> Tensor:
    """`.mT`, `.mH`, `.adjoint()`: swap the last two dims."""
    def change(g: Geometry):
        if g.rank < 2:
            return None
        return g.permuted(list(range(g.rank - 2)) + [g.rank - 1, g.rank - 2])
    return apply_view(call, change, Kind.PERMUTED, 2)


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
    return apply_view(call, change, Kind.UNKNOWN if same else Kind.PERMUTED)


# --- selecting part of a tensor -------------------------------------------------------------
def narrow(call: Call) -> Tensor:
    dim = call.int_arg(0, "dim")
    start, length = call.int_arg(1, "start"), call.arg(2, "length")

    def change(g: Geometry):
        d = _norm(dim, g.rank)
        if d is None:
            return None
        size = length.size if isinstance(length, IntVal) else None
        if start == 0 and size is not None and size == g.axes[d].size:
            return g
        return g.with_axis(d, size=size, span="cut" if g.axes[d].span == "full" else
                           g.axes[d].span)

    result = apply_view(call, change, None if dim == 0 else Kind.STRIDED, partial=True)
    size = length.size if isinstance(length, IntVal) else None
    return result if size is not None and not size[1] and size[0] > 1 else \
        _blind_cut(call.tensor, result)


def _blind_cut(tensor: Tensor, result: Tensor) -> Tensor:
    """Selecting (or narrowing to one element) some dim of a non-contiguous tensor whose dims
    are unknown may remove the very dim that made it so (`x[:, ::2].select(1, 0)`)."""
    if tensor.noncontiguous and tensor.geometry is None and result.geometry is None:
        return Tensor(Kind.UNKNOWN, None, None, False, result.partial, result.min_rank)
    return result


def select(call: Call, dim: Optional[int] = None) -> Value:
    if dim is None and not _select_signature(call):
        return OPAQUE  # `td.select("obs", *keys)`: a TensorDict's, not Tensor.select(dim, index)
    dim = call.int_arg(0, "dim") if dim is None else dim

    def change(g: Geometry):
        d = _norm(dim, g.rank)
        if d is None:
            return None
        return _without(g, [d]) if is_one(g.axes[d].size) else g.dropped(d)  # size 1: no hole

    return _blind_cut(call.tensor, apply_view(call, change, None if dim == 0 else Kind.STRIDED,
                                              partial=True))


def _select_signature(call: Call) -> bool:
    """Whether the arguments fit `Tensor.select(dim, index)`: two of them, neither a str nor
    a starred sequence."""
    values = call.args + list(call.kwargs.values())
    return len(values) == 2 and not any(
        isinstance(v, Seq) or (isinstance(v, Const) and isinstance(v.value, str)) for v in values)


def unbind(call: Call) -> Value:
    dim = call.int_arg(0, "dim", 0)
    part = select(Call(call.name, call.this, [IntVal(literal(dim))], {}, call.origin), dim)
    size = _dim_size(call.tensor, dim)
    if size is not None and not size[1] and 0 < size[0] <= 64:
        return Seq(tuple([part] * size[0]))
    return Seq(each=part)


def split(call: Call) -> Value:
    """split/chunk/tensor_split: pieces are narrows of `dim` (contiguous only on dim 0)."""
    dim = call.int_arg(1, "dim", 0)
    length = _piece_size(call, dim)
    whole = length is not None and length == _dim_size(call.tensor, dim)
    piece = narrow(Call(call.name, call.this, [IntVal(literal(dim)), IntVal(
        literal(0) if whole else None), IntVal(length)], {}, call.origin))
    count = call.int_arg(0, "chunks") if call.name.endswith("chunk") else None
    sections = call.arg(0, "split_size_or_sections")
    if isinstance(sections, Seq) and sections.items is not None:
        count = len(sections.items)
    if count is not None and 0 < count <= 64:
        return Seq(tuple([piece] * count))
    return Seq(each=piece)


def _piece_size(call: Call, dim: int) -> Optional[Size]:
    """The size of every piece of split(k)/chunk(n) when they are all equal (so that pieces
    of one element, contiguous in torch, are known as such)."""
    size = _dim_size(call.tensor, dim) if dim is not None else None
    given = call.int_arg(0, "chunks" if call.name.endswith("chunk") else "split_size_or_sections")
    if size is None or size[1] or not given or call.name.endswith("tensor_split"):
        return None
    n = size[0]
    piece = -(-n // given) if call.name.endswith("chunk") else given
    return literal(piece) if piece and n % piece == 0 else None


def _dim_size(tensor: Tensor, dim: int) -> Optional[Size]:
    if tensor.geometry is None:
        return None
    d = _norm(dim, tensor.geometry.rank)
    return tensor.geometry.axes[d].size if d is not None else None


def expand(call: Call, sizes: Optional[list] = None) -> Tensor:
    sizes = call.sizes(0, "size") if sizes is None else sizes

    def change(g: Geometry):
        if sizes is None or len(sizes) < g.rank:
            return None
        lead = len(sizes) - g.rank
        axes = [Axis(s if s not in (None, WILDCARD) else None, (), "broadcast")
                for s in sizes[:lead]]
        memory = list(g.memory)
        for axis, size in zip(g.axes, sizes[lead:]):
            if size == WILDCARD or size == axis.size or is_one(size):
                axes.append(axis)
            elif is_one(axis.size) or axis.size is None:
                axes.append(Axis(size, (), "broadcast"))
                if is_one(axis.size) and axis.span == "full":
                    memory = [b for b in memory if b not in axis.base]  # had no extent
            else:
                axes.append(axis)
        return Geometry(tuple(axes), tuple(memory))

    if sizes is not None and all(s == WILDCARD for s in sizes) and call.tensor.geometry is None:
        return call.tensor  # x.expand(-1, -1) keeps every size: x itself
    return apply_view(call, change, Kind.BROADCAST)


def expand_as(call: Call) -> Tensor:
    other = call.arg(0, "other")
    sizes = list(other.geometry.sizes) if isinstance(other, Tensor) and other.geometry else None
    return expand(call, sizes)


def unfold(call: Call) -> Tensor:
    """`x.unfold(dim, size, step)`: overlapping windows when step < size."""
    size, step = call.int_arg(1, "size"), call.int_arg(2, "step")
    overlapping = size is None or step is None or step < size
    if overlapping:
        return apply_view(call, lambda g: None, Kind.BROADCAST)
    return apply_view(call, lambda g: None, Kind.UNKNOWN)


def diagonal(call: Call) -> Tensor:
    """A diagonal steps through memory (non-contiguous) unless it has at most one element."""
    geometry = call.tensor.geometry
    offset = call.int_arg(0, "offset", 0)
    d1, d2 = call.dim_arg(1, "dim1", 0), call.dim_arg(2, "dim2", 1)
    if geometry is not None and None not in (offset, d1, d2) and max(d1, d2) < geometry.rank:
        n1, n2 = geometry.axes[d1].size, geometry.axes[d2].size
        if n1 is None or n2 is None or n1[1] or n2[1] or min(
                n1[0] - max(0, -offset), n2[0] - max(0, offset)) <= 1:
            return Tensor(Kind.UNKNOWN, min_rank=geometry.rank - 1)  # maybe a single element
    return apply_view(call, lambda g: None, Kind.STRIDED, partial=True)


# --- adding and removing size-1 dims ----------------------------------------------------------
def unsqueeze(call: Call) -> Tensor:
    dim = call.int_arg(0, "dim")

    def change(g: Geometry):
        if dim is None:
            return None
        d = dim + g.rank + 1 if dim < 0 else dim
        return g.inserted(d) if 0 <= d <= g.rank else None

    return apply_view(call, change, None)


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
        if is_one(g.axes[d].size) or g.axes[d].size is None:
            return _without(g, [d])  # code squeezes a dim it expects to have size 1
        return g

    return apply_view(call, change, None)


# --- view / reshape -------------------------------------------------------------------------
def view_verdict(tensor: Tensor, target: Optional[list]) -> str:
    """Would `tensor.view(*target)` raise? "raises", "ok" or "unknown".

    A view never needs a contiguous input: it fails only when it merges dims that are not
    adjacent in memory. `target` holds sizes and "-1"; None when the shape is not known.
    """
    if not tensor.noncontiguous:
        return "ok"
    geometry = tensor.geometry
    if geometry is None or target is None:
        return _coarse_verdict(tensor, target)
    groups = align(list(geometry.sizes), [WILDCARD if s == "-1" else s for s in target])
    if groups is None:
        return _verdict_without_grouping(geometry, target)
    return "ok" if geometry.regrouped(groups, [None if s == "-1" else s for s in target]) \
        else "raises"


def _verdict_without_grouping(geometry: Geometry, target: list) -> str:
    target_rank = len(target)
    kept = _kept_ends(geometry, [WILDCARD if s == "-1" else s for s in target])
    if kept is not None:
        inner = geometry.axes[kept[0]:kept[1]]
        live_inner = [a for a in inner if not is_one(a.size)]
        if all(geometry.joinable(a, b) is True for a, b in zip(live_inner, live_inner[1:])):
            return "ok"  # the dims that cannot merge are kept apart by the matched end dims
    live = [a for a in geometry.axes if not is_one(a.size)]
    joins = [geometry.joinable(a, b) for a, b in zip(live, live[1:])]
    if target_rank < len(live) and joins and all(j is False for j in joins):
        return "raises"  # some dims must merge, and no two neighbours can
    if all(j is True for j in joins):
        return "ok"
    if target_rank < len(live) and any(j is False for j in joins) and \
            not geometry.is_channels_last():  # conv outputs: unknown H, W are often 1 (pooled)
        return "merge"  # some dims must merge and some neighbours cannot: sizes decide which
    return "unknown"


def _kept_ends(geometry: Geometry, target: list) -> Optional[tuple[int, int]]:
    """The source range left once the dims that the target provably keeps one-to-one at its
    front and back are set aside (`x[..., :k].view(b, h, -1, k)` keeps the cut last dim as
    it is), or None when no end dim is matched. Whatever grouping the sizes leave open, it
    regroups only that range, onto the target's middle; splits never fail, so the view
    succeeds when every pair of neighbours in the range can merge."""
    sizes = list(geometry.sizes)
    front = 0
    while front < min(len(sizes), len(target)) - 1 and sizes[front] is not None and \
            target[front] != WILDCARD and sizes[front] == target[front]:
        front += 1
    back = 0
    while back < min(len(sizes), len(target)) - front - 1 and sizes[-1 - back] is not None \
            and target[-1 - back] != WILDCARD and sizes[-1 - back] == target[-1 - back]:
        back += 1
    if not front and not back:
        return None
    return front, len(sizes) - back


def _coarse_verdict(tensor: Tensor, target: Optional[list]) -> str:
    """Rank unknown. With the geometry the op implies at its minimal rank: if no two
    neighbouring dims can merge there, a view into no more dims than that is "likely" to raise
    (at that rank it would be a pointless identity view, so real code has more dims and
    merges). `x.transpose(1, 2).view(B, N, C)` is likely; `x.transpose(2, 3).view(B * P, C, H,
    W)` is not (dims 0 and 1 still merge)."""
    assumed = tensor.assumed
    if target is None or assumed is None:
        return "unknown"
    live = [a for a in assumed.axes if not is_one(a.size)]
    joins = [assumed.joinable(a, b) for a, b in zip(live, live[1:])]
    if len(target) <= assumed.rank and joins and all(j is False for j in joins):
        return "raises" if len(target) < tensor.min_rank else "likely"
    return "unknown"


def view(call: Call, target: Optional[list] = None, copy_if_needed: bool = False) -> Value:
    """`.view(shape)` (and `.reshape` with `copy_if_needed`): regroup the geometry."""
    tensor = call.tensor
    target = call.sizes(0, "shape") if target is None else target
    if target is None:
        return UNKNOWN_TENSOR if tensor.kind is Kind.UNKNOWN or not copy_if_needed \
            else (CONTIGUOUS if tensor.noncontiguous else UNKNOWN_TENSOR)
    target = _resolve_wildcard(tensor, target)
    sizes = [None if s == "-1" else s for s in target]
    geometry = tensor.geometry
    if geometry is None:
        if tensor.kind is Kind.CONTIGUOUS:
            return fresh(call, sizes)
        if tensor.noncontiguous and copy_if_needed and view_verdict(tensor, target) == "raises":
            return fresh(call, sizes)
        return Tensor(tensor.kind if not tensor.noncontiguous else Kind.UNKNOWN,
                      Geometry.contiguous(sizes), min_rank=len(sizes))
    groups = align(list(geometry.sizes), [WILDCARD if s == "-1" else s for s in target])
    regrouped = geometry.regrouped(groups, sizes) if groups is not None else None
    if regrouped is not None:
        return _result(tensor, regrouped, call, None)
    unaligned = groups is None  # the sizes leave the grouping open: reshape may still view
    copies = copy_if_needed and tensor.noncontiguous and (
        not unaligned or _verdict_without_grouping(geometry, target) == "raises")
    if tensor.kind is Kind.CONTIGUOUS or copies:
        return fresh(call, sizes)
    return Tensor(Kind.UNKNOWN, Geometry.contiguous(sizes), min_rank=len(sizes))


def _resolve_wildcard(tensor: Tensor, target: list) -> list:
    """`-1` in a view target is numel / (the other sizes) when every size is a literal, so
    that `(1,).view(-1, 1)` is known to be (1, 1), contiguous."""
    sizes = tensor.geometry.sizes if tensor.geometry is not None else None
    if target.count("-1") != 1 or sizes is None or any(
            s is None or s[1] for s in sizes) or any(
            s != "-1" and (s is None or s[1]) for s in target):
        return target
    numel, rest = 1, 1
    for s in sizes:
        numel *= s[0]
    for s in target:
        rest *= s[0] if s != "-1" else 1
    return [literal(numel // rest) if s == "-1" and rest and numel % rest == 0 else s
            for s in target]


def reshape(call: Call) -> Value:
    """reshape views when it can (the result may be non-contiguous) and copies when it must."""
    return view(call, copy_if_needed=True)


def view_as(call: Call, copy_if_needed: bool = False) -> Value:
    other = call.arg(0, "other")
    target = list(other.geometry.sizes) if isinstance(other, Tensor) and other.geometry else None
    return view(call, target, copy_if_needed)


def flatten(call: Call) -> Value:
    if call.name.endswith("Flatten"):  # nn.Flatten(start, end): dims given to the constructor
        kind = Kind.CONTIGUOUS if call.tensor.kind is Kind.CONTIGUOUS else Kind.UNKNOWN
        return Tensor(kind, min_rank=1)
    start, end = call.int_arg(0, "start_dim", 0), call.int_arg(1, "end_dim", -1)
    geometry = call.tensor.geometry
    if geometry is None or start is None or end is None:
        if call.tensor.noncontiguous and call.tensor.min_rank > (start or 0) + 1:
            return Tensor(Kind.UNKNOWN, min_rank=1)
        return replace(UNKNOWN_TENSOR) if call.tensor.kind is Kind.UNKNOWN else CONTIGUOUS
    s, e = _norm(start, geometry.rank), _norm(end, geometry.rank)
    if geometry.rank == 0:
        return view(call, [ONE], copy_if_needed=True)
    if s is None or e is None:
        return UNKNOWN_TENSOR
    sizes = list(geometry.sizes)
    merged = None
    if all(size is not None for size in sizes[s:e + 1]):
        merged = product(sizes[s:e + 1])
    target = sizes[:s] + [merged if merged is not None else "-1"] + sizes[e + 1:]
    if sum(1 for x in target if x is None or x == "-1") > 1:
        target = None
    return view(call, target, copy_if_needed=True)


def unflatten(call: Call) -> Value:
    dim = call.int_arg(0, "dim")
    geometry = call.tensor.geometry
    parts = call.sizes(1, "sizes")
    if geometry is None or dim is None or parts is None:
        return UNKNOWN_TENSOR if not call.tensor.noncontiguous else call.tensor
    d = _norm(dim, geometry.rank)
    if d is None:
        return UNKNOWN_TENSOR
    sizes = list(geometry.sizes)
    return view(call, sizes[:d] + parts + sizes[d + 1:])
