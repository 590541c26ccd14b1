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

from contiglint.findings import Fix, Position, Rewrite
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
    `before`/`after` statements around `statement`, and `replace` expressions in it. Without
    LibCST (the `fix` extra) it makes no edits and is not offered (the CLI says what adds it).
    Text that does not parse as one statement (or expression) gives a fix with no edits and
    the problem, which the CLI reports: the finding stays.

    Fixes that bind fresh names lock their scope (`lock`, the enclosing function, or the module
    when None): an empty edit at the scope's start, so the fixer applies one of them per scope
    and round and each sees the names the previous ones bound (two `k_contig = ...` in one
    scope would free the first copy while its pointer is still in use)."""
    if any(isinstance(node, ast.Starred) for node, _ in replace):
        return None  # `*[t]` stands for any number of arguments: no one copy replaces it
    problem = _unparsable(before + after, tuple(text for _, text in replace))
    if problem:
        return Fix("unsafe", (), description, problem=problem)
    source = ctx.source
    at = Position(lock.lineno, 1) if lock is not None else Position(1, 1)
    return Fix("unsafe", None, description, Rewrite(
        source.text, source.start(statement), tuple(before), tuple(after),
        tuple((source.start(node), source.end(node), text) for node, text in replace),
        at if locked else None))


def _unparsable(statements: tuple[str, ...], expressions: tuple[str, ...]) -> Optional[str]:
    """The first text that is not one statement (one expression), as a problem; else None."""
    for text, mode in [(t, "exec") for t in statements] + [(t, "eval") for t in expressions]:
        try:
            tree = ast.parse(text, mode=mode)
        except (SyntaxError, ValueError):
            tree = None
        if tree is None or mode == "exec" and len(tree.body) != 1:
            kind = "statement" if mode == "exec" else "expression"
            return f"its text {text!r} is not one {kind}"
    return None


def operand(ctx: RuleContext, expression: ast.expr) -> str:
    """The source text of `expression`, ready to take `.contiguous()` or `.copy_(...)` in a
    statement of its own: parenthesised unless it is a name, attribute, call or subscript on
    one line (`a if c else b`, `(x := y)`, `a + b`, or anything spanning lines, whose line
    breaks and comments need the brackets)."""
    text = ctx.source.segment(expression)
    if needs_parentheses(expression) or "\n" in text or "\r" in text:
        return f"({text})"
    return text


def one_line(text: str) -> str:
    """`text` with its runs of white space (line breaks too) as single spaces: a fix's
    description is one line."""
    return " ".join(text.split())


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


def _between(ctx: RuleContext, node: ast.AST, statement: ast.AST) -> list[ast.AST]:
    """`node` and its ancestors below `statement` (a statement or a function)."""
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


# methods that keep their argument beyond the call: a container's, a queue's
STORING_METHODS = frozenset({"append", "appendleft", "extend", "extendleft", "insert", "add",
                             "update", "setdefault", "put", "put_nowait"})
# calls whose result reads the memory at an address it is given (a ctypes array at an
# address, a numpy array over a buffer): the result carries the pointer on
ALIASING_CALLS = frozenset({"from_address", "from_buffer", "cast", "c_void_p", "frombuffer",
                            "as_array", "from_blob", "memoryview"})
NESTED_SCOPES = (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
LOOPS = (ast.For, ast.AsyncFor, ast.While)


def escapes(node: ast.expr, function: Optional[ast.AST], ctx: RuleContext) -> bool:
    """Whether the value of `node`, or a value computed from it, can outlive the current call
    of `function`, so that a copy bound to a local name before `node`'s statement would be
    freed while the value is still in use: it is returned or yielded; stored in an attribute, a
    subscript, a global or nonlocal name, or a container (`append`, `add`, `update`, ...);
    captured by a nested function, lambda or class; or, in a loop, accumulated into a name
    across iterations (`ptrs += [p]`), whose earlier copies the next iteration frees. Values
    are followed through the local names they are bound to, anywhere in the function, and
    through expressions made from them; a call's result carries the value on only for calls
    that alias memory at an address (`from_address`, `frombuffer`, ...): other calls use the
    pointer and return something else. At module level nothing escapes: the copy is a global
    and lives as long as the module."""
    if function is None:
        return False
    declared = {name for n in ast.walk(function) if isinstance(n, (ast.Global, ast.Nonlocal))
                for name in n.names}
    loads: dict[str, list[ast.Name]] = {}
    for n in ast.walk(function):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            loads.setdefault(n.id, []).append(n)
    carriers, bound = [node], set()
    while carriers:
        carrier = carriers.pop()
        names = _flows_into(carrier, function, ctx)
        if names is None or names & declared:
            return True
        for name in names - bound:
            bound.add(name)
            carriers.extend(loads.get(name, ()))
    return False


def _flows_into(carrier: ast.expr, function: ast.AST, ctx: RuleContext) -> Optional[set[str]]:
    """The local names `carrier`'s value is bound to in its statement; None when the value
    leaves the call of `function` there (see `escapes`)."""
    around = _between(ctx, carrier, function)[1:]
    if any(isinstance(a, NESTED_SCOPES) for a in around):
        return None
    child: ast.AST = carrier
    for parent in around:
        if isinstance(parent, (ast.Return, ast.Yield, ast.YieldFrom)):
            return None
        if isinstance(parent, ast.Call) and child is not parent.func:
            callee = parent.func.attr if isinstance(parent.func, ast.Attribute) else \
                parent.func.id if isinstance(parent.func, ast.Name) else ""
            if callee in STORING_METHODS:
                return None
            if callee not in ALIASING_CALLS:
                return set()  # a use: the callee reads through the pointer and returns
        if isinstance(parent, ast.Compare) or isinstance(parent, ast.UnaryOp) and \
                isinstance(parent.op, ast.Not) or isinstance(parent, ast.BinOp) and \
                isinstance(parent.op, ast.Mod):
            return set()  # a truth value or an alignment, not an address
        if isinstance(parent, ast.NamedExpr) and child is parent.value:
            return {parent.target.id}
        if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and \
                child is parent.value:
            return _bound_names(parent, function, ctx)
        if isinstance(parent, (ast.For, ast.AsyncFor)) and child is parent.iter or \
                isinstance(parent, ast.withitem) and child is parent.context_expr:
            target = parent.target if isinstance(parent, (ast.For, ast.AsyncFor)) else \
                parent.optional_vars
            return _names(target) if target is not None else set()
        if isinstance(parent, ast.stmt):
            return set()  # a use (a test, an expression statement): it goes nowhere
        child = parent
    return set()


def _bound_names(statement: ast.stmt, function: ast.AST, ctx: RuleContext
                 ) -> Optional[set[str]]:
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    names: set[str] = set()
    for target in targets:
        found = _names(target)
        if found is None:
            return None  # an attribute, a subscript: stored beyond the call
        names |= found
    in_loop = any(isinstance(a, LOOPS) for a in _between(ctx, statement, function))
    if in_loop and (isinstance(statement, ast.AugAssign) or any(
            isinstance(n, ast.Name) and n.id in names for n in ast.walk(statement.value))):
        return None  # accumulated across iterations
    return names


def _names(target: ast.expr) -> Optional[set[str]]:
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        names: set[str] = set()
        for element in target.elts:
            found = _names(element.value if isinstance(element, ast.Starred) else element)
            if found is None:
                return None
            names |= found
        return names
    return None
