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
        last = _last_sizes(value)
        if last is not None and last == len(targets.elts) and \
                all(isinstance(t, ast.Name) for t in targets.elts):
            return self.last_unpacked(targets.elts, _shape_owner(value.value))
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
        text = self.size_owner(owner)
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
        if not isinstance(star, ast.Name):
            return None
        bound = self._named_last(rest, key, tensor)
        return None if bound is None else {star.id: self.env[key].lead, **bound}

    def last_unpacked(self, targets: list[ast.expr], owner: ast.expr) -> Optional[dict]:
        """`h, w = x.shape[-2:]` of a tensor whose rank the code does not show: the names
        name its last dims, as `*batch, h, w = x.shape` does (`lead_unpacked`), and the dims
        before them are the `Lead` that `x.shape[:-2]` gives (`leading_sizes`), whichever of
        the two the code reads first."""
        key, tensor = self._unranked(owner)
        return None if tensor is None else self._named_last(targets, key, tensor)

    def _unranked(self, owner: ast.expr) -> tuple[Optional[str], Optional[Tensor]]:
        """The name `owner` is bound to and its tensor, where that tensor's rank is not known
        (what has a shape to slice is taken for a tensor); no tensor elsewhere."""
        key = self.name_key(owner)
        tensor = self.env.get(key) if key and self.env is not None else None
        if tensor is OPAQUE:
            tensor = UNKNOWN_TENSOR
        if not isinstance(tensor, Tensor) or tensor.geometry is not None:
            return key, None
        return key, tensor

    def _named_last(self, names: list[ast.expr], key: str, tensor: Tensor) -> Optional[dict]:
        """Name the last dims of `tensor` (bound to `key`, of unknown rank) after `names`,
        at its least rank, behind a `Lead`: the one it has where that leads those dims, else
        a new one. None where the names are not free (see `lead_unpacked`)."""
        if not names or not all(isinstance(t, ast.Name) for t in names) or \
                not _free_sizes(tensor, len(names)) or \
                tensor.assumed is not None and not tensor.assumed.unsized:
            return None
        sizes = [symbol(t.id) for t in names]
        lead = _lead_of(tensor, len(names)) or Lead(each=IntVal(None), owner=key)
        self.env[key] = evolve(tensor, assumed=Geometry.contiguous(sizes), min_rank=len(names),
                               lead=lead)
        return {t.id: IntVal(size) for t, size in zip(names, sizes)}

    def leading_sizes(self, node: ast.Subscript) -> Optional[Lead]:
        """`x.shape[:-k]` (or `x.size()[:-k]`) of a tensor whose rank the code does not show:
        its leading dims, any number of them, none included (a `Lead`, as `*batch, h, w =
        x.shape` gives them). Where x's last k dims are a caller's, x keeps that lead, so
        `x.mT.view(*x.shape[:-2], h * w)` is decided by those dims; else the lead is x's
        alone. None where the slice is another or x's rank is known."""
        part = node.slice
        last = _negative(part.upper) if isinstance(part, ast.Slice) else None
        owner = _shape_owner(node.value)
        if part.lower is not None or part.step is not None or last is None or owner is None:
            return None
        key, tensor = self._unranked(owner)
        if tensor is None:
            return None
        lead = _lead_of(tensor, last)
        if lead is not None:
            return lead
        lead = Lead(each=IntVal(None), owner=key)
        if _free_sizes(tensor, last):
            assumed = tensor.assumed if tensor.assumed is not None and \
                tensor.assumed.rank == last else Geometry.contiguous([None] * last)
            self.env[key] = evolve(tensor, assumed=assumed, min_rank=last, lead=lead)
        return lead


def _last_sizes(value: ast.expr) -> Optional[int]:
    """k of `x.shape[-k:]` / `x.size()[-k:]`, else None."""
    if not isinstance(value, ast.Subscript) or not isinstance(value.slice, ast.Slice) or \
            _shape_owner(value.value) is None:
        return None
    if value.slice.upper is not None or value.slice.step is not None:
        return None
    return _negative(value.slice.lower)


def _negative(bound: Optional[ast.expr]) -> Optional[int]:
    """k of a slice bound written `-k` (a literal int k of 1 or more), else None."""
    if not isinstance(bound, ast.UnaryOp) or not isinstance(bound.op, ast.USub) or \
            not isinstance(bound.operand, ast.Constant) or \
            type(bound.operand.value) is not int or bound.operand.value < 1:
        return None
    return bound.operand.value


def _shape_owner(value: ast.expr) -> Optional[ast.expr]:
    """x of `x.shape` or `x.size()`, else None."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
            value.func.attr == "size" and not value.args and not value.keywords:
        return value.func.value
    if isinstance(value, ast.Attribute) and value.attr == "shape":
        return value.value
    return None


def _free_sizes(tensor: Tensor, last: int) -> bool:
    """Whether a caller chooses the sizes of `tensor`'s last dims at its least rank, which
    has `last` dims or fewer: its layout is not broken and no op made or cut its sizes."""
    return not tensor.noncontiguous and not tensor.made_sizes and tensor.partial is None and \
        tensor.min_rank <= last


def _lead_of(tensor: Tensor, last: int) -> Optional[Lead]:
    """The `Lead` before `tensor`'s last `last` dims, where it has one."""
    assumed = tensor.assumed
    if tensor.lead is None or assumed is None or assumed.rank != last or \
            tensor.min_rank != last:
        return None
    return tensor.lead
