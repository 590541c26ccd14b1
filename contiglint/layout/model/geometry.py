"""Where each logical dim of a tensor lives in memory, abstractly.

A `Geometry` describes a strided tensor over a contiguous *base*: `memory` lists the base's axes
from outermost to innermost, and every logical axis says which base axes it spans and how:
fully, cut short (`narrow`, `x[:, 1:]`), stepped (`x[::2]`), broadcast (`expand`, stride 0) or
newly inserted with size 1. That is exactly what decides the two questions rules ask:

* is the tensor contiguous? (every axis follows the previous one in memory, nothing cut inside)
* can `.view()` merge axes i..j? (torch needs stride[i] == size[i+1] * stride[i+1] for each pair)

Size-1 axes are ignored in both, as torch ignores them.
"""
from __future__ import annotations

from itertools import count, pairwise
from typing import Literal, Optional, Sequence

from contiglint.layout.model.frozen import evolve, record
from contiglint.layout.model.sizes import ONE, Size, is_one, product, size_name, symbol

Span = Literal["full", "cut", "step", "broadcast", "new"]


@record
class Axis:
    size: Size
    base: tuple[int, ...]  # base axes spanned, outer to inner; () for broadcast or new axes
    span: Span = "full"
    # a diagonal's: the sizes of the two dims it walks, one per base axis (outer to inner);
    # its stride is the sum of theirs, so whether it merges with a neighbour depends on sizes
    walks: tuple[Size, ...] = ()


def extended(extents: tuple[tuple[int, Size], ...], axes: Sequence[Axis] = (),
             memory: Optional[Sequence[int]] = None) -> tuple[tuple[int, Size], ...]:
    """`extents` (`Geometry.extents`), with the size of each base axis one of `axes` spans
    whole, as a cut or an index is about to leave it (a full dim of one base axis whose size
    is known); with `memory`, only the base axes still in it (a regrouped or indexed
    geometry's)."""
    for axis in axes:
        if axis.span == "full" and len(axis.base) == 1 and axis.size is not None and \
                all(b != axis.base[0] for b, _ in extents):
            extents += ((axis.base[0], axis.size),)
    if memory is not None:
        extents = tuple(e for e in extents if e[0] in memory)
    return extents


@record
class Geometry:
    axes: tuple[Axis, ...]
    memory: tuple[int, ...]  # base axis ids, outermost first
    # (base axis id, its size) of base axes that a cut or an index left without a dim that
    # spans them whole, where the model knows that size: a base axis of size 1 has no extent
    # in memory, so `x.narrow(1, 0, 1).mT` of (B, N, C) is contiguous where N is 1
    extents: tuple[tuple[int, Size], ...] = ()

    @staticmethod
    def contiguous(sizes: Sequence[Size]) -> "Geometry":
        return Geometry(tuple(Axis(s, (i,)) for i, s in enumerate(sizes)), tuple(range(len(sizes))))

    @property
    def rank(self) -> int:
        return len(self.axes)

    @property
    def sizes(self) -> tuple[Size, ...]:
        return tuple(a.size for a in self.axes)

    @property
    def unsized(self) -> bool:
        """Row-major with no size known: what is assumed of a tensor whose every size a
        caller chooses freely."""
        return self == Geometry.contiguous([None] * self.rank)

    def fresh_ids(self):
        """Ids for new base axes: none of them is one of this geometry's."""
        return count(max(self.memory, default=-1) + 1)

    def without_extent(self) -> set[int]:
        """The base axes that have no extent in memory: those of size 1 (the base axis of a
        full size-1 dim, or one whose size `extents` says is 1). Strides skip them."""
        unit = {b for a in self.axes if is_one(a.size) and a.span == "full" for b in a.base}
        if self.extents:
            spanned = {b for a in self.axes if not is_one(a.size) for b in a.base}
            unit.update(b for b, size in self.extents if is_one(size) and b not in spanned)
        return unit

    # --- the two questions ------------------------------------------------------------------
    def joinable(self, outer: Axis, inner: Axis) -> Optional[bool]:
        """Can `.view` merge these neighbouring axes? None when it depends on runtime sizes."""
        if is_one(outer.size) or is_one(inner.size):
            return True
        if outer.span == "broadcast" or inner.span == "broadcast":
            return outer.span == inner.span
        if outer.walks or inner.walks:
            return None  # (N, C, D).diagonal(0, 1, 2): N's stride C*D is min(C, D)*(D+1) at 5, 4
        if not outer.base or not inner.base or inner.span != "full":
            return False
        if outer.span == "step":
            return False
        unit = self.without_extent()
        position = self.memory.index(outer.base[-1]) + 1
        while position < len(self.memory) and self.memory[position] in unit:
            position += 1  # a size-1 base axis in between has no extent: (4, 1, 2) is contiguous
        return position < len(self.memory) and self.memory[position] == inner.base[0]

    def is_contiguous(self) -> bool:
        live = [a for a in self.axes if not is_one(a.size)]
        if not live:
            return True
        if any(self.joinable(a, b) is not True for a, b in pairwise(live)):
            return False
        last = live[-1]
        unit = self.without_extent()
        inner = [b for b in self.memory if b not in unit]  # (n, 1, 1) is contiguous
        return last.span in ("full", "cut") and bool(last.base) and bool(inner) and \
            last.base[-1] == inner[-1]

    def is_overlapping(self) -> bool:
        return any(a.span == "broadcast" and not is_one(a.size) for a in self.axes)

    def is_dense(self) -> bool:
        """Non-overlapping and dense: only a permutation (and a cut outermost base axis) away
        from contiguous. Such layouts survive clone, .to() and elementwise ops."""
        unit = self.without_extent()
        memory = [b for b in self.memory if b not in unit]  # size-1 base axes: no extent
        live = [a for a in self.axes if not is_one(a.size)]
        covered = sorted((b for a in live for b in a.base), key=memory.index)
        if covered != memory[len(memory) - len(covered):]:
            return False  # a hole inside the live dims (outside them, x[0] stays dense)
        for axis in live:
            if axis.span in ("step", "broadcast"):
                return False
            if axis.span == "cut" and axis.base[0] != covered[0]:
                return False  # only the outermost live axis may be cut
        return True

    def is_channels_last(self) -> bool:
        if self.rank != 4 or any(not a.base for a in self.axes):
            return False
        order = sorted(range(4), key=lambda i: self.memory.index(self.axes[i].base[0]))
        return order == [0, 2, 3, 1] and not self.is_contiguous()

    def memory_order(self) -> list[int]:
        """Logical axes sorted outermost-first by where they live in memory."""
        def key(i: int) -> int:
            base = self.axes[i].base
            return self.memory.index(base[0]) if base else -1
        return sorted(range(self.rank), key=key)

    # --- transfers ----------------------------------------------------------------------------
    def permuted(self, order: Sequence[int]) -> "Geometry":
        return evolve(self, axes=tuple(self.axes[i] for i in order))

    def dropped(self, dim: int) -> "Geometry":
        return evolve(self, axes=self.axes[:dim] + self.axes[dim + 1:],
                      extents=extended(self.extents, [self.axes[dim]]))

    def inserted(self, dim: int) -> "Geometry":
        return evolve(self, axes=self.axes[:dim] + (Axis(ONE, (), "new"),) + self.axes[dim:])

    def with_axis(self, dim: int, **changes) -> "Geometry":
        axes = list(self.axes)
        axes[dim] = evolve(axes[dim], **changes)
        return evolve(self, axes=tuple(axes))

    def named_after(self, owner: Optional[str]) -> "Geometry":
        """Each unknown size named `owner.size(i)`: the size code that reads it names
        (`x.permute(1, 0).view(-1, x.size(0))` views the permuted dims' own sizes). For the
        dims of a caller's tensor, whose sizes are free, where an op fixes their rank."""
        if owner is None:
            return self
        geometry = self
        for index, axis in enumerate(self.axes):
            if axis.size is None:
                geometry = geometry.with_axis(index, size=symbol(size_name(owner, index)))
        return geometry

    def cut(self, dim: int, size: Size) -> "Geometry":
        """`narrow` of `dim` to `size` elements: a full dim becomes a cut one, and its base
        axis keeps its size in `extents`."""
        old = self.axes[dim]
        return evolve(self, axes=self.axes[:dim] + (
            evolve(old, size=size, span="cut" if old.span == "full" else old.span),) +
            self.axes[dim + 1:], extents=extended(self.extents, [old]))

    def densified(self) -> "Geometry":
        """What clone()/to()/elementwise ops allocate for this input (preserve_format):
        dense inputs keep their strides, other ones become dense with the same order of dims
        in memory; broadcast dims take no part in ordering (`_broadcast_dense_order`)."""
        if self.is_dense():
            return self
        order = self._broadcast_dense_order() if self.is_overlapping() else \
            self.memory_order()
        return self._dense(order)

    def gathered(self, dim: int, length: Size) -> Optional["Geometry"]:
        """What advanced indexing of `dim` by one 1-d index of `length` elements allocates
        (`x[:, idx]`, `x[..., [1, 0]]`). ATen restrides the input to stride 0 along the
        gathered dim and lets TensorIterator order the output's dims by the input's strides:
        the gathered dim takes no part in that ordering, as a broadcast dim does (measured:
        `x.t()[:, [1, 0]]` of a 2-d x is contiguous, `x.transpose(0, 2)[..., [0, 1]]` of a 3-d
        x has strides (2, 10, 1)). None where a size-1 dim (the index's own strides then
        order it) or two dims at one place in memory make the order turn on strides the
        model does not hold."""
        others = [a for i, a in enumerate(self.axes) if i != dim]
        if any(is_one(a.size) or (not a.base and a.span != "broadcast") for a in others):
            return None
        places = [a.base[0] for a in others if a.span != "broadcast"]
        if len(set(places)) != len(places):
            return None
        restrided = self.with_axis(dim, size=length, base=(), span="broadcast")
        return restrided._dense(restrided._broadcast_dense_order())

    def _dense(self, order: Sequence[int]) -> "Geometry":
        """A fresh dense tensor of these sizes whose dims lie in memory in `order`."""
        memory = tuple(range(self.rank))
        axes = [Axis(ONE, (), "new")] * self.rank
        for position, dim in enumerate(order):
            axes[dim] = Axis(self.axes[dim].size, (memory[position],))
        return Geometry(tuple(axes), memory)

    def _broadcast_dense_order(self) -> list[int]:
        """The memory order (outermost first) ATen's `infer_dense_strides` gives a tensor
        with broadcast (stride-0) dims: an insertion sort of the dims, innermost first, by
        stride, where a comparison with a broadcast (or inserted size-1) dim decides nothing,
        so such a dim stays where the logical order put it (measured: `empty_like` of
        `randn(3, 2).t().unsqueeze(0).expand(5, 2, 3)`, strides (0, 1, 2), has (6, 1, 2))."""
        def position(dim: int) -> Optional[int]:
            # where the axis lives, as `memory_order` says: its outermost base (a diagonal's
            # stride, the sum of its bases', is larger than any base inside the outer one)
            axis = self.axes[dim]
            return self.memory.index(axis.base[0]) if axis.base and \
                axis.span != "broadcast" else None

        def should_swap(dim0: int, dim1: int) -> int:
            a, b = position(dim0), position(dim1)
            if a is None or b is None or a == b:
                return 0
            return -1 if a > b else 1  # inner in memory: the smaller stride

        perm = list(range(self.rank))[::-1]  # innermost first
        for i in range(1, self.rank):
            current = i
            for j in range(1, i + 1):
                previous = i - j
                comparison = should_swap(perm[previous], perm[current])
                if comparison > 0:
                    perm[previous], perm[current] = perm[current], perm[previous]
                    current = previous
                elif comparison < 0:
                    break
        return perm[::-1]

    def regrouped(self, groups, target_sizes: Sequence[Size]) -> Optional["Geometry"]:
        """The geometry after `.view(target)` given how source dims group onto target dims,
        or None when some merged group is not joinable (the view raises)."""
        fresh = self.fresh_ids()
        memory = list(self.memory)
        axes: list[Axis] = []
        for source, target in groups:
            parts = [self.axes[i] for i in source]
            live = [a for a in parts if not is_one(a.size)]
            if any(self.joinable(a, b) is not True for a, b in pairwise(live)):
                return None
            sizes = [target_sizes[j] for j in target]
            if live:  # size-1 parts merged into live dims: their base axes have no extent
                gone = {b for a in parts if is_one(a.size) and a.span == "full" for b in a.base}
                memory = [b for b in memory if b not in gone]
            if not live:
                if len(parts) == len(sizes):
                    axes.extend(parts)  # size-1 dims kept as they are
                    continue
                gone = {b for a in parts if a.span == "full" for b in a.base}
                memory = [b for b in memory if b not in gone]  # size-1 base axes: no extent
                # dims of one element at most viewed as these: each has size 1 where the view
                # succeeds (torch raises on any other count), whatever name the code gives it
                axes.extend(Axis(ONE, (), "new") for _ in sizes)
                continue
            if len(sizes) == 1:
                merged = live[0] if len(live) == 1 else Axis(
                    product([a.size for a in live]),
                    tuple(b for a in live for b in a.base),
                    live[0].span if live[0].span in ("cut", "broadcast") else "full",
                )
                axes.append(evolve(merged, size=sizes[0]))
                continue
            # a split (or a merge then split): the group's base axes are refined into one new
            # base axis per target dim, consecutive in memory
            span = live[0].span
            if span == "broadcast":
                axes.extend(Axis(size, (), "broadcast") for size in sizes)
                continue
            bases = [b for a in live for b in a.base]
            ids = [next(fresh) for _ in sizes]
            if not bases:
                # dims with no extent in memory (a flattened 0-dim tensor, sliced): at most one
                # element, so the new dims are dense, placed after the dims before them
                before = [b for a in axes for b in a.base if b in memory]
                where = max((memory.index(b) + 1 for b in before), default=0)
                memory[where:where] = ids
                axes.extend(Axis(size, (base_id,)) for size, base_id in zip(sizes, ids))
                continue
            where = memory.index(bases[0])
            # the group's base axes (not always neighbours: a diagonal spans two) give way
            memory = [b for b in memory if b not in bases]
            memory[where:where] = ids
            for index, (size, base_id) in enumerate(zip(sizes, ids)):
                part_span: Span = span if index == 0 and span in ("cut", "step") else "full"
                if span == "step":
                    part_span = "step"
                axes.append(Axis(size, (base_id,), part_span))
        return Geometry(tuple(axes), tuple(memory), extended(self.extents, memory=memory))
