"""`einops.rearrange(x, pattern, **lengths)`: what it does to layout, as einops does it.

On torch, einops applies a rearrange as at most three tensor ops (`einops._backends`,
`TorchBackend`; the recipe in `einops.einops._apply_recipe`):

1. `x.reshape(...)` into the elementary axes, where the input side groups axes (`(h d)`);
2. `x.permute(...)` into the output's order of the elementary axes, unless it is the same;
3. `x.reshape(...)` into the output's groups, where the output side groups axes (`(h w)`) or
   adds size-1 ones (`1`, `()`).

So `b n (h d) -> b h n d` is a view with its dims out of memory order (a later `.view`
that merges `h` and `n` raises), while `b h n d -> b n (h d)` copies into a contiguous tensor
when the permute left its dims apart. The model runs the same three ops through its own
transfers (views.py, reshape_views.py). The pattern must be a literal; an ellipsis needs a
tensor of known rank; anything else (`repeat`/`reduce` patterns, an axis named twice, a number
other than 1) gives a tensor of unknown layout.
"""
from __future__ import annotations

import re
from typing import Optional

from contiglint.layout.model.sizes import ONE, Size, literal, product, quotient
from contiglint.layout.model.transfer import Call
from contiglint.layout.model.values import Const, IntVal, Kind, Tensor, Value
from contiglint.layout.model import reshape_views, views

_TOKEN = re.compile(r"\.\.\.|[()]|[A-Za-z_][A-Za-z0-9_]*|\d+|\S")
ELLIPSIS = "..."

Groups = list[list[str]]  # one list of elementary axis names per dim ("1" for a new size-1 one)


def parse_side(text: str) -> Optional[Groups]:
    """`b (h d) ... 1` -> [["b"], ["h", "d"], ["..."], []]; None where it is not one."""
    groups: Groups = []
    current: Optional[list[str]] = None
    for token in _TOKEN.findall(text):
        if token == "(":
            if current is not None:
                return None
            current = []
        elif token == ")":
            if current is None:
                return None
            groups.append(current)
            current = None
        elif token == ELLIPSIS or token.isidentifier():
            if current is None:
                groups.append([token])
            elif token == ELLIPSIS:
                return None  # `(...)`: not modelled
            else:
                current.append(token)
        elif token == "1":
            if current is None:
                groups.append([])  # a new size-1 dim (inside a group, a factor of 1)
        else:
            return None
    return groups if current is None else None


def parse(pattern: str) -> Optional[tuple[Groups, Groups]]:
    """Both sides of a rearrange pattern, each named axis once on each side."""
    if pattern.count("->") != 1:
        return None
    left, right = (parse_side(side) for side in pattern.split("->"))
    if left is None or right is None:
        return None
    names = [a for g in left for a in g]
    if any(not g for g in left) or len(set(names)) != len(names) or \
            sorted(names) != sorted(a for g in right for a in g):
        return None  # a size-1 input axis, a repeated name, or axes added or dropped
    return left, right


def rearrange(call: Call) -> Value:
    pattern = call.arg(0, "pattern")
    sides = parse(pattern.value) if isinstance(pattern, Const) and \
        isinstance(pattern.value, str) else None
    tensor = call.tensor
    unknown = Tensor(Kind.UNKNOWN)
    if sides is None:
        return unknown
    left, right = sides
    rank = tensor.rank if any(g == [ELLIPSIS] for g in left) else len(left)
    if rank is None or (tensor.rank is not None and tensor.rank != rank):
        return unknown  # an ellipsis on a tensor of unknown rank, or a rank einops rejects
    count = rank - (len(left) - 1)  # the dims the ellipsis stands for, when it is there
    left, right = _expand_ellipsis(left, count), _expand_ellipsis(right, count)
    if left is None or right is None:
        return unknown
    sizes = _axis_sizes(left, tensor, call.kwargs)
    elementary = [a for g in left for a in g]
    if any(len(g) != 1 for g in left):
        tensor = _apply(reshape_views.reshape, "reshape", tensor,
                        [sizes[a] for a in elementary], call)
        if isinstance(tensor, Tensor) and tensor.kind is Kind.UNKNOWN and \
                call.tensor.noncontiguous:
            return unknown  # viewed or copied, the sizes decide: what it permutes is unknown
    order = [elementary.index(a) for g in right for a in g]
    if isinstance(tensor, Tensor) and order != list(range(len(order))):
        tensor = _apply(views.permute, "permute", tensor, [literal(i) for i in order], call)
    if isinstance(tensor, Tensor) and any(len(g) != 1 for g in right):
        target = [product([sizes[a] for a in g]) if g else ONE for g in right]
        tensor = _apply(reshape_views.reshape, "reshape", tensor,
                        [None if any(sizes[a] is None for a in g) else s
                         for g, s in zip(right, target)], call)
    return tensor if isinstance(tensor, Tensor) else unknown


def _expand_ellipsis(groups: Groups, count: int) -> Optional[Groups]:
    """The ellipsis as the `count` anonymous axes it stands for (`...0`, `...1`, ...)."""
    at = [i for i, g in enumerate(groups) if ELLIPSIS in g]
    if not at:
        return groups
    if len(at) > 1 or count < 0:
        return None
    i = at[0]
    return groups[:i] + [[f"...{k}"] for k in range(count)] + groups[i + 1:]


def _axis_sizes(left: Groups, tensor: Tensor, lengths: dict) -> dict[str, Size]:
    """Each elementary axis's size: given as a keyword (`h=8`), the whole dim's where it is
    alone in its group, or what is left of the dim where it is the one unknown in a group."""
    dims = tensor.geometry.sizes if tensor.geometry is not None else [None] * len(left)
    sizes: dict[str, Size] = {}
    for group, whole in zip(left, dims):
        given = {a: lengths[a].size for a in group
                 if isinstance(lengths.get(a), IntVal) and lengths[a].size is not None}
        for axis in group:
            sizes[axis] = given.get(axis)
        missing = [a for a in group if sizes[a] is None]
        if len(missing) == 1 and whole is not None:
            known = [sizes[a] for a in group if a != missing[0]]
            sizes[missing[0]] = quotient(whole, product(known)) if known else whole
    return sizes


def _apply(transfer, name: str, tensor: Tensor, arguments: list, call: Call) -> Value:
    return transfer(Call(name, tensor, [IntVal(size) for size in arguments], {}, call.origin))
