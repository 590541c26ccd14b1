"""The summary pass over one function's body (see the package docstring): what its
parameters must be, from guards, raw reads, kernel launches and calls."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Optional

from contiglint.catalogue import contracts as catalogue
from contiglint.layout.contracts.guards import GuardMixin
from contiglint.layout.contracts.naming import FunctionNode, is_static
from contiglint.layout.contracts.records import (
    CHECK_PREFIX, SAVED_SLOT, Edge, Evidence, FunctionContract, Requirement, stronger,
)
from contiglint.layout.syntax.index import ModuleIndex, child_nodes


class FunctionPass(GuardMixin):
    """The summary pass over one function's body: its contract, and for the runtime watcher
    its guards and launches."""

    def __init__(self, node, key, cls, module, path, names, kernels, extensions, classes,
                 index: ModuleIndex):
        """`index`: the module's walk, whose parent links the pass reads."""
        self.node, self.key, self.cls, self.module, self.path = node, key, cls, module, path
        self.index = index
        self.names, self.kernels, self.extensions, self.classes = names, kernels, extensions, \
            classes
        spec = node.args
        self.params = tuple(a.arg for a in spec.posonlyargs + spec.args)
        self.keywords = tuple(a.arg for a in spec.kwonlyargs)
        self.tensor_params = set(self.params + self.keywords)
        self.saved, self._saved_at = self._saved_tensors() if cls and node.name == "backward" \
            else ((), None)
        self.tensor_params.update(self.saved)
        self.own = own_nodes(node)  # read by each of the passes below
        self.rebound = self._first_rebindings()
        self.contract = FunctionContract(key, self.params, self.keywords, saved=self.saved)
        self.local_functions = {n.name: f"{key}.<locals>.{n.name}" for n in node.body
                                if isinstance(n, FunctionNode)}
        self.guards: dict[int, tuple[str, str]] = {}
        self.launches: set[int] = set()
        self.cross_strides: dict[int, list[tuple[str, str, str]]] = {}
        self.checkers: frozenset[str] = frozenset()

    def _saved_tensors(self) -> tuple[tuple[str, ...], Optional[ast.AST]]:
        """`x, w = ctx.saved_tensors` at the top of a custom autograd `backward`: the tensors
        `forward` saved, by position (what `ctx.save_for_backward(...)` passed)."""
        for statement in self.node.body:
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and \
                    isinstance(statement.value, ast.Attribute) and \
                    statement.value.attr == "saved_tensors":
                target = statement.targets[0]
                names = target.elts if isinstance(target, (ast.Tuple, ast.List)) else []
                if names and all(isinstance(n, ast.Name) for n in names):
                    return tuple(n.id for n in names), statement
        return (), None

    def _first_rebindings(self) -> dict[str, int]:
        first: dict[str, int] = {}
        for node in self.own.bindings:
            if node is self._saved_at:
                continue
            targets = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
                targets = [node.target]
            elif isinstance(node, ast.NamedExpr):
                targets = [node.target]
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                targets = [node.optional_vars]
            for target in targets:
                for name in (target,) if target.__class__ is ast.Name else ast.walk(target):
                    if isinstance(name, ast.Name) and name.id in self.tensor_params:
                        line = getattr(node, "lineno", None) or name.lineno
                        first[name.id] = min(first.get(name.id, line), line)
        return first

    def live(self, name: ast.expr) -> Optional[str]:
        """The parameter `name` still holds at this point, or None."""
        if isinstance(name, ast.Name) and name.id in self.tensor_params and \
                name.id not in ("self", "cls", "ctx"):
            rebound = self.rebound.get(name.id)
            if rebound is None or name.lineno < rebound:
                return name.id
        return None

    def require(self, param: str, kind: str, node: ast.AST, what: str,
                writes: bool = False, guard: bool = False) -> None:
        """`guard`: the requirement is a check that raises; any other is a use, which is no
        contract for a parameter whose layout picks a branch (`layout_branches`)."""
        if not guard and param in self.branched:
            return
        evidence = Evidence(self.path, node.lineno, node.col_offset + 1, what)
        old = self.contract.required.get(param)
        if old is None or stronger(kind, old.kind):
            self.contract.required[param] = Requirement(kind, (evidence,), writes or
                                                        bool(old and old.writes))
        elif writes and not old.writes:
            self.contract.required[param] = Requirement(old.kind, old.evidence, True)

    def pass_on(self, edge: Edge) -> None:
        """A parameter handed to another function: what that one requires is required here,
        unless the parameter's layout picks a branch (see `require`)."""
        if edge.param not in self.branched:
            self.contract.edges.append(edge)

    def run(self) -> FunctionContract:
        written = self._written_params()
        self.branched = self.layout_branches()
        for node in self.own.checked:
            if isinstance(node, ast.Assert):
                self._guard(node.test, node, negated=False)
            elif isinstance(node, ast.If) and node.body and isinstance(node.body[0], ast.Raise):
                self._guard(node.test, node, negated=True)
            elif isinstance(node, ast.Call):
                self._call(node, written)
            elif isinstance(node, ast.Attribute) and node.attr in catalogue.RAW_ATTRIBUTES:
                self._raw_attribute(node)
        return self.contract

    def _written_params(self) -> set[str]:
        written = set()
        for node in self.own.writes:
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr.endswith("_") and not node.func.attr.startswith("_"):
                name = self.live(node.func.value)
                if name:
                    written.add(name)
            elif isinstance(node, (ast.Assign, ast.AugAssign)):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(target, ast.Subscript):
                        name = self.live(target.value)
                        if name:
                            written.add(name)
        return written

    # calls ---------------------------------------------------------------------------------
    def _call(self, node: ast.Call, written: set[str]) -> None:
        func = node.func
        qualname = self.names.qualname(func)
        if node.args and (qualname in catalogue.CHECK_FUNCTIONS or isinstance(func, ast.Name)
                          and func.id in self.checkers):
            self._any_guard(node.args[0], node, False)
            for check, param, kind in self._checks(node.args[0], False):
                self.require(param, kind, node, f"checks `{ast.unparse(check)}`", guard=True)
                self._guard_lines(node, check, kind, f"checks `{ast.unparse(check)}`")
            return
        if node.args and isinstance(func, ast.Name) and qualname and \
                not qualname.startswith(("torch.", "numpy.")):
            # a function imported from another module: a check function there (resolve()
            # decides) makes this a guard
            for check, param, kind in self._checks(node.args[0], False):
                self.contract.edges.append(Edge(param, CHECK_PREFIX + qualname, kind, 0,
                                                node.lineno, node.col_offset + 1,
                                                f"checks `{ast.unparse(check)}`"))
        if isinstance(func, ast.Attribute) and func.attr in catalogue.RAW_METHODS:
            param = self.live(func.value)
            if param and not self._identity_use(node):
                self.require(param, "full", node, f"reads the raw memory of `{param}` with "
                                                  f"`.{func.attr}()`", param in written)
            return
        if qualname in catalogue.RAW_READERS:
            for argument in node.args:
                param = self.live(argument)
                if param:
                    self.require(param, "full", node, f"reads `{param}` with `{qualname}`")
            return
        if isinstance(func, ast.Subscript) and isinstance(func.value, ast.Name) and \
                func.value.id in self.kernels:
            self._launch(node, func.value.id)
            return
        if isinstance(func, ast.Attribute) and func.attr == "save_for_backward" and self.cls \
                and self.node.name == "forward":
            for position, argument in enumerate(node.args):
                param = self.live(argument)
                if param:
                    self.pass_on(Edge(param, f"{self.cls}.backward", f"{SAVED_SLOT}{position}", 0,
                                      node.lineno, node.col_offset + 1, "ctx.save_for_backward"))
            return
        target = self._target(func, qualname)
        if target is None:
            return
        name, shift = target
        for position, argument in enumerate(node.args):
            param = self.live(argument)
            if param:
                self.pass_on(Edge(param, name, position, shift, node.lineno,
                                  node.col_offset + 1, ast.unparse(func)))
        for keyword in node.keywords:
            param = self.live(keyword.value) if keyword.arg else None
            if param:
                self.pass_on(Edge(param, name, keyword.arg, 0, node.lineno,
                                  node.col_offset + 1, ast.unparse(func)))

    def _identity_use(self, call: ast.Call) -> bool:
        parent = self.index.parent(call)
        if isinstance(parent, ast.Compare) or isinstance(parent, ast.BinOp) and \
                isinstance(parent.op, ast.Mod):
            return True
        if isinstance(parent, ast.Subscript) and parent.slice is call:
            return True
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and \
                parent.func.id in ("len", "id", "hash", "hex", "print", "str"):
            return True
        return isinstance(parent, ast.Attribute) and parent.attr in catalogue.IDENTITY_ATTRIBUTES

    def _raw_attribute(self, node: ast.Attribute) -> None:
        value = node.value
        if node.attr == "ctypes" and isinstance(value, ast.Call) and \
                isinstance(value.func, ast.Attribute) and value.func.attr == "numpy":
            value = value.func.value
        elif node.attr == "ctypes":
            return
        param = self.live(value)
        if param:
            self.require(param, "full", node, f"reads `{ast.unparse(node)}`")

    def _launch(self, node: ast.Call, kernel: str) -> None:
        signature = self.kernels[kernel]
        arguments = list(node.args) + [k.value for k in node.keywords]
        self._cross_strides(node, kernel, signature)
        for index, argument in enumerate(node.args):
            param = self.live(argument)
            if not param:
                continue
            strides = sum(1 for a in arguments for n in ast.walk(a)
                          if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and
                          n.func.attr == "stride" and isinstance(n.func.value, ast.Name) and
                          n.func.value.id == param)
            starred = any(isinstance(a, ast.Starred) and param in ast.unparse(a) and
                          "stride" in ast.unparse(a) for a in node.args)
            if starred or strides >= 2:
                continue
            kernel_param = signature.params[index] if index < len(signature.params) else None
            writes = kernel_param in signature.written
            self.launches.add(node.lineno)
            if strides == 1:
                self.require(param, "inner", node, f"launches `{kernel}` with only one stride "
                                                   f"of `{param}`", writes)
            else:
                self.require(param, "full", node, f"launches `{kernel}` with `{param}` but "
                                                  f"not its strides", writes)

    def _cross_strides(self, node: ast.Call, kernel: str, signature) -> None:
        """A pointer the kernel addresses with the strides of another tensor argument
        (`kernel[grid](a, out, a.stride(0), a.stride(1))` with `out` stored through `stride_am`,
        `stride_an`): right only while both tensors have the same strides. When `out` is a fresh
        contiguous allocation here, the parameter whose strides are used must be contiguous."""
        bound = dict(zip(signature.params, node.args))
        bound.update((k.arg, k.value) for k in node.keywords if k.arg)
        for pointer, strides in signature.addressing:
            target = bound.get(pointer)
            if not isinstance(target, ast.Name):
                continue
            sources = set()
            for stride in strides:
                value = bound.get(stride)
                if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
                        value.func.attr == "stride" and isinstance(value.func.value, ast.Name):
                    sources.add(value.func.value.id)
            if not sources or target.id in sources:
                continue
            for source in sorted(sources):
                for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                    self.cross_strides.setdefault(line, []).append((target.id, source, kernel))
                param = self.live(ast.Name(source, ast.Load(), lineno=node.lineno))
                if param and self._fresh_contiguous(target.id, node.lineno):
                    self.launches.add(node.lineno)
                    self.require(param, "full", node, f"launches `{kernel}`, which addresses "
                                                      f"`{target.id}` (allocated contiguous) "
                                                      f"with the strides of `{param}`")

    def _fresh_contiguous(self, name: str, line: int) -> bool:
        """`name` was last bound, before `line`, to a new tensor of a given shape (always
        contiguous): `torch.empty((M, N))`, `torch.zeros(...)`."""
        value = None
        for node in self.own.bindings:
            if isinstance(node, ast.Assign) and node.lineno < line and \
                    any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                if value is None or node.lineno > value.lineno:
                    value = node
        call = value.value if value is not None else None
        return isinstance(call, ast.Call) and \
            self.names.qualname(call.func) in catalogue.CONTIGUOUS_ALLOCATORS

    def _target(self, func: ast.expr, qualname: Optional[str]) -> Optional[tuple[str, int]]:
        """Where a call goes, as (qualified name, position shift), when it can matter."""
        if isinstance(func, ast.Name):
            if func.id in self.local_functions:
                return self.local_functions[func.id], 0
            if qualname:
                return qualname, 0
            return f"{self.module}.{func.id}", 0
        if not isinstance(func, ast.Attribute):
            return None
        owner = func.value
        if isinstance(owner, ast.Name) and owner.id in self.extensions:
            return f"<ext>{owner.id}.{func.attr}", 0
        if isinstance(owner, ast.Name) and owner.id in ("self", "cls") and self.cls:
            cls = self.classes.get(self.cls)
            static = cls is not None and any(
                isinstance(n, FunctionNode) and n.name == func.attr and is_static(n)
                for n in cls.body)
            return f"{self.cls}.{func.attr}", 0 if static else 1
        if isinstance(owner, ast.Name) and f"{self.module}.{owner.id}" in self.classes:
            cls = f"{self.module}.{owner.id}"
            if func.attr == "apply":  # `forward(ctx, x)`, or `forward(x)` by a setup_context
                methods = {n.name for n in self.classes[cls].body if isinstance(n, FunctionNode)}
                return f"{cls}.forward", int(catalogue.forward_takes_context(methods))
            return f"{cls}.{func.attr}", _shift(self.classes[cls], func.attr)
        if qualname and qualname.startswith("torch.ops."):
            return _op_name(qualname), 0
        if qualname and not qualname.startswith(("torch.", "numpy.")):
            return qualname, 0
        return None


def _op_name(qualname: str) -> str:
    name = qualname[len("torch.ops."):]
    parts = name.split(".")
    return "torch.ops." + ".".join(parts[:2])


def _shift(cls: ast.ClassDef, method: str) -> int:
    """`Cls.m(x)`: x is the first parameter of a staticmethod, the second of a classmethod."""
    for node in cls.body:
        if isinstance(node, FunctionNode) and node.name == method:
            decorators = {ast.unparse(d) for d in node.decorator_list}
            return 1 if "classmethod" in decorators else 0
    return 0



_NESTED = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda})
_CHECKED, _BINDS, _WRITES = 1, 2, 4
# what each pass looks for: `run` guards, calls and raw attributes; `_first_rebindings` the
# statements that bind names; `_written_params` in-place calls and subscript stores
_ROLES = {ast.Assert: _CHECKED, ast.If: _CHECKED, ast.Attribute: _CHECKED,
          ast.Call: _CHECKED | _WRITES, ast.Assign: _BINDS | _WRITES,
          ast.AugAssign: _BINDS | _WRITES, ast.AnnAssign: _BINDS, ast.For: _BINDS,
          ast.AsyncFor: _BINDS, ast.NamedExpr: _BINDS, ast.withitem: _BINDS}


@dataclass
class OwnNodes:
    """The nodes of a function body each pass looks at, depth first in source order, without
    those of nested functions and classes."""

    checked: list = field(default_factory=list)
    bindings: list = field(default_factory=list)
    writes: list = field(default_factory=list)


def own_nodes(function: ast.AST) -> OwnNodes:
    """One walk of the function body's own nodes; childless ones, such as contexts and
    operators, are never what the passes look for."""
    own = OwnNodes()
    checked, bindings, writes = own.checked, own.bindings, own.writes
    stack = list(reversed(function.body))
    pop, extend, roles, nested = stack.pop, stack.extend, _ROLES, _NESTED
    while stack:
        node = pop()
        cls = node.__class__
        role = roles.get(cls)
        if role:
            if role & _CHECKED:
                checked.append(node)
            if role & _BINDS:
                bindings.append(node)
            if role & _WRITES:
                writes.append(node)
        if cls not in nested:
            children = child_nodes(node)
            if children:
                extend(reversed(children))
    return own
