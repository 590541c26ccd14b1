"""Code the module hands to compilers: functions traced by `torch.jit.trace`, and Triton kernels.

Both change what a layout means. Tracing runs Python once and records the ops it saw, so a branch
on `x.is_contiguous()` / `x.stride()` inside traced code is frozen to the example's layout with no
TracerWarning (measured). A `@triton.jit` kernel sees raw pointers: unless it receives strides it
reads memory in the order it is stored, not in the tensor's logical order. `Program` computes
both once per module; sinks carry the result in their detail.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from contiglint.catalogue import sinks

TRACERS = sinks.JIT_TRACERS
FunctionNode = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Kernel:
    """A `@...jit` function of the module launched as `kernel[grid](...)`."""

    params: tuple[str, ...]
    written: frozenset[str]  # parameters used as the pointer of `tl.store` / `tl.atomic_*`
    triton: bool
    takes_strides: bool  # some parameter is named like a stride
    # pointer parameter -> the parameters its `tl.load`/`tl.store` addresses multiply offsets by
    # (`A + pid * stride_am + n * stride_an` -> ("A", {"stride_am", "stride_an"}))
    addressing: tuple[tuple[str, frozenset[str]], ...] = ()

    def strides_of(self, pointer: str) -> frozenset[str]:
        return next((s for p, s in self.addressing if p == pointer), frozenset())


def is_jit_kernel(function: ast.AST) -> bool:
    """A function decorated with a jit (`@triton.jit`, `@numba.njit(...)`): a decorator whose
    text holds "jit"."""
    return any(_names_jit(d) and "jit" in ast.unparse(d) for d in function.decorator_list)


def _names_jit(decorator: ast.expr) -> bool:
    """Whether "jit" is in a name of the decorator (an identifier, attribute, keyword or
    parameter) or in a constant's repr: only then can its text (`ast.unparse`) hold it,
    since no Python keyword or operator does."""
    for node in ast.walk(decorator):
        if isinstance(node, ast.Constant):
            if "jit" in repr(node.value):
                return True
            continue
        for _, value in ast.iter_fields(node):
            if isinstance(value, str) and "jit" in value:
                return True
    return False


def kernel_signature(node: ast.AST, names) -> Kernel:
    spec = node.args
    params = tuple(a.arg for a in spec.posonlyargs + spec.args)
    written = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.args \
                and (call.func.attr == "store" or call.func.attr.startswith("atomic_")):
            written.update(n.id for n in ast.walk(call.args[0]) if isinstance(n, ast.Name))
    triton = any("triton" in ast.unparse(d) or
                 (names.qualname(d.func if isinstance(d, ast.Call) else d) or "")
                 .startswith("triton") for d in node.decorator_list)
    return Kernel(params, frozenset(written) & set(params), triton,
                  any("stride" in p.lower() for p in params), _addressing(node, params))


def _addressing(node: ast.AST, params: tuple[str, ...]) -> tuple[tuple[str, frozenset[str]], ...]:
    """Which parameters each pointer parameter is addressed with in the kernel's loads and
    stores. Local names are expanded through their assignments (`ptrs = A + offs * s; ...;
    tl.load(ptrs)`, `ptrs += s`); a parameter under a `*` is a stride, one added is a pointer."""
    assigned: dict[str, list[ast.expr]] = {}
    for statement in ast.walk(node):
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and \
                isinstance(statement.targets[0], ast.Name):
            assigned.setdefault(statement.targets[0].id, []).append(statement.value)
        elif isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name):
            assigned.setdefault(statement.target.id, []).append(statement.value)
    wanted = set(params)
    found: dict[str, set[str]] = {}

    def parts(expr: ast.expr, scaled: bool, seen: frozenset[str], pointers: set[str],
              strides: set[str]) -> None:
        if isinstance(expr, ast.Name):
            if expr.id in wanted and expr.id not in assigned:
                (strides if scaled else pointers).add(expr.id)
            elif expr.id not in seen:
                for value in assigned.get(expr.id, ()):
                    parts(value, scaled, seen | {expr.id}, pointers, strides)
        elif isinstance(expr, ast.BinOp):
            inner = scaled or isinstance(expr.op, ast.Mult)
            parts(expr.left, inner, seen, pointers, strides)
            parts(expr.right, inner, seen, pointers, strides)
        else:
            for child in ast.iter_child_nodes(expr):
                if isinstance(child, ast.expr):
                    parts(child, True, seen, pointers, strides)

    for call in ast.walk(node):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.args \
                and call.func.attr in ("load", "store") or isinstance(call, ast.Call) and \
                isinstance(call.func, ast.Attribute) and call.args and \
                call.func.attr.startswith("atomic_"):
            pointers: set[str] = set()
            strides: set[str] = set()
            parts(call.args[0], False, frozenset(), pointers, strides)
            for pointer in pointers:
                found.setdefault(pointer, set()).update(strides)
    return tuple((p, frozenset(s)) for p, s in sorted(found.items()))


def traced_functions(program) -> dict[ast.AST, str]:
    """Every function definition reachable from code passed to `torch.jit.trace` in the module,
    mapped to the name of what was traced. A traced class brings all its methods, and any module
    function or class named inside traced code is traced too (a submodule built in `__init__`
    runs in the traced `forward`)."""
    if "trace" not in program.source.text:
        return {}
    constructed = _constructed_classes(program)
    roots: dict[str, str] = {}
    for call in program.index.calls:
        if call.args and program.names.qualname(call.func) in TRACERS:
            for name in _traced_names(call.args[0], program, constructed):
                roots.setdefault(name, name)
    out: dict[ast.AST, str] = {}
    pending = list(roots.items())
    seen: set[str] = set()
    while pending:
        name, label = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        for node in _definitions(name, program):
            out.setdefault(node, label)
            for ref in ast.walk(node):
                if isinstance(ref, FunctionNode):  # local helpers defined in traced code
                    out.setdefault(ref, label)
                if isinstance(ref, ast.Name) and ref.id not in seen and (
                        ref.id in program.classes or ref.id in program.functions):
                    pending.append((ref.id, label))
    return out


def _definitions(name: str, program) -> list[ast.AST]:
    if name in program.classes:
        info = program.classes[name]
        nodes = list(info.methods.values())
        for base in info.bases:
            if base in program.classes and base != name:
                nodes.extend(_definitions(base, program))
        return nodes
    node = program.functions.get(name)
    return [node] if node is not None else []


def _constructed_classes(program) -> dict[str, set[str]]:
    """name -> the module classes assigned to it anywhere (`model = Net(...).eval()`)."""
    found: dict[str, set[str]] = {}
    for node in program.index.assigns:
        cls = _class_of(node.value, program)
        if cls:
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, set()).add(cls)
    return found


def _class_of(expr: ast.expr, program) -> Optional[str]:
    """`Net(...)`, `Net(...).eval()`, `Net().to(device)` -> "Net"."""
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
        expr = expr.func.value
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and \
            expr.func.id in program.classes:
        return expr.func.id
    return None


def _traced_names(expr: ast.expr, program, constructed) -> list[str]:
    if isinstance(expr, ast.Attribute) and expr.attr == "forward":
        expr = expr.value
    cls = _class_of(expr, program)
    if cls:
        return [cls]
    if isinstance(expr, ast.Name):
        if expr.id in program.functions or expr.id in program.classes:
            return [expr.id]
        return sorted(constructed.get(expr.id, ()))
    return []
