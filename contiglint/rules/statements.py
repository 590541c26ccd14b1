"""Fixes that add whole statements: bind a `.contiguous()` copy to a name before the statement
that needs it, copy results back after it, hoist a copy above a loop.

Expression-level edits cannot fix a pointer into a temporary (it dies before the pointer is used)
or a write into a temporary copy (the write is lost): the copy must live in a name, in its own
statement. These helpers find the statement that holds a sink and check, on the `ast`, that a
statement can go before/after it without changing what runs (not an `elif` test, not a `while`
test, not inside a lambda or comprehension, alone on its lines), so linting knows which findings
are fixable without LibCST. The rewrite itself is a LibCST transformation (`contiglint.rewrite`),
made only when a fix's edits are asked for: LibCST gives the new statements their block's
indentation and the file's line endings.
"""
from __future__ import annotations

import ast
from typing import Optional

from contiglint.findings import Fix, Position, Rewrite, rewrites_available
from contiglint.rules.base import RuleContext

SIMPLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return)
SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def innermost_statement(node: ast.AST, function: Optional[ast.AST],
                        ctx: RuleContext) -> Optional[ast.stmt]:
    """The innermost statement holding `node` (in `function`, or in the module)."""
    return ctx.module.statement(node, function)


def enclosing_statement(node: ast.AST, function: Optional[ast.AST], ctx: RuleContext,
                        simple: bool = True) -> Optional[ast.stmt]:
    """The innermost statement holding `node`, when a line can be inserted before it (and,
    for `simple` statements, after it) keeping behaviour; else None."""
    found = innermost_statement(node, function, ctx)
    if found is None:
        return None
    if simple and not isinstance(found, SIMPLE):
        return None
    if not simple and isinstance(found, (ast.While, ast.FunctionDef, ast.AsyncFunctionDef,
                                         ast.ClassDef, ast.Try)):
        return None
    if any(isinstance(n, SCOPES) for n in _between(ctx, node, found)):
        return None
    line = ctx.source.line(found.lineno)
    indent = ctx.source.indentation(found.lineno)
    if ctx.source.start(found).column != len(indent) + 1 or line.lstrip().startswith("elif"):
        return None
    rest = ctx.source.line(found.end_lineno)[ctx.source.end(found).column - 1:].strip()
    if rest and not rest.startswith("#"):
        return None
    return found


def statement_fix(ctx: RuleContext, description: str, statement: ast.stmt,
                  before: tuple[str, ...] = (), after: tuple[str, ...] = (),
                  replace: tuple[tuple[ast.expr, str], ...] = (),
                  lock: Optional[ast.AST] = None, locked: bool = True) -> Optional[Fix]:
    """An unsafe fix that LibCST makes when its edits are asked for (`contiglint.rewrite`):
    `before`/`after` statements around `statement`, and `replace` expressions in it. None
    when LibCST (the `fix` extra) is not installed.

    Fixes that bind fresh names lock their scope (`lock`, the enclosing function, or the module
    when None): an empty edit at the scope's start, so the fixer applies one of them per scope
    and round and each sees the names the previous ones bound (two `k_contig = ...` in one
    scope would free the first copy while its pointer is still in use)."""
    if not rewrites_available():
        return None
    source = ctx.source
    at = Position(lock.lineno, 1) if lock is not None else Position(1, 1)
    return Fix("unsafe", None, description, Rewrite(
        source.text, source.start(statement), tuple(before), tuple(after),
        tuple((source.start(node), source.end(node), text) for node, text in replace),
        at if locked else None))


def fresh_name(ctx: RuleContext, expression: ast.expr, suffix: str) -> str:
    """`x` -> `x_contig`, `self.cache.t()` -> `cache_contig`; numbered if the name is taken."""
    base = expression
    while not isinstance(base, ast.Name):
        if isinstance(base, ast.Attribute):
            if not isinstance(base.value, (ast.Name, ast.Attribute)) or \
                    isinstance(base.value, ast.Name) and base.value.id == "self":
                break
            base = base.value
        elif isinstance(base, ast.Call) and isinstance(base.func, ast.Attribute):
            base = base.func.value
        elif isinstance(base, ast.Subscript):
            base = base.value
        else:
            break
    stem = base.id if isinstance(base, ast.Name) else \
        base.attr if isinstance(base, ast.Attribute) else "tensor"
    name, number = f"{stem}_{suffix}", 1
    taken = ctx.source.words
    while name in taken:
        number += 1
        name = f"{stem}_{suffix}{number}"
    return name


def _between(ctx: RuleContext, node: ast.AST, statement: ast.stmt) -> list[ast.AST]:
    """`node` and its ancestors below `statement`."""
    found = [node]
    for ancestor in ctx.module.ancestors(node):
        if ancestor is statement:
            break
        found.append(ancestor)
    return found


def parent_of(node: ast.AST, statement: Optional[ast.AST],
              ctx: RuleContext) -> Optional[ast.AST]:
    """The node directly holding `node` inside `statement` (None when not found)."""
    parent = ctx.module.parent(node)
    if statement is None or parent is None:
        return None
    return parent if ctx.module.contains(statement, parent) else None


def needs_parentheses(expression: ast.expr) -> bool:
    """Whether `.contiguous()` can be appended to the expression's text as it is."""
    return not isinstance(expression, (ast.Name, ast.Attribute, ast.Call, ast.Subscript))
