"""Which sizes a witness may choose: those the function's inputs set.

A witness gives values to the names its tensor's sizes are made of (`B`, `x.size(0)`) and so
claims that some call of the function reaches them. For a size of a parameter (`x.size(0)` of
the parameter `x`) or a name the code binds to one, any value is some input's. A size the flow
named after a tensor the function computed (`y.size(0)`, `y = f(x)`) is not free: the flow
names it so where it lost how `y`'s sizes follow from `x`'s, and a value chosen for it may be
one that no input gives. Such a witness is a guess, and the finding strict-mode only.
"""
from __future__ import annotations

import ast
from functools import lru_cache
from typing import Iterable, Optional

from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.sizes import Size


def chosen_by_inputs(function: Optional[ast.AST], geometry: Optional[Geometry],
                     sizes: Iterable[object] = ()) -> bool:
    """Do the sizes of `geometry` (and the view target `sizes`) name only sizes that the
    inputs of `function` set? Module-level code has no inputs to tell apart: True there."""
    if function is None or geometry is None:
        return True
    computed = _computed_names(function)
    if not computed:
        return True
    named = [axis.size for axis in geometry.axes] + \
        [walked for axis in geometry.axes for walked in axis.walks] + \
        [size for size in sizes if isinstance(size, tuple)]
    return not any(_root(text) in computed for text in _factors(named))


def _factors(sizes: Iterable[Size]) -> Iterable[str]:
    for size in sizes:
        if size is not None:
            yield from size[1]


@lru_cache(maxsize=4096)
def _root(text: str) -> Optional[str]:
    """The tensor whose size a factor names, by its root name: `y` for `y.size(0)`,
    `y.shape[1]` and `y.transpose(1, 2).size(0)`; None for a plain name or an expression."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr == "size":
        node = node.func.value
    elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and \
            node.value.attr == "shape":
        node = node.value.value
    else:
        return None
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


@lru_cache(maxsize=256)
def _computed_names(function: ast.AST) -> frozenset[str]:
    """The names `function` binds that are not its parameters (which stay its inputs, even
    where the code rebinds them)."""
    arguments = function.args
    parameters = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
    parameters |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    stored = {node.id for node in ast.walk(function)
              if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    return frozenset(stored - parameters)
