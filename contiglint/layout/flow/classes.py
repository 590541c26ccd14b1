"""What the flow pass knows of a module's classes: their methods, bases and attributes, and
the literal arguments every construction of a class passes."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Optional

from contiglint.layout.model.sizes import literal
from contiglint.layout.model.values import Const, IntVal, Value


@dataclass
class ClassInfo:
    name: str
    node: ast.ClassDef
    methods: dict[str, ast.AST] = field(default_factory=dict)
    bases: list[str] = field(default_factory=list)
    attrs: dict[str, Value] = field(default_factory=dict)

    def method(self, name: str, classes: dict[str, "ClassInfo"], seen=()) -> Optional[str]:
        """The key of `name` on this class or a base class defined in the module."""
        if name in self.methods:
            return f"{self.name}.{name}"
        for base in self.bases:
            if base in classes and base not in seen:
                found = classes[base].method(name, classes, seen + (self.name,))
                if found:
                    return found
        return None

    def attribute(self, name: str, classes: dict[str, "ClassInfo"], seen=()) -> Optional[Value]:
        if name in self.attrs:
            return self.attrs[name]
        for base in self.bases:
            if base in classes and base not in seen:
                found = classes[base].attribute(name, classes, seen + (self.name,))
                if found is not None:
                    return found
        return None


def constructor_arguments(calls: list[ast.Call]):
    """The literal arguments of a class's constructions `Cls(...)` when they all pass the same
    ones (`KVCache(batch=1, heads=2)`, `Model()`): then attributes set from them, such as a
    size-1 batch or head count, are known. None when the class is built in different ways,
    with non-literal arguments, or not at all."""
    if not calls:
        return None
    spellings = set()
    for call in calls:  # literals first: only they are compared by their text
        nodes = call.args + [k.value for k in call.keywords]
        if any(k.arg is None for k in call.keywords) or any(
                literal_value(node) is None for node in nodes):
            return None
        spellings.add(ast.dump(ast.Tuple(nodes, ast.Load())) +
                      str([k.arg for k in call.keywords]))
        if len(spellings) > 1:
            return None
    call = calls[0]
    return [literal_value(a) for a in call.args], \
        {k.arg: literal_value(k.value) for k in call.keywords}


def literal_value(node: ast.expr) -> Optional[Value]:
    """The abstract value of a literal argument (numbers, strings, booleans, None)."""

    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and \
            isinstance(node.operand, ast.Constant) and isinstance(node.operand.value, int):
        return IntVal(literal(-node.operand.value))
    if isinstance(node, ast.Constant):
        if isinstance(node.value, int) and not isinstance(node.value, bool):
            return IntVal(literal(node.value))
        return Const(node.value)
    return None
