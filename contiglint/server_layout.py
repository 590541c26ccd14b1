"""The language server's layout features: hovers over tensor names, inlay hints after the ops
that break contiguity. Both read the `Analysis` the server made when it linted the buffer
(layout/explain/query.py): a hover or a hint never analyses the text again.

Inlay hints are off by default; a client turns them on with the initialization option
`{"inlayHints": true}`.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from lsprotocol import types

from contiglint.layout.explain.describe import describe
from contiglint.layout.explain.query import Analysis
from contiglint.layout.explain.render import hover_markdown
from contiglint.layout.model.values import Tensor

if TYPE_CHECKING:
    from contiglint.server import Linted

OPTIONS = {"inlayHints": bool}  # initialization option -> its type


@dataclass
class LayoutOptions:
    inlay_hints: bool = False


def read_options(given: object) -> tuple[LayoutOptions, list[str]]:
    """The layout options from the client's `initializationOptions`, and a message for each
    entry that is not one (unknown names and values of the wrong type are named, then
    ignored: the server still starts)."""
    options, problems = LayoutOptions(), []
    if given is None:
        return options, problems
    if not isinstance(given, dict):
        return options, [f"initializationOptions must be an object, not {type(given).__name__}"]
    for name, value in given.items():
        kind = OPTIONS.get(name)
        if kind is None:
            problems.append(f"unknown initialization option {name!r} (known: "
                            f"{', '.join(sorted(OPTIONS))})")
        elif not isinstance(value, kind):
            problems.append(f"initialization option {name!r} must be {kind.__name__}, not "
                            f"{value!r}")
        else:
            options.inlay_hints = value
    return options, problems


def warm(analysis: Analysis) -> None:
    """Make what hovers read (the positions of the tensors, the reaching definitions) where
    the lint ran, off the event loop."""
    if analysis.tree is not None:
        analysis.by_line
        analysis.definitions


def hover_at(analysis: Analysis, line: int, column: int) -> Optional[tuple[str, tuple]]:
    """The Markdown of the tensor name at a place (1-based line and character column), and
    its span (line, column, end line, end column); None where there is no tensor name."""
    if analysis.tree is None:
        return None
    node = analysis.at(line, column, named_only=True)
    if node is None:
        return None
    report = analysis.report(node)
    return hover_markdown(report), (report.line, report.column, report.end_line,
                                    report.end_column)


def breaks_contiguity(analysis: Analysis, node: ast.AST) -> Optional[str]:
    """The hint's label when `node` is the op that made its value non-contiguous."""
    value = analysis.observer.tensor(node)
    if not isinstance(value, Tensor) or not value.noncontiguous or value.origin is None:
        return None
    if (value.origin.line, value.origin.column) not in _op_positions(analysis, node):
        return None
    layout = describe(value)
    if value.kind.value == "permuted":
        what = layout.out_of_order or "dims out of order"
    elif value.kind.value == "broadcast":
        what = "overlapping"
    else:
        what = "not dense"
    return f"⟨non-contiguous: {what}{', on some paths' if value.maybe else ''}⟩"


def _op_positions(analysis: Analysis, node: ast.AST) -> tuple[tuple[int, int], ...]:
    """Where the flow pass may put an op's origin: the node's start (a torch function), or
    the `.` of a method."""
    start = analysis.source.start(node)
    func = node.func if isinstance(node, ast.Call) else node
    if isinstance(func, ast.Attribute):
        name, _ = analysis.source.attribute_name(func)
        return (start.line, start.column), (name.line, max(name.column - 1, 1))
    return ((start.line, start.column),)


def inlay_hints(analysis: Analysis, first: int, last: int) -> list[tuple[int, int, str]]:
    """(line, column after the op, label) for each contiguity-breaking op on lines
    first..last."""
    if analysis.tree is None:
        return []
    out = []
    for line, _, end_line, end_column, node in analysis.spans:
        if line > last:
            break
        if end_line < first or not isinstance(node, (ast.Call, ast.Subscript, ast.Attribute)):
            continue
        label = breaks_contiguity(analysis, node)
        if label is not None:
            out.append((end_line, end_column, label))
    return out


class LayoutFeatures:
    """The server's side (a mixin of `ContiglintServer`): LSP positions in, hovers and hints
    out, in the client's units."""

    def layout_hover(self, uri: str, linted: "Linted",
                     position: types.Position) -> Optional[tuple[str, types.Range]]:
        if linted.analysis is None:
            return None
        line, column = self.place(uri, linted, position)
        found = hover_at(linted.analysis, line, column)
        if found is None:
            return None
        return found[0], self.range(uri, linted, *found[1])

    def place(self, uri: str, linted: "Linted", position: types.Position) -> tuple[int, int]:
        """An LSP position -> a 1-based line and character column (the inverse of
        `position`)."""
        codec = self.workspace.get_text_document(uri).position_codec
        lines = linted.analysis.source.lines
        at = codec.position_from_client_units(lines, types.Position(
            line=position.line, character=position.character))
        return at.line + 1, at.character + 1

    def inlay_hints(self, uri: str, linted: "Linted", where: types.Range) -> list[types.InlayHint]:
        if linted.analysis is None:
            return []
        return [types.InlayHint(position=self.position(uri, linted, line, column),
                                label=label, kind=types.InlayHintKind.Type, padding_left=True)
                for line, column, label in inlay_hints(
                    linted.analysis, where.start.line + 1, where.end.line + 1)]
