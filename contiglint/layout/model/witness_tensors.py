"""A concrete tensor of an abstract geometry: the sizes and strides a witness shows.

A geometry stands for many concrete tensors (witness.py says which one a witness takes): a cut
dim one element shorter than its base axis, a step of 2, a dropped dim of 2 elements, unless
the sizes name more (a stepped size `(C + 1) // 2`, the size `Geometry.extents` keeps of a
base axis a cut or an index left). `materialize` gives the strides; `tensor_at` the sizes,
strides and storage-offset strides at an assignment of the names.
"""
from __future__ import annotations

import ast
from typing import Optional, Sequence

from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.witness_sizes import expression, size_value, value_of


def materialize(geometry: Geometry, sizes: Sequence[int],
                walks: Sequence[Sequence[int]] = (),
                steps: Sequence[Optional[tuple[int, int]]] = ()) -> Optional[tuple[int, ...]]:
    """Strides of one tensor of `geometry` with these logical sizes, or None when the geometry
    cannot be built at them (a base axis two dims claim, sizes that contradict each other).
    `walks`: per axis, the sizes of the dims a diagonal walks (`Axis.walks`, evaluated).
    `steps`: per stepped axis, the extent of the dim it steps through and the step, where its
    size names them (`(C + 1) // 2`: C and 2); else a step of 2 through 2n - 1 elements."""
    built = _built(geometry, sizes, walks, steps)
    return None if built is None else built[0]


def _built(geometry: Geometry, sizes: Sequence[int], walks: Sequence[Sequence[int]],
           steps: Sequence[Optional[tuple[int, int]]], extents: Optional[dict] = None) \
        -> Optional[tuple[tuple[int, ...], tuple[int, ...]]]:
    """`materialize`'s strides, and the memory strides of the base axes where the view may
    start past the first element: those a cut or a step spans, and those indexing dropped.
    The storage offset is a sum of multiples of them. `extents`: the sizes of base axes a cut
    or an index left (`Geometry.extents`) that the assignment gives."""
    extents = extents or {}
    base: dict[int, int] = {}
    walked = dict(enumerate(walks))
    stepped = {i: step for i, step in enumerate(steps) if step is not None}
    for index, (axis, n) in enumerate(zip(geometry.axes, sizes)):
        if not axis.base:
            continue
        inner, outer = axis.base[-1], axis.base[:-1]
        if any(b in base for b in axis.base):
            return None
        if walked.get(index):  # a diagonal: both dims it walks keep their extents
            if n > min(walked[index]):
                return None
            base.update(zip(axis.base, walked[index]))
            continue
        for b in outer:  # a merged dim: its extent sits in its innermost base axis
            base[b] = 1
        cut = extents.get(inner) if axis.span == "cut" else None
        if cut is not None and cut < n and index not in stepped:
            return None  # a cut longer than the axis it cuts: torch clamps it, no such tensor
        base[inner] = stepped[index][0] if index in stepped else \
            cut if cut is not None else \
            {"full": n, "cut": n + 1, "step": 2 * n - 1}.get(axis.span, n)
    memory_strides: dict[int, int] = {}
    stride = 1
    for b in reversed(geometry.memory):
        memory_strides[b] = stride
        stride *= base.get(b, extents.get(b) or 2)  # a base axis no dim spans: dropped
    strides: list[int] = [0] * len(sizes)
    following = 1
    for index in range(len(sizes) - 1, -1, -1):
        axis = geometry.axes[index]
        if axis.span == "broadcast":
            strides[index] = 0
        elif not axis.base:
            strides[index] = following  # a new size-1 dim, as unsqueeze makes it
        else:
            if axis.base[-1] not in memory_strides:
                return None
            if walked.get(index):
                strides[index] = sum(memory_strides[b] for b in axis.base)
            else:
                step = stepped[index][1] if index in stepped else 2
                strides[index] = memory_strides[axis.base[-1]] * (step if axis.span == "step"
                                                                  else 1)
        following = max(strides[index], 1) * max(sizes[index], 1)
    spanned = {b for axis in geometry.axes for b in axis.base}
    starts = {b for axis in geometry.axes if axis.span in ("cut", "step") and not axis.walks
              for b in axis.base} | (set(memory_strides) - spanned)
    # a diagonal may be cut too (`x.diagonal(0, 0, 2)[:, 1:]` starts one diagonal step in),
    # which its geometry does not hold: its stride may be a step of the offset
    diagonals = [strides[i] for i, axis in enumerate(geometry.axes) if axis.walks]
    return tuple(strides), tuple(memory_strides[b] for b in sorted(starts)) + tuple(diagonals)


def tensor_at(geometry: Geometry, names: list[str], env: dict):
    """(sizes, strides, starts) of the tensor of `geometry` the assignment builds: `starts`
    are the memory strides its storage offset is a sum of multiples of (`_built`)."""
    sizes = [size_value(s, env, name) for s, name in zip(geometry.sizes, names)]
    if any(n is None or n < 1 for n in sizes):
        return None
    walks = [[size_value(w, env, "") for w in axis.walks] for axis in geometry.axes] \
        if any(axis.walks for axis in geometry.axes) else ()
    if any(n is None or n < 1 for walk in walks for n in walk):
        return None  # a diagonal of dims whose sizes the names do not give
    steps = [_step(axis, n, env) for axis, n in zip(geometry.axes, sizes)]
    if any(step == () for step in steps):
        return None  # a stepped dim longer than the dim it steps through allows
    extents = {b: size_value(e, env, "") for b, e in geometry.extents}
    built = _built(geometry, sizes, walks, steps,
                   {b: n for b, n in extents.items() if n is not None and n >= 1})
    return None if built is None else (tuple(sizes), *built)


def _step(axis, n: int, env: dict):
    """The extent a stepped axis walks through and its step, where its size names them as
    indexing spells it (`(C + 1) // 2` of `x[..., ::2]` steps by 2 through C); () where
    those values do not give n elements, or where the extent is a cut's, which does not
    tell how long the dim is in memory; None where the size does not name them."""
    if axis.span != "step" or axis.size is None or axis.size[0] != 1 or len(axis.size[1]) != 1:
        return None
    node = expression(axis.size[1][0])
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv)
            and isinstance(node.right, ast.Constant) and isinstance(node.right.value, int)
            and node.right.value >= 2):
        return None
    step, body = node.right.value, node.left
    if isinstance(body, ast.BinOp) and isinstance(body.op, (ast.Add, ast.Sub)) and \
            isinstance(body.right, ast.Constant):
        body = body.left
    if isinstance(body, ast.BinOp) and isinstance(body.op, ast.Sub):
        return ()  # a step through a cut (`x[:, 1:][:, ::2]` walks N - 1 of N): the dim
        # in memory is longer than the cut by what the geometry no longer says
    extent = value_of(ast.unparse(body), env)
    if extent is None:
        return None
    return (extent, step) if (n - 1) * step < extent else ()
