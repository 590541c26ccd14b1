"""Statement-level fixes made with LibCST, handed back as the documented range edits.

A `Rewrite` names a statement (by where it starts), statements to put before and after it, and
expression spans inside it to replace. LibCST parses the lines of the function (else the
top-level statement) that holds it, once per source text; the transformation changes only
that statement's place in its block, and LibCST renders the code with each statement's own
indentation, comments and line endings. The old and new text of the
changed lines are then diffed into `Edit`s, so the JSON schema, the fixer and every front end
keep one fix representation.

Only the fix path imports this module (`Fix.edits` does, on first use): linting never pays for
a LibCST parse, which costs ten times an `ast.parse`.
"""
from __future__ import annotations

import ast
import bisect
import difflib
import re
from dataclasses import replace
from typing import Optional, Sequence, Union

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from contiglint.findings import Edit, Position, Rewrite, line_starts

_LONE_CR = re.compile(r"\r(?!\n)")
Body = Union[cst.Module, cst.IndentedBlock]


class _Parsed:
    """The lines of the function (or top-level statement) around a rewrite, parsed by LibCST
    with positions (the expensive part, done once per function and text). An indented
    function is parsed as the block of an `if 1:` header line, so its lines keep their own
    indentation and columns."""

    def __init__(self, chunk: str, first: int, indented: bool) -> None:
        # LibCST does not round-trip lone-CR line ends; a CR -> LF swap keeps every offset.
        self.lone_cr = bool(_LONE_CR.search(chunk))
        chunk = _LONE_CR.sub("\n", chunk) if self.lone_cr else chunk
        header = "if 1:" + ("\r\n" if "\r\n" in chunk else "\n") if indented else ""
        self.text = header + chunk
        self.wrapper = MetadataWrapper(cst.parse_module(self.text), unsafe_skip_copy=True)
        self.positions = self.wrapper.resolve(PositionProvider)
        self.starts = line_starts(self.text)
        self.shift = first - 1 - bool(header)  # line L here is line L + shift of the file


_CACHE: dict[tuple[int, int, int], tuple[str, Optional[_Parsed]]] = {}
_SCOPES: dict[int, tuple[str, list[tuple[int, int, int]], list[tuple[int, int]]]] = {}


def _region(text: str, line: int) -> tuple[int, int, bool]:
    """The lines LibCST parses for a rewrite at `line`: the innermost function holding it
    (with its decorators), else the top-level statement holding it (with any statement
    sharing its lines); and whether they are indented. A fix then costs the size of its
    function, not of its class or file."""
    hit = _SCOPES.get(id(text))
    if hit is None or hit[0] is not text:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = ast.Module(body=[], type_ignores=[])
        functions = [(_first_line(node), node.end_lineno, node.col_offset)
                     for node in ast.walk(tree)
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
        top = [(_first_line(node), node.end_lineno) for node in tree.body]
        _SCOPES.clear()
        _SCOPES[id(text)] = hit = (text, functions, top)
    _, functions, top = hit
    holding = [f for f in functions if f[0] <= line <= f[1]]
    if holding:
        first, last, column = max(holding, key=lambda f: f[0])
        return first, last, column > 0
    spans = [span for span in top if span[0] <= line <= span[1]]
    if not spans:
        return 1, len(line_starts(text)), False
    first, last = spans[0]
    changed = True
    while changed:
        changed = False
        for lo, hi in top:
            if lo <= last and hi >= first and (lo < first or hi > last):
                first, last, changed = min(first, lo), max(last, hi), True
    return first, last, False


def _first_line(node: ast.AST) -> int:
    return min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])


def _parsed(text: str, region: tuple[int, int, bool]) -> Optional[_Parsed]:
    key = (id(text), *region)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is text:
        return hit[1]
    if any(cached is not text for cached, _ in _CACHE.values()):
        _CACHE.clear()  # fixes are asked for one source text at a time
    starts = line_starts(text)
    first, last, indented = region
    chunk = text[starts[first - 1]:starts[last] if last < len(starts) else len(text)]
    try:
        parsed: Optional[_Parsed] = _Parsed(chunk, first, indented)
    except (cst.ParserSyntaxError, RecursionError, ValueError):
        parsed = None  # syntax LibCST does not know yet: the fix is left out (`Fix.edits`)
    _CACHE[key] = (text, parsed)
    return parsed


def rewrite_edits(rewrite: Rewrite) -> tuple[Edit, ...]:
    """The range edits that turn `rewrite.text` into the rewritten module (none if LibCST
    cannot make the change: the statement is not alone on its lines in a block; a ValueError
    if LibCST does not parse the lines around it, or a new statement or expression)."""
    region = _region(rewrite.text, rewrite.anchor.line)
    parsed = _parsed(rewrite.text, region)
    if parsed is None:
        raise ValueError(f"LibCST does not parse lines {region[0]}-{region[1]} around it")

    def local(position: Position) -> Position:
        return Position(position.line - parsed.shift, position.column)

    transformer = _Transformer(parsed, replace(
        rewrite, anchor=local(rewrite.anchor),
        replace=tuple((local(a), local(b), t) for a, b, t in rewrite.replace)))
    new = parsed.wrapper.module.visit(transformer)
    if not transformer.done:
        return ()
    edits = [Edit(Position(e.start.line + parsed.shift, e.start.column),
                  Position(e.end.line + parsed.shift, e.end.column),
                  e.content.replace("\n", "\r") if parsed.lone_cr else e.content)
             for e in _diff(parsed, parsed.text, new.code, transformer.lines)]
    if rewrite.lock is not None:
        edits.insert(0, Edit(rewrite.lock, rewrite.lock, ""))
    return tuple(edits)


def _parse(parse, code: str):
    """`parse(code)`; a text LibCST does not parse is a ValueError that quotes it (the fix is
    then left out with that problem, see `Fix.edits`)."""
    try:
        return parse(code)
    except cst.ParserSyntaxError as error:
        raise ValueError(f"LibCST does not parse {code!r}: "
                         f"{str(error).strip().splitlines()[0]}") from None


def _code_position(position: Position) -> tuple[int, int]:
    return (position.line, position.column - 1)


def _span(code_range) -> tuple[tuple[int, int], tuple[int, int]]:
    return ((code_range.start.line, code_range.start.column),
            (code_range.end.line, code_range.end.column))


class _Transformer(cst.CSTTransformer):
    def __init__(self, parsed: _Parsed, rewrite: Rewrite) -> None:
        super().__init__()
        self.positions = parsed.positions
        self.anchor = _code_position(rewrite.anchor)
        self.replace = {(_code_position(start), _code_position(end)): text
                        for start, end, text in rewrite.replace}
        self.before = [_parse(cst.parse_statement, code) for code in rewrite.before]
        self.after = [_parse(cst.parse_statement, code) for code in rewrite.after]
        self.targets = [self.anchor, *(start for start, _ in self.replace)]
        self.done = False
        self.lines: tuple[int, int] = (0, 0)  # first and last line of the changed statement

    def on_visit(self, node: cst.CSTNode) -> bool:
        code_range = self.positions.get(node)
        if code_range is None or isinstance(node, cst.Module):
            return True
        # Only the branches that hold the anchor or a replaced span change: skip the rest.
        start, end = _span(code_range)
        return any(start <= target <= end for target in self.targets)

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):
        if isinstance(original, cst.BaseExpression) and self.replace:
            code_range = self.positions.get(original)
            span = _span(code_range) if code_range is not None else None
            if span is not None and span in self.replace:
                code = self.replace.pop(span)
                replacement = _parse(cst.parse_expression, code)
                return replacement.with_changes(lpar=updated.lpar, rpar=updated.rpar)
        if isinstance(updated, (cst.Module, cst.IndentedBlock)):
            return self._insert(original, updated)
        return updated

    def _insert(self, original: Body, updated: Body) -> Body:
        for index, statement in enumerate(original.body):
            code_range = self.positions.get(statement)
            if code_range is None or _span(code_range)[0] != self.anchor:
                continue
            if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) != 1:
                return updated  # shares its line with another statement: nothing can go there
            new = updated.body[index]
            before = list(self.before)
            if before:  # comments above the statement stay above the whole group
                before[0] = before[0].with_changes(leading_lines=new.leading_lines)
                new = new.with_changes(leading_lines=())
            body = list(updated.body)
            body[index:index + 1] = [*before, new, *self.after]
            self.done = not self.replace
            self.lines = (code_range.start.line, code_range.end.line)
            return updated.with_changes(body=body)
        return updated


def _diff(parsed: _Parsed, old: str, new: str, lines: tuple[int, int]) -> list[Edit]:
    """Edits for the lines that changed: everything before the statement's first line and
    after its last line is the same text in both (checked, not assumed)."""
    starts = parsed.starts
    first, last = lines
    lo = starts[first - 1]
    hi = starts[last] if last < len(starts) else len(old)
    tail = len(old) - hi
    if old[:lo] != new[:lo] or old[hi:] != new[len(new) - tail:]:
        raise AssertionError("LibCST changed text outside the rewritten statement")
    before = old[lo:hi].splitlines(keepends=True)
    after = new[lo:len(new) - tail].splitlines(keepends=True)
    edits: list[Edit] = []
    offsets = [lo]
    for line in before:
        offsets.append(offsets[-1] + len(line))
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        start = offsets[i1]
        edits.extend(_character_edits(starts, start, old[start:offsets[i2]],
                                      "".join(after[j1:j2])))
    return edits


def _character_edits(starts: Sequence[int], at: int, removed: str, added: str) -> list[Edit]:
    """The edits within one changed run of lines: the characters that differ, widened to
    whole words (`g` -> `g_contig`, not `g_conti` inserted before `g`), with runs of fewer
    than `_GAP` kept characters between two changes folded into one edit."""
    matcher = difflib.SequenceMatcher(None, removed, added, autojunk=False)
    spans: list[list[int]] = []  # [old start, old end, new start, new end]
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        while i1 > 0 and j1 > 0 and removed[i1 - 1] == added[j1 - 1] and \
                (removed[i1 - 1].isalnum() or removed[i1 - 1] == "_"):
            i1, j1 = i1 - 1, j1 - 1
        while i2 < len(removed) and j2 < len(added) and removed[i2] == added[j2] and \
                (removed[i2].isalnum() or removed[i2] == "_"):
            i2, j2 = i2 + 1, j2 + 1
        if spans and i1 - spans[-1][1] < _GAP and j1 - spans[-1][3] < _GAP:
            spans[-1][1], spans[-1][3] = max(spans[-1][1], i2), max(spans[-1][3], j2)
        else:
            spans.append([i1, i2, j1, j2])
    return [Edit(_position(starts, at + i1), _position(starts, at + i2), added[j1:j2])
            for i1, i2, j1, j2 in spans]


_GAP = 3


def _position(starts: Sequence[int], offset: int) -> Position:
    line = bisect.bisect_right(starts, offset)
    return Position(line, offset - starts[line - 1] + 1)
