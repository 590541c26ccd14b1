"""Literal sizes and strides (`as_strided`): the kind of layout they make, measured on the
offsets themselves, and the geometry that says the same when this model of memory can."""
from __future__ import annotations

import math
from itertools import pairwise
from typing import Optional

from contiglint.layout.model.geometry import Axis, Geometry
from contiglint.layout.model.sizes import ONE, literal
from contiglint.layout.model.values import Kind, classify


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
    facts = stride_facts(sizes, strides)
    if facts is None or classify(geometry) is not facts[0]:
        return None
    real_joins = [strides[a] == strides[b] * sizes[b] for a, b in pairwise(live)]
    model_joins = [geometry.joinable(geometry.axes[a], geometry.axes[b])
                   for a, b in pairwise(live)]
    return geometry if real_joins == model_joins else None


def stride_facts(sizes: list[int], strides: list[int]) -> Optional[tuple[Kind]]:
    """The kind torch's strides make: contiguous, permuted (dense), strided, broadcast."""
    live = [(n, st) for n, st in zip(sizes, strides) if n != 1]
    expected = 1
    contiguous = True
    for n, st in reversed(live):
        contiguous &= st == expected
        expected *= n
    if contiguous or 0 in sizes:
        return (Kind.CONTIGUOUS,)
    numel = math.prod(sizes)
    if numel > 1 << 16:
        return None
    offsets = [0]
    for n, st in zip(sizes, strides):
        offsets = [o + k * st for o in offsets for k in range(n)]
    if len(set(offsets)) < numel:
        return (Kind.BROADCAST,)
    dense = max(offsets) - min(offsets) + 1 == numel
    return (Kind.PERMUTED if dense else Kind.STRIDED,)
