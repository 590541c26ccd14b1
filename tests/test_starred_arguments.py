"""A call that spreads a sequence of unknown length (`f(*shape)`) binds each parameter from the
spread on to one of its items, or to the parameter's default where there are fewer items. It
bound the whole sequence to the first of them, and the callee, judged in that context only,
saw a list where it took a size."""
from __future__ import annotations

import textwrap

import pytest
import torch

from contiglint.engine import lint_source
from contiglint.settings import Settings

SOURCE = textwrap.dedent("""
    import torch


    def tokens(b, n, c, scale=1):
        x = torch.randn(b, c, n).transpose(1, 2) * scale
        return x.view(b * n, c)


    def main(shape):
        return tokens(*shape)


    def starred_rest(*sizes):
        return tokens(2, *sizes)


    def copied(b, n, c, copy=False):
        x = torch.randn(b, c, n).transpose(1, 2)
        if copy:
            x = x.contiguous()
        return x.view(b * n, c)


    def named_after_spread(sizes):
        return copied(*sizes, copy=True)
    """)


def test_the_view_raises_for_a_shape_of_three_sizes():
    namespace: dict = {}
    exec(compile(SOURCE, "s.py", "exec"), namespace)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        namespace["main"]((2, 3, 4))
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        namespace["starred_rest"](3, 4)
    assert namespace["named_after_spread"]((2, 3, 4)).shape == (6, 4)


def test_a_parameter_named_after_the_spread_takes_the_named_value():
    """`copied(*sizes, copy=True)`: `copy` is never one of the items (Python raises if
    it is given twice), so the only call copies before the view."""
    findings = lint_source(SOURCE, "s.py", Settings(select=("CTG101",))).findings
    assert 22 not in [f.line for f in findings]  # the view in `copied`


def test_each_parameter_from_the_spread_on_takes_an_item():
    findings = lint_source(SOURCE, "s.py", Settings(select=("CTG101",))).findings
    assert [(f.line, f.code) for f in findings] == [(7, "CTG101")]
    witness = findings[0].witness
    assert witness is not None
    # the witness names the sizes of the call it describes, and torch agrees with it
    sizes = dict(witness.values)
    namespace: dict = {}
    exec(compile(SOURCE, "s.py", "exec"), namespace)
    made = torch.randn(sizes["b"], sizes["c"], sizes["n"]).transpose(1, 2)
    assert (made.shape, made.stride()) == (witness.sizes, witness.strides)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        namespace["tokens"](**sizes)
