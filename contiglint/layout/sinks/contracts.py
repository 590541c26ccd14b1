"""Learned contracts: which parameters of a function must be contiguous, and why.

A per-function summary pass over a module, run before the flow pass (and, for a project, over
every module first: see `runner.py`). A parameter `p` is *required contiguous* when the body,
before any rebinding of `p`:

* rejects other layouts: `assert p.is_contiguous()`, `if not p.is_contiguous(): raise ...`,
  `torch._check(p.is_contiguous(), ...)`, `assert p.stride() == (...)`; a check of only the last
  stride (`p.stride(-1) == 1`) requires unit-stride rows (an *inner* requirement);
* reads its raw memory: `p.data_ptr()` (not as an identity or alignment check),
  `p.untyped_storage()`, `p.numpy().ctypes`, `p.__cuda_array_interface__`, `torch.frombuffer`;
* launches a `@triton.jit` kernel of the module with `p` but without its strides (with one
  stride only: an inner requirement);
* passes `p` to a function that requires it: a function or method of the module (also
  `self.m(p)`, `Cls.m(p)`, static and class methods, `Cls.apply(p)` -> `Cls.forward`, functions
  returned by a factory of the module), a function imported from another module of the
  project, a custom op `torch.ops.ns.op` defined in the project with `torch.library`, or a
  function of a compiled extension module (an *unknown* contract, see catalogue/contracts.py).

`summarize()` finds the local evidence and the calls that pass parameters on; `resolve()` joins
the summaries of all modules of a project until nothing changes, so a wrapper two modules away
from the kernel inherits its contract. Everything here is plain data (picklable, JSON-able), so
summaries travel between worker processes and are cached by content hash.
"""
from __future__ import annotations

import ast
import hashlib
import json
from dataclasses import dataclass, field, replace
from typing import Iterator, Optional

from contiglint.catalogue import contracts as catalogue
from contiglint.layout.flow.compiled import is_jit_kernel, kernel_signature
from contiglint.layout.flow.index import ModuleIndex, child_nodes

FunctionNode = (ast.FunctionDef, ast.AsyncFunctionDef)
SUMMARY_TOKENS = ("is_contiguous", "stride", "data_ptr", "storage", "triton", "ctypes",
                  "frombuffer", "__cuda_array_interface__", "torch.library", "cpp_extension",
                  "import", "_check")


@dataclass(frozen=True)
class Evidence:
    """Why a parameter must be contiguous: a guard, a raw read, a launch or a call."""

    path: str
    line: int
    column: int
    what: str  # "asserts `x.is_contiguous()`", "reads `x.data_ptr()`", ...


@dataclass(frozen=True)
class Requirement:
    """`kind`: "full" (contiguous), "inner" (last stride 1), or "unknown" (an extension)."""

    kind: str
    evidence: tuple[Evidence, ...]  # outermost first: the call chain down to the guard
    writes: bool = False


CHECK_PREFIX = "<check>"
SAVED_SLOT = "saved:"  # Edge slot of a tensor `forward` saves for `backward`, by position


@dataclass(frozen=True)
class Edge:
    """`param` of the function is passed on to `target` as its argument `slot` (a position
    after `shift`, or a keyword), at `line`. A target `<check>qualname` is a layout check of
    `param` (`slot`: its kind) passed to an imported function: a guard if that function is a
    check function of the project (`torch_check(p.is_contiguous(), ...)`)."""

    param: str
    target: str  # a qualified name, "torch.ops.ns.op", or "<ext>module.function"
    slot: object
    shift: int
    line: int
    column: int
    text: str


@dataclass
class FunctionContract:
    qualname: str
    params: tuple[str, ...]  # positional parameters, in order (self, ctx and cls included)
    keywords: tuple[str, ...]  # keyword-only parameters
    required: dict[str, Requirement] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    # a custom autograd `backward`: the names it unpacks `ctx.saved_tensors` into, in order
    saved: tuple[str, ...] = ()

    def param_for(self, slot: object, shift: int = 0) -> Optional[str]:
        if isinstance(slot, str) and slot.startswith(SAVED_SLOT):
            index = int(slot[len(SAVED_SLOT):])
            return self.saved[index] if index < len(self.saved) else None
        if isinstance(slot, int):
            index = slot + shift
            return self.params[index] if 0 <= index < len(self.params) else None
        return slot if slot in self.params or slot in self.keywords else None

    def as_json(self) -> dict:
        return {"qualname": self.qualname, "params": list(self.params),
                "keywords": list(self.keywords), "required": self.required_json(),
                "edges": [vars(e) for e in self.edges], "saved": list(self.saved)}

    def required_json(self) -> dict:
        return {p: {"kind": r.kind, "writes": r.writes,
                    "evidence": [vars(e) for e in r.evidence]}
                for p, r in self.required.items()}

    @staticmethod
    def from_json(data: dict) -> "FunctionContract":
        return FunctionContract(
            data["qualname"], tuple(data["params"]), tuple(data["keywords"]),
            {p: Requirement(r["kind"], tuple(Evidence(**e) for e in r["evidence"]), r["writes"])
             for p, r in data["required"].items()},
            [Edge(**e) for e in data["edges"]], tuple(data.get("saved", ())))


@dataclass
class ModuleSummary:
    """What one module contributes to the project's contracts."""

    module: str
    path: str
    functions: dict[str, FunctionContract] = field(default_factory=dict)
    ops: dict[str, str] = field(default_factory=dict)  # "ns.op" -> implementing qualname
    extensions: dict[str, bool] = field(default_factory=dict)  # module -> made contiguous
    imported_modules: tuple[str, ...] = ()  # relative imports, resolved (for extensions)
    # for the runtime watcher, not serialized: line -> (kind, what) of each layout guard, and
    # the lines of Triton launches that pass a tensor without (all of) its strides
    guards: dict[int, tuple[str, str]] = field(default_factory=dict)
    launches: set[int] = field(default_factory=set)
    # line -> (tensor, tensor whose strides address it, kernel) of launches that address one
    # tensor argument with another's strides
    cross_strides: dict[int, list[tuple[str, str, str]]] = field(default_factory=dict)
    checkers: frozenset[str] = frozenset()  # its own functions that work like torch._check

    def as_json(self) -> dict:
        return {"module": self.module, "path": self.path,
                "functions": {k: f.as_json() for k, f in self.functions.items()},
                "ops": self.ops, "extensions": self.extensions,
                "imported_modules": list(self.imported_modules),
                "checkers": sorted(self.checkers)}

    @staticmethod
    def from_json(data: dict) -> "ModuleSummary":
        return ModuleSummary(data["module"], data["path"],
                             {k: FunctionContract.from_json(f)
                              for k, f in data["functions"].items()},
                             dict(data["ops"]), dict(data["extensions"]),
                             tuple(data["imported_modules"]),
                             checkers=frozenset(data.get("checkers", ())))


# --- naming ------------------------------------------------------------------------------------
def module_name(path: str, root: Optional[str] = None) -> str:
    """The dotted module name of a file: its path below `root` (or below the first directory
    that is not a package), without `.py`; `pkg/__init__.py` is `pkg`."""
    import os

    path = os.path.abspath(path)
    if root is not None:
        relative = os.path.relpath(path, os.path.abspath(root))
        parts = [] if relative.startswith("..") else relative.split(os.sep)
    else:
        parts = []
    if not parts:
        directory, parts = os.path.dirname(path), [os.path.basename(path)]
        while os.path.exists(os.path.join(directory, "__init__.py")):
            directory, name = os.path.split(directory)
            parts.insert(0, name)
            if not name:
                break
    parts[-1] = parts[-1][:-3] if parts[-1].endswith(".py") else parts[-1]
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(p for p in parts if p)


class Names:
    """Local names -> qualified names, relative imports included."""

    def __init__(self, tree: ast.Module, module: str, is_package: bool,
                 index: Optional[ModuleIndex] = None) -> None:
        """`index`: the module's shared walk, when the caller has one."""
        index = index or ModuleIndex(tree)
        imports = index.imports
        self.imports = index.import_map
        self.local: dict[str, str] = {}
        self.relative: list[str] = []
        package = module if is_package else module.rpartition(".")[0]
        for node in imports:
            if isinstance(node, ast.ImportFrom) and node.level:
                base = package.split(".") if package else []
                base = base[:len(base) - (node.level - 1)] if node.level > 1 else base
                prefix = ".".join(base + ([node.module] if node.module else []))
                for alias in node.names:
                    if alias.name == "*":
                        continue
                    target = f"{prefix}.{alias.name}" if prefix else alias.name
                    self.local[alias.asname or alias.name] = target
                    self.relative.append(target)

    def qualname(self, node: ast.expr) -> Optional[str]:
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in self.local:
            return ".".join([self.local[node.id]] + list(reversed(parts)))
        return self.imports.qualname(node) if not parts else self.imports.qualname(
            _rebuild(node, parts))


def _rebuild(root: ast.expr, parts: list[str]) -> ast.expr:
    node = root
    for part in reversed(parts):
        node = ast.Attribute(node, part, ast.Load())
    return node


def function_keys(tree: ast.Module, module: str) -> Iterator[tuple[str, ast.AST, Optional[str]]]:
    """(qualified name, def node, enclosing class) for every function of the module, nested
    ones named `outer.<locals>.inner` as Python does."""
    def walk(body, prefix: str, cls: Optional[str]):
        for node in body:
            if isinstance(node, FunctionNode):
                key = f"{prefix}.{node.name}"
                yield key, node, cls
                yield from walk(node.body, f"{key}.<locals>", None)
            elif isinstance(node, ast.ClassDef):
                yield from walk(node.body, f"{prefix}.{node.name}", f"{prefix}.{node.name}")
            elif isinstance(node, (ast.If, ast.Try, ast.With)):
                for part in ("body", "orelse", "finalbody"):
                    yield from walk(getattr(node, part, []) or [], prefix, cls)
    yield from walk(tree.body, module, None)


# --- the summary pass --------------------------------------------------------------------------
def summarize(tree: ast.Module, module: str, path: str, is_package: bool = False,
              checkers: frozenset[str] = frozenset(),
              index: Optional[ModuleIndex] = None) -> ModuleSummary:
    """`checkers`: names of check functions imported from other modules (runtime use);
    `index`: the module's shared walk, when the caller has one (else it is made here)."""
    summary = ModuleSummary(module, path)
    index = index or ModuleIndex(tree)
    names = Names(tree, module, is_package, index)
    summary.imported_modules = tuple(names.relative)
    kernels = {node.name: kernel_signature(node, names.imports) for node in tree.body
               if isinstance(node, FunctionNode) and is_jit_kernel(node)}
    extensions = extension_names(index, names)
    classes = {f"{module}.{node.name}": node for node in index.classes}
    checkers = check_functions(tree) | checkers
    for key, node, cls in function_keys(tree, module):
        if node.name in kernels and key == f"{module}.{node.name}":
            continue
        function = _FunctionPass(node, key, cls, module, path, names, kernels, extensions,
                                 classes)
        function.checkers = checkers
        summary.functions[key] = function.run()
        summary.guards.update(function.guards)
        summary.launches.update(function.launches)
        for line, pairs in function.cross_strides.items():
            summary.cross_strides.setdefault(line, []).extend(pairs)
    summary.ops = _custom_ops(tree, index, module, names)
    summary.checkers = check_functions(tree)
    summary.extensions = {name: contiguous for name, contiguous in extensions.items()}
    return summary


def check_functions(tree: ast.Module) -> frozenset[str]:
    """Module functions that work like `torch._check(cond, msg)`: their first parameter is
    asserted, or raised on when false (a `TORCH_CHECK` stand-in such as `_check(cond, msg)`)."""
    found = set()
    for node in tree.body:
        if not isinstance(node, FunctionNode) or not node.args.args:
            continue
        first = node.args.args[0].arg
        for statement in node.body:
            test = statement.test if isinstance(statement, (ast.Assert, ast.If)) else None
            if isinstance(statement, ast.If) and not (
                    statement.body and isinstance(statement.body[0], ast.Raise) and
                    isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)):
                continue
            if isinstance(test, ast.UnaryOp):
                test = test.operand
            if isinstance(test, ast.Name) and test.id == first:
                found.add(node.name)
    return frozenset(found)


def extension_names(index: ModuleIndex, names: Names) -> dict[str, bool]:
    """Local names bound to extension modules -> whether the module's code passes them
    `.contiguous()` tensors somewhere (then their contract is taken as "contiguous")."""
    found: dict[str, bool] = {}
    for node in index.bindings:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                _may_load(node.value.func) and \
                names.qualname(node.value.func) in catalogue.EXTENSION_LOADERS:
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = False
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                full = alias.name if isinstance(node, ast.Import) else \
                    names.local.get(alias.asname or alias.name, f"{node.module}.{alias.name}")
                if catalogue.is_extension_name(full):
                    found[alias.asname or alias.name.split(".")[0]] = False
    if not found:
        return found
    for function in index.nodes:
        if not isinstance(function, FunctionNode):
            continue
        calls = [c for c in ast.walk(function) if isinstance(c, ast.Call)]
        used = {_root_name(c.func) for c in calls if isinstance(c.func, ast.Attribute)} & \
            set(found)
        if used and any(isinstance(c.func, ast.Attribute) and c.func.attr == "contiguous"
                        for c in calls):
            for name in used:
                found[name] = True
    return found


_LOADER_NAMES = frozenset(q.rsplit(".", 1)[-1] for q in catalogue.EXTENSION_LOADERS)


def _may_load(func: ast.expr) -> bool:
    """Can the callee's qualified name be an extension loader's? The qualified name of an
    attribute ends with the attribute (`cpp_extension.load`); only a bare name can be an
    alias of a loader (`from torch.utils.cpp_extension import load as build`)."""
    return not isinstance(func, ast.Attribute) or func.attr in _LOADER_NAMES


def _root_name(node: ast.expr) -> Optional[str]:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _custom_ops(tree: ast.Module, index: ModuleIndex, module: str,
                names: Names) -> dict[str, str]:
    """`torch.library` definitions: "ns.op" -> the qualified name of its implementation."""
    ops: dict[str, str] = {}
    libraries: dict[str, str] = {}  # local name -> namespace of `Library("ns", ...)`
    for node in index.assigns:
        if isinstance(node.value, ast.Call) and \
                (names.qualname(node.value.func) or "").endswith("library.Library") and \
                node.value.args and isinstance(node.value.args[0], ast.Constant):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    libraries[target.id] = str(node.value.args[0].value)
    keys = list(function_keys(tree, module))
    functions = {n.name: key for key, n, _ in keys}
    for key, node, _ in keys:
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Call) and decorator.args and \
                    names.qualname(decorator.func) in catalogue.LIBRARY_DEFINERS and \
                    isinstance(decorator.args[0], ast.Constant) and \
                    isinstance(decorator.args[0].value, str) and \
                    "::" in decorator.args[0].value:
                ops.setdefault(decorator.args[0].value.replace("::", ".").split(".default")[0],
                               key)
    for node in index.calls:
        if not (isinstance(node.func, ast.Attribute) and
                node.func.attr == "impl" and len(node.args) >= 2):
            continue
        name, impl = node.args[0], node.args[1]
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str) and
                isinstance(impl, ast.Name) and impl.id in functions):
            continue
        library = node.func.value.id if isinstance(node.func.value, ast.Name) else None
        op = name.value.replace("::", ".") if "::" in name.value else \
            f"{libraries[library]}.{name.value}" if library in libraries else None
        if op:
            ops.setdefault(op, functions[impl.id])
    return ops


class _FunctionPass:
    def __init__(self, node, key, cls, module, path, names, kernels, extensions, classes):
        self.node, self.key, self.cls, self.module, self.path = node, key, cls, module, path
        self.names, self.kernels, self.extensions, self.classes = names, kernels, extensions, \
            classes
        spec = node.args
        self.params = tuple(a.arg for a in spec.posonlyargs + spec.args)
        self.keywords = tuple(a.arg for a in spec.kwonlyargs)
        self.tensor_params = set(self.params + self.keywords)
        self.saved, self._saved_at = self._saved_tensors() if cls and node.name == "backward" \
            else ((), None)
        self.tensor_params.update(self.saved)
        self.own = _own_nodes(node)  # read by each of the passes below
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
        for node in self.own:
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
                writes: bool = False) -> None:
        evidence = Evidence(self.path, node.lineno, node.col_offset + 1, what)
        old = self.contract.required.get(param)
        if old is None or _stronger(kind, old.kind):
            self.contract.required[param] = Requirement(kind, (evidence,), writes or
                                                        bool(old and old.writes))
        elif writes and not old.writes:
            self.contract.required[param] = Requirement(old.kind, old.evidence, True)

    def run(self) -> FunctionContract:
        written = self._written_params()
        for node in self.own:
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
        for node in self.own:
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

    # guards --------------------------------------------------------------------------------
    def _guard(self, test: ast.expr, where: ast.AST, negated: bool) -> None:
        self._any_guard(test, where, negated)
        for check, param, kind in self._checks(test, negated):
            what = f"raises if `{ast.unparse(test)}`" if negated else \
                f"asserts `{ast.unparse(check)}`"
            self.require(param, kind, where, what)
            self._guard_lines(where, check, kind, what)

    def _any_guard(self, test: ast.expr, where: ast.AST, negated: bool) -> None:
        """For the runtime watcher: a guard on any tensor (a loop variable over a list
        parameter, a local), not only on parameters, rejects a layout when it fails."""
        for node in ast.walk(test):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in ("is_contiguous", "stride") and \
                    isinstance(node.func.value, ast.Name):
                kind = "full" if node.func.attr == "is_contiguous" else "inner" if \
                    node.args and _last_index(node.args[0]) else "stride"
                what = f"raises if `{ast.unparse(test)}`" if negated else \
                    f"asserts `{ast.unparse(test)}`"
                self._guard_lines(where, node, kind, what)

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

    # calls ---------------------------------------------------------------------------------
    def _call(self, node: ast.Call, written: set[str]) -> None:
        func = node.func
        qualname = self.names.qualname(func)
        if node.args and (qualname in catalogue.CHECK_FUNCTIONS or isinstance(func, ast.Name)
                          and func.id in self.checkers):
            self._any_guard(node.args[0], node, False)
            for check, param, kind in self._checks(node.args[0], False):
                self.require(param, kind, node, f"checks `{ast.unparse(check)}`")
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
                    self.contract.edges.append(Edge(
                        param, f"{self.cls}.backward", f"{SAVED_SLOT}{position}", 0,
                        node.lineno, node.col_offset + 1, "ctx.save_for_backward"))
            return
        target = self._target(func, qualname)
        if target is None:
            return
        name, shift = target
        for position, argument in enumerate(node.args):
            param = self.live(argument)
            if param:
                self.contract.edges.append(Edge(param, name, position, shift, node.lineno,
                                                node.col_offset + 1, ast.unparse(func)))
        for keyword in node.keywords:
            param = self.live(keyword.value) if keyword.arg else None
            if param:
                self.contract.edges.append(Edge(param, name, keyword.arg, 0, node.lineno,
                                                node.col_offset + 1, ast.unparse(func)))

    def _identity_use(self, call: ast.Call) -> bool:
        parent = _parents(self.node).get(id(call))
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
        for node in _own_nodes(self.node):
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
                isinstance(n, FunctionNode) and n.name == func.attr and
                "staticmethod" in {ast.unparse(d) for d in n.decorator_list} for n in cls.body)
            return f"{self.cls}.{func.attr}", 0 if static else 1
        if isinstance(owner, ast.Name) and f"{self.module}.{owner.id}" in self.classes:
            cls = f"{self.module}.{owner.id}"
            if func.attr == "apply":
                return f"{cls}.forward", 1
            return f"{cls}.{func.attr}", _shift(self.classes[cls], func.attr)
        if qualname and qualname.startswith("torch.ops."):
            return _op_name(qualname), 0
        if qualname and not qualname.startswith(("torch.", "numpy.")):
            return qualname, 0
        return None


def _last_index(node: ast.expr) -> bool:
    return isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant) and \
        node.operand.value == 1


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


def _stronger(new: str, old: str) -> bool:
    order = {"unknown": 0, "inner": 1, "full": 2}
    return order[new] > order[old]


_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _own_nodes(function: ast.AST) -> list[ast.AST]:
    """The nodes of a function body that can have children, depth first in source order,
    without those of nested functions and classes (childless ones, such as contexts and
    operators, are never what the passes look for)."""
    out: list[ast.AST] = []
    stack = list(reversed(function.body))
    append, pop, extend, nested = out.append, stack.pop, stack.extend, _NESTED
    while stack:
        node = pop()
        append(node)
        if not isinstance(node, nested):
            children = child_nodes(node)
            if children:
                extend(reversed(children))
    return out


_PARENTS: dict[int, tuple[ast.AST, dict[int, ast.AST]]] = {}


def _parents(function: ast.AST) -> dict[int, ast.AST]:
    cached = _PARENTS.get(id(function))
    if cached is not None and cached[0] is function:
        return cached[1]
    parents = {id(child): node for node in ast.walk(function)
               for child in ast.iter_child_nodes(node)}
    if len(_PARENTS) > 64:
        _PARENTS.clear()
    _PARENTS[id(function)] = (function, parents)
    return parents


# --- the project ---------------------------------------------------------------------------------
@dataclass
class ProjectContracts:
    """Resolved contracts of every function of the project, by qualified name."""

    functions: dict[str, FunctionContract] = field(default_factory=dict)
    ops: dict[str, str] = field(default_factory=dict)
    modules: frozenset[str] = frozenset()
    extensions: dict[str, dict[str, bool]] = field(default_factory=dict)  # module -> names
    checkers: frozenset[str] = frozenset()  # qualified names of check functions
    # the summary the project run already made of the module being linted, and the digest of
    # the text it was made from (`text_digest`): reused while the text is the same
    own: Optional[ModuleSummary] = None
    own_digest: str = ""
    # when not None, every answer a flow pass gets from these contracts is written here (see
    # `Asked`): a result linted with stand-in contracts stands if the real ones answer the same
    asked: Optional[dict] = None
    # `digest()`, once computed: the project run's contracts are resolved once, and each
    # file's copy (`with_own`) keeps it instead of serializing every contract again
    digested: str = field(default="", repr=False, compare=False)

    def with_own(self, summary: Optional[ModuleSummary], digest: str) -> "ProjectContracts":
        return replace(self, own=summary, own_digest=digest) if summary is not None else self

    def lookup(self, qualname: str) -> Optional[FunctionContract]:
        if qualname.startswith("torch.ops."):
            impl = self.ops.get(qualname[len("torch.ops."):])
            found = self.functions.get(impl) if impl else None
        else:
            found = self.functions.get(qualname)
        if self.asked is not None:
            self.asked.setdefault(("lookup", qualname), fingerprint(found))
        return found

    def is_compiled_module(self, qualname: str) -> bool:
        """A relative import of a module the project holds no Python file for (`from . import
        _C` next to a built extension), or one named like an extension."""
        found = catalogue.is_extension_name(qualname) or bool(
            self.modules and qualname not in self.modules and
            qualname.rpartition(".")[0] in self.modules)
        if self.asked is not None:
            self.asked.setdefault(("compiled", qualname), fingerprint(found))
        return found

    def answers(self, asked: dict) -> bool:
        """Do these contracts give every answer recorded in `asked`?"""
        for (what, name), recorded in asked.items():
            answer = self.lookup(name) if what == "lookup" else \
                self.is_compiled_module(name) if what == "compiled" else \
                getattr(self, what).get(name)  # "functions", "extensions"
            if fingerprint(answer) != recorded:
                return False
        return True

    def digest(self) -> str:
        """Changes whenever a contract any caller can see changes (for the result cache).
        Computed once: the contracts are final once resolved (a lint resolves its own
        module's again, which adds nothing to what the whole project's resolution found)."""
        if not self.digested:
            required = {k: f.required_json() for k, f in sorted(self.functions.items())
                        if f.required}
            text = json.dumps([required, sorted(self.ops.items())], sort_keys=True)
            self.digested = hashlib.sha256(text.encode()).hexdigest()
        return self.digested

    def exported(self) -> "ProjectContracts":
        """Only what other modules need: functions with requirements, and the op table."""
        return ProjectContracts({k: f for k, f in self.functions.items() if f.required},
                                dict(self.ops), self.modules, self.extensions, self.checkers)


class Asked(dict):
    """A table of the contracts whose reads are recorded: `name in table`, `table[name]` and
    `table.get(name)` write the answer to `asked` (what is read, from `ProjectContracts`'s
    field `what`). Only the first answer of each name is kept."""

    def __init__(self, items: dict, asked: dict, what: str) -> None:
        super().__init__(items)
        self.asked, self.what = asked, what

    def _note(self, name) -> None:
        self.asked.setdefault((self.what, name), fingerprint(dict.get(self, name)))

    def __contains__(self, name) -> bool:
        self._note(name)
        return dict.__contains__(self, name)

    def __getitem__(self, name):
        self._note(name)
        return dict.__getitem__(self, name)

    def get(self, name, default=None):
        self._note(name)
        return dict.get(self, name, default)


def fingerprint(answer: object) -> str:
    """A short text equal for equal answers: the reprs of these dataclasses show every field,
    so equal texts mean equal values (a table's order aside, which can only make two equal
    answers look different)."""
    text = repr(sorted(answer.items()) if isinstance(answer, dict) else answer)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def resolve(summaries: list[ModuleSummary]) -> ProjectContracts:
    """Join module summaries: a parameter passed on to a function that requires it is required
    too, until nothing changes (each round adds requirements, so this terminates)."""
    project = ProjectContracts()
    project.modules = frozenset(s.module for s in summaries)
    for summary in summaries:
        project.functions.update(summary.functions)
        for op, impl in summary.ops.items():
            project.ops.setdefault(op, impl)
        project.extensions[summary.module] = dict(summary.extensions)
    project.checkers = frozenset(f"{s.module}.{name}" for s in summaries for name in s.checkers)
    by_module = {s.module: s for s in summaries}
    # An edge's requirement is read from its target's requirements (or from what does not
    # change here: checkers, extensions, the modules). It is computed again only when the
    # target's requirements changed since: then it could be stronger; else it is what it was,
    # and the parameter already holds it (requirements only grow).
    changes: dict[int, int] = {}  # id(contract) -> how often its requirements changed
    # per contract with edges, per edge: its target (None: none read) and the target's count
    # when the edge was last computed (-1: never)
    edges = [(contract, [project.lookup(e.target) if _edge_kind(e) == "callee" else None
                         for e in contract.edges], [-1] * len(contract.edges))
             for contract in project.functions.values() if contract.edges]
    changed = True
    rounds = 0
    while changed and rounds < 20:
        changed, rounds = False, rounds + 1
        for contract, targets, seen in edges:
            for at, edge in enumerate(contract.edges):
                target = targets[at]
                count = changes.get(id(target), 0) if target is not None else 0
                if seen[at] == count:
                    continue
                seen[at] = count
                requirement = _edge_requirement(project, by_module, contract, edge)
                if requirement is None:
                    continue
                old = contract.required.get(edge.param)
                if old is None or _stronger(requirement.kind, old.kind) or \
                        (requirement.writes and not old.writes):
                    kind = requirement.kind if old is None or \
                        _stronger(requirement.kind, old.kind) else old.kind
                    evidence = requirement.evidence if old is None or \
                        _stronger(requirement.kind, old.kind) else old.evidence
                    contract.required[edge.param] = Requirement(
                        kind, evidence, requirement.writes or bool(old and old.writes))
                    changes[id(contract)] = changes.get(id(contract), 0) + 1
                    changed = True
    return project


def _edge_kind(edge: Edge) -> str:
    """What an edge passes its parameter to: a layout checker ("check"), an extension
    function ("extension"), or a function whose contract `_edge_requirement` looks up
    ("callee")."""
    if edge.target.startswith(CHECK_PREFIX):
        return "check"
    return "extension" if edge.target.startswith("<ext>") else "callee"


def _edge_requirement(project: ProjectContracts, by_module: dict[str, ModuleSummary],
                      contract: FunctionContract, edge: Edge) -> Optional[Requirement]:
    path = _path_of(by_module, contract.qualname)
    kind = _edge_kind(edge)
    if kind == "check":
        checker = edge.target[len(CHECK_PREFIX):]
        if checker not in project.checkers:
            return None
        return Requirement(edge.slot, (Evidence(path, edge.line, edge.column, edge.text),))
    here = Evidence(path, edge.line, edge.column, f"passes `{edge.param}` to `{edge.text}`")
    if kind == "extension":
        module = _module_of(by_module, contract.qualname)
        contiguous = project.extensions.get(module, {}).get(edge.target[5:].split(".")[0])
        return Requirement("unknown" if not contiguous else "full", (
            Evidence(path, edge.line, edge.column, f"passes `{edge.param}` to the extension "
                                                   f"function `{edge.text}`"),))
    target = project.lookup(edge.target)
    if target is None and not edge.target.startswith("torch.ops."):
        # a compiled module imported by the project: `from . import _C; _C.fwd(x)`
        owner = edge.target.rpartition(".")[0]
        summary = by_module.get(_module_of(by_module, contract.qualname))
        imported = summary.imported_modules if summary is not None else ()
        if owner and (owner in imported or catalogue.is_extension_name(owner)) and \
                project.is_compiled_module(owner):
            return Requirement("unknown", (here,))
        return None
    if target is None:
        return None
    param = target.param_for(edge.slot, edge.shift)
    requirement = target.required.get(param) if param else None
    if requirement is None or target is contract and param == edge.param:
        return None
    return Requirement(requirement.kind, (here,) + requirement.evidence[:4], requirement.writes)


def _module_of(by_module: dict[str, ModuleSummary], qualname: str) -> str:
    parts = qualname.split(".")
    for end in range(len(parts) - 1, 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in by_module:
            return candidate
    return ""


def _path_of(by_module: dict[str, ModuleSummary], qualname: str) -> str:
    summary = by_module.get(_module_of(by_module, qualname))
    return summary.path if summary else ""


def module_contracts(tree: ast.Module, module: str, path: str, is_package: bool,
                     project: Optional[ProjectContracts],
                     digest_of: str = "",
                     index: Optional[ModuleIndex] = None) -> ProjectContracts:
    """The contracts the flow pass of one module sees: its own, resolved together with those
    the project run computed for the other modules. `digest_of`: the `text_digest` of the
    module's text; the project run's own summary of it (`project.own`) is reused when it was
    made from the same text (a check run), and recomputed otherwise (a fix run's rewrites).
    `index`: the module's shared walk."""
    own = project.own if project is not None and project.own is not None and \
        project.own.module == module and project.own.path == path and \
        project.own_digest == digest_of else None
    if own is None:
        own = summarize(tree, module, path, is_package, index=index)
    resolved = resolve([own])
    if project is None:
        return resolved
    for key, contract in project.functions.items():
        resolved.functions.setdefault(key, contract)
    for op, impl in project.ops.items():
        resolved.ops.setdefault(op, impl)
    resolved.modules = project.modules | {module}
    resolved.checkers = resolved.checkers | project.checkers
    for name, found in project.extensions.items():
        resolved.extensions.setdefault(name, found)
    by_module = {own.module: own}
    changed, rounds = True, 0
    while changed and rounds < 20:
        changed, rounds = False, rounds + 1
        for key in own.functions:
            contract = resolved.functions[key]
            for edge in contract.edges:
                requirement = _edge_requirement(resolved, by_module, contract, edge)
                old = contract.required.get(edge.param)
                if requirement is not None and (old is None or
                                                _stronger(requirement.kind, old.kind)):
                    contract.required[edge.param] = requirement
                    changed = True
    if project.asked is not None:  # the flow pass's reads from here on are recorded
        resolved.asked = project.asked
        resolved.functions = Asked(resolved.functions, project.asked, "functions")
        resolved.extensions = Asked(resolved.extensions, project.asked, "extensions")
    return resolved
