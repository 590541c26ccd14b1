"""Fixes that add whole statements: bind a `.contiguous()` copy to a name before the statement
that needs it, and copy results back after it.

Expression-level edits cannot fix a pointer into a temporary (it dies before the pointer is used)
or a write into a temporary copy (the write is lost): the copy must live in a name, in its own
statement. These helpers find the statement that holds a sink, check that a line can be inserted
before/after it without changing what runs (not an `elif` test, not a `while` test, not inside a
lambda or comprehension, alone on its lines), and build the edits with the statement's own
indentation and the file's own line ending.
"""
from __future__ import annotations

import ast
import re
from typing import Optional

from contiglint.findings import Edit, Position
from contiglint.rules.base import RuleContext

SIMPLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return)
SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def innermost_statement(node: ast.AST, function: Optional[ast.AST],
                        ctx: RuleContext) -> Optional[ast.stmt]:
    """The innermost statement holding `node` (in `function`, or in the module)."""
    root = function if function is not None else _module(ctx)
    found = None
    for candidate in ast.walk(root):
        if isinstance(candidate, ast.stmt) and candidate is not root and _holds(candidate, node):
            if found is None or _holds(found, candidate):
                found = candidate
    return found


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
    if any(isinstance(n, SCOPES) and _holds(n, node) for n in ast.walk(found)):
        return None
    line = ctx.source.line(found.lineno)
    indent = ctx.source.indentation(found.lineno)
    if ctx.source.start(found).column != len(indent) + 1 or line.lstrip().startswith("elif"):
        return None
    rest = ctx.source.line(found.end_lineno)[ctx.source.end(found).column - 1:].strip()
    if rest and not rest.startswith("#"):
        return None
    return found


def insert_before(ctx: RuleContext, statement: ast.stmt, code: str) -> Edit:
    indent = ctx.source.indentation(statement.lineno)
    at = Position(statement.lineno, 1)
    return Edit(at, at, f"{indent}{code}{ctx.source.newline()}")


def insert_after(ctx: RuleContext, statement: ast.stmt, code: str) -> Edit:
    indent = ctx.source.indentation(statement.lineno)
    newline = ctx.source.newline()
    if statement.end_lineno < len(ctx.source.starts) and \
            ctx.source.starts[statement.end_lineno] > ctx.source.starts[statement.end_lineno - 1]:
        at = Position(statement.end_lineno + 1, 1)
        return Edit(at, at, f"{indent}{code}{newline}")
    end = Position(statement.end_lineno, len(ctx.source.line(statement.end_lineno)) + 1)
    return Edit(end, end, f"{newline}{indent}{code}")


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
    taken = _words(ctx)
    while name in taken:
        number += 1
        name = f"{stem}_{suffix}{number}"
    return name


def _words(ctx: RuleContext) -> frozenset[str]:
    """Every word of the source, collected once per source: a search of the whole text per
    fix made fixing a big file quadratic."""
    words = getattr(ctx.source, "_contiglint_words", None)
    if words is None:
        words = frozenset(re.findall(r"\w+", ctx.source.text))
        ctx.source._contiglint_words = words
    return words


def _holds(outer: ast.AST, inner: ast.AST) -> bool:
    return (outer.lineno, outer.col_offset) <= (inner.lineno, inner.col_offset) and \
        (inner.end_lineno, inner.end_col_offset) <= (outer.end_lineno, outer.end_col_offset)


def _module(ctx: RuleContext) -> ast.Module:
    """Module-level sinks have no enclosing function: parse once per source, only then."""
    tree = getattr(ctx.source, "_contiglint_module", None)
    if tree is None:
        tree = ast.parse(ctx.source.text)
        ctx.source._contiglint_module = tree
    return tree


def parent_of(node: ast.AST, statement: Optional[ast.AST]) -> Optional[ast.AST]:
    """The node directly holding `node` inside `statement` (None when not found)."""
    if statement is None:
        return None
    for candidate in ast.walk(statement):
        for child in ast.iter_child_nodes(candidate):
            if child is node:
                return candidate
    return None


def needs_parentheses(expression: ast.expr) -> bool:
    """Whether `.contiguous()` can be appended to the expression's text as it is."""
    return not isinstance(expression, (ast.Name, ast.Attribute, ast.Call, ast.Subscript))


def scope_lock(ctx: RuleContext, function: Optional[ast.AST]) -> Edit:
    """An empty edit at the start of the enclosing scope. Fixes that bind fresh names carry it,
    so the fixer applies one of them per scope and round: each then sees the names the
    previous ones bound (two `k_contig = ...` in one scope would free the first copy while its
    pointer is still in use)."""
    at = Position(function.lineno, 1) if function is not None else Position(1, 1)
    return Edit(at, at, "")
