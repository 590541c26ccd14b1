"""Subscripts: `x[1:]`, `x[:, ::2]`, `x[..., 0]`, `x[None]`, `x[idx]`.

Basic indexing returns a view (cut, stepped or dropped dims, inserted size-1 dims); advanced
indexing (tensors, lists, masks) copies: contiguous for a contiguous input, else laid out as
TensorIterator orders the input's strides (Geometry.gathered).
"""
from __future__ import annotations

from typing import Optional, Sequence

from contiglint.layout.model.frozen import evolve, record
from contiglint.layout.model.geometry import Axis, Geometry, extended
from contiglint.layout.model.sizes import ONE, Size, is_one, size_text, symbol
from contiglint.layout.model.values import NONCONTIGUOUS, Kind, Origin, Tensor, classify
from contiglint.layout.model.views import assumed_unplaced, changed_geometry


@record
class Index:
    """One subscript item: kind is slice, int, none, ellipsis, advanced or unknown."""

    kind: str
    lower: Optional[int] = None
    upper: Optional[int] = None
    step: Optional[int] = None
    bounded: bool = False  # the slice has a start or stop (so it may cut the dim)
    length: Size = None  # the resulting size when known
    ndim: Optional[int] = None  # an advanced index's rank, when known


def index(tensor: Tensor, items: Sequence[Index], origin: Origin,
          owner: Optional[str] = None) -> Tensor:
    """`owner`: the indexed tensor's source text, where the code spells it briefly: the dims
    of a caller's tensor of unknown rank are its `owner.size(i)` at the least rank."""
    if any(item.kind == "advanced" for item in items):
        # a new tensor, laid out by TensorIterator in the order of the input's strides: a
        # contiguous input gives a contiguous result, a permuted one keeps (part of) its
        # permutation (measured: x.permute(3, 2, 0, 1)[:, idx] has strides (1, 35, 70, 7))
        if tensor.kind is Kind.CONTIGUOUS:
            sizes = _gathered(tensor.geometry, items)
            # sizes the index made and the model does not know (`x[x > 0]` has as many
            # elements as are true) are lost: no witness may choose them
            return evolve(Tensor.of(Geometry.contiguous(sizes), None), lost=None in sizes) \
                if sizes else Tensor(Kind.CONTIGUOUS, lost=True)
        if tensor.kind is Kind.UNKNOWN and tensor.geometry is None:
            if not any(item.kind == "ellipsis" for item in items):  # dims from the front
                sizes = _gathered(tensor.assumed, items)
                if sizes:  # the geometry assumed for x (contiguous) gathers contiguously;
                    # a length the index made is lost, as above
                    rank = max(tensor.min_rank, len(sizes))
                    return Tensor(Kind.UNKNOWN, min_rank=rank, lost=True) if None in sizes \
                        else Tensor(Kind.UNKNOWN, min_rank=rank,
                                    assumed=Geometry.contiguous(sizes))
        gathered = _gathered_geometry(tensor, items)
        if gathered is not None:
            result = evolve(Tensor.of(gathered, origin), lost=None in gathered.sizes)
            if tensor.maybe and result.noncontiguous:  # a contiguous path gathers so
                other = Geometry.contiguous(gathered.sizes) \
                    if tensor.alternative is not None else None
                result = evolve(result, maybe=True, elsewhere=other)
            return result
        if tensor.kind is Kind.PERMUTED:
            return Tensor(Kind.PERMUTED, None, origin, maybe=True)  # unless the index drops
            # or merges the permuted dims
        # its sizes; its layout follows the input's strides, which this does not model
        # (lost: unlike a tensor that came in, not taken for contiguous)
        sizes = _gathered(tensor.geometry, items)
        return Tensor(Kind.UNKNOWN, Geometry.contiguous(sizes), min_rank=len(sizes),
                      lost=True) if sizes else Tensor(Kind.UNKNOWN, lost=True)
    if any(item.kind == "unknown" for item in items):
        return Tensor(Kind.UNKNOWN) if not tensor.noncontiguous else tensor
    consumed = sum(1 for item in items if item.kind in ("slice", "int"))
    partial = origin if any(_cuts(item) for item in items) else None
    geometry = tensor.geometry
    if geometry is not None and consumed <= geometry.rank:
        changed = changed_geometry(tensor, geometry, lambda g: _apply(g, items, consumed),
                                   _Call(origin), partial)
        if changed is not None:
            return changed
    return _coarse(tensor, items, origin, consumed, partial, owner)


def _gathered_geometry(tensor: Tensor, items: Sequence[Index]) -> Optional[Geometry]:
    """The layout advanced indexing of a tensor whose layout the model holds allocates, for
    the forms `_gathered` reads (Geometry.gathered)."""
    geometry = tensor.geometry
    if not tensor.noncontiguous or geometry is None:
        return None
    where = _gathered_dim(geometry, items)
    return geometry.gathered(where, _advanced(items).length) if where is not None else None


def _gathered(geometry: Optional[Geometry], items: Sequence[Index]) -> Optional[list[Size]]:
    """The shape of advanced indexing where one 1-d index and full slices (`x[:, idx]`,
    `x[..., [0, 2]]`) replace the indexed dim by the index's length; None for other forms."""
    where = _gathered_dim(geometry, items)
    if where is None or geometry is None:
        return None
    sizes = list(geometry.sizes)
    sizes[where] = _advanced(items).length
    return sizes


def _advanced(items: Sequence[Index]) -> Index:
    return next(item for item in items if item.kind == "advanced")


def _gathered_dim(geometry: Optional[Geometry], items: Sequence[Index]) -> Optional[int]:
    """The dim one 1-d index gathers where the other items are full slices and at most one
    `...`; None for other forms."""
    advanced = [i for i, item in enumerate(items) if item.kind == "advanced"]
    plain = all(item.kind == "ellipsis" or (item.kind == "slice" and not _cuts(item))
                for item in items if item.kind != "advanced")
    ellipses = sum(item.kind == "ellipsis" for item in items)
    if geometry is None or len(advanced) != 1 or items[advanced[0]].ndim != 1 or not plain \
            or ellipses > 1 or len(items) - ellipses > geometry.rank:
        return None
    where = advanced[0]
    if ellipses and any(item.kind == "ellipsis" for item in items[:where]):
        where = geometry.rank - (len(items) - where)  # counted from the back
    return where


class _Call:
    def __init__(self, origin: Origin) -> None:
        self.origin = origin


def _one_element(item: Index) -> bool:
    """A slice that keeps at most one element of its dim (`:1`, `2:3`, `-1:`)."""
    if item.kind != "slice" or (item.step or 1) != 1:
        return False
    lower, upper = item.lower or 0, item.upper
    return (upper is not None and 0 <= lower and upper - lower == 1) or \
        (lower == -1 and upper is None)


def _cuts(item: Index) -> bool:
    return item.kind == "int" or (item.kind == "slice" and (item.bounded or (item.step or 1) != 1))


def _apply(geometry: Geometry, items: Sequence[Index], consumed: int) -> Optional[Geometry]:
    axes: list[Axis] = []
    gone: set[int] = set()  # base axes of size-1 dims an int drops: they have no extent
    split: dict[int, tuple[int, int]] = {}  # base axis -> the two it becomes (`_exact`)
    left: list[Axis] = []  # full dims an int or a cut leaves: their base axes' sizes stay
    fresh = geometry.fresh_ids()
    dim = 0
    for item in items:
        if item.kind == "ellipsis":
            skip = geometry.rank - consumed
            axes.extend(geometry.axes[dim:dim + skip])
            dim += skip
        elif item.kind == "none":
            axes.append(Axis(ONE, (), "new"))
        elif item.kind == "int":
            axis = geometry.axes[dim]
            if is_one(axis.size) and axis.span == "full":
                gone.update(axis.base)  # as select drops it (`x[:, :, 0]` of (1, 2, 1))
            else:
                left.append(axis)  # its base axis stays, of the size it had
            dim += 1
        else:
            axis = geometry.axes[dim]
            dim += 1
            step = item.step or 1
            if step > 1:
                size = _stepped_size(axis.size, item)
                if axis.span == "broadcast":
                    axes.append(evolve(axis, size=size))  # a step through stride 0 is 0
                    continue
                if _exact(axis, size, step):
                    # m of n elements, m * step == n: as if the base axis were split into
                    # (m, step) and the inner part dropped; the outer neighbour still merges
                    # (`randn(6, 5, 6)[:, :, ::2].view(90)` views, with stride 2)
                    outer, inner = next(fresh), next(fresh)
                    split[axis.base[0]] = (outer, inner)
                    axes.append(Axis(size, (outer,)))
                    continue
                if size is not None and size == axis.size and is_one(size) and \
                        axis.span == "full":
                    # a step over a dim of one element still multiplies its stride, which
                    # torch's dtype view reads (`x[:, ::2]` of (3, 1) has strides (1, 2)):
                    # its base axis has no extent, the dim a stride the geometry does not keep
                    gone.update(axis.base)
                    axes.append(Axis(size, (), "new"))
                    continue
                axes.append(axis if size is not None and size == axis.size and
                            not is_one(size) else Axis(size, axis.base, "step"))
            elif item.bounded:
                length = _stepped_size(axis.size, item) or item.length  # clamped: x[1:] on 2
                full = length is not None and length == axis.size
                if not full:
                    left.append(axis)
                axes.append(axis if full else evolve(
                    axis, size=length, span="cut" if axis.span == "full" else axis.span))
            else:
                axes.append(axis)
    axes.extend(geometry.axes[dim:])
    memory = [part for b in geometry.memory if b not in gone for part in split.get(b, (b,))]
    return Geometry(tuple(axes), tuple(memory), extended(geometry.extents, left, memory))


def _exact(axis: Axis, size: Size, step: int) -> bool:
    """Does a step keep a dim of known size n as m elements with m * step == n? Then the
    stride of the next dim out is still m times its own, as for a dim of m whole elements."""
    return axis.span == "full" and len(axis.base) == 1 and not axis.walks and \
        size is not None and not size[1] and axis.size is not None and not axis.size[1] and \
        size[0] > 1 and size[0] * step == axis.size[0]


def _stepped_size(size: Size, item: Index) -> Size:
    """`x[a:b:s]` on a dim of size n: ceil((min(b, n) - a) / s) elements (measured: a stepped
    slice that keeps one element, `arange(2)[::2]`, is contiguous). A negative stop counts
    from n. On a symbolic n, the count where it does not depend on how n compares with the
    bounds (no stop, or a negative one), as the expression of n a view target would spell:
    `x[:, 1:]` of N is `N - 1`, `x[::2]` of N is `(N + 1) // 2`."""
    if size is None or (item.bounded and item.lower is None and item.upper is None):
        return None  # `x[k::2]`: bounds the code does not show
    lower, upper, step = item.lower or 0, item.upper, item.step
    if lower < 0 or not step or step < 1:
        return None
    if not size[1]:
        n = size[0]
        stop = n if upper is None else min(upper, n) if upper >= 0 else n + upper
        return (max(0, -(-(stop - min(lower, n)) // step)), ())
    if upper is not None and upper >= 0:
        return None  # min(b, n): which one, the sizes decide
    drop = lower - (upper or 0)
    text = size_text(size)
    if step == 1:
        return size if not drop else symbol(f"{text} - {drop}")
    extra = step - 1 - drop
    offset = f" + {extra}" if extra > 0 else f" - {-extra}" if extra < 0 else ""
    return symbol(f"({text}{offset}) // {step}")


def _coarse(tensor: Tensor, items: Sequence[Index], origin: Origin, consumed: int,
            partial, owner: Optional[str] = None) -> Tensor:
    """Rank unknown: only the position of each cut is known, counted from the front (before an
    ellipsis) or from the back (after it)."""
    if tensor.kind is Kind.BROADCAST and any(item.kind == "int" for item in items):
        return Tensor(Kind.UNKNOWN, None, None, False, partial or tensor.partial)  # the int
        # may have removed the broadcast dim (`cls.expand(b, -1, -1)[0]`) or kept it
    breaks = dropped = False
    seen_ellipsis = False
    for position, item in enumerate(items):
        if item.kind == "ellipsis":
            seen_ellipsis = True
            continue
        # Integers before an item drop their dims, and one-element slices keep them of size
        # 1, so the item cuts the result's outermost dim of more than one element: `x[i, :n]`
        # and `x[:1, :n]` of a contiguous tensor are contiguous at every rank.
        leading = not seen_ellipsis and all(i.kind in ("none", "int") or _one_element(i)
                                            for i in items[:position])
        if item.kind == "int" and not leading:
            breaks = dropped = True
        if item.kind == "slice" and _cuts(item) and (not leading or (item.step or 1) != 1):
            breaks = True
    assumed = _assumed(tensor, items, consumed, owner)
    # the least rank after: ints drop a dim each, None adds one (`x[1:, 0, 1:, -1]` of at
    # least 4 dims has at least 2)
    rank = max(tensor.min_rank, consumed) - sum(item.kind == "int" for item in items) + \
        sum(item.kind == "none" for item in items)
    if not breaks:
        result = evolve(tensor, partial=partial or tensor.partial, assumed=assumed,
                        min_rank=rank)
        if tensor.noncontiguous and tensor.assumed is not None and assumed is not None:
            kind = classify(assumed)
            if kind not in NONCONTIGUOUS:
                # the leading dims it drops or cuts may be the ones that made it
                # non-contiguous (`x.movedim(1, 0)[-1, -1]`): at the least rank they are
                return evolve(result, kind=Kind.UNKNOWN, origin=None)
            return evolve(result, kind=kind)  # a cut of a leading dim that is not outermost
            # in memory leaves holes (`x.movedim(-1, 0)[1:]`)
        return result
    if tensor.noncontiguous:
        kind = tensor.kind
        if tensor.assumed is not None and assumed is not None:
            kind = classify(assumed)  # a step or cut of a permuted tensor leaves holes
            kind = kind if kind in NONCONTIGUOUS else Kind.UNKNOWN
        elif dropped:  # where its dims are not known, an int may drop the one that broke it
            # (`x.mT[..., 0]` is contiguous) or leave holes (`x.moveaxis(-4, -3)[:, 0, 0, -1]`)
            return Tensor(Kind.UNKNOWN, None, None, False, partial or tensor.partial, rank,
                          lost=True)
        return evolve(tensor, kind=kind, geometry=None, partial=partial or tensor.partial,
                      assumed=assumed, origin=tensor.origin if kind in NONCONTIGUOUS else None,
                      min_rank=rank)
    if tensor.kind is Kind.UNKNOWN and tensor.lost:
        # a layout an op lost: an int may drop the dim that broke it, or keep an overlap, and
        # a step or a cut may span a dim an op made of size 1 (`v[..., ::2]` of a join of
        # `x.narrow(-1, 0, 1)` and its contiguous copy is contiguous on the copy's path)
        return Tensor(Kind.UNKNOWN, None, None, False, partial or tensor.partial, rank,
                      lost=True)
    # contiguous at the least rank (`x[..., :1, :1]` of x of 2 dims is one element): a cut
    # that leaves holes only at higher ranks; or what was assumed at a lower rank (a size-1
    # dim) has no place at this one, and may make the cut whole
    at_least = assumed is not None and classify(assumed) is Kind.CONTIGUOUS or \
        assumed_unplaced(tensor, consumed)
    return Tensor(Kind.STRIDED, None, origin, at_least, partial, rank, assumed)


def _assumed(tensor: Tensor, items: Sequence[Index], consumed: int,
             owner: Optional[str] = None) -> Optional[Geometry]:
    """The indexing applied to the geometry assumed at the smallest plausible rank, so that
    `pred.t()[:1]` is known to have a size-1 dim and `codes[..., ::2]` a stepped last dim.
    A caller's tensor of which nothing is known has free sizes there, the ones code reads as
    `owner.size(i)` (`x[:, :-1, :]` is `(x.size(0), x.size(1) - 1, x.size(2))` at rank 3)."""
    base = tensor.assumed
    if assumed_unplaced(tensor, consumed):
        return None  # `x.split(1, 0)[0][:, ::2]` of 4 dims has a dim 0 of size 1
    if base is None or base.rank < consumed:
        if tensor.made_by_op and base is None:
            return None
        free = base is None and owner is not None and tensor.kind is Kind.UNKNOWN and \
            tensor.partial is None and tensor.min_rank <= consumed
        base = Geometry.contiguous([None] * max(consumed, 1))
        if free:
            base = Geometry.contiguous([None] * consumed).named_after(owner)
    return _apply(base, items, consumed)
