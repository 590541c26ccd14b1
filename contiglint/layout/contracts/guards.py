"""Layout guards in a function body, for learned contracts: `assert p.is_contiguous()`,
`if not ...: raise`, `torch._check(...)`, stride comparisons."""
from __future__ import annotations

import ast
from typing import Optional

from contiglint.catalogue import contracts as catalogue
from contiglint.layout.model.stride_checks import layout_reads


class GuardMixin:
    """The guard reading of `FunctionPass`: it gives `live`, `require` and `guards`."""

    def _guard(self, test: ast.expr, where: ast.AST, negated: bool) -> None:
        self._any_guard(test, where, negated)
        for check, param, kind in self._checks(test, negated):
            what = f"raises if `{ast.unparse(test)}`" if negated else \
                f"asserts `{ast.unparse(check)}`"
            self.require(param, kind, where, what, guard=True)
            self._guard_lines(where, check, kind, what)

    def _any_guard(self, test: ast.expr, where: ast.AST, negated: bool) -> None:
        """For the runtime watcher: a guard on any tensor (a loop variable over a list
        parameter, a local), not only on parameters, rejects a layout when it fails."""
        for node in layout_reads(test):
            kind = "full" if node.func.attr == "is_contiguous" else "inner" if \
                node.args and _last_index(node.args[0]) else "stride"
            what = f"raises if `{ast.unparse(test)}`" if negated else \
                f"asserts `{ast.unparse(test)}`"
            self._guard_lines(where, node, kind, what)

    def layout_branches(self) -> set[str]:
        """The parameters whose layout an `if` test reads without raising on it (`if
        W.stride(-1) != 1: return kernel(W.t())`): what the body does with them depends on
        the layout they come with, so no use of them is a contract: a caller whose layout
        takes another branch meets none of that branch's needs."""
        found = set()
        for node in self.own.checked:
            if isinstance(node, ast.If) and not (node.body and
                                                 isinstance(node.body[0], ast.Raise)):
                found.update(param for read in layout_reads(node.test)
                             if (param := self.live(read.func.value)))
        return found

    def _guard_lines(self, where: ast.AST, check: ast.AST, kind: str, what: str) -> None:
        for node in (where, check):
            self.guards.setdefault(node.lineno, (kind, what))

    def _checks(self, test: ast.expr, negated: bool):
        """(check, parameter, kind) for each layout check in a guard's condition that must
        hold (for an `if ...: raise`, `negated`: the condition that raises)."""
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or if negated else ast.And):
            for value in test.values:
                yield from self._checks(value, negated)
            return
        if negated:
            if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                yield from self._checks(test.operand, False)
            elif isinstance(test, ast.Compare) and len(test.ops) == 1 and \
                    isinstance(test.ops[0], ast.NotEq):
                flipped = ast.Compare(test.left, [ast.Eq()], test.comparators)
                ast.copy_location(flipped, test)
                for _, param, kind in self._checks(flipped, False):
                    yield test, param, kind
            return
        if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and \
                test.func.attr in catalogue.GUARD_CHECKS and not test.keywords and \
                not test.args:
            param = self.live(test.func.value)
            if param:
                yield test, param, "full"
        elif isinstance(test, ast.Compare) and len(test.ops) == 1 and \
                isinstance(test.ops[0], ast.Eq):
            for side in (test.left, test.comparators[0]):
                stride = _stride_of(side)
                if stride is not None:
                    param = self.live(stride[0])
                    if param:
                        yield test, param, stride[1]


def _last_index(node: ast.expr) -> bool:
    return isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant) and \
        node.operand.value == 1



def _stride_of(node: ast.expr) -> Optional[tuple[ast.expr, str]]:
    """`p.stride(-1)` / `p.stride()[-1]` -> (p, "inner"); `p.stride()` -> (p, "full")."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call):
        inner = _stride_of(node.value)
        index = node.slice
        if inner and isinstance(index, ast.UnaryOp) and isinstance(index.operand, ast.Constant) \
                and index.operand.value == 1:
            return inner[0], "inner"
        return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr == "stride":
        if not node.args:
            return node.func.value, "full"
        index = node.args[0]
        if isinstance(index, ast.UnaryOp) and isinstance(index.operand, ast.Constant) and \
                index.operand.value == 1:
            return node.func.value, "inner"
    return None
