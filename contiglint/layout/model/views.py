"""Ops that return views: their result geometry, and whether `.view(shape)` can succeed.

Each transfer computes the exact result geometry when the input's rank is known, and falls back
to a coarse kind (permuted, strided, broadcast) when it is not. An input of unknown layout is
treated as contiguous for the purpose of *breaking* contiguity: `param.transpose(1, 2)` is
non-contiguous whatever `param` was, in all but contrived cases.
"""
from __future__ import annotations

from itertools import count, pairwise
from typing import Callable, Optional

from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.geometry import Axis, Geometry
from contiglint.layout.model.sizes import ONE, WILDCARD, Size, align, is_one, literal, product
from contiglint.layout.model.transfer import CONTIGUOUS, Call, fresh
from contiglint.layout.model.values import (
    NONCONTIGUOUS,
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
        elif coarse is not None and (coarse is not tensor.kind or coarse is Kind.PERMUTED):
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
        return evolve(result, origin=origin, maybe=tensor.maybe)
    if tensor.kind is Kind.UNKNOWN:
        return Tensor(Kind.UNKNOWN, geometry, None, False, partial, geometry.rank)
    return evolve(result, maybe=False)


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
    tensor = call.tensor
    if not distinct and tensor.geometry is None and not tensor.noncontiguous:
        if a is not None and a == b:
            return tensor  # swapping a dim with itself: the tensor itself
        return Tensor(Kind.UNKNOWN, None, None, False, tensor.partial,
                      max(min_rank, tensor.min_rank))  # the dims may be one and the same
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

    result = _rank_guess(call, dim, apply_view(
        call, change, None if dim == 0 else Kind.STRIDED, _implied_rank(dim), partial=True))
    size = length.size if isinstance(length, IntVal) else None
    if start == 0 and result.noncontiguous and result.kind is not call.tensor.kind and \
            _dim_size(call.tensor, dim) is None:
        result = evolve(result, maybe=True)  # the length may be the whole (unknown) dim
    if size == ONE and call.tensor.geometry is None and result.geometry is None and \
            not call.tensor.noncontiguous and dim != 0:
        return Tensor(Kind.UNKNOWN, None, None, False, result.partial, result.min_rank)  # a
        # size-1 dim: contiguous when only leading dims of size > 1 precede it
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

    return _blind_cut(call.tensor, _rank_guess(call, dim, apply_view(
        call, change, None if dim == 0 else Kind.STRIDED, _implied_rank(dim), partial=True)))


def _implied_rank(dim: Optional[int]) -> int:
    """For a negative dim, the smallest rank at which cutting it is not cutting the leading
    dim (`x.narrow(-1, ...)`: rank 2)."""
    return 1 - dim if dim is not None and dim < 0 else 0


def _rank_guess(call: Call, dim: Optional[int], result: Tensor) -> Tensor:
    """A negative dim of a tensor of unknown rank may be its leading dim (`x.narrow(-1, ...)`
    on a 1-D tensor stays contiguous): what the cut breaks holds only on some paths."""
    tensor = call.tensor
    if dim is not None and dim < 0 and tensor.geometry is None and result.noncontiguous \
            and result.kind is not tensor.kind:
        return evolve(result, maybe=True, assumed=None)  # the rank, hence the dims, unknown
    return result


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
    """split/chunk/tensor_split/split_with_sizes/hsplit/vsplit/dsplit: pieces are narrows of
    one dim (contiguous only on dim 0, or when a piece has one element). With a literal dim
    size the pieces are computed exactly, as torch computes them; otherwise every piece is
    a narrow of unknown length (possibly a single element, so only `maybe` non-contiguous)."""
    name = call.name.rsplit(".", 1)[-1]
    fixed = {"vsplit": 0, "dsplit": 2}.get(name)
    if name == "hsplit":
        fixed = 0 if call.tensor.rank == 1 else 1
    dim = fixed if fixed is not None else call.int_arg(1, "dim", 0)
    sections = call.arg(0, {"chunk": "chunks", "split": "split_size_or_sections",
                            "split_with_sizes": "split_sizes"}.get(
                                name, "indices_or_sections"))
    lengths = _piece_lengths(name, sections, _dim_size(call.tensor, dim))
    if isinstance(lengths, tuple) and lengths[1] == "empty?" and \
            name in ("split", "split_with_sizes"):
        # sizes listed, some not literal (`[1, C - 1]`): each piece is a narrow of its listed
        # size, which may be 0 (an empty tensor is contiguous): non-contiguous only maybe
        pieces = []
        for item in sections.items:
            size = item.size if isinstance(item, IntVal) else None
            piece = narrow(Call(call.name, call.this, [IntVal(literal(dim)), IntVal(None),
                                                       IntVal(size)], {}, call.origin))
            pieces.append(evolve(piece, maybe=True) if piece.noncontiguous else piece)
        return Seq(tuple(pieces))
    if isinstance(lengths, list):
        starts = [sum(lengths[:i]) for i in range(len(lengths))]
        return Seq(tuple(narrow(Call(call.name, call.this, [
            IntVal(literal(dim)), IntVal(literal(begin)), IntVal(literal(length))], {},
            call.origin)) for begin, length in zip(starts, lengths)))
    count, length = lengths
    if length == "empty?":
        return Seq(tuple([Tensor(Kind.UNKNOWN, min_rank=call.tensor.min_rank)] * count))
    piece = narrow(Call(call.name, call.this, [IntVal(literal(dim)), IntVal(None),
                                               IntVal(length)], {}, call.origin))
    if count == 1 and name != "split":
        return Seq((call.tensor,))  # one piece: the whole tensor
    if piece.noncontiguous and not (length is not None and length[1]):
        piece = evolve(piece, maybe=True)  # a piece may be the whole dim, or one element
    if count is not None and 0 < count <= 64:
        return Seq(tuple([piece] * count))
    return Seq(each=piece)


def _piece_lengths(name: str, sections: Optional[Value], size: Optional[Size]):
    """The exact piece lengths (a list) when the dim size and the sections are literal;
    otherwise `(count, length)` with whatever is known of the pieces' count and length."""
    given = sections.size if isinstance(sections, IntVal) else None
    listed = None
    if isinstance(sections, Seq) and sections.items is not None:
        listed = [v.size[0] if isinstance(v, IntVal) and v.size is not None and not v.size[1]
                  else None for v in sections.items]
    n = size[0] if size is not None and not size[1] else None
    if listed is not None:
        by_sizes = name in ("split", "split_with_sizes")
        if n is not None and None not in listed:
            if by_sizes:
                return listed
            bounds = [0] + [min(max(i, 0), n) for i in listed] + [n]
            return [max(b - a, 0) for a, b in zip(bounds, bounds[1:])]
        return (len(listed) + (0 if by_sizes else 1), "empty?")  # a piece may be empty
    if given is None or given[1] or given[0] <= 0:
        return (None, None)
    k = given[0]
    if n is not None:
        if name in ("split",):
            return [k] * (n // k) + ([n % k] if n % k else [])
        if name == "chunk":
            piece = -(-n // k)
            return [piece] * (n // piece) + ([n % piece] if n % piece else [])
        return [n // k + 1] * (n % k) + [n // k] * (k - n % k)  # tensor_split, h/v/dsplit
    if size is not None and name != "split" and size[0] % k == 0:
        return (k, (size[0] // k, size[1]))  # `3 * d` split in three: pieces of d
    if name == "split" and k == 1:
        return (None, literal(1))  # split(1): every piece has length 1, whatever the size
    # split(k): the last piece may be shorter; chunk(k) may make fewer pieces
    return (k if name not in ("split", "chunk") else None, None)


def _dim_size(tensor: Tensor, dim: int) -> Optional[Size]:
    if tensor.geometry is None:
        return None
    d = _norm(dim, tensor.geometry.rank)
    return tensor.geometry.axes[d].size if d is not None else None


def expand(call: Call, sizes: Optional[list] = None) -> Tensor:
    """Stride-0 dims where a size-1 dim grows (or a leading dim is added). A dim of unknown
    size given a size may already have it (no broadcast): such growth is only `maybe`."""
    sizes = call.sizes(0, "size") if sizes is None else sizes
    guessed = []

    def change(g: Geometry):
        if sizes is None or len(sizes) < g.rank:
            return None
        lead = len(sizes) - g.rank
        axes = [Axis(s if s not in (None, WILDCARD) else None, (), "broadcast")
                for s in sizes[:lead]]
        guessed.extend(s in (None, WILDCARD) for s in sizes[:lead] if not is_one(s))
        memory = list(g.memory)
        for axis, size in zip(g.axes, sizes[lead:]):
            if size == WILDCARD or size == axis.size or is_one(size):
                axes.append(axis)
            elif is_one(axis.size) or axis.size is None:
                axes.append(Axis(size, (), "broadcast"))
                guessed.append(axis.size is None)
                if is_one(axis.size) and axis.span == "full":
                    memory = [b for b in memory if b not in axis.base]  # had no extent
            else:
                axes.append(axis)
        return Geometry(tuple(axes), tuple(memory))

    if sizes is not None and all(s == WILDCARD for s in sizes) and call.tensor.geometry is None:
        return call.tensor  # x.expand(-1, -1) keeps every size: x itself
    result = apply_view(call, change, Kind.BROADCAST)
    if result.kind is Kind.BROADCAST and result.kind is not call.tensor.kind and (
            call.tensor.geometry is None or all(guessed)):
        result = evolve(result, maybe=True)  # the sizes may be the ones it already has
    return result


def expand_as(call: Call) -> Tensor:
    """Unknown target sizes may be the tensor's own (`x.expand_as(residual)`): unknown."""
    other = call.arg(0, "other")
    sizes = list(other.geometry.sizes) if isinstance(other, Tensor) and other.geometry else None
    if sizes is None:
        tensor = call.tensor
        return tensor if tensor.noncontiguous else Tensor(Kind.UNKNOWN, min_rank=tensor.min_rank)
    return expand(call, sizes)


def unfold(call: Call) -> Tensor:
    """`x.unfold(dim, size, step)`: dim d becomes `count = (n - size) // step + 1` windows
    (stride step * s) and a new last dim of `size` (stride s). Windows overlap when
    step < size and there is more than one; with a literal n the geometry is exact."""
    dim, size, step = call.int_arg(0, "dimension"), call.int_arg(1, "size"), \
        call.int_arg(2, "step")
    tensor = call.tensor
    geometry = tensor.geometry
    d = _norm(dim, geometry.rank) if geometry is not None and dim is not None else None
    if geometry is not None and geometry.rank == 0 and dim in (0, -1):
        d = None
    if d is not None and size is not None and step is not None and step > 0:
        axis = geometry.axes[d]
        n = axis.size[0] if axis.size is not None and not axis.size[1] else None
        if n is not None and n >= size and axis.span in ("full", "cut") and axis.base:
            count = (n - size) // step + 1
            fresh_ids = count_from(geometry)
            frames_id, window_id = next(fresh_ids), next(fresh_ids)
            memory = list(geometry.memory)
            where = memory.index(axis.base[0])
            memory[where:where + len(axis.base)] = [frames_id, window_id]
            if count == 1:
                frames = Axis(ONE, (), "new")
                memory.remove(frames_id)
            elif step < size:
                frames = Axis(literal(count), (), "broadcast")  # overlapping windows
                memory.remove(frames_id)
            else:
                cut = axis.span == "cut" or count * step != n
                frames = Axis(literal(count), (frames_id,), "cut" if cut else "full")
            short = step > size if count > 1 else size < n or axis.span == "cut"  # gaps
            window = Axis(literal(size), (window_id,), "cut" if short else "full")
            axes = geometry.axes[:d] + (frames,) + geometry.axes[d + 1:] + (window,)
            return _result(tensor, Geometry(axes, tuple(memory)), call, None)
    if size is None or step is None or step < size:
        result = apply_view(call, lambda g: None, Kind.BROADCAST)
        return evolve(result, maybe=True) if result.kind is Kind.BROADCAST and \
            not tensor.noncontiguous else result  # one window (size == n) does not overlap
    return apply_view(call, lambda g: None, Kind.UNKNOWN)


def count_from(geometry: Geometry):
    """Fresh base-axis ids for a geometry."""
    return count(max(geometry.memory, default=-1) + 1)


def diagonal(call: Call) -> Tensor:
    """`diagonal(offset, dim1, dim2)` drops both dims and appends the diagonal, whose stride
    is the sum of theirs: a stepped dim (non-contiguous, non-dense) unless it has at most
    one element. Computed exactly when the two dims have literal or equal sizes."""
    geometry = call.tensor.geometry
    offset = call.int_arg(0, "offset", 0)
    d1, d2 = call.dim_arg(1, "dim1", 0), call.dim_arg(2, "dim2", 1)
    if geometry is not None and None not in (offset, d1, d2) and d1 != d2 \
            and max(d1, d2) < geometry.rank:
        a1, a2 = geometry.axes[d1], geometry.axes[d2]
        n1, n2 = a1.size, a2.size
        if n1 is not None and n2 is not None and not n1[1] and not n2[1]:
            length = literal(max(0, min(n1[0] - max(0, -offset), n2[0] - max(0, offset))))
        elif n1 is not None and n1 == n2 and offset == 0:
            length = n1  # a square of symbolic size n: n elements
        else:
            return Tensor(Kind.UNKNOWN, min_rank=geometry.rank - 1)  # maybe a single element
        kept = tuple(a for i, a in enumerate(geometry.axes) if i not in (d1, d2))
        if length[1] or length[0] > 1:
            if "broadcast" in (a1.span, a2.span) or "new" in (a1.span, a2.span):
                return Tensor(Kind.UNKNOWN, min_rank=geometry.rank - 1)
            bases = tuple(sorted(a1.base + a2.base, key=geometry.memory.index))
            diag = Axis(length, bases, "step")
        else:
            diag = Axis(length, (), "new")  # one element: as if both dims were selected
        gone = {b for a in (a1, a2) if is_one(a.size) and a.span == "full" for b in a.base}
        changed = Geometry(kept + (diag,), tuple(b for b in geometry.memory if b not in gone))
        return _result(call.tensor, changed, call, call.origin)
    result = apply_view(call, lambda g: None, Kind.STRIDED, partial=True)
    if offset != 0 and result.kind is Kind.STRIDED:
        return evolve(result, maybe=True)  # an offset diagonal may have one element
    return result


def view_as_real(call: Call) -> Tensor:
    """A complex (..., ) tensor as real (..., 2): every stride doubles and a new innermost dim
    of 2 appears (measured: the layout is otherwise the complex tensor's)."""
    return on_assumed(call, _with_pair) or apply_view(call, _with_pair, None)


def _with_pair(g: Geometry) -> Geometry:
    new = next(count_from(g))
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


# --- view / reshape -------------------------------------------------------------------------
def view_verdict(tensor: Tensor, target: Optional[list], owner: Optional[str] = None) -> str:
    """Would `tensor.view(*target)` raise? "raises", "ok" or "unknown".

    A view never needs a contiguous input: it fails only when it merges dims that are not
    adjacent in memory. `target` holds sizes and "-1"; None when the shape is not known.
    `owner` is the source text of the viewed tensor (its `owner.size(i)` symbols name its dims).
    """
    if not tensor.noncontiguous:
        return "ok"
    geometry = tensor.geometry
    if geometry is None or target is None:
        return _coarse_verdict(tensor, target, owner)
    target = _resolve_wildcard(tensor, target)  # literal sizes: `-1` is known, so are groups
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
    reading = _read_as_written(geometry, target)
    if reading is not None and not geometry.is_channels_last():
        merged = [[a for a in geometry.axes[r.start:r.stop]] for r in reading if len(r) > 1]
        if any(geometry.joinable(a, b) is False for part in merged for a, b in pairwise(part)):
            return "merge"  # read as written, the view merges dims that cannot merge
        return "unknown"  # read as written, it merges only dims that can: sizes decide
    if target_rank < len(live) and any(j is False for j in joins) and \
            not geometry.is_channels_last():  # conv outputs: unknown H, W are often 1 (pooled)
        return "merge"  # some dims must merge and some neighbours cannot: sizes decide which
    return "unknown"


def _read_as_written(geometry: Geometry, target: list) -> Optional[list[range]]:
    """The source dims each target entry stands for when sizes leave the grouping open and
    the target is read as code writes it: a product of n names (`b * c`) merges n dims,
    any other entry keeps one, and a single -1 takes the dims left over (`x.view(b, -1,
    dim)` keeps the first and last dims and merges the middle). None when the counts do not
    add up to the source's dims, a size-1 dim is involved, or literal sizes contradict the
    reading (`(3, 7, 48).view(-1, 8)` does not keep 48 as 8)."""
    if any(is_one(a.size) for a in geometry.axes) or any(s == ONE for s in target) or \
            target.count(WILDCARD) > 1:
        return None
    counts = [None if s == WILDCARD else (len(s[1]) if s is not None and len(s[1]) > 1
                                          else 1) for s in target]
    rest = geometry.rank - sum(c for c in counts if c is not None)
    if WILDCARD in target:
        if rest < 1:
            return None
        counts = [rest if c is None else c for c in counts]
    elif rest:
        return None
    reading, start = [], 0
    for size, n in zip(target, counts):
        part = range(start, start + n)
        start += n
        sizes = [geometry.axes[i].size for i in part]
        if size != WILDCARD and size is not None and not size[1] and \
                all(s is not None and not s[1] for s in sizes) and product(sizes) != size:
            return None
        reading.append(part)
    return reading


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


def _coarse_verdict(tensor: Tensor, target: Optional[list], owner: Optional[str] = None) -> str:
    """Rank unknown. With the geometry the op implies at its minimal rank: if no two
    neighbouring dims can merge there, a view into no more dims than that is "likely" to raise
    (at that rank it would be a pointless identity view, so real code has more dims and
    merges). `x.transpose(1, 2).view(B, N, C)` is likely; `x.transpose(2, 3).view(B * P, C, H,
    W)` is not (dims 0 and 1 still merge). Nor is a target that spells out the tensor's own
    shape at that rank, `x[:, :-1].view(-1, x.size(-1))`: generic code that flattens whatever
    leads to 2-D, an identity on 2-D input, so the rank decides."""
    assumed = tensor.assumed
    if target is None or assumed is None:
        return "unknown"
    live = [a for a in assumed.axes if not is_one(a.size)]
    joins = [assumed.joinable(a, b) for a, b in zip(live, live[1:])]
    if len(target) <= assumed.rank and joins and all(j is False for j in joins):
        if len(target) < tensor.min_rank:
            return "raises"
        return "unknown" if _own_shape(assumed, target, owner) else "likely"
    return "unknown"


def _own_shape(geometry: Geometry, target: list, owner: Optional[str]) -> bool:
    """Whether `target` may be exactly the shape `geometry` has: one entry per dim, each the
    dim's known size, the owner's own `owner.size(i)` for that dim (counted from either end),
    or a single -1 standing for whatever is left."""
    if len(target) != geometry.rank or target.count(WILDCARD) > 1:
        return False
    rank = geometry.rank
    for index, (axis, size) in enumerate(zip(geometry.axes, target)):
        if size == WILDCARD or (axis.size is not None and size == axis.size):
            continue
        names = {f"{owner}.size({index})", f"{owner}.size({index - rank})"} if owner else set()
        if size is None or size[0] != 1 or len(size[1]) != 1 or size[1][0] not in names:
            return False
    return True


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
        return evolve(UNKNOWN_TENSOR) if call.tensor.kind is Kind.UNKNOWN else CONTIGUOUS
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


# --- arbitrary strides ----------------------------------------------------------------------
def strided(sizes: list[int], strides: list[int]) -> Optional[Geometry]:
    """The geometry of literal sizes and strides (`as_strided`), or None when this model of
    memory cannot express it exactly (the claims it would make are checked against the
    strides themselves: contiguity, density, overlap, and which neighbours `.view` merges)."""
    live = [i for i, n in enumerate(sizes) if n != 1]
    order = sorted((i for i in live if strides[i] != 0), key=lambda i: -strides[i])
    ids = {dim: position for position, dim in enumerate(order)}
    spans = {}
    for outer, inner in zip(order, order[1:] + [None]):
        extent = strides[inner] * sizes[inner] if inner is not None else 1
        if strides[outer] == extent:
            spans[outer] = "full"
        elif strides[outer] > extent:
            spans[outer] = "step"
        else:
            spans[outer] = "broadcast"  # overlapping rows
    axes = []
    for i, n in enumerate(sizes):
        if n == 1:
            axes.append(Axis(ONE, (), "new"))
        elif strides[i] == 0 or spans[i] == "broadcast":
            axes.append(Axis(literal(n), (), "broadcast"))
        else:
            axes.append(Axis(literal(n), (ids[i],), spans[i]))
    memory = tuple(ids[i] for i in order if spans[i] != "broadcast")
    geometry = Geometry(tuple(axes), memory)
    facts = _stride_facts(sizes, strides)
    if facts is None or classify(geometry) is not facts[0]:
        return None
    real_joins = [strides[a] == strides[b] * sizes[b] for a, b in pairwise(live)]
    model_joins = [geometry.joinable(geometry.axes[a], geometry.axes[b])
                   for a, b in pairwise(live)]
    return geometry if real_joins == model_joins else None


def _stride_facts(sizes: list[int], strides: list[int]) -> Optional[tuple[Kind]]:
    """The kind torch's strides make: contiguous, permuted (dense), strided, broadcast."""
    live = [(n, st) for n, st in zip(sizes, strides) if n != 1]
    expected = 1
    contiguous = True
    for n, st in reversed(live):
        contiguous &= st == expected
        expected *= n
    if contiguous or 0 in sizes:
        return (Kind.CONTIGUOUS,)
    numel = product_of(sizes)
    if numel > 1 << 16:
        return None
    offsets = [0]
    for n, st in zip(sizes, strides):
        offsets = [o + k * st for o in offsets for k in range(n)]
    if len(set(offsets)) < numel:
        return (Kind.BROADCAST,)
    dense = max(offsets) - min(offsets) + 1 == numel
    return (Kind.PERMUTED if dense else Kind.STRIDED,)


def product_of(values) -> int:
    total = 1
    for v in values:
        total *= v
    return total
