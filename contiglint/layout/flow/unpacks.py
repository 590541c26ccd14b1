"""Unpacking a shape in the flow pass: `B, N, C = x.shape`, `b, n = x.size()[:2]` and
`*batch, h, w = x.shape` name the dims they read, so that a later `x.view(B, N * C)` or
`x.view(*batch, h * w)` is matched dim by dim (a `Lead` stands for the leading dims a star
takes where x's rank is not shown)."""
from __future__ import annotations

import ast
from typing import Optional

from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.sizes import made_symbol, size_name, symbol
from contiglint.layout.model.values import OPAQUE, UNKNOWN_TENSOR, IntVal, Lead, Tensor


class UnpackMixin:
    """The shape unpacking of `Frame` (frame.py), called by its assignment."""

    def name_unpacked_sizes(self, targets: ast.Tuple, value: ast.expr) -> Optional[dict]:
        """`B, C = y.shape[:2]` / `b, n, c = x.size()`: write the names into `y`'s unknown sizes,
        so a later `y.view(B, C, -1)` is matched dim by dim. Returns what the targets are bound
        to after the assignment where it decides that (`lead_unpacked`)."""
        start = 0
        whole = not isinstance(value, ast.Subscript)  # all of the sizes: the rank is stated
        if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice) \
                and value.slice.step is None:
            lower = value.slice.lower
            if lower is not None and not (isinstance(lower, ast.Constant)
                                          and isinstance(lower.value, int) and lower.value >= 0):
                return
            start = lower.value if lower is not None else 0
            value = value.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                and value.func.attr == "size" and not value.args:
            value = value.func
        if not (isinstance(value, ast.Attribute) and value.attr in ("shape", "size")):
            return
        owner = value.value
        key = self.name_key(owner)
        tensor = self.env.get(key) if key and self.env is not None else None
        if tensor is OPAQUE and whole:
            tensor = UNKNOWN_TENSOR  # what has a shape to unpack is taken for a tensor
        if not isinstance(tensor, Tensor):
            return None
        if tensor.geometry is None and whole and isinstance(targets.elts[0], ast.Starred):
            return self.lead_unpacked(targets.elts, key, tensor)
        if tensor.geometry is None and whole and not tensor.noncontiguous and \
                not any(isinstance(t, ast.Starred) for t in targets.elts):
            # `B, N, C = x.shape` states x's rank: its layout stays what it was
            tensor = evolve(tensor, geometry=Geometry.contiguous([None] * len(targets.elts)),
                            min_rank=len(targets.elts), assumed=None)
        if tensor.geometry is None:
            return
        if whole and any(isinstance(t, ast.Starred) for t in targets.elts):
            self.name_starred_sizes(targets.elts, key, tensor, owner)
            return None
        geometry = tensor.geometry
        for offset, target in enumerate(targets.elts):
            index = start + offset
            if isinstance(target, ast.Starred) or index >= geometry.rank:
                return
            if isinstance(target, ast.Name) and geometry.axes[index].size is None:
                geometry = geometry.with_axis(index, size=symbol(target.id))
        self.env[key] = evolve(tensor, geometry=geometry)
        return None

    def name_starred_sizes(self, targets: list[ast.expr], key: str, tensor: Tensor,
                           owner: ast.expr) -> None:
        """`*batch, h, w = x.shape` of x of known rank: the names before the star name x's first
        dims, those after it its last, and the dims the star takes are named as code reads them
        (`x.size(1)`), so that `x.view(*batch, h * w)` gives every size."""
        stars = [i for i, t in enumerate(targets) if isinstance(t, ast.Starred)]
        geometry = tensor.geometry
        star, after = stars[0], len(targets) - stars[0] - 1
        if len(stars) != 1 or star + after > geometry.rank:
            return  # torch raises: too few dims to unpack
        text = self.program.short_text(owner)
        name = made_symbol if tensor.made_sizes else symbol
        for index in range(geometry.rank):
            if geometry.axes[index].size is not None:
                continue
            target = targets[index] if index < star else \
                targets[index - geometry.rank + len(targets)] \
                if index >= geometry.rank - after else None
            if isinstance(target, ast.Name):
                geometry = geometry.with_axis(index, size=symbol(target.id))
            elif target is None and text is not None:
                geometry = geometry.with_axis(index, size=name(size_name(text, index)))
        self.env[key] = evolve(tensor, geometry=geometry)

    def lead_unpacked(self, targets: list[ast.expr], key: str, tensor: Tensor) -> Optional[dict]:
        """`*batch, h, w = x.shape` of a caller's tensor whose rank the code does not show: x has
        at least as many dims as the names after the star, which name its last dims at that
        least rank (where `batch` is empty), and `batch` is a `Lead` that leads x, so that
        `x.mT.view(*batch, h * w)` is decided by the last dims. None where the names are not
        free: x's sizes are an op's, a geometry assumed for it names some, or it has more dims
        than the names."""
        star, rest = targets[0].value, targets[1:]
        assumed = tensor.assumed
        if not rest or not isinstance(star, ast.Name) or \
                not all(isinstance(t, ast.Name) for t in rest) or tensor.noncontiguous or \
                tensor.made_sizes or tensor.partial is not None or \
                tensor.min_rank > len(rest) or assumed is not None and \
                not assumed.unsized:
            return None
        sizes = [symbol(t.id) for t in rest]
        lead = Lead(each=IntVal(None))
        self.env[key] = evolve(tensor, assumed=Geometry.contiguous(sizes), min_rank=len(rest),
                               lead=lead)
        return {star.id: lead, **{t.id: IntVal(size) for t, size in zip(rest, sizes)}}
