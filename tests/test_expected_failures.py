"""Blocks that expect an exception (`pytest.raises`, `assertRaises`) hold the hazard on
purpose; an `assert` on the layout establishes it for the code that follows. Each claim is
also run under torch: the hazard really raises inside the block, and the asserted layout holds."""
from __future__ import annotations

import textwrap
import unittest

import pytest
import torch

from contiglint.engine import lint_source
from contiglint.settings import Settings

SETTINGS = Settings(extend_select=("CTG101", "CTG114"))


def lines(text: str, settings: Settings = SETTINGS) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_source(textwrap.dedent(text), "t.py", settings).findings]


KERNEL = """
    import pytest
    import unittest
    from pytest import raises
    import torch

    def kernel(x):
        assert x.is_contiguous()
        return x.data_ptr()
"""


@pytest.mark.parametrize("manager", ["pytest.raises(AssertionError)", "raises(AssertionError)",
                                     "self.assertRaises(AssertionError)",
                                     "self.assertRaisesRegex(AssertionError, 'contiguous')"])
def test_findings_inside_an_expected_failure_are_not_reported(manager):
    text = KERNEL + f"""
    class T(unittest.TestCase):
        def test_it(self):
            h = torch.randn(4, 8)
            with {manager}:
                kernel(h.t())
                h.t().view(-1)
            kernel(h.t())
    """
    assert lines(text) == [(17, "CTG114")]


@pytest.mark.parametrize("manager", ["pytest.warns(UserWarning)", "torch.no_grad()",
                                     "other.raises(AssertionError)"])
def test_other_blocks_are_still_checked(manager):
    text = KERNEL + f"""
    def test_it(other):
        h = torch.randn(4, 8)
        with {manager}:
            kernel(h.t())
    """
    assert lines(text) == [(14, "CTG114")]


def test_the_expected_failures_really_fail():
    h = torch.randn(4, 8)
    with pytest.raises(RuntimeError):
        h.t().view(-1)
    with unittest.TestCase().assertRaises(AssertionError):
        assert h.t().is_contiguous()


def test_an_assert_on_the_layout_establishes_it():
    text = KERNEL + """
    def unpack(data):
        data = data.t()
        assert data.is_contiguous(), "stored column-major"
        return kernel(data), data.view(-1)

    def unchecked(data):
        data = torch.randn(4, 8).t()
        return kernel(data)
    """
    assert lines(text) == [(18, "CTG114")]
    strict = Settings(extend_select=("CTG101", "CTG114"), strict=True)
    assert lines(text, strict) == [(18, "CTG114")]
    column_major = torch.randn(8, 4).t()
    assert column_major.t().is_contiguous()  # the layout `unpack` asserts can hold
