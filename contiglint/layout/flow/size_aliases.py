"""Tensors that have another name's sizes, dim by dim: `v = x.float()`, `v = x.contiguous()`,
`v = x if p else x.clone()`, `v = F.relu(x)`.

Code reads a size by the tensor's name (`v.size(0)`), and the model names a size it does not
know the same way (flow/subscripts.py, `sizes.size_name`). Where `v` has x's sizes, the two
names are one size: read as `x.size(0)` in one line and `v.size(0)` in the next, a witness
gave them two values that no input gives (`v.view(-1, x.size(2))` of `v = x.contiguous()`
with x.size(2) = 6 and v.size(2) = 5). So the sizes of `v` are named after `x`.

What the flow pass knows of it lives in the environment, one entry per name (`SIZES_OF` +
name: a Const of the other name), joined where paths meet like any value (kept where both
paths agree), replaced when the name is bound again and dropped when the other name is.
Only ops the catalogue says keep every size make one: its conversions, copies, identities and
pointwise ops (with no operand but the tensor, which a broadcast could not grow), the
functional activations and `*_like` factories of one tensor, and arithmetic with a number.
"""
from __future__ import annotations

import ast
from typing import Optional

from contiglint.catalogue import ops as catalogue
from contiglint.layout.model.values import Const

SIZES_OF = "#sizes of "

# catalogue transfers whose result has its input's sizes, whatever the other arguments
_KEEPING = frozenset({"identity", "clone", "convert", "contiguous", "preserve", "dropout",
                      "device_layout"})
_METHODS = frozenset(m for e in catalogue.TABLE if e.transfer in _KEEPING for m in e.methods)
_FUNCTIONS = frozenset(f for e in catalogue.TABLE if e.transfer in _KEEPING
                       for f in e.functions)
# pointwise ops keep the sizes where no other tensor takes part (`x.clamp(lo)` broadcasts)
_POINTWISE_METHODS = frozenset(m for e in catalogue.TABLE if e.transfer == "pointwise"
                               for m in e.methods)
_POINTWISE_FUNCTIONS = frozenset(f for e in catalogue.TABLE if e.transfer == "pointwise"
                                 for f in e.functions)


def _numbers(args: list, keywords: list) -> bool:
    """Whether every argument is a literal (no tensor that could broadcast)."""
    return all(isinstance(a, ast.Constant) for a in args) and \
        all(isinstance(k.value, ast.Constant) for k in keywords)


class SizeAliasMixin:
    """The size aliases of `Frame` (frame.py)."""

    def note_sizes_of(self, name: str, source: Optional[ast.expr]) -> None:
        """After `name = source`: note whose sizes `name` now has (none: drop what was
        noted), and drop what was noted of names that had the sizes `name` had before."""
        env = self.env
        if env is None:
            return
        if name in self.size_roots:  # `name` holds another tensor now: its text names
            gone = Const(name)        # other sizes
            for key in [k for k, v in env.items() if k.startswith(SIZES_OF) and v == gone]:
                del env[key]
        root = self.sizes_root(source) if source is not None else None
        key = SIZES_OF + name
        if root is not None and root != name:
            env[key] = Const(root)
            self.size_roots.add(root)
        elif key in env:
            del env[key]

    def sizes_root(self, node: ast.expr) -> Optional[str]:
        """The name whose sizes `node`'s tensor has, dim by dim, or None."""
        while isinstance(node, ast.Call):
            node = self.kept_operand(node)
            if node is None:
                return None
        if isinstance(node, ast.Name):
            found = self.env.get(SIZES_OF + node.id) if self.env is not None else None
            return found.value if isinstance(found, Const) else node.id
        if isinstance(node, ast.IfExp):
            body, orelse = self.sizes_root(node.body), self.sizes_root(node.orelse)
            return body if body == orelse else None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Invert)):
            return self.sizes_root(node.operand)  # `-x`
        if isinstance(node, ast.BinOp) and not isinstance(node.op, ast.MatMult):
            # `x + 1`, `2 * x`: a number broadcasts to the tensor's sizes
            if isinstance(node.right, ast.Constant):
                return self.sizes_root(node.left)
            if isinstance(node.left, ast.Constant):
                return self.sizes_root(node.right)
        return None

    def kept_operand(self, call: ast.Call) -> Optional[ast.expr]:
        """The operand of `call` whose sizes its result has (`x` of `x.float()`,
        `torch.relu(x)`), or None."""
        func = call.func
        qualname = self.program.names.qualname(func)
        if qualname is None:  # a method of the tensor (`x.float()`), not a module's function
            if isinstance(func, ast.Attribute) and (func.attr in _METHODS or (
                    func.attr in _POINTWISE_METHODS and _numbers(call.args, call.keywords))):
                return func.value
            return None
        if not call.args or isinstance(call.args[0], ast.Starred):
            return None
        if qualname in _FUNCTIONS or (qualname in _POINTWISE_FUNCTIONS and
                                      _numbers(call.args[1:], call.keywords)):
            return call.args[0]
        return None

    def size_owner_of(self, name: str) -> str:
        """The text that names the sizes of the tensor bound to `name`."""
        found = self.env.get(SIZES_OF + name) if self.env is not None else None
        return found.value if isinstance(found, Const) else name

    def size_owner(self, node: ast.expr, short: bool = True) -> Optional[str]:
        """The text that names the sizes of `node`'s tensor (`x` of `v`, where v = x.float()):
        where it has another name's sizes, that name; else its own text (`short`: where the
        code spells it shortly, `Program.short_text`)."""
        if isinstance(node, ast.Name):
            return self.size_owner_of(node.id)
        return self.program.short_text(node) if short else self.program.unparse(node)
