"""Reporting sinks: where the flow pass records that a tensor's layout reached an op that cares.

Each frame (one activation of a function) has a `SinkRecorder`. The frame's evaluators call it
with what they see at a sink; the recorder adds what every sink carries (the function, the call
chain, the innermost loop and whether the target is invariant in it, the copy-if-needed call the
target comes from, whether it is a parameter the function guards) and hands the record to the
program, which keeps it while sinks are being recorded.
"""
from __future__ import annotations

import ast
from functools import cached_property
from typing import Optional

from contiglint.layout.syntax.loops import is_invariant
from contiglint.layout.sinks.contract_calls import guarded_parameters
from contiglint.layout.sinks.records import (
    Copy,
    EscapeSink,
    InplaceSink,
    LayoutBranchSink,
    Sink,
)
from contiglint.layout.flow.environments import path_conditions
from contiglint.layout.model.values import (
    OPAQUE,
    Tensor,
    Value,
)


class SinkRecorder:
    """The sinks of one frame. It owns the copy-if-needed calls the frame has evaluated (with
    their receivers' values) and reads the frame's loop stack, which it shares."""

    def __init__(self, program, function: Optional[ast.AST], chain: tuple, loops: list,
                 env=lambda: None) -> None:
        self.program = program
        self.function = function
        self.chain = chain
        self.loops = loops  # the frame's: innermost last
        self.env = env  # the frame's environment now
        # the node number (`ModuleIndex.number`) of a copy-if-needed call -> its receiver
        self.copy_sources: dict[int, Value] = {}

    def record(self, record: type[Sink], node: ast.AST, target: Optional[ast.expr],
               value: Value, op: str, **fields) -> None:
        """Record a sink of type `record`; `fields` are the ones its kind adds to `Sink`'s."""
        if not self.wants(record.kind):
            return
        loop = self.loops[-1] if self.loops else None
        invariant = False
        if loop is not None and target is not None:
            invariant = is_invariant(target, loop)
        guarded = record.kind != "contract" and isinstance(target, ast.Name) and \
            target.id in self.guarded  # the function raised before: CTG114's
        self.program.emit(record(node, target, value, op, self.chain, loop, invariant,
                                 self.function, self.copied_from(target), guarded,
                                 path=path_conditions(self.env()), **fields))

    def keeps(self, kind: str) -> bool:
        """Does the program record sinks of `kind` (while it records any)?"""
        kinds = self.program.kinds
        return kinds is None or kind in kinds

    def wants(self, kind: str) -> bool:
        """Is a sink of `kind` recorded now: while the program records sinks, of a kind that
        it records? Callers that work out a sink's fields ask first. A sink of a recorded
        kind met while nothing is recorded is noted (`Program.unrecorded`): the run that met
        it would record it if made again while recording."""
        if not self.keeps(kind):
            return False
        if not self.program.recording:
            self.program.unrecorded()
            return False
        return True

    @cached_property
    def guarded(self) -> frozenset[str]:
        """The parameters the function guards, when it is analysed in its caller's context."""
        return guarded_parameters(self.program, self.function, self.chain)

    def inplace(self, node: ast.AST, target: ast.expr, value: Value, op: str) -> None:
        self.record(InplaceSink, node, target, value, op)

    def escape(self, node: ast.AST, expression: ast.expr, value: Value, how: str) -> None:
        if isinstance(value, Tensor):
            self.record(EscapeSink, node, expression, value, how)

    def layout_branch(self, test: ast.expr) -> None:
        if self.program.index.queries_layout(test):  # `.is_contiguous()`/`.stride()` inside
            self.record(LayoutBranchSink, test, None, OPAQUE, "layout check",
                        traced=self.program.traced.get(self.function))

    def copied(self, call: ast.Call, receiver: Value) -> None:
        """The frame evaluated a copy-if-needed call on `receiver`."""
        number = self.program.index.number(call)
        if number is not None:  # a call of the module's tree (not one the flow pass made)
            self.copy_sources[number] = receiver

    def copied_from(self, target: Optional[ast.expr]) -> Optional[Copy]:
        """The nearest copy-if-needed call on the receiver spine of `target` (see `Copy`)."""
        node = target
        while isinstance(node, (ast.Call, ast.Subscript, ast.Attribute)):
            if isinstance(node, ast.Call):
                number = self.program.index.number(node)
                if number is not None and number in self.copy_sources:
                    return Copy(node, self.copy_sources[number])
                if not isinstance(node.func, ast.Attribute):
                    return None
                node = node.func
            node = node.value
        return None
