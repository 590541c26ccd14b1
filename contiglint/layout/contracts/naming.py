"""Names in learned contracts: a file's module name, the qualified names its local names
stand for (relative imports included), and the qualified names of its functions."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from contiglint.layout.syntax.index import ModuleIndex

FunctionNode = (ast.FunctionDef, ast.AsyncFunctionDef)


def is_static(function: ast.AST) -> bool:
    """Is the function decorated `@staticmethod`?"""
    return any(isinstance(d, ast.Name) and d.id == "staticmethod"
               for d in function.decorator_list)


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
