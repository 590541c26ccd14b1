"""Views of part of a tensor: narrow, select, unbind, split and expand (unfold, diagonal and
the complex views are memory_views.py's). Each computes the exact result geometry
when the input's rank is known and falls back to a coarse kind when it is not (views.py's
`apply_view`)."""
from __future__ import annotations

from typing import Optional

from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.geometry import Axis, Geometry
from contiglint.layout.model.sizes import (ONE, WILDCARD, Size, is_one, literal, size_text,
                                          symbol)
from contiglint.layout.model.transfer import Call
from contiglint.layout.model.reshape_views import led_sizes
from contiglint.layout.model.values import (
    OPAQUE,
    Const,
    IntVal,
    Kind,
    Seq,
    Tensor,
    Value,
)
from contiglint.layout.model.leads import after_lead
from contiglint.layout.model.views import _norm, _without, apply_view, least_rank


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
        if g.axes[d].size == ONE and size is None:
            return g  # a piece of a dim of one element is the whole dim, or empty (contiguous)
        return g.cut(d, size)

    cut = apply_view(call, change, None if dim == 0 else Kind.STRIDED, _implied_rank(dim),
                     partial=True)
    result = _rank_guess(call, dim, cut)
    size = length.size if isinstance(length, IntVal) else None
    if start == 0 and result.noncontiguous and result.kind is not call.tensor.kind and \
            _dim_size(call.tensor, dim) is None:
        result = evolve(result, maybe=True)  # the length may be the whole (unknown) dim
    if size == ONE and call.tensor.geometry is None and result.geometry is None and \
            not call.tensor.noncontiguous and dim != 0:
        least = max(call.tensor.min_rank, least_rank(dim) if dim is not None else 0)
        return Tensor(Kind.UNKNOWN, None, None, False, result.partial, least, cut.assumed,
                      lost=cut.lost)  # a size-1 dim: contiguous when only leading dims of
        # size > 1 precede it; the cut stays in the assumed geometry, at a rank above the
        # least one the code states, for the ops that fix the rank (unless its sizes are not
        # free: `lost`)
    return result if size is not None and not size[1] and size[0] > 1 else \
        _blind_cut(call.tensor, result)


def _blind_cut(tensor: Tensor, result: Tensor) -> Tensor:
    """Selecting (or narrowing to one element) some dim of a non-contiguous tensor whose dims
    are unknown may remove the very dim that made it so (`x[:, ::2].select(1, 0)`). Its
    sizes are the cut tensor's, which an op made: `lost`, not free."""
    if tensor.noncontiguous and tensor.geometry is None and result.geometry is None:
        return Tensor(Kind.UNKNOWN, None, None, False, result.partial, result.min_rank,
                      lost=True)
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
    """The smallest rank at which a cut of `dim` is not a cut of the leading dim: for a
    negative dim, one more than it counts (`x.narrow(-1, ...)`: rank 2); for another, the
    least rank that has it (`x.narrow(1, ...)`: rank 2, as `x[:, :k]` implies)."""
    if dim is None:
        return 0
    return 1 - dim if dim < 0 else dim + 1


def _rank_guess(call: Call, dim: Optional[int], result: Tensor) -> Tensor:
    """A negative dim of a tensor of unknown rank may be its leading dim (`x.narrow(-1, ...)`
    on a 1-D tensor stays contiguous): what the cut breaks holds only on some paths."""
    tensor = call.tensor
    if dim is not None and dim < 0 and tensor.geometry is None and result.noncontiguous \
            and result.kind is not tensor.kind:
        # the rank, hence the dims, unknown; the least rank is the one that has the dim (the
        # cut was placed one above it, where the dim is not the leading one)
        return evolve(result, maybe=True, assumed=None,
                      min_rank=min(result.min_rank, max(tensor.min_rank, -dim)))
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
    if isinstance(sections, Const) and isinstance(sections.value, str):
        return OPAQUE  # `s.split("/", 1)`: a str's split (a separator and a count)
    size = _dim_size(call.tensor, dim)
    lengths = _piece_lengths(name, sections, size)
    if isinstance(lengths, tuple) and lengths[1] == "empty?" and \
            name in ("split", "split_with_sizes"):
        # sizes listed, some not literal (`[1, C - 1]`): each piece is a narrow of its listed
        # size, which may be 0 (an empty tensor is contiguous): non-contiguous only maybe
        pieces = []
        for item in sections.items:
            piece = _piece(call, dim, None, item.size if isinstance(item, IntVal) else None)
            pieces.append(evolve(piece, maybe=True) if piece.noncontiguous else piece)
        return Seq(tuple(pieces))
    named = _symbolic_pieces(name, sections, size) \
        if isinstance(lengths, tuple) and lengths[1] is None else None
    if named is not None:
        return Seq(tuple(_piece(call, dim, literal(0) if i == 0 else None, length)
                         for i, length in enumerate(named)))
    if isinstance(lengths, list):
        starts = [sum(lengths[:i]) for i in range(len(lengths))]
        return Seq(tuple(_piece(call, dim, literal(begin), literal(length))
                         for begin, length in zip(starts, lengths)))
    count, length = lengths
    if length == "empty?":
        return Seq(tuple([Tensor(Kind.UNKNOWN, min_rank=call.tensor.min_rank)] * count))
    piece = _piece(call, dim, None, length)
    if count == 1 and name != "split":
        return Seq((call.tensor,))  # one piece: the whole tensor
    if piece.noncontiguous and not (length is not None and length[1]):
        piece = evolve(piece, maybe=True)  # a piece may be the whole dim, or one element
    if count is not None and 0 < count <= 64:
        return Seq(tuple([piece] * count))
    return Seq(each=piece)


def _piece(call: Call, dim: int, start: Optional[Size], length: Optional[Size]) -> Tensor:
    """One piece of a split: the narrow of `dim` from `start` (None: not known) of `length`."""
    return narrow(Call(call.name, call.this, [IntVal(literal(dim)), IntVal(start),
                                              IntVal(length)], {}, call.origin))


def _symbolic_pieces(name: str, sections: Optional[Value], size: Optional[Size]) \
        -> Optional[list[Size]]:
    """The piece lengths on a dim of symbolic size n, as sizes of n where they do not depend
    on n's value: chunk(2) and tensor_split(2) give (n + 1) // 2 and n // 2 (two pieces for
    any n of 2 or more), and hsplit/vsplit/dsplit(k) give k pieces of n // k (they raise
    unless k divides n). A piece of another count has a length the model does not name."""
    given = sections.size if isinstance(sections, IntVal) else None
    if size is None or not size[1] or given is None or given[1]:
        return None
    k, text = given[0], size_text(size)
    if name in ("chunk", "tensor_split") and k == 2:
        return [symbol(f"({text} + 1) // 2"), symbol(f"{text} // 2")]
    if name in ("hsplit", "vsplit", "dsplit") and 2 <= k <= 64:
        return [symbol(f"{text} // {k}")] * k
    return None


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
    if n == 0:  # measured: split(k) of an empty dim gives one empty piece, chunk(k) k of them
        return [0] if name == "split" else [0] * k
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
    """The size of `dim`; at an unknown rank, that of a dim counted from the front in the
    geometry assumed at the least rank (it is the same dim at every rank: `x.size(2)` of x
    that the code names `B, N, C, D = x.shape`), so that a piece's length is named by it."""
    geometry = tensor.geometry
    if geometry is None:
        geometry = tensor.witness_geometry
        if geometry is None or dim is None or not 0 <= dim < geometry.rank:
            return None
    d = _norm(dim, geometry.rank)
    return geometry.axes[d].size if d is not None else None


def expand(call: Call, sizes: Optional[list] = None) -> Tensor:
    """Stride-0 dims where a size-1 dim grows (or a leading dim is added). A dim of unknown
    size, or of a named one, given another size may already have it (no broadcast): such
    growth is only `maybe`."""
    if sizes is None:
        led = led_sizes(call.args, wildcard=True)
        kept = after_lead(call, lambda inner: expand(inner, led[1]), led[0]) \
            if led is not None else None
        if kept is not None:  # `x.expand(*batch, d, 3)`: the dims after x's own lead
            return kept
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
        named = []  # dims of a size the code names given another: growth only guessed
        for axis, size in zip(g.axes, sizes[lead:]):
            if size == WILDCARD or size == axis.size or is_one(size):
                axes.append(axis)
            elif is_one(axis.size) or axis.size is None:
                axes.append(Axis(size, (), "broadcast"))
                guessed.append(axis.size is None)
                if is_one(axis.size) and axis.span == "full":
                    memory = [b for b in memory if b not in axis.base]  # had no extent
            else:
                named.append((len(axes), axis))
                axes.append(axis)
        if named and all(guessed) and any(axis.size[1] for _, axis in named):
            # where nothing else surely grows, a size the code names (b.size(0)) may be the
            # 1 that grows to the other; beside a growth that is sure, the maybe would be
            # lost on the dims that are left (`rows[0]` of `a.expand(3, n)`)
            for at, axis in named:
                if axis.size[1]:
                    axes[at] = Axis(sizes[at], (), "broadcast")
                    guessed.append(True)
        return Geometry(tuple(axes), tuple(memory))

    if sizes is not None and all(s == WILDCARD for s in sizes) and call.tensor.geometry is None:
        return call.tensor  # x.expand(-1, -1) keeps every size: x itself
    if sizes is not None and call.tensor.geometry is not None and \
            len(sizes) < call.tensor.geometry.rank:
        # torch raises (fewer sizes than dims): no layout reaches the code after it
        return Tensor(Kind.UNKNOWN, partial=call.tensor.partial, min_rank=len(sizes), lost=True)
    kept = [i for i, s in enumerate(sizes or ()) if s == WILDCARD]  # -1 keeps a dim x has:
    rank = len(sizes) - kept[0] if kept else 0  # x has at least the dims from the first -1 on
    # x has at most as many dims as sizes are given: as many, where it has at least that many
    # and its sizes there are assumed (a dim of unknown size given one may or may not grow)
    assumed = call.tensor.assumed
    fixed = len(sizes) if sizes is not None and call.tensor.min_rank >= len(sizes) and \
        assumed is not None and assumed.rank == len(sizes) and None not in assumed.sizes \
        else None
    result = apply_view(call, change, Kind.BROADCAST, rank, fixed)
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
