"""Views that read a tensor's memory another way: unfold's windows, diagonals and the
complex views. Each computes the exact result geometry when the input's rank is known and falls
back to a coarse kind when it is not (views.py's `apply_view`)."""
from __future__ import annotations

from typing import Optional

from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.geometry import Axis, Geometry
from contiglint.layout.model.sizes import ONE, is_one, literal, size_text, symbol
from contiglint.layout.model.transfer import Call
from contiglint.layout.model.values import NONCONTIGUOUS, Kind, Tensor, classify
from contiglint.layout.model.views import (GeometryChange, _norm, _result, apply_view,
                                          least_rank)


def unfold(call: Call) -> Tensor:
    """`x.unfold(dim, size, step)`: dim d becomes `count = (n - size) // step + 1` windows
    (stride step * s) and a new last dim of `size` (stride s). Windows overlap when
    step < size and there is more than one; with a literal n the geometry is exact, and so it is
    for one-element windows (`unfold(d, 1, 1)`: n windows and a size-1 last dim of stride s)
    of any n, also on the geometry assumed for a tensor of unknown rank."""
    dim, size, step = call.int_arg(0, "dimension"), call.int_arg(1, "size"), \
        call.int_arg(2, "step")
    tensor = call.tensor
    valid = dim is not None and size is not None and step is not None and step > 0

    def change(g: Geometry) -> Optional[Geometry]:
        d = _norm(dim, g.rank) if valid and g.rank > 0 else None
        return _windows(g, d, size, step) if d is not None else None

    overlapping = size is None or step is None or step < size
    result = apply_view(call, change, Kind.BROADCAST if overlapping else Kind.UNKNOWN,
                        min_rank=(dim + 1 if dim >= 0 else -dim) if valid else 0)
    if overlapping and result.kind is Kind.BROADCAST and result.geometry is None and \
            result.assumed is None and not tensor.noncontiguous:
        result = evolve(result, maybe=True)  # one window (size == n) does not overlap
    return evolve(result, min_rank=max(result.min_rank, tensor.min_rank + 1))  # a new last dim


def _windows(geometry: Geometry, d: int, size: int, step: int) -> Optional[Geometry]:
    """The geometry of `unfold(d, size, step)` where its extent is known: a literal n, or
    one-element windows of any n."""
    axis = geometry.axes[d]
    n = axis.size[0] if axis.size is not None and not axis.size[1] else None
    ones = size == 1 and step == 1 and axis.size is not None
    if not (n is not None and n >= size or ones) or axis.span not in ("full", "cut") or \
            not axis.base:
        return None
    count = (n - size) // step + 1 if n is not None else None
    fresh_ids = geometry.fresh_ids()
    frames_id, window_id = next(fresh_ids), next(fresh_ids)
    memory = list(geometry.memory)
    where = memory.index(axis.base[0])
    memory[where:where + len(axis.base)] = [frames_id, window_id]
    if count == 1:
        frames = Axis(ONE, (), "new")
        memory.remove(frames_id)
    elif count is not None and step < size:
        frames = Axis(literal(count), (), "broadcast")  # overlapping windows
        memory.remove(frames_id)
    else:
        cut = axis.span == "cut" or (count is not None and count * step != n)
        frames = Axis(literal(count) if count is not None else axis.size, (frames_id,),
                      "cut" if cut else "full")
    short = step > size if count != 1 else size < n or axis.span == "cut"  # gaps
    window = Axis(literal(size), (window_id,), "cut" if short else "full")
    axes = geometry.axes[:d] + (frames,) + geometry.axes[d + 1:] + (window,)
    return Geometry(axes, tuple(memory))


def diagonal(call: Call) -> Tensor:
    """`diagonal(offset, dim1, dim2)` drops both dims and appends the diagonal, whose stride
    is the sum of theirs: a stepped dim (non-contiguous, non-dense) unless it has at most
    one element. Computed exactly when the two dims have literal or equal sizes; the main
    diagonal of dims of unrelated sizes has min(n1, n2) elements, stepped whenever both
    exceed one (so only `maybe`)."""
    geometry = call.tensor.geometry
    offset = call.int_arg(0, "offset", 0)
    d1, d2 = call.dim_arg(1, "dim1", 0), call.dim_arg(2, "dim2", 1)
    if geometry is not None and None not in (offset, d1, d2) and d1 != d2 \
            and max(d1, d2) < geometry.rank:
        a1, a2 = geometry.axes[d1], geometry.axes[d2]
        n1, n2 = a1.size, a2.size
        unrelated = False
        if n1 is not None and n2 is not None and not n1[1] and not n2[1]:
            length = literal(max(0, min(n1[0] - max(0, -offset), n2[0] - max(0, offset))))
        elif n1 is not None and n1 == n2 and offset == 0:
            length = n1  # a square of symbolic size n: n elements
        elif offset == 0:
            unrelated = True
            length = symbol(f"min({size_text(n1)}, {size_text(n2)})") \
                if n1 is not None and n2 is not None else None
        else:
            # maybe a single element
            return Tensor(Kind.UNKNOWN, partial=call.origin, min_rank=geometry.rank - 1)
        kept = tuple(a for i, a in enumerate(geometry.axes) if i not in (d1, d2))
        if unrelated or length[1] or length[0] > 1:
            if "broadcast" in (a1.span, a2.span) or "new" in (a1.span, a2.span):
                return Tensor(Kind.UNKNOWN, partial=call.origin, min_rank=geometry.rank - 1)
            bases = tuple(sorted(a1.base + a2.base, key=geometry.memory.index))
            whole = a1.span == a2.span == "full" and len(a1.base) == len(a2.base) == 1
            walks = tuple(a.size for a in sorted((a1, a2), key=lambda a: bases.index(
                a.base[0]))) if whole else ()
            diag = Axis(length, bases, "step", walks)
        else:
            diag = Axis(length, (), "new")  # one element: as if both dims were selected
        gone = set() if unrelated else \
            {b for a in (a1, a2) if is_one(a.size) and a.span == "full" for b in a.base}
        changed = Geometry(kept + (diag,), tuple(b for b in geometry.memory if b not in gone))
        result = _result(call.tensor, changed, call, call.origin)
        return evolve(result, maybe=True) if unrelated else result
    assumed = call.tensor.assumed
    if geometry is None and assumed is not None and offset == 0 and d1 is not None and \
            d2 is not None and 0 <= min(d1, d2) and \
            any(d < assumed.rank and assumed.axes[d].size == ONE for d in (d1, d2)):
        # the dims counted from the front are the assumed geometry's at any rank: one of
        # size 1 leaves at most one element on the diagonal, stepped or not by no stride,
        # whatever the other dim is (`x.narrow(0, i, 1).diagonal(0, 1, 0)`)
        return Tensor(Kind.UNKNOWN, partial=call.origin,
                      min_rank=max(call.tensor.min_rank - 1, 1))
    if geometry is None and call.tensor.kind in (Kind.UNKNOWN, Kind.BROADCAST) and \
            call.tensor.made_by_op:
        # dims of stride 0 and 1 make a diagonal of stride 1 (`x.expand(n, n).diagonal()` is
        # contiguous), a kept stride-0 dim a broadcast one: with the dims unknown, so is this
        return Tensor(Kind.UNKNOWN, partial=call.origin, min_rank=max(call.tensor.min_rank - 1, 1),
                      lost=True)
    result = apply_view(call, lambda g: None, Kind.STRIDED, partial=True)
    if result.geometry is None and result.min_rank:  # two dims become one
        named = [least_rank(d) for d in (call.int_arg(1, "dim1", 0), call.int_arg(2, "dim2", 1))
                 if d is not None]
        result = evolve(result, min_rank=max(call.tensor.min_rank - 1, *named, 2) - 1)
    if offset != 0 and result.kind is Kind.STRIDED:
        return evolve(result, maybe=True)  # an offset diagonal may have one element
    return result


def view_as_real(call: Call) -> Tensor:
    """A complex (..., ) tensor as real (..., 2): every stride doubles and a new innermost dim
    of 2 appears (measured: the layout is otherwise the complex tensor's)."""
    return on_assumed(call, _with_pair) or apply_view(call, _with_pair, None)


def _with_pair(g: Geometry) -> Geometry:
    new = next(g.fresh_ids())
    return Geometry(g.axes + (Axis(literal(2), (new,), "full"),), g.memory + (new,))


def on_assumed(call: Call, change: GeometryChange) -> Optional[Tensor]:
    """A change that only adds or drops the innermost complex pair (view_as_real, `.real`)
    keeps a non-contiguous tensor's assumed geometry: the dims the earlier op moved or cut stay
    where they were, so its claims at the smallest rank still stand."""
    tensor = call.tensor
    if tensor.geometry is not None or tensor.assumed is None or not tensor.noncontiguous:
        return None
    assumed = change(tensor.assumed)
    if assumed is None or classify(assumed) not in NONCONTIGUOUS:
        return None
    return Tensor(tensor.kind, None, tensor.origin, tensor.maybe, tensor.partial,
                  max(tensor.min_rank + assumed.rank - tensor.assumed.rank, assumed.rank),
                  assumed, tensor.dtype)


def view_as_complex(call: Call) -> Tensor:
    """A real (..., 2) tensor with a unit-stride last dim as complex (...): the last dim goes
    (torch raises unless it is innermost with stride 1)."""
    def change(g: Geometry):
        if not g.rank:
            return None
        last = g.axes[-1]
        if last.span != "full" or len(last.base) != 1 or g.memory[-1] != last.base[0]:
            return None
        return Geometry(g.axes[:-1], g.memory[:-1])
    tensor = call.tensor
    result = apply_view(call, change, None)
    if tensor.geometry is not None and result.geometry is None:
        return Tensor(Kind.UNKNOWN, min_rank=max(tensor.min_rank - 1, 0))
    return result


def real_part(call: Call) -> Tensor:
    """`.real`/`.imag` of a complex tensor: view_as_real then the last dim selected, so every
    stride is doubled (non-dense, yet dims that merged still merge)."""
    tensor = call.tensor
    if tensor.geometry is None:
        kept = on_assumed(call, lambda g: _with_pair(g).dropped(g.rank))
        if kept is not None:
            return evolve(kept, kind=Kind.STRIDED, origin=kept.origin or call.origin,
                           partial=call.origin)
        return Tensor(Kind.STRIDED, None, call.origin, tensor.maybe, call.origin,
                      tensor.min_rank)
    pairs = view_as_real(call)
    if pairs.geometry is None:
        return Tensor(Kind.STRIDED, None, call.origin, False, call.origin, tensor.min_rank)
    return _result(tensor, pairs.geometry.dropped(pairs.geometry.rank - 1), call, call.origin)
