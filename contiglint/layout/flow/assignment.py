"""Assignment in the flow pass: binding names, attributes and subscripts, unpacking."""
from __future__ import annotations

import ast
import weakref
from typing import Optional

from contiglint.layout.model.sizes import symbol
from contiglint.layout.model.path_joins import join
from contiglint.layout.model.values import (
    Const,
    Dims,
    Instance,
    IntVal,
    Mapping,
    Seq,
    Tensor,
    Value,
)


class AssignMixin:
    """The assignment of `Frame` (frame.py)."""

    def assign(self, target: ast.expr, value: Value, source: Optional[ast.expr]) -> None:
        if isinstance(target, ast.Name):
            self.count_assignment(target.id)
            if isinstance(value, IntVal) and value.size is None and source is not None and \
                    not self.loops and self.function is not None and \
                    target.id in bound_once(self.function):
                # `B = int(n / (H * W))`: a number the model does not know, the one `B` of
                # every size the code gives as B (each read was an unknown of its own)
                value = IntVal(symbol(target.id))
            self.env[target.id] = value
            self.note_sizes_of(target.id, source)
        elif isinstance(target, (ast.Tuple, ast.List)):
            self.unpack(target.elts, value)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, Seq(each=self.iterate(value)), None)
        elif isinstance(target, ast.Attribute):
            owner = self.evaluate(target.value)
            key = self.attribute_key(target)
            self.count_assignment(key or self.program.unparse(target))
            if key is not None:
                self.env[key] = value
            if isinstance(owner, Instance):
                self.program.store_attribute(owner.cls, target.attr, value)
                if source is not None and isinstance(value, Tensor):  # what escape() records
                    self.sinks.escape(target, source, value,
                                      f"stored on {self.program.unparse(target)}")
        elif isinstance(target, ast.Subscript):
            container = self.evaluate(target.value)
            key = self.evaluate(target.slice)
            if not _string_key(target.slice):  # td["obs"] = v: a tensor takes no str index
                self.sinks.inplace(target, target.value, container, "item assignment")
            if isinstance(container, Mapping):  # `cache["k"] = t`: the dict now holds t
                known = isinstance(key, Const) or (isinstance(key, IntVal) and key.size
                                                   is not None and not key.size[1])
                label = key.value if isinstance(key, Const) else \
                    key.size[0] if known else None
                self.rebind(target.value, container.stored(label, value, known))
            elif isinstance(container, Seq) and not isinstance(target.slice, ast.Slice):
                at = key.size[0] if isinstance(key, IntVal) and key.size is not None and \
                    not key.size[1] else None
                items = container.items
                if items is not None and at is not None and -len(items) <= at < len(items):
                    at %= len(items)
                    self.rebind(target.value, Seq(items[:at] + (value,) + items[at + 1:]))
                else:
                    self.rebind(target.value, Seq(each=join(container.element(), value)))

    def rebind(self, target: ast.expr, value: Value) -> None:
        """A container changed in place (`lst.append(t)`, `d[k] = t`): its name (or `self.x`
        attribute) now holds the new value."""
        if self.env is None:
            return
        if isinstance(target, ast.Name):
            self.count_assignment(target.id)
            self.env[target.id] = value
        elif isinstance(target, ast.Attribute):
            key = self.attribute_key(target)
            self.count_assignment(key or self.program.unparse(target))
            if key is not None:
                self.env[key] = value
            owner = self.evaluate(target.value)
            if isinstance(owner, Instance):
                self.program.store_attribute(owner.cls, target.attr, value)

    def unpack(self, targets: list[ast.expr], value: Value) -> None:

        stars = [i for i, t in enumerate(targets) if isinstance(t, ast.Starred)]
        if isinstance(value, Dims) or (isinstance(value, Seq) and value.items is None
                                       and value.each is None):
            sizes = value.sizes if isinstance(value, Dims) else None
            if sizes is not None and len(sizes) == len(targets) and not stars:
                for target, size in zip(targets, sizes):
                    name = target.id if isinstance(target, ast.Name) else None
                    self.assign(target, IntVal(size if size is not None else
                                               (symbol(name) if name else None)), None)
                return
            if sizes is not None and len(stars) == 1 and len(sizes) >= len(targets) - 1:
                # `*batch, d = x.shape` of x of known rank: the star takes the sizes between
                # (a size x's geometry does not name stays unknown: a name of its own would be
                # a free size no input ties to x's)
                star, after = stars[0], len(targets) - stars[0] - 1
                middle = sizes[star:len(sizes) - after]
                for target, size in zip(targets[:star] + targets[star + 1:],
                                        sizes[:star] + sizes[len(sizes) - after:]):
                    self.assign(target, IntVal(size), None)
                self.assign(targets[star].value, Seq(tuple(IntVal(s) for s in middle)), None)
                return
            for target in targets:
                name = target.id if isinstance(target, ast.Name) else None
                self.assign(target, IntVal(symbol(name) if name and not stars else None), None)
            return
        if isinstance(value, Seq) and value.items is not None and not stars \
                and len(value.items) == len(targets):
            for target, item in zip(targets, value.items):
                self.assign(target, item, None)
            return
        element = self.iterate(value)
        for target in targets:
            self.assign(target, element, None)

    def name_key(self, node: ast.expr) -> Optional[str]:
        """The flow-sensitive name a name or an attribute (`x`, `self.x`) is bound to."""
        if isinstance(node, ast.Name):
            return node.id
        return self.attribute_key(node) if isinstance(node, ast.Attribute) else None

    def attribute_key(self, node: ast.Attribute) -> Optional[str]:
        """`self.x` (or `obj.x.y`) as a flow-sensitive name, when rooted at a local name."""
        try:
            root, key = self.program.paths[node]
        except KeyError:
            root, key = self.program.paths[node] = attribute_path(node)
        if root is not None and (root == "self" or (self.env is not None and root in self.env)):
            return key
        return None


_BOUND_ONCE: "weakref.WeakKeyDictionary[ast.AST, frozenset[str]]" = weakref.WeakKeyDictionary()


def bound_once(function: ast.AST) -> frozenset[str]:
    """The names `function` binds in one place only, none of them a parameter (cached)."""
    found = _BOUND_ONCE.get(function)
    if found is not None:
        return found
    counts: dict[str, int] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            counts[node.id] = counts.get(node.id, 0) + 1
        elif isinstance(node, ast.arg):
            counts[node.arg] = 2
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and \
                node is not function:
            counts[node.name] = 2
    found = _BOUND_ONCE[function] = frozenset(n for n, c in counts.items() if c == 1)
    return found


def _string_key(index: ast.expr) -> bool:
    """A str key (`d["a"]`, `td["next", "obs"]`): the container is a mapping, never a tensor."""
    items = index.elts if isinstance(index, ast.Tuple) else [index]
    return any(isinstance(item, ast.Constant) and isinstance(item.value, str) for item in items)


def attribute_path(node: ast.Attribute) -> tuple[Optional[str], str]:
    """The name an attribute chain is rooted at and the chain's dotted text (`self`,
    "self.norm.weight"), or (None, "") when it is rooted at anything but a name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None, ""
    return node.id, ".".join([node.id] + list(reversed(parts)))
