"""Sizes given by names: a view target, a factory's sizes or a list of split sizes that the
code writes with unknown names (`x.view(b, h, -1, block)`, `torch.randn(B, N, C)`,
`torch.split(x, [k, n - k])`) stands for the sizes those names stand for, so that the same
name written in a slice bound or another target is matched with it (calls.py, methods.py)."""
from __future__ import annotations

import ast

from contiglint.layout.model.sizes import Size, literal, multiply, symbol
from contiglint.layout.model.values import OPAQUE, IntVal, Seq, Value


class NamedSizeMixin:
    """The named sizes of `Frame` (frame.py)."""

    def named_size_arguments(self, node: ast.Call, args: list) -> list:
        """Size arguments given by unknown names (`x.view(b, h, -1, block)`, `torch.randn(B,
        N, C)` with size parameters) are the sizes those names stand for: the same symbol as a
        slice bound or a view target written the same way, so the two can be matched; a product
        of such names (`B * N`) is the product of their symbols."""
        if len(args) != len(node.args) or any(isinstance(a, ast.Starred) for a in node.args):
            return args
        return [self.named_size_value(value, expr) for value, expr in zip(args, node.args)]

    def named_size_lists(self, node: ast.Call, args: list) -> list:
        """A list of sizes written out (`x.split_with_sizes([1, B - 1], 1)`, `torch.split(x,
        [k, n - k])`): its unknown names are the sizes they stand for, as in a view target."""
        if len(args) != len(node.args):
            return args
        return [Seq(tuple(self.named_size_value(v, e) for v, e in zip(value.items, expr.elts)),
                    chained=value.chained)
                if isinstance(expr, (ast.List, ast.Tuple)) and isinstance(value, Seq) and
                value.items is not None and len(value.items) == len(expr.elts) else value
                for value, expr in zip(args, node.args)]

    def named_size_value(self, value: Value, expr: ast.expr) -> Value:
        """One size argument: an unknown name (or product of names) is the size it stands for;
        what names no size stays unknown (`x.expand(n + x.shape)` is a whole shape)."""
        if value is not OPAQUE or not (isinstance(expr, (ast.Name, ast.Attribute, ast.BinOp)) or
                                       is_constant_item(expr)):
            return value
        size = self.named_size(expr)
        return value if size is None else IntVal(size)

    def named_size(self, expr: ast.expr) -> Size:
        if isinstance(expr, (ast.Name, ast.Attribute)):
            value = self.evaluate(expr)
            if isinstance(value, IntVal):
                return value.size
            return symbol(ast.unparse(expr)) if value is OPAQUE else None
        if isinstance(expr, ast.Constant) and type(expr.value) is int:
            return literal(expr.value)
        if isinstance(expr, (ast.Call, ast.Subscript)):  # `v.size(1) * C`: v's size
            value = self.evaluate(expr)
            if isinstance(value, IntVal):
                return value.size
            # `self.kpt_shape[0]`: an item of a constant's unknown value is a name of its own
            return symbol(ast.unparse(expr)) if value is OPAQUE and is_constant_item(expr) \
                else None
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
            return multiply(self.named_size(expr.left), self.named_size(expr.right))
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.FloorDiv)) \
                and self.named_size(expr.left) is not None and \
                self.named_size(expr.right) is not None:
            return symbol(ast.unparse(expr))  # one factor: `(B - 1) * N` merges two dims,
            # `N // 2` splits one
        return None


def is_constant_item(expr: ast.expr) -> bool:
    """`shape[0]`, `self.kpt_shape[1]`: a constant index into a name or an attribute path,
    which stands for the same number wherever it is written in one function."""
    if not (isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) and
            type(expr.slice.value) is int):
        return False
    root = expr.value
    while isinstance(root, ast.Attribute):
        root = root.value
    return isinstance(root, ast.Name)
