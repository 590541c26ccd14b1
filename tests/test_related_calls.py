"""A finding reached through calls names the calls that carried the tensor from where its
layout was made to the sink, and only those: a layout made in the function that holds the sink
came through no call, whichever callers the analysis reached that function from."""
from __future__ import annotations

import textwrap

import pytest
import torch

from contiglint.engine import lint_source
from contiglint.settings import Settings

# Three levels: `outer` calls `middle`, which makes the transposed tensor and calls `inner`,
# which views it; `heads` makes and views its own transpose, called from `outer` too.
SOURCE = textwrap.dedent("""
    import torch

    def inner(y):
        return y.view(2, -1)

    def middle(x):
        y = x.transpose(0, 1)
        return inner(y)

    def heads(x):
        y = x.transpose(0, 1)
        return y.view(-1)

    def outer():
        x = torch.randn(2, 3)
        return middle(x) + heads(x)
    """)


def calls(related) -> list[tuple[int, str]]:
    return [(r.line, r.message) for r in related if "call to" in r.message]


def test_both_views_raise_under_torch():
    namespace: dict = {}
    exec(compile(SOURCE, "t.py", "exec"), namespace)
    x = torch.randn(2, 3).transpose(0, 1)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        namespace["inner"](x)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        namespace["heads"](torch.randn(2, 3))


def test_only_the_calls_after_the_layout_was_made_are_named():
    findings = lint_source(SOURCE, "t.py", Settings(select=("CTG101",))).findings
    by_line = {f.line: f for f in findings}
    assert sorted(by_line) == [5, 13], findings
    # made in `middle` (line 8), carried into `inner` by the call on line 9; not by `outer`'s
    # call of `middle` on line 17
    assert by_line[5].related[0].line == 8
    assert calls(by_line[5].related) == [(9, "passed in by this call to `inner`")]
    # made and viewed in `heads`: no call carried it
    assert by_line[13].related[0].line == 12
    assert calls(by_line[13].related) == []


def test_a_layout_made_in_the_outermost_function_names_every_call():
    source = textwrap.dedent("""
        import torch

        def inner(y):
            return y.view(-1)

        def middle(x):
            return inner(x)

        def outer():
            x = torch.randn(2, 3).t()
            return middle(x)
        """)
    namespace: dict = {}
    exec(compile(source, "t.py", "exec"), namespace)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        namespace["outer"]()
    findings = lint_source(source, "t.py", Settings(select=("CTG101",))).findings
    assert [f.line for f in findings] == [5], findings
    assert findings[0].related[0].line == 11
    assert calls(findings[0].related) == [
        (8, "passed in by this call to `inner`"), (12, "reached through this call to `middle`")]
