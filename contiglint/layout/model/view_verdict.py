"""Would `tensor.view(shape)` raise? The verdict CTG101 reports, from the geometry the
view transfers (views.py) computed: a view never needs a contiguous input, it fails only when it
merges dims that are not adjacent in memory."""
from __future__ import annotations

from itertools import pairwise
from typing import Optional

from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.sizes import (ONE, WILDCARD, align, is_one, own_size_names,
                                           product, quotient)
from contiglint.layout.model.values import Kind, Tensor
from contiglint.layout.model.witness import own_sizes


def view_verdict(tensor: Tensor, target: Optional[list], owner: Optional[str] = None) -> str:
    """Would `tensor.view(*target)` raise? "raises", "ok" or "unknown".

    A view never needs a contiguous input: it fails only when it merges dims that are not
    adjacent in memory. `target` holds sizes and "-1"; None when the shape is not known.
    `owner` is the source text of the viewed tensor (its `owner.size(i)` symbols name its dims).
    """
    if not tensor.noncontiguous:
        # contiguous at the least rank the tensor can have only (`maybe`: `x.sum(1,
        # keepdim=True).mT`, whose moved dims are dim 1 of size 1 and dim 0 at rank 2 only):
        # at other ranks the view may merge dims that are apart
        return "unknown" if tensor.maybe and tensor.kind is Kind.CONTIGUOUS and \
            tensor.geometry is None else "ok"
    geometry = tensor.geometry
    if geometry is None or target is None:
        return _coarse_verdict(tensor, target, owner)
    verdict = _geometry_verdict(tensor, geometry, target)
    if verdict == "ok" and tensor.maybe and tensor.kind is Kind.BROADCAST and \
            tensor.alternative is None:
        # the geometry is one guess of which dims grew (an expand of dims whose sizes the code
        # does not tie to the sizes given): every dim broadcast merges, and where only some
        # grew the same view may raise
        return "unknown"
    return verdict


def _geometry_verdict(tensor: Tensor, geometry: Geometry, target: list) -> str:
    target = resolve_wildcard(tensor, target)  # literal sizes: `-1` is known, so are groups
    groups = align(list(geometry.sizes), [WILDCARD if s == "-1" else s for s in target])
    if groups is None:
        return verdict_without_grouping(geometry, target)
    if geometry.regrouped(groups, [None if s == "-1" else s for s in target]):
        return "ok"
    joins = [geometry.joinable(a, b) for source, _ in groups
             for a, b in pairwise(a for a in (geometry.axes[i] for i in source)
                                  if not is_one(a.size))]
    return "raises" if False in joins else "merge"  # None: sizes decide (a diagonal's stride)


def verdict_without_grouping(geometry: Geometry, target: list) -> str:
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
    if not tensor.lost and assumed.rank == tensor.min_rank and None not in assumed.sizes and \
            _geometry_verdict(tensor, assumed, own_sizes(assumed, target, owner)) == "raises":
        return "raises"  # at the least rank, where every size is one a caller chooses
    live = [a for a in assumed.axes if not is_one(a.size)]
    joins = [assumed.joinable(a, b) for a, b in zip(live, live[1:])]
    if len(target) <= assumed.rank and joins and all(j is False for j in joins):
        ones = sum(1 for size in target if _one(size, assumed, owner))
        if len(target) - ones < len(live) + max(tensor.min_rank - assumed.rank, 0):
            return "raises"  # more dims of more than one element than the target has
        return "unknown" if _own_shape(assumed, target, owner) else "likely"
    return "unknown"


def _one(size, geometry: Geometry, owner: Optional[str]) -> bool:
    """Is a target entry 1: literally, or the owner's own `owner.size(i)` of a dim of 1?"""
    if size == ONE:
        return True
    if owner is None or size is None or size == WILDCARD or size[0] != 1 or len(size[1]) != 1:
        return False
    return any(is_one(axis.size) and size[1][0] in own_size_names(owner, index, geometry.rank)
               for index, axis in enumerate(geometry.axes))


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
        names = set(own_size_names(owner, index, rank)) if owner else set()
        if size is None or size[0] != 1 or len(size[1]) != 1 or size[1][0] not in names:
            return False
    return True


def resolve_wildcard(tensor: Tensor, target: list) -> list:
    """`-1` in a view target is numel / (the other sizes) wherever that quotient is exact for
    every value of the names: `(1,).view(-1, 1)` is (1, 1), and `(B, N).view(-1)` is (B*N,)."""
    sizes = tensor.geometry.sizes if tensor.geometry is not None else None
    if target.count("-1") != 1 or sizes is None or any(s is None for s in sizes) or any(
            s != "-1" and s is None for s in target):
        return target
    whole = quotient(product(sizes), product([s for s in target if s != "-1"]))
    return [whole if s == "-1" and whole is not None else s for s in target]
