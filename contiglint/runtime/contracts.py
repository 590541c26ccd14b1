"""The static contract pass, as the runtime watcher reads it: guards and launches per line.

When a user function's `x.is_contiguous()` / `x.stride()` check runs on a non-contiguous
tensor, the watcher asks whether that line is a guard the static pass learned a contract from
(`assert x.is_contiguous()`, `if x.stride(-1) != 1: raise`, `torch._check(...)`); a Triton
launch is reported when the static pass saw it pass a tensor without its strides, or address
one tensor with another's strides. A raw read beneath a call that passes the tensor's strides
along (`kernel(x, x.stride(0), x.stride(1))`) honours the layout (`strided_calls`). Files are
summarized once, lazily, the first time an observation lands in them.
"""
from __future__ import annotations

import ast
import linecache
import sys
import threading
from typing import Optional

from contiglint.layout.contracts.naming import module_name
from contiglint.layout.contracts.records import ModuleSummary
from contiglint.layout.contracts.summary import summarize


class RuntimeContracts:
    def __init__(self) -> None:
        self._files: dict[str, Optional[ModuleSummary]] = {}
        self._strided: dict[str, dict[int, dict[str, int]]] = {}
        self._lock = threading.Lock()

    def summary(self, path: str) -> Optional[ModuleSummary]:
        with self._lock:
            if path in self._files:
                return self._files[path]
        with self._lock:
            self._files[path] = None  # while it is computed (imports may be circular)
        found = None
        text = "".join(linecache.getlines(path))
        if text:
            try:
                tree = ast.parse(text)
                found = summarize(tree, module_name(path), path, path.endswith("__init__.py"),
                                  self._imported_checkers(tree))
            except (SyntaxError, ValueError, RecursionError):
                found = None
        with self._lock:
            self._files[path] = found
        return found

    def _imported_checkers(self, tree: ast.Module) -> frozenset[str]:
        """Names imported from loaded modules that are check functions there
        (`from .utils import torch_check`)."""
        found = set()
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
                continue
            module = sys.modules.get(node.module)
            path = getattr(module, "__file__", None)
            if not path or not path.endswith(".py"):
                continue
            summary = self.summary(path)
            if summary is None:
                continue
            found.update(alias.asname or alias.name for alias in node.names
                         if alias.name in summary.checkers)
        return frozenset(found)

    def strided_calls(self, path: str) -> dict[int, dict[str, int]]:
        """line -> {name: how many of its strides a call spanning that line passes} (-1: all,
        `x.stride()` or `*x.stride()`), for the calls of the file that pass strides."""
        with self._lock:
            if path in self._strided:
                return self._strided[path]
        found: dict[int, dict[str, int]] = {}
        text = "".join(linecache.getlines(path))
        try:
            tree = ast.parse(text) if "stride" in text else None
        except (SyntaxError, ValueError, RecursionError):
            tree = None
        for node in ast.walk(tree) if tree is not None else ():
            if not isinstance(node, ast.Call):
                continue
            passed: dict[str, int] = {}
            for argument in list(node.args) + [k.value for k in node.keywords]:
                for call in ast.walk(argument):
                    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                            call.func.attr == "stride" and isinstance(call.func.value, ast.Name):
                        name = call.func.value.id
                        count = -1 if not call.args or passed.get(name) == -1 else \
                            passed.get(name, 0) + 1
                        passed[name] = count
            if passed:
                for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                    here = found.setdefault(line, {})
                    for name, count in passed.items():
                        here[name] = -1 if -1 in (count, here.get(name)) else \
                            max(count, here.get(name, 0))
        with self._lock:
            self._strided[path] = found
        return found

    def cross_strides(self, path: str, line: int) -> list[tuple[str, str, str]]:
        """(tensor, tensor whose strides address it, kernel) of a launch spanning `line`."""
        summary = self.summary(path)
        return summary.cross_strides.get(line, []) if summary is not None else []

    def guard_at(self, path: str, line: int) -> Optional[tuple[str, str]]:
        summary = self.summary(path)
        return summary.guards.get(line) if summary is not None else None

    def strideless_launch(self, path: str, line: int) -> bool:
        summary = self.summary(path)
        return summary is not None and line in summary.launches

    def op_contract(self, op: str) -> Optional[str]:
        """What the project's own definition of a custom op requires, when a summarized file
        defines it."""
        name = op[len("torch.ops."):].split(".")
        key = ".".join(name[:2])
        with self._lock:
            summaries = [s for s in self._files.values() if s is not None]
        for summary in summaries:
            impl = summary.ops.get(key)
            contract = summary.functions.get(impl) if impl else None
            if contract is not None and contract.required:
                param, requirement = next(iter(contract.required.items()))
                return (f"custom op implemented by `{impl.rsplit('.', 1)[-1]}`, which requires "
                        f"`{param}` contiguous ({requirement.evidence[-1].what})")
        return None
