"""Loop invariance: does an expression evaluate to the same tensor on every iteration of a loop?

Rules that suggest hoisting work out of a loop (CTG109: a `.contiguous()` copy per iteration)
need more than "no name in it is reassigned": `self.w.t()` changes when the loop stores
`self.w = ...`, and `x.t()` changes when the loop writes into `x` in place (`x.add_(1)`,
`x[i] = v`, `torch.add(a, b, out=x)`, `F.relu(x, inplace=True)`). A loop that steps an optimizer
(`opt.step()`, `loss.backward()`) mutates parameters without naming them, so nothing in it counts
as invariant. What a loop changes is computed once per loop node, kept in a side table.
"""
from __future__ import annotations

import ast
import weakref
from typing import Optional

from contiglint.catalogue.inplace import named_inplace as is_inplace_function

ANYTHING = "*"  # the loop may mutate any tensor it can reach
PARAMETER_UPDATES = frozenset({"step", "backward", "zero_grad", "load_state_dict"})
# loop node -> what `changed_in` found; weak, so a tree's entries go with the tree
_CHANGED: "weakref.WeakKeyDictionary[ast.AST, frozenset[str]]" = weakref.WeakKeyDictionary()


def chain(node: ast.expr) -> Optional[str]:
    """`self.w` for `self.w`, `x` for `x`; None when the expression is not a dotted name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id] + list(reversed(parts)))


def written_root(node: ast.expr) -> Optional[str]:
    """The dotted name whose memory a write into `node` changes: `x` for `x.t()[0]`,
    `self.cache` for `self.cache[i]`; None for a temporary (`torch.cat(...)`)."""
    while True:
        name = chain(node)
        if name is not None:
            return name
        if isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            node = node.func.value
        elif isinstance(node, ast.Attribute):
            node = node.value
        elif isinstance(node, ast.Starred):
            node = node.value
        else:
            return None


def changed_in(loop: ast.AST) -> frozenset[str]:
    """Dotted names rebound, stored to or written in place anywhere in `loop` (cached)."""
    found = _CHANGED.get(loop)
    if found is not None:
        return found
    changed: set[str] = set()
    for node in ast.walk(loop):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            changed.add(node.id)
        elif isinstance(node, (ast.Attribute, ast.Subscript)) and \
                isinstance(node.ctx, (ast.Store, ast.Del)):
            root = written_root(node)
            if root is not None:
                changed.add(root)
        elif isinstance(node, ast.Call):
            changed.update(_written_by_call(node))
    found = _CHANGED[loop] = frozenset(changed)
    return found


def _written_by_call(call: ast.Call) -> set[str]:
    func = call.func
    written: set[str] = set()
    name = func.attr if isinstance(func, ast.Attribute) else func.id \
        if isinstance(func, ast.Name) else ""
    if isinstance(func, ast.Attribute) and name in PARAMETER_UPDATES:
        written.add(ANYTHING)
    if isinstance(func, ast.Attribute) and is_inplace_function(name):
        written.add(written_root(func.value) or "")
    elif is_inplace_function(name) and call.args:  # torch.nn.init.normal_(w), torch.relu_(x)
        written.add(written_root(call.args[0]) or "")
    for keyword in call.keywords:
        if keyword.arg == "out":
            written.add(written_root(keyword.value) or "")
        elif keyword.arg == "inplace" and call.args and not (
                isinstance(keyword.value, ast.Constant) and not keyword.value.value):
            written.add(written_root(call.args[0]) or "")
    written.discard("")
    return written


def _overlaps(a: str, b: str) -> bool:
    """`self.w` and `self.w.data` name overlapping memory; `self.w` and `self.wq` do not."""
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def is_invariant(target: ast.expr, loop: ast.AST) -> bool:
    """True when `target` reads only names and attributes that `loop` neither rebinds nor
    writes into, so it evaluates to the same tensor on every iteration."""
    changed = changed_in(loop)
    if ANYTHING in changed:
        return False
    read = {chain(n) for n in ast.walk(target) if isinstance(n, (ast.Name, ast.Attribute))}
    read.discard(None)
    if not read:
        return False
    # keep the longest chains: `self.w.t` stands for `self.w` and `self`, and must not clash
    # with an unrelated `self.step_count += 1` through its bare `self` prefix
    read = {name for name in read if not any(other.startswith(name + ".") for other in read)}
    return not any(_overlaps(name, other) for name in read for other in changed)
