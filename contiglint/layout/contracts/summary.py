"""The summary pass of learned contracts over one module: each function's own evidence and
the calls that pass its parameters on (see the package docstring)."""
from __future__ import annotations

import ast
from typing import Optional

from contiglint.catalogue import contracts as catalogue
from contiglint.layout.contracts.evidence import DEFINER_NAMES, holds_evidence
from contiglint.layout.contracts.function_pass import FunctionPass
from contiglint.layout.contracts.naming import FunctionNode, Names, function_keys, is_static
from contiglint.layout.contracts.records import Edge, FunctionContract, ModuleSummary
from contiglint.layout.syntax.compiled import is_jit_kernel, kernel_signature
from contiglint.layout.syntax.index import ModuleIndex


def summarize(tree: ast.Module, module: str, path: str, is_package: bool = False,
              checkers: frozenset[str] = frozenset(),
              index: Optional[ModuleIndex] = None, lazy: bool = False) -> ModuleSummary:
    """`checkers`: names of check functions imported from other modules (runtime use);
    `index`: the module's shared walk, when the caller has one (else it is made here);
    `lazy`: a module whose functions cannot require a parameter by their own code gets a
    partial summary, without their passes (evidence.py)."""
    summary = ModuleSummary(module, path)
    index = index or ModuleIndex(tree)
    names = Names(tree, module, is_package, index)
    summary.imported_modules = tuple(names.relative)
    kernels = {node.name: kernel_signature(node, names.imports) for node in tree.body
               if isinstance(node, FunctionNode) and is_jit_kernel(node)}
    extensions = extension_names(index, names)
    classes = {f"{module}.{node.name}": node for node in index.classes}
    summary.checkers = check_functions(tree)
    checkers = summary.checkers | checkers
    summary.ops = _custom_ops(tree, index, module, names)
    summary.extensions = {name: contiguous for name, contiguous in extensions.items()}
    if lazy and not holds_evidence(index, kernels, extensions):
        summary.partial, summary.names = True, index.names
        return summary
    for key, node, cls in function_keys(tree, module):
        if node.name in kernels and key == f"{module}.{node.name}":
            continue
        function = FunctionPass(node, key, cls, module, path, names, kernels, extensions,
                                classes, index)
        function.checkers = checkers
        summary.functions[key] = function.run()
        summary.guards.update(function.guards)
        summary.launches.update(function.launches)
        for line, pairs in function.cross_strides.items():
            summary.cross_strides.setdefault(line, []).extend(pairs)
    summary.functions.update(apply_contracts(summary.functions, {
        f"{module}.{node.name}": node for node in tree.body if isinstance(node, ast.ClassDef)}))
    return summary


def apply_contracts(functions: dict[str, FunctionContract],
                    classes: dict[str, ast.ClassDef]) -> dict[str, FunctionContract]:
    """`Cls.apply` of each custom autograd Function of the module, for callers in other
    modules (`from .ops import Fused; Fused.apply(x)`): its parameters are `forward`'s after
    the context (all of them where a `setup_context` takes it), each passed on to `forward`,
    so it requires what `forward` requires once the project's contracts are resolved. A
    Function is a class with a static `forward` and a static `backward` or a base named
    `...Function`, and no `apply` of its own."""
    found = {}
    for key, node in classes.items():
        methods = {n.name: n for n in node.body if isinstance(n, FunctionNode)}
        forward = functions.get(f"{key}.forward")
        if forward is None or "forward" not in methods or "apply" in methods or \
                not is_static(methods["forward"]) or not (
                "backward" in methods and is_static(methods["backward"]) or any(
                    ast.unparse(base).endswith("Function") for base in node.bases)):
            continue
        shift = int(catalogue.forward_takes_context(methods))
        params = forward.params[shift:]
        at = methods["forward"]
        found[f"{key}.apply"] = FunctionContract(f"{key}.apply", params, (), edges=[
            Edge(param, forward.qualname, position, shift, at.lineno, at.col_offset + 1,
                 f"{node.name}.forward") for position, param in enumerate(params)])
    return found


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
    if DEFINER_NAMES.isdisjoint(index.names):
        return ops  # no definer is named: a decorator or `.impl` call names its last part
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
