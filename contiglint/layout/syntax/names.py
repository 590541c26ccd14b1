"""Resolve names to what they are: `th.transpose`, `F.gelu`, `nn.Linear` -> qualified names.

One pass over the module's imports replaces scope and qualified-name metadata, which dominate
the cost of a LibCST-based linter (see docs/design.md). Imports anywhere in the file count: local
`import torch.nn.functional as F` inside a function is common in model code.
"""
from __future__ import annotations

import ast
from typing import Iterable, Optional

CANONICAL = {
    "torch.functional": "torch",
    "torch.nn.modules": "torch.nn",
    "torch._C._nn": "torch.nn.functional",
    "torch.Tensor": "torch.Tensor",
}


class ImportMap:
    def __init__(self, tree: ast.Module, imports: Optional[Iterable[ast.AST]] = None) -> None:
        """`imports`: the module's import statements in `ast.walk` order, when the caller
        has walked the tree already (a later import of a name wins)."""
        self.aliases: dict[str, str] = {}
        self._qualnames: dict[ast.expr, Optional[str]] = {}
        for node in ast.walk(tree) if imports is None else imports:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.aliases[alias.asname] = alias.name
                    else:
                        head = alias.name.split(".")[0]
                        self.aliases[head] = head
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    if alias.name != "*":
                        self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def qualname(self, node: ast.expr) -> Optional[str]:
        """`F.gelu` -> "torch.nn.functional.gelu" when `F` is an imported name; else None.
        Remembered per node: the analysis asks again each time it runs the code again."""
        try:
            return self._qualnames[node]
        except KeyError:
            found = self._qualnames[node] = self._qualname(node)
            return found

    def _qualname(self, node: ast.expr) -> Optional[str]:
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.aliases:
            return None
        parts.append(self.aliases[node.id])
        return canonical(".".join(reversed(parts)))


def canonical(qualname: str) -> str:
    for prefix, replacement in CANONICAL.items():
        if qualname == prefix or qualname.startswith(prefix + "."):
            qualname = replacement + qualname[len(prefix):]
    if qualname.startswith("torch.nn.modules."):
        # torch.nn.modules.linear.Linear -> torch.nn.Linear
        qualname = "torch.nn." + qualname.rsplit(".", 1)[-1]
    if qualname.startswith("torch.nn.functional") or qualname.startswith("torch.nn."):
        return qualname
    return qualname


def is_torch(qualname: Optional[str]) -> bool:
    return qualname is not None and (qualname == "torch" or qualname.startswith("torch."))


NOT_TENSOR_MODULES = ("numpy", "pandas", "jax", "tensorflow", "cupy", "scipy", "PIL", "cv2",
                      "math", "random", "os", "sys", "re", "json", "string")


def is_foreign(qualname: Optional[str]) -> bool:
    """Libraries whose results are not torch tensors (their `.transpose()` is not ours)."""
    return qualname is not None and qualname.split(".")[0] in NOT_TENSOR_MODULES
