"""Recording the abstract values the flow pass computes, for `contiglint explain` and hovers.

The flow pass keeps only what rules need (the sinks). To show a tensor's layout at any place,
an `Observer` is handed to the analysis: its frame type (a `Frame` that also records) notes the
value of every expression it evaluates and of every name it binds, per call context, while
sinks are recorded. Values seen again in the same context (loop rounds, several paths through
the same code) are joined: the result covers every way the code can get there, as the pass's
own joins do. Without an observer the flow pass uses the plain `Frame` and records nothing.
"""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from contiglint.layout.flow.frame import Frame, runs_as_branches
from contiglint.layout.model.path_joins import join, join_all
from contiglint.layout.model.values import (
    NOT_TENSOR,
    OPAQUE,
    Mapping,
    Seq,
    Tensor,
    Value,
)

# the values worth showing: tensors, containers that may hold them, and "unknown" (which,
# joined with a tensor seen on another path or round, keeps a claim from being overstated)
_KEPT = (Tensor, Seq, Mapping)

Context = tuple  # the chain of call sites that led to the function (CallSite, ...)


class Observer:
    """Per syntax node, per call context: the join of the values the flow pass gave it."""

    def __init__(self) -> None:
        self.values: dict[ast.AST, dict[Context, Value]] = {}
        self.frame_type = _observing_frame(self)

    def saw(self, node: ast.AST, context: Context, value: Value) -> None:
        if not isinstance(value, _KEPT) and value is not OPAQUE and value is not NOT_TENSOR:
            return
        by_context = self.values.get(node)
        if by_context is None:
            self.values[node] = {context: value}
            return
        old = by_context.get(context)
        by_context[context] = value if old is None else join(old, value)

    def contexts(self, node: ast.AST) -> dict[Context, Value]:
        """The values `node` had, by call context (empty: the analysis never reached it)."""
        return self.values.get(node, {})

    def tensor(self, node: ast.AST) -> Optional[Value]:
        """The value of `node` joined over every context, when some context saw a tensor."""
        seen = self.values.get(node)
        if not seen or not any(_has_tensor(v) for v in seen.values()):
            return None
        return join_all(list(seen.values()))

    def nodes(self) -> Iterator[ast.AST]:
        return iter(self.values)


def _has_tensor(value: Value) -> bool:
    if isinstance(value, Tensor):
        return True
    if isinstance(value, Seq):
        return any(isinstance(v, Tensor) for v in (value.items or ())) or \
            isinstance(value.each, Tensor)
    return False


def _observing_frame(observer: Observer) -> type:
    """A `Frame` that reports to `observer` what it evaluates and binds while recording."""

    class ObservingFrame(Frame):
        def evaluate(self, node):
            value = super().evaluate(node)
            if node is not None and self.program.recording:
                observer.saw(node, self.chain, value)
            return value

        def assign(self, target, value, source):
            if isinstance(target, ast.Name) and self.program.recording:
                observer.saw(target, self.chain, value)
            super().assign(target, value, source)

        def stmt_Assign(self, node):
            super().stmt_Assign(node)
            choice = node.value
            if runs_as_branches(node) and self.program.recording:
                # run as two branches (`Frame._as_branches`): the expression's value is
                # what its branches gave in this context
                for branch in (choice.body, choice.orelse):
                    value = observer.contexts(branch).get(self.chain)
                    if value is not None:
                        observer.saw(choice, self.chain, value)

        def bind_parameters(self, bound, args, kwargs, standalone):
            super().bind_parameters(bound, args, kwargs, standalone)
            if self.program.recording and self.env is not None:
                spec = self.function.args
                for param in spec.posonlyargs + spec.args + spec.kwonlyargs:
                    if param.arg in self.env:
                        observer.saw(param, self.chain, self.env[param.arg])

    return ObservingFrame
