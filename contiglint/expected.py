"""Code that is meant to fail: the bodies of `with pytest.raises(...)` and `assertRaises` blocks.

A test that checks that a kernel wrapper rejects a transposed tensor, or that `.view()` raises
on one, holds exactly the pattern the rules look for, on purpose:

    with pytest.raises(AssertionError, match="must be contiguous"):
        fused_rmsnorm(x.t())

Findings inside such a block are not reported: the failure is what the test asserts, and if it
did not happen the test itself would fail. Recognised context managers: `pytest.raises` (also
imported as `raises`), and unittest's `assertRaises` / `assertRaisesRegex` (on any receiver,
usually `self`). `pytest.warns` and `assertWarns` are not: a warning does not stop the code.
"""
from __future__ import annotations

import ast
from typing import Iterable

EXPECTING = frozenset({"raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp"})


def expected_failure_spans(tree: ast.Module, text: str) -> list[tuple[int, int]]:
    """The line spans (first, last) of the bodies of blocks that expect an exception."""
    if "raises" not in text and "assertRaises" not in text:  # nothing to look for
        return []
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.With, ast.AsyncWith)) and node.body and \
                any(expects_exception(item.context_expr) for item in node.items):
            spans.append((node.body[0].lineno, node.end_lineno or node.body[-1].lineno))
    return spans


def expects_exception(expression: ast.expr) -> bool:
    """Is `expression` a context manager that expects an exception (above)?"""
    if not isinstance(expression, ast.Call):
        return False
    function = expression.func
    if isinstance(function, ast.Attribute):
        name = function.attr
        if name == "raises":  # `pytest.raises`, not any object's `raises` method
            return isinstance(function.value, ast.Name) and function.value.id == "pytest"
        return name in EXPECTING
    return isinstance(function, ast.Name) and function.id == "raises"


def outside(findings: Iterable, spans: list[tuple[int, int]]) -> list:
    """The findings whose line is in no span."""
    if not spans:
        return list(findings)
    return [f for f in findings if not any(first <= f.line <= last for first, last in spans)]
