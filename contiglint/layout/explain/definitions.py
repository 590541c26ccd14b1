"""Which bindings of a name may reach each place it is read: reaching definitions, per scope.

Explain follows a tensor back through the assignments that made it. For that it needs, for a
name read at one place, the assignments (or the parameter) whose value it may hold. This is
the textbook analysis over the syntax tree: statements in order, both branches of an `if`
joined, loop bodies run twice so that a binding at the end of a body reaches its start.
Lambdas are not followed into. `return`, `break` and `raise` are treated as falling through,
which can only add bindings that may reach: explain then lists more than one origin, never a
wrong single one.
"""
from __future__ import annotations

import ast
from typing import Iterator

Defs = dict[str, frozenset]  # name -> the binding nodes (ast.Name stores, ast.arg) that reach
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class ReachingDefinitions:
    """The bindings that may reach each name read, for the functions (and the module body) of
    a tree. Each scope is analysed when first asked about: a hover needs one function."""

    def __init__(self, tree: ast.Module) -> None:
        self.reaching: dict[ast.Name, frozenset] = {}
        self.statement: dict[ast.AST, ast.stmt] = {}  # binding node -> its statement
        self.scopes: list[ast.AST] = [tree]
        _collect_scopes(tree.body, self.scopes)
        self.done: set[int] = set()

    def reaching_of(self, node: ast.AST) -> frozenset:
        """The bindings that may reach a name read (or an augmented assignment's target)."""
        self._analyse(self._scope_of(node))
        return self.reaching.get(node, frozenset())

    def statement_of(self, node: ast.AST):
        """The statement of a binding node; None for a parameter."""
        self._analyse(self._scope_of(node))
        return self.statement.get(node)

    def everything(self) -> "ReachingDefinitions":
        for scope in self.scopes:
            self._analyse(scope)
        return self

    def _scope_of(self, node: ast.AST) -> ast.AST:
        """The innermost function whose lines hold the node (the module when none does)."""
        line = getattr(node, "lineno", 0)
        found = self.scopes[0]
        for scope in self.scopes[1:]:
            if scope.lineno <= line <= scope.end_lineno and (
                    found is self.scopes[0] or scope.lineno >= found.lineno):
                found = scope
        return found

    def _analyse(self, scope: ast.AST) -> None:
        if id(scope) in self.done:
            return
        self.done.add(id(scope))
        if isinstance(scope, ast.Module):
            self._block(scope.body, {})
            return
        args = scope.args
        params = args.posonlyargs + args.args + args.kwonlyargs + \
            [a for a in (args.vararg, args.kwarg) if a is not None]
        self._block(scope.body, {p.arg: frozenset({p}) for p in params})

    def _block(self, body: list[ast.stmt], defs: Defs) -> Defs:
        for statement in body:
            defs = self._statement(statement, defs)
        return defs

    def _statement(self, node: ast.stmt, defs: Defs) -> Defs:
        if isinstance(node, (ast.If, ast.While)):
            self._reads(node.test, defs)
            if isinstance(node, ast.While):
                entry = _join(defs, self._block(node.body, defs))
                self._reads(node.test, entry)
                looped = _join(entry, self._block(node.body, entry))
                return self._block(node.orelse, looped)
            return _join(self._block(node.body, defs), self._block(node.orelse, defs))
        if isinstance(node, (ast.For, ast.AsyncFor)):
            self._reads(node.iter, defs)
            entry = defs
            for _ in range(2):
                bound = self._bind(node.target, entry, node)
                entry = _join(entry, self._block(node.body, bound))
            return self._block(node.orelse, entry)
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self._reads(item.context_expr, defs)
                if item.optional_vars is not None:
                    defs = self._bind(item.optional_vars, defs, node)
            return self._block(node.body, defs)
        if isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            after = self._block(node.body, defs)
            handlers = _join(defs, after)
            outs = [self._block(node.orelse, after)]
            for handler in node.handlers:
                outs.append(self._block(handler.body, handlers))
            out = outs[0]
            for other in outs[1:]:
                out = _join(out, other)
            return self._block(node.finalbody, out)
        if isinstance(node, ast.Match):
            self._reads(node.subject, defs)
            out = defs
            for case in node.cases:
                out = _join(out, self._block(case.body, defs))
            return out
        if isinstance(node, _SCOPES):
            for decorator in node.decorator_list:
                self._reads(decorator, defs)
            if isinstance(node, ast.ClassDef):
                self._block(node.body, {})  # the class body's own names
            return {k: v for k, v in defs.items() if k != node.name}
        if isinstance(node, ast.Assign):
            self._reads(node.value, defs)
            for target in node.targets:
                self._reads_in_target(target, defs)
                defs = self._bind(target, defs, node)
            return defs
        if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            if node.value is not None:
                self._reads(node.value, defs)
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                self.reaching[node.target] = defs.get(node.target.id, frozenset())
            if node.value is not None or isinstance(node, ast.AugAssign):
                return self._bind(node.target, defs, node)
            return defs
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self._reads(child, defs)
        return defs

    def _bind(self, target: ast.expr, defs: Defs, statement: ast.stmt) -> Defs:
        out = dict(defs)
        for name in _stored_names(target):
            out[name.id] = frozenset({name})
            self.statement[name] = statement
        return out

    def _reads_in_target(self, target: ast.expr, defs: Defs) -> None:
        for child in ast.walk(target):  # `x[i] = ...`, `self.a = ...`: reads of x, i, self
            if isinstance(child, (ast.Subscript, ast.Attribute)):
                self._reads(child.value, defs)

    def _reads(self, node: ast.expr, defs: Defs) -> None:
        for child in _walk_scope(node):
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
                self.reaching[child] = defs.get(child.id, frozenset())


def _collect_scopes(body: list[ast.stmt], out: list) -> None:
    """Every function defined in these statements, nested ones included (statements only:
    a lambda's names are not followed)."""
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append(statement)
        for child in ast.iter_child_nodes(statement):
            if isinstance(child, ast.stmt):
                _collect_scopes([child], out)
            elif isinstance(child, (ast.excepthandler, ast.match_case)):
                _collect_scopes(child.body, out)


def _stored_names(target: ast.expr) -> Iterator[ast.Name]:
    if isinstance(target, ast.Name):
        yield target
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _stored_names(element)
    elif isinstance(target, ast.Starred):
        yield from _stored_names(target.value)


def _walk_scope(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes of an expression, without those of nested scopes (lambdas, comprehensions:
    their names are theirs)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, (ast.Lambda,) + _COMPREHENSIONS):
            continue
        stack.extend(ast.iter_child_nodes(current))


def _join(a: Defs, b: Defs) -> Defs:
    out = dict(a)
    for name, nodes in b.items():
        out[name] = out[name] | nodes if name in out else nodes
    return out
