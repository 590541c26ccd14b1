"""Reporting sinks: where the flow pass records that a tensor's layout reached an op that cares."""
from __future__ import annotations

import ast
from typing import Optional

from contiglint.layout.flow.loops import is_invariant
from contiglint.layout.sinks.records import (
    Copy,
    EscapeSink,
    InplaceSink,
    LayoutBranchSink,
    Sink,
)
from contiglint.layout.model.values import (
    OPAQUE,
    Tensor,
    Value,
)


class SinkEmitterMixin:
    def emit(self, record: type[Sink], node: ast.AST, target: Optional[ast.expr], value: Value,
             op: str, **fields) -> None:
        """Record a sink of type `record`; `fields` are the ones its kind adds to `Sink`'s."""
        if not self.program.recording:
            return
        loop = self.loops[-1] if self.loops else None
        invariant = False
        if loop is not None and target is not None:
            invariant = is_invariant(target, loop)
        guarded = record.kind != "contract" and target is not None and \
            self.guarded_parameter(target)  # the function raised before: CTG114's
        self.program.emit(record(node, target, value, op, self.chain, loop, invariant,
                                 self.function, self.copied_from(target), guarded, **fields))

    def emit_inplace(self, node: ast.AST, target: ast.expr, value: Value, op: str) -> None:
        self.emit(InplaceSink, node, target, value, op)

    def emit_escape(self, node: ast.AST, expression: ast.expr, value: Value, how: str) -> None:
        if isinstance(value, Tensor):
            self.emit(EscapeSink, node, expression, value, how)

    def emit_layout_branch(self, test: ast.expr) -> None:
        if self.program.index.queries_layout(test):  # `.is_contiguous()`/`.stride()` inside
            self.emit(LayoutBranchSink, test, None, OPAQUE, "layout check",
                      traced=self.program.traced.get(self.function))

    def copied_from(self, target: Optional[ast.expr]) -> Optional[Copy]:
        """The nearest copy-if-needed call on the receiver spine of `target` (see `Copy`)."""
        node = target
        while isinstance(node, (ast.Call, ast.Subscript, ast.Attribute)):
            if isinstance(node, ast.Call):
                if id(node) in self.copy_sources:
                    return Copy(node, self.copy_sources[id(node)])
                if not isinstance(node.func, ast.Attribute):
                    return None
                node = node.func
            node = node.value
        return None

    def layout_checked_names(self, test: ast.expr) -> list[tuple[str, bool]]:
        """Names whose layout `test` checks; True when the check is `is_contiguous()`."""
        found: list[tuple[str, bool]] = []
        if not self.program.index.queries_layout(test):
            return found
        for node in ast.walk(test):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    isinstance(node.func.value, ast.Name) and \
                    node.func.attr in ("is_contiguous", "stride"):
                found.append((node.func.value.id, node.func.attr == "is_contiguous"
                              and not node.keywords))
        return found
