"""Fixit 2 rules: contiglint's findings (and fixes) inside `fixit lint` and `fixit fix`.

Enable them in pyproject.toml::

    [tool.fixit]
    enable = ["contiglint.fixit"]

There is one Fixit rule per contiglint rule (`contiglint.fixit:CTG101`, ...). They run
contiglint's engine once per file, on the text of the module Fixit hands them, with the same
configuration as the CLI (the nearest pyproject.toml with a `[tool.contiglint]` table), so
`fixit lint` reports exactly what `contiglint` reports. A bad `[tool.contiglint]` fails each
file it covers as Fixit fails a file under a bad `[tool.fixit]`: `path: EXCEPTION: message`
naming the bad value, the file counted as one with errors, a non-zero exit. A finding with a
fix carries it as a Fixit replacement: the smallest expression or statement holding the fix's
edits, re-parsed from the fixed text (the whole module if nothing smaller renders to the same
text). Unsafe fixes are offered too and say so in their message; `fixit fix` shows each change
for review unless `--automatic` is given. One `fixit fix` pass applies what one `contiglint
--fix` round does (fixes that overlap, or bind fresh names in the same scope, wait for the next
pass).
"""
from __future__ import annotations

import os
from typing import Optional, Union

import libcst as cst
from fixit import LintRule
from fixit.config import ConfigError as FixitConfigError
from libcst.metadata import (
    CodePosition, CodeRange, FilePathProvider, ParentNodeProvider, PositionProvider,
)

from contiglint.config import ConfigError, Overrides, resolve
from contiglint.engine import LintResult, lint_source
from contiglint.findings import Finding, Fix, apply_fixes, line_starts, offset
from contiglint.rules import all_rules

Replacement = Union[cst.CSTNode, cst.FlattenSentinel, None]
_RESULTS: dict[int, tuple[cst.Module, LintResult, frozenset[int]]] = {}


def _analyse(rule: LintRule, module: cst.Module) -> tuple[LintResult, frozenset[int]]:
    """The engine's result for this module, shared by every contiglint rule in the batch,
    and which of its findings' fixes one `--fix` round would apply."""
    hit = _RESULTS.get(id(module))
    if hit is not None and hit[0] is module:
        return hit[1], hit[2]
    path = str(rule.get_metadata(FilePathProvider, module, None) or "")
    path = os.path.abspath(path) if path else os.path.join(os.getcwd(), "-")
    try:
        config = resolve(Overrides(), None, os.path.dirname(path))
    except ConfigError as error:
        # as Fixit reports a bad `[tool.fixit]` of the file's project: `path: EXCEPTION:
        # message`, the file counted as one with errors, a non-zero exit
        raise FixitConfigError(f"contiglint: {error}") from None
    result = lint_source(module.code, path, config.settings_for(path))
    fixes = [f.fix for f in result.findings if f.fix]
    accepted = frozenset(id(fix) for fix in _first_round(module.code, fixes))
    _RESULTS.clear()
    _RESULTS[id(module)] = (module, result, accepted)
    return result, accepted


def _first_round(text: str, fixes: list[Fix]) -> list[Fix]:
    """The fixes that `apply_fixes` accepts in one round, in its order."""
    accepted = []
    for fix in fixes:
        if fix.edits and apply_fixes(text, accepted + [fix])[1] == len(accepted) + 1:
            accepted.append(fix)
    return accepted


def _make_rule(code: str, summary: str):
    class Rule(LintRule):
        METADATA_DEPENDENCIES = (PositionProvider, ParentNodeProvider, FilePathProvider)
        TAGS = {"contiglint", "pytorch"}
        CODE = code

        def visit_Module(self, node: cst.Module) -> None:
            result, accepted = _analyse(self, node)
            for finding in result.findings:
                if finding.code != self.CODE:
                    continue
                fix = finding.fix if finding.fix is not None and \
                    id(finding.fix) in accepted else None
                message = finding.message
                if finding.fix is not None and finding.fix.offered and \
                        finding.fix.safety == "unsafe":
                    message += " [unsafe fix]"
                target, new = _replacement(self, node, fix) if fix else (node, None)
                self.report(target, message, position=_range(finding), replacement=new)

    Rule.__name__ = Rule.__qualname__ = code
    Rule.__doc__ = summary
    return Rule


def _range(finding: Finding) -> CodeRange:
    return CodeRange(CodePosition(finding.line, finding.column - 1),
                     CodePosition(finding.end_line, finding.end_column - 1))


def _replacement(rule: LintRule, module: cst.Module,
                 fix: Fix) -> tuple[cst.CSTNode, Replacement]:
    """(node, replacement) for the smallest node whose re-parsed fixed text renders the
    module exactly as the fix's edits do."""
    text = module.code
    edits = [e for e in fix.edits if e.content or e.start != e.end]  # scope locks are empty
    if not edits:
        return module, None
    new_text, _ = apply_fixes(text, [Fix(fix.safety, tuple(edits), fix.description)])
    starts = line_starts(text)
    lo = min(offset(starts, e.start) for e in edits)
    hi = max(offset(starts, e.end) for e in edits)
    delta = len(new_text) - len(text)
    positions = rule.metadata[PositionProvider]
    parents = rule.metadata[ParentNodeProvider]
    candidates = []
    for node, code_range in positions.items():
        start = starts[code_range.start.line - 1] + code_range.start.column
        end = starts[code_range.end.line - 1] + code_range.end.column
        if isinstance(node, cst.BaseExpression) and start <= lo and hi <= end:
            candidates.append((end - start, node, start, end, False))
        elif isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) and \
                isinstance(parents.get(node), (cst.Module, cst.IndentedBlock)):
            first = starts[code_range.start.line - 1]
            last = starts[code_range.end.line] if code_range.end.line < len(starts) \
                else len(text)
            if first <= lo and hi <= last:
                candidates.append((last - first, node, first, last, True))
    for _, node, start, end, statement in sorted(candidates, key=lambda c: c[0]):
        indent = text[start:start + positions[node].start.column] if statement else None
        new = _parse(new_text[start:end + delta], indent, node)
        if new is not None and _renders(module, node, new) == new_text:
            return node, new
    return module, cst.parse_module(new_text)


def _parse(code: str, indent: Optional[str], node: cst.CSTNode) -> Replacement:
    try:
        if indent is None:
            expression = cst.parse_expression(code)
            return expression.with_changes(lpar=node.lpar, rpar=node.rpar)
        if indent.strip():
            return None
        lines = code.splitlines(keepends=True)
        if any(line.strip() and not line.startswith(indent) for line in lines):
            return None
        body = list(cst.parse_module("".join(line[len(indent):] if line.strip() else line
                                             for line in lines)).body)
    except (cst.ParserSyntaxError, ValueError, TypeError):
        return None
    if not body:
        return None
    body[0] = body[0].with_changes(leading_lines=node.leading_lines)
    return body[0] if len(body) == 1 else cst.FlattenSentinel(body)


def _renders(module: cst.Module, node: cst.CSTNode, new: Replacement) -> Optional[str]:
    class Replace(cst.CSTTransformer):
        def on_leave(self, original, updated):
            return new if original is node else updated

    try:
        return module.visit(Replace()).code
    except Exception:  # noqa: BLE001 - a replacement libcst cannot place: try a bigger node
        return None


for _rule in all_rules():
    globals()[_rule.code] = _make_rule(_rule.code, _rule.summary)
del _rule
