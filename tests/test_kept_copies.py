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
