"""The operations that made a tensor's layout: its expression, followed back through names.

From the expression explain is asked about, each operation on a tensor (a method call, a torch
function, an index, an operator) is a step, shown with its line and the layout the flow pass
gave its result; a name read is followed to the assignments that may reach it (several on
different paths: each is followed), a parameter ends the chain. The inputs of an operation
whose result is contiguous (a matmul, a module call, a factory) are not followed: that
operation made the layout, whatever its inputs were; a method's receiver always is (the
shape comes from there). Steps are listed in source order, each once, the last `LIMIT`.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from contiglint.layout.explain.definitions import ReachingDefinitions
from contiglint.layout.explain.describe import Layout, describe
from contiglint.layout.explain.observe import Observer
from contiglint.source import SourceMap

LIMIT = 12


@dataclass
class Step:
    line: int
    column: int
    text: str  # the operation as written: `.transpose(1, 2)`, `attn @ v`, `x` (a parameter)
    layout: Optional[Layout]  # what the flow pass gave its result; None: never evaluated
    role: str = "op"  # "op", "parameter", "binding", "unfollowed"

    def as_json(self) -> dict:
        return {"line": self.line, "column": self.column, "op": self.text, "role": self.role,
                "layout": self.layout.as_json() if self.layout else None}

    def summary(self) -> str:
        if self.layout is None:
            return "not reached by the analysis"
        layout = self.layout
        if not layout.tensor:
            return layout.why
        if layout.some_paths:
            return f"non-contiguous on some paths ({layout.shape_text()} there)"
        contiguity = {"yes": "contiguous", "no": "non-contiguous"}.get(
            layout.contiguous, "contiguity unknown")
        extra = f" ({layout.out_of_order})" if layout.contiguous == "no" and \
            layout.out_of_order else ""
        return f"{layout.shape_text()} {contiguity}{extra}"


class ChainBuilder:
    def __init__(self, source: SourceMap, observer: Observer,
                 definitions: ReachingDefinitions) -> None:
        self.source = source
        self.observer = observer
        self.definitions = definitions

    def chain(self, node: ast.AST) -> tuple[list[Step], int]:
        """The steps (source order) and how many earlier ones were left out."""
        steps: dict[ast.AST, Step] = {}
        self._follow(node, steps, set())
        ordered = sorted(steps.values(), key=lambda s: (s.line, s.column))
        return ordered[-LIMIT:], max(0, len(ordered) - LIMIT)

    def _layout(self, node: ast.AST) -> Optional[Layout]:
        value = self.observer.tensor(node)
        if value is None:
            contexts = self.observer.contexts(node)
            if not contexts:
                return None
            value = next(iter(contexts.values()))
        return describe(value)

    def _step(self, node: ast.AST, steps: dict, text: str, role: str = "op",
              at: Optional[ast.AST] = None) -> None:
        start = self.source.start(at or node)
        steps[node] = Step(start.line, start.column, text, self._layout(node), role)

    def _is_tensor(self, node: ast.AST) -> bool:
        return self.observer.tensor(node) is not None

    def _fresh(self, node: ast.AST) -> bool:
        """The result is contiguous on every path: its layout was made here."""
        layout = self._layout(node)
        return layout is not None and layout.contiguous == "yes"

    def _follow(self, node: ast.AST, steps: dict, seen: set) -> None:
        if node in seen:
            return
        seen.add(node)
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Store):
                self._binding(node, steps, seen)
                return
            defs = self.definitions.reaching_of(node)
            if not defs:
                self._step(node, steps, f"{node.id} (defined outside this scope: not followed)",
                           "unfollowed")
                return
            for binding in defs:
                self._follow(binding, steps, seen)
            return
        if isinstance(node, ast.arg):
            self._step(node, steps, f"{node.arg} (parameter)", "parameter")
            return
        if isinstance(node, ast.Call):
            func = node.func
            inputs = [a.value if isinstance(a, ast.Starred) else a for a in node.args] + \
                [k.value for k in node.keywords]
            if isinstance(func, ast.Attribute) and self._is_tensor(func.value):
                self._follow(func.value, steps, seen)
                start, _ = self.source.attribute_name(func)
                text = self.source.shorten_text(
                    "." + func.attr + self._text_after(func, node), 48)
                steps[node] = Step(start.line, max(start.column - 1, 1), text,
                                   self._layout(node))
            else:
                self._step(node, steps, self.source.shorten(node, 48))
            if not self._fresh(node):
                for argument in inputs:
                    if self._is_tensor(argument):
                        self._follow(argument, steps, seen)
            return
        if isinstance(node, ast.Subscript):
            if self._is_tensor(node.value):
                self._follow(node.value, steps, seen)
            self._step(node, steps, self.source.shorten_text(
                "[" + self.source.segment(node.slice) + "]", 48), at=node.slice)
            return
        if isinstance(node, ast.BinOp):
            for operand in (node.left, node.right):
                if self._is_tensor(operand) and not self._fresh(node):
                    self._follow(operand, steps, seen)
            self._step(node, steps, self.source.shorten(node, 48))
            return
        if isinstance(node, ast.Attribute) and self._is_tensor(node.value) \
                and node.attr in ("T", "mT", "H", "mH", "real", "imag", "data"):
            self._follow(node.value, steps, seen)
            self._step(node, steps, "." + node.attr)
            return
        self._step(node, steps, self.source.shorten(node, 48))

    def _binding(self, name: ast.Name, steps: dict, seen: set) -> None:
        statement = self.definitions.statement_of(name)
        value = getattr(statement, "value", None)
        if isinstance(statement, (ast.For, ast.AsyncFor)):
            value = statement.iter
        if isinstance(statement, ast.AugAssign):
            for earlier in self.definitions.reaching_of(statement.target):
                self._follow(earlier, steps, seen)
            self._step(name, steps, self.source.shorten(statement, 48), "binding")
            return
        if value is None:
            self._step(name, steps, f"{name.id} (bound by a `with` or other statement: not "
                                    "followed)", "unfollowed")
            return
        self._follow(value, steps, seen)
        unpacked = not (isinstance(statement, ast.Assign) and name in statement.targets)
        if unpacked or isinstance(statement, (ast.For, ast.AsyncFor)):
            self._step(name, steps, f"-> {name.id}", "binding")

    def _text_after(self, func: ast.Attribute, call: ast.Call) -> str:
        source = self.source
        return source.text[source.offset(source.end(func)):source.offset(source.end(call))]
