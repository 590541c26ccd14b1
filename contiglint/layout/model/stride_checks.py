"""Deciding stride checks on tensors whose layout is known.

Kernel wrappers often copy only when a stride check fails: `if x.stride(-1) != 1: x =
x.contiguous()`, `if x.stride(-1) != 1 or x.stride(-2) != x.shape[-1]: ...`. When the flow pass
knows the tensor's geometry on this path (not a join of several paths), such a check has a
known answer, so only the branch torch would take is analysed: a transposed tensor whose last
dim is still unit-stride really does skip the copy and reach the kernel as it is.
"""
from __future__ import annotations

import ast
from typing import Callable, Iterator, Optional

from contiglint.layout.model.sizes import is_one
from contiglint.layout.model.values import Kind, Tensor, Value


def layout_reads(test: ast.expr) -> Iterator[ast.Call]:
    """The calls in `test` that read a name's layout: `x.is_contiguous(...)`, `x.stride(...)`."""
    for node in ast.walk(test):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("is_contiguous", "stride") and \
                isinstance(node.func.value, ast.Name):
            yield node


def _last(node: ast.expr, minus: int) -> bool:
    return isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and \
        isinstance(node.operand, ast.Constant) and node.operand.value == minus


def _stride_call(node: ast.expr) -> Optional[tuple[ast.expr, int]]:
    """`x.stride(-1)` -> (x, 1); `x.stride(-2)` -> (x, 2)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr == "stride" and len(node.args) == 1 and not node.keywords:
        for minus in (1, 2):
            if _last(node.args[0], minus):
                return node.func.value, minus
    return None


def _last_size(node: ast.expr, name: str) -> bool:
    """`x.shape[-1]` or `x.size(-1)` of the tensor named `name`."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and \
            node.value.attr == "shape" and isinstance(node.value.value, ast.Name) and \
            node.value.value.id == name and _last(node.slice, 1):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
        node.func.attr == "size" and isinstance(node.func.value, ast.Name) and \
        node.func.value.id == name and len(node.args) == 1 and _last(node.args[0], 1)


def _known(value: Value) -> Optional[Tensor]:
    if isinstance(value, Tensor) and value.geometry is not None and not value.maybe and \
            value.kind is not Kind.UNKNOWN:
        return value
    return None


def unit_last(tensor: Tensor) -> Optional[bool]:
    geometry = tensor.geometry
    axes = [a for a in geometry.axes if not is_one(a.size)]
    if not axes:
        return True
    last = axes[-1]
    if last.span in ("broadcast", "step"):
        return False
    if not last.base:
        return None
    if last.base[-1] != geometry.memory[-1]:
        return False
    return True if last.span in ("full", "cut") else None


def dense_rows(tensor: Tensor) -> Optional[bool]:
    """Whether stride(-2) == size(-1): the last two dims are mergeable."""
    geometry = tensor.geometry
    if geometry.rank < 2:
        return None
    outer, inner = geometry.axes[-2], geometry.axes[-1]
    return geometry.joinable(outer, inner)


def stride_truth(test: ast.expr, lookup: Callable[[str], Value]) -> Optional[bool]:
    """The value of a stride condition on known tensors, or None."""
    if isinstance(test, ast.BoolOp):
        values = [stride_truth(v, lookup) for v in test.values]
        if isinstance(test.op, ast.Or):
            if any(v is True for v in values):
                return True
            return False if all(v is False for v in values) else None
        if any(v is False for v in values):
            return False
        return True if all(v is True for v in values) else None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = stride_truth(test.operand, lookup)
        return None if inner is None else not inner
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and
            isinstance(test.ops[0], (ast.Eq, ast.NotEq))):
        return None
    left, right = test.left, test.comparators[0]
    call = _stride_call(left)
    if call is None:
        call, right = _stride_call(right), left
    if call is None or not isinstance(call[0], ast.Name):
        return None
    tensor = _known(lookup(call[0].id))
    if tensor is None:
        return None
    if call[1] == 1 and isinstance(right, ast.Constant) and right.value == 1:
        holds = unit_last(tensor)
    elif call[1] == 2 and _last_size(right, call[0].id):
        holds = dense_rows(tensor) if unit_last(tensor) else None
    else:
        return None
    if holds is None:
        return None
    return holds if isinstance(test.ops[0], ast.Eq) else not holds


def undecided_strides(test: ast.expr, lookup: Callable[[str], Value]) -> set[str]:
    """The names whose strides `test` reads in a comparison their known layout does not
    decide (`stride_truth` is None): the test holds or fails by a layout the model does
    not know."""
    if isinstance(test, ast.BoolOp):
        return set().union(*(undecided_strides(v, lookup) for v in test.values))
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return undecided_strides(test.operand, lookup)
    if stride_truth(test, lookup) is not None:
        return set()
    return {node.func.value.id for node in layout_reads(test) if node.func.attr == "stride"}
