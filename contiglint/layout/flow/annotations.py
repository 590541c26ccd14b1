"""The shapes that jaxtyping and torchtyping annotations state, read from the annotation's
syntax (neither library is imported): `Float[Tensor, "b n c"]`, `Int[torch.Tensor, "*batch
3"]`, `TensorType["b", "n", float]`. A named dim becomes the size symbol of its name, a literal
dim its size; anonymous (`_`, `_n`), broadcastable (`#n`), and expression dims (`n+1`) are of
unknown size; a variadic dim (`*batch`, `...`) leaves the rank unknown, at least the count of
the others."""
from __future__ import annotations

import ast
from typing import Callable, Optional

from contiglint.catalogue import shapes as facts
from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.sizes import Size, literal, symbol
from contiglint.layout.model.values import Kind, Tensor

VARIADIC = object()  # a dim that stands for any number of dims


def annotated_tensor(annotation: Optional[ast.expr],
                     qualname: Callable[[ast.expr], Optional[str]]) -> Optional[Tensor]:
    """The tensor a jaxtyping/torchtyping annotation states (its layout unknown), or None
    when the annotation is not one. `qualname` resolves a name through the module's imports."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:  # a string annotation: "Float[Tensor, 'b n']"
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if not isinstance(annotation, ast.Subscript):
        return None
    kind = qualname(annotation.value) or ""
    items = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else \
        [annotation.slice]
    if kind == facts.TORCHTYPING:
        dims, dtype = _torchtyping_dims(items), None
    elif kind.startswith(facts.JAXTYPING + ".") and \
            kind[len(facts.JAXTYPING) + 1:] in facts.JAXTYPING_DTYPES and len(items) == 2 and \
            qualname(items[0]) in facts.TENSOR_TYPES and isinstance(items[1], ast.Constant) \
            and isinstance(items[1].value, str):
        dims, dtype = _jaxtyping_dims(items[1].value), \
            facts.JAXTYPING_DTYPES[kind[len(facts.JAXTYPING) + 1:]]
    else:
        return None
    if dims is None:
        return None
    fixed = [d for d in dims if d is not VARIADIC]
    if len(fixed) < len(dims):
        return Tensor(Kind.UNKNOWN, min_rank=len(fixed), dtype=dtype)
    return Tensor(Kind.UNKNOWN, Geometry.contiguous(fixed), min_rank=len(fixed), dtype=dtype)


def _jaxtyping_dims(text: str) -> Optional[list]:
    dims: list = []
    for token in text.split():
        if token == "..." or token.lstrip("#").startswith("*"):
            dims.append(VARIADIC)
        elif token.isdigit():
            dims.append(literal(int(token)))
        else:
            dims.append(_named(token))
    if sum(d is VARIADIC for d in dims) > 1:
        return None  # jaxtyping allows one variadic dim
    return dims


def _named(token: str) -> Size:
    """A named dim's size: the symbol of its name; None for the anonymous (`_`, `_n`), the
    broadcastable (`#n`), those with a modifier (`n?`) and expressions (`n+1`)."""
    if token.startswith(("_", "#")) or not token.isidentifier():
        return None
    return symbol(token)


def _torchtyping_dims(items: list[ast.expr]) -> Optional[list]:
    """`TensorType["b", 3, -1, ..., "c": 4, float, torch.float32, is_named]`: strings and ints
    are dims (-1: any size), `name: size` a named size, `...` variadic; other items (dtypes,
    details) state no dim."""
    dims: list = []
    for item in items:
        if isinstance(item, ast.Constant) and item.value is Ellipsis:
            dims.append(VARIADIC)
        elif isinstance(item, ast.Constant) and isinstance(item.value, str):
            dims.append(_named(item.value))
        elif isinstance(item, ast.Constant) and isinstance(item.value, int) and \
                not isinstance(item.value, bool):
            dims.append(literal(item.value) if item.value >= 0 else None)
        elif isinstance(item, ast.UnaryOp) and isinstance(item.op, ast.USub):
            dims.append(None)
        elif isinstance(item, ast.Slice) and isinstance(item.upper, ast.Constant) and \
                isinstance(item.upper.value, int):
            dims.append(literal(item.upper.value) if item.upper.value >= 0 else None)
        elif isinstance(item, ast.Slice):
            dims.append(None)
    if sum(d is VARIADIC for d in dims) > 1:
        return None
    return dims
