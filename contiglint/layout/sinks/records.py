"""Sinks: the places where a tensor's layout matters, as the flow pass reports them.

The flow pass emits a `Sink` whenever it evaluates one of the operations in `SPECS`, with the
abstract value of the tensor that reaches it and the call chain that brought it there. Rules
filter sinks by kind; adding a rule never means touching the flow pass, and adding a sink kind
means adding a row to the catalogue's sink table (contiglint/catalogue/sinks.py).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterable, Optional

from contiglint.catalogue.sinks import BY_KIND, SPECS, SinkSpec
from contiglint.layout.model.values import Tensor, Value


@dataclass(frozen=True)
class CallSite:
    """A call through which a value entered the function holding the sink."""

    line: int
    column: int
    callee: str


@dataclass(frozen=True)
class Sink:
    kind: str
    node: ast.AST  # the call, subscript or statement where the layout matters
    target: Optional[ast.expr]  # the tensor expression at the sink
    value: Value  # its abstract value
    op: str  # the method or qualified function name
    detail: tuple[tuple[str, object], ...] = ()
    chain: tuple[CallSite, ...] = ()
    loop: Optional[ast.AST] = None  # innermost enclosing loop, in the same function
    loop_invariant: bool = False  # `loop` neither rebinds nor writes into the target (loops.py)
    function: Optional[ast.AST] = None  # enclosing function definition

    @property
    def tensor(self) -> Optional[Tensor]:
        return self.value if isinstance(self.value, Tensor) else None

    def get(self, key: str, default: object = None) -> object:
        return dict(self.detail).get(key, default)


METHOD_SINKS: dict[str, list[SinkSpec]] = {}
FUNCTION_SINKS: dict[str, list[SinkSpec]] = {}
for _spec in SPECS:
    for _name in _spec.methods:
        METHOD_SINKS.setdefault(_name, []).append(_spec)
    for _name in _spec.functions:
        FUNCTION_SINKS.setdefault(_name, []).append(_spec)


def tokens_for(kinds: Iterable[str]) -> frozenset[str]:
    return frozenset(token for kind in kinds for token in BY_KIND[kind].tokens)
