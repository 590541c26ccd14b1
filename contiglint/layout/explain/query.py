"""One observed analysis of a text, and what it says of the tensors at a place.

`analyze` lints the text as `contiglint` does (same rules, same settings) with an `Observer`
attached to the flow pass, so the findings and the layouts come from the same run: the CLI's
`explain` and the language server (which keeps the `Analysis` of each buffer version and
answers hovers and inlay hints from it) never analyse a text twice.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import cached_property
from typing import Optional

from contiglint.engine import LintResult, SourceError, lint_source, parse
from contiglint.findings import Finding
from contiglint.layout.explain.chain import ChainBuilder, Step
from contiglint.layout.explain.definitions import ReachingDefinitions
from contiglint.layout.explain.describe import Layout, describe
from contiglint.layout.explain.observe import Observer
from contiglint.layout.syntax.index import ModuleIndex
from contiglint.layout.flow.program import analyze_module
from contiglint.layout.contracts.project import ProjectContracts
from contiglint.settings import Settings
from contiglint.source import SourceMap

# the nodes a place can name: a name (read, bound or a parameter), an attribute (`self.x`), and
# the operations whose result is a tensor
_NAMED = (ast.Name, ast.arg, ast.Attribute)


@dataclass
class Analysis:
    path: str
    text: str
    result: LintResult
    tree: Optional[ast.Module] = None
    observer: Optional[Observer] = None

    @cached_property
    def source(self) -> SourceMap:
        return SourceMap(self.text)

    @cached_property
    def definitions(self) -> ReachingDefinitions:
        return ReachingDefinitions(self.tree)

    @cached_property
    def spans(self) -> list[tuple[int, int, int, int, ast.AST]]:
        """Every node the analysis gave a tensor, as (line, column, end line, end column,
        node) in characters, 1-based, sorted: made once, on the first question."""
        out = []
        for node in self.observer.nodes():
            if getattr(node, "lineno", None) is None or self.observer.tensor(node) is None:
                continue
            start, end = self.source.start(node), self.source.end(node)
            if isinstance(node, ast.arg):
                end = type(end)(start.line, start.column + len(node.arg))
            out.append((start.line, start.column, end.line, end.column, node))
        out.sort(key=lambda s: s[:4])
        return out

    @cached_property
    def by_line(self) -> dict[int, list[tuple[int, int, int, int, ast.AST]]]:
        """The spans that cover each line."""
        out: dict[int, list] = {}
        for span in self.spans:
            for line in range(span[0], span[2] + 1):
                out.setdefault(line, []).append(span)
        return out

    def at(self, line: int, column: int, named_only: bool = False) -> Optional[ast.AST]:
        """The smallest node with a tensor value that covers the place (for a hover: only a
        name, a parameter or an attribute)."""
        best = None
        for start_line, start_column, end_line, end_column, node in self.by_line.get(line, ()):
            if named_only and not isinstance(node, _NAMED):
                continue
            if (start_line, start_column) <= (line, column) < (end_line, end_column) or \
                    (line, column) == (end_line, end_column) and isinstance(node, _NAMED):
                size = (end_line - start_line, end_column - start_column)
                if best is None or size < best[0]:
                    best = (size, node)
        return best[1] if best else None

    def on_line(self, line: int) -> list[ast.AST]:
        """The tensors a line is about: the names it binds; else, what its statement
        evaluates (an expression statement, a `return`); and what reaches a finding there."""
        out = [s[4] for s in self.by_line.get(line, ()) if s[0] == line
               and isinstance(s[4], ast.Name)
               and isinstance(s[4].ctx, ast.Store)]
        if not out:
            for statement in ast.walk(self.tree):
                if isinstance(statement, (ast.Expr, ast.Return)) and \
                        statement.lineno == line and statement.value is not None and \
                        self.observer.tensor(statement.value) is not None:
                    out.append(statement.value)
        for finding in self.findings_on(line):
            receiver = self.receiver_at(finding)
            if receiver is not None and receiver not in out:
                out.append(receiver)
        return out

    def receiver_at(self, finding: Finding) -> Optional[ast.AST]:
        """The tensor a method-call finding is about: the receiver of the call whose method
        name starts where the finding does."""
        for _, _, _, _, node in self.spans:
            parent = self.parents.get(node)
            if isinstance(parent, ast.Attribute) and parent.value is node:
                start, _ = self.source.attribute_name(parent)
                if (start.line, start.column - 1) == (finding.line, finding.column):
                    return node
        return None

    @cached_property
    def parents(self) -> dict[ast.AST, ast.AST]:
        return {child: node for node in ast.walk(self.tree)
                for child in ast.iter_child_nodes(node)}

    def findings_on(self, line: int) -> list[Finding]:
        return [f for f in self.result.findings if f.line <= line <= f.end_line]

    def report(self, node: ast.AST, with_chain: bool = True) -> "TensorReport":
        source = self.source
        start, end = source.start(node), source.end(node)
        text = node.arg if isinstance(node, ast.arg) else source.shorten(node, 60)
        chain, left_out = ChainBuilder(source, self.observer, self.definitions).chain(node) \
            if with_chain else ([], 0)
        return TensorReport(text, start.line, start.column, end.line, end.column,
                            self.layouts(node), chain, left_out)

    def layouts(self, node: ast.AST) -> list[tuple[str, Layout]]:
        """One layout per distinct value the node had, labelled with the calls that gave it."""
        grouped: list[tuple[list, object]] = []
        for context, value in self.observer.contexts(node).items():
            for labels, seen in grouped:
                if seen == value:
                    labels.append(context)
                    break
            else:
                grouped.append(([context], value))
        if len(grouped) == 1:
            return [("", describe(grouped[0][1]))]
        return [("; ".join(_context(c) for c in contexts), describe(value))
                for contexts, value in grouped]


def _context(chain: tuple) -> str:
    if not chain:
        return "analysed on its own (arguments unknown)"
    calls = " <- ".join(f"line {site.line}" for site in reversed(chain))
    return f"in the call from {calls}"


@dataclass
class TensorReport:
    expression: str
    line: int
    column: int
    end_line: int
    end_column: int
    layouts: list[tuple[str, Layout]]  # (call context, or "" when all agree; layout)
    chain: list[Step] = field(default_factory=list)
    left_out: int = 0

    def as_json(self) -> dict:
        return {"expression": self.expression, "line": self.line, "column": self.column,
                "end_line": self.end_line, "end_column": self.end_column,
                "layouts": [{"context": context or None, **layout.as_json()}
                            for context, layout in self.layouts],
                "chain": [step.as_json() for step in self.chain],
                "chain_steps_left_out": self.left_out}


def analyze(text: str, path: str, settings: Settings = Settings(),
            project: Optional[ProjectContracts] = None) -> Analysis:
    """Lint `text` as `lint_source` does (the same findings, the prefilter included) with the
    flow pass observed. Where no rule could fire and the text was not analysed, the flow pass
    runs for the layouts alone (no sink recorded): they are asked about all the same."""
    tree, error = parse(text, path)
    if error is not None:
        return Analysis(path, text, LintResult(errors=[error]))
    observer, index = Observer(), ModuleIndex(tree)
    result = lint_source(text, path, settings, tree, project, index, observer)
    if not observer.values and not result.errors:
        try:
            analyze_module(tree, SourceMap(text), path, project, index, contracts=False,
                           kinds=frozenset(), observer=observer)
        except (RecursionError, MemoryError):
            pass  # what the lint would report; here the layouts are simply not known
        except Exception as error:  # noqa: BLE001 - reported, as the lint reports its own
            result.errors.append(SourceError(
                path, 1, 1, f"internal error in flow analysis: {type(error).__name__}: "
                f"{error}; please report this bug with the file that caused it", "internal"))
    return Analysis(path, text, result, tree, observer)


__all__ = ["Analysis", "SourceError", "TensorReport", "analyze"]
