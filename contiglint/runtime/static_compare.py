"""`contiglint run --explain`: what static analysis inferred at each reported site, next to what
torch really made there, and whether they disagree.

For a site (file, line, op) the file is analysed once with the flow pass observed
(layout/explain/query.py); the tensor the op received is found by the op's name on that line
(the receiver of a method, else its first tensor argument). Only what the engine claims is
compared (a literal size, a stride it knows, contiguous yes or no); a claim torch refutes is a
model error of contiglint's, reported as such. Never imports torch.
"""
from __future__ import annotations

import ast
from typing import Optional

from contiglint.layout.explain.describe import Layout, describe
from contiglint.layout.explain.query import Analysis, analyze
from contiglint.layout.model.concrete import is_contiguous


class StaticView:
    """Analyses each file of a report at most once."""

    def __init__(self) -> None:
        self.analyses: dict[str, Optional[Analysis]] = {}

    def analysis(self, path: str) -> Optional[Analysis]:
        if path not in self.analyses:
            try:
                with open(path, encoding="utf-8") as stream:
                    text = stream.read()
                found = analyze(text, path)
                self.analyses[path] = found if found.tree is not None else None
            except (OSError, UnicodeDecodeError, ValueError):
                self.analyses[path] = None
        return self.analyses[path]

    def compare(self, path: str, line: int, op: str, shape, strides) -> dict:
        """The comparison as data: `static` (explain's layout, None when there is none) and
        `model_errors` (its claims torch refuted)."""
        analysis = self.analysis(path)
        layout = static_layout(analysis, line, op) if analysis is not None else None
        wrong = disagreements(layout, tuple(shape), tuple(strides)) \
            if layout is not None and shape is not None else []
        return {"static": layout.as_json() if layout is not None else None,
                "model_errors": wrong}

    def lines(self, path: str, line: int, op: str, shape, strides) -> list[str]:
        """The comparison's lines for one report entry."""
        analysis = self.analysis(path)
        if analysis is None:
            return ["static analysis: the file could not be analysed"]
        layout = static_layout(analysis, line, op)
        if layout is None:
            return [f"static analysis: no tensor inferred for `{op}` on this line"]
        claim = [f"static analysis: shape {layout.shape_text()}"]
        if layout.strides is not None:
            claim.append(f"strides ({', '.join(layout.strides)})")
        claim.append(f"contiguous: {layout.contiguous}")
        out = [", ".join(claim) + f" ({layout.why})"]
        if shape is None:
            return out + ["torch: no tensor layout recorded at this site"]
        out.append(f"torch made:      shape {tuple(shape)}, strides {tuple(strides)}, "
                   f"contiguous: {'yes' if is_contiguous(shape, strides) else 'no'}")
        wrong = disagreements(layout, tuple(shape), tuple(strides))
        if wrong:
            out.append("MODEL ERROR: static analysis claimed " + "; ".join(wrong) +
                       " (please report this contiglint bug with the code)")
        else:
            out.append("static analysis agrees with torch on everything it claims")
        return out


def static_layout(analysis: Analysis, line: int, op: str) -> Optional[Layout]:
    """What the engine inferred for the tensor `op` received on `line` (None: no tensor, or
    several calls of that name on the line with different values)."""
    name = op.rsplit(".", 1)[-1].split(":")[-1]
    values = []
    for node in ast.walk(analysis.tree):
        if not (isinstance(node, ast.Call) and node.lineno <= line <= node.end_lineno):
            continue
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else \
            func.id if isinstance(func, ast.Name) else None
        if called != name:
            continue
        receiver = func.value if isinstance(func, ast.Attribute) else None
        candidates = [receiver] if receiver is not None and \
            analysis.observer.tensor(receiver) is not None else \
            [a for a in node.args if analysis.observer.tensor(a) is not None][:1]
        values.extend(analysis.observer.tensor(c) for c in candidates)
    if not values or any(v != values[0] for v in values[1:]):
        return None
    return describe(values[0])


def disagreements(layout: Layout, shape: tuple, strides: tuple) -> list[str]:
    """The engine's claims that torch's tensor refutes."""
    out = []
    if layout.contiguous in ("yes", "no") and \
            (layout.contiguous == "yes") != is_contiguous(shape, strides):
        out.append(f"contiguous: {layout.contiguous}")
    if layout.shape is None or layout.some_paths or not layout.tensor:
        return out
    if len(layout.shape) != len(shape) or any(
            text.isdigit() and int(text) != size for text, size in zip(layout.shape, shape)):
        out.append(f"shape {layout.shape_text()}")
        return out
    if layout.strides is not None and any(
            text.isdigit() and size > 1 and int(text) != stride
            for text, size, stride in zip(layout.strides, shape, strides)):
        out.append(f"strides ({', '.join(layout.strides)})")
    return out
