"""A module's functions are judged in its own callers' contexts first: those it calls by name,
and the `forward` of each class it constructs by name (`self.tokens(x)` runs
`Tokens.forward`). Only what no caller reached runs on its own, with unknown arguments."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import torch

from contiglint.engine import lint_source
from contiglint.settings import Settings

SOURCE = textwrap.dedent("""
    import torch
    from torch import nn


    class Tokens(nn.Module):
        def forward(self, x):
            b, d, n = x.shape
            return x.transpose(1, 2).view(b * n, d)


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.tokens = Tokens()

        def forward(self, x):
            return self.tokens(x)


    def main():
        return Model()(torch.randn(2, 3, 5))
    """)

# The split of each chunk of a projection, called with the sizes of the module's own call:
# splitting the last dim of a chunk is a view torch makes (checked below), which the forward
# run on its own, with sizes it cannot see, reports in strict mode.
CHUNKS = (Path(__file__).parent / "eval" / "ctg101" / "084_chunk_split_heads_clean.py").read_text()


def run(source: str):
    namespace: dict = {}
    exec(compile(source, "m.py", "exec"), namespace)
    return namespace["main"]()


def test_the_view_raises_for_the_module_own_call():
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        run(SOURCE)


def test_a_forward_reached_through_an_instance_is_witnessed_with_its_callers_sizes():
    findings = lint_source(SOURCE, "m.py", Settings(select=("CTG101",))).findings
    assert [f.line for f in findings] == [9]
    witness = findings[0].witness
    assert (witness.sizes, witness.strides, witness.target) == ((2, 5, 3), (15, 1, 5), (10, 3))
    assert torch.randn(2, 3, 5).transpose(1, 2).stride() == (15, 1, 5)


def test_the_chunks_split_as_torch_splits_them():
    namespace: dict = {}
    exec(compile(CHUNKS, "m.py", "exec"), namespace)
    namespace["main"]()
    assert namespace["Attention"]()(torch.randn(2, 5, 16)).shape == (2, 5, 16)


def test_strict_mode_judges_the_chunks_with_the_callers_sizes():
    findings = lint_source(CHUNKS, "m.py", Settings(select=("CTG101",), strict=True)).findings
    assert findings == []
