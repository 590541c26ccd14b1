"""A sink finding on a tensor that a `.to()` copy carried names the copy: the copy kept the
permuted strides (checked by running torch), so the place to ask for row-major memory is
often the copy that happens anyway."""
from __future__ import annotations

import textwrap

import pytest
import torch

from contiglint.engine import lint_source
from contiglint.settings import Settings

SOURCE = textwrap.dedent("""
    import torch

    def tokens(images):
        b, c, n = images.shape
        x = images.transpose(1, 2).to("cpu", copy=True)
        return x.view(b, n * c)
    """)


def tokens(images):
    b, c, n = images.shape
    x = images.transpose(1, 2).to("cpu", copy=True)
    return x.view(b, n * c)


def test_the_copy_keeps_the_strides_and_the_view_raises():
    images = torch.randn(2, 3, 5)
    assert images.transpose(1, 2).to("cpu", copy=True).stride() == (15, 1, 5)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        tokens(images)


def test_the_view_finding_names_the_copy():
    findings = lint_source(SOURCE, "t.py", Settings(select=("CTG101",))).findings
    assert [f.line for f in findings] == [7]
    related = {(r.line, r.message) for r in findings[0].related}
    assert (6, "made non-contiguous here by `.transpose(1, 2)`") in related
    assert any(line == 6 and '`.to("cpu", copy=True)` kept those strides' in message
               for line, message in related), related


def test_ctg104_reports_the_copy_at_the_code_that_needs_row_major_memory():
    findings = lint_source(SOURCE, "t.py", Settings(select=("CTG104",))).findings
    assert [(f.code, f.line) for f in findings] == [("CTG104", 7)]
    assert findings[0].witness is not None and findings[0].witness.op == "view"
    assert findings[0].related[0].line == 6  # the copy, where the fix goes
    fix = findings[0].fix
    assert fix is not None and fix.safety == "safe" and \
        [(e.start.line, e.content) for e in fix.edits] == \
        [(6, ", memory_format=torch.contiguous_format")]


MOVED_ONLY = textwrap.dedent("""
    import torch

    def moved(images):
        x = images.transpose(1, 2).to("cpu", copy=True)
        return x.sum(-1)
    """)


@pytest.mark.parametrize("report, lines", [(None, []), ("every-move", [5])])
def test_a_copy_no_code_needs_row_major_is_reported_only_as_an_audit(report, lines):
    options = {"CTG104": {"report": report}} if report else {}
    settings = Settings(select=("CTG104",), rule_options=options)
    assert [f.line for f in lint_source(MOVED_ONLY, "t.py", settings).findings] == lines


def test_a_dtype_copy_that_keeps_the_strides_is_not_a_device_move():
    source = SOURCE.replace('.to("cpu", copy=True)', ".to(torch.long)")
    assert [f.code for f in lint_source(source, "t.py", Settings(
        select=("CTG101", "CTG104"))).findings] == ["CTG101"]
