"""A witness of a cut gives the cut axis an extent at least its size: `x[:, :k]` of an
(n, n) tensor leaves a hole only where k < n (torch clamps a longer cut to the axis), so a
witness that named n=2, k=3 described a tensor no input gives. Each witness is rebuilt under
torch from the values it names."""
from __future__ import annotations

import textwrap

import pytest
import torch

from contiglint.engine import lint_source
from contiglint.settings import Settings
from tests.generated.cases import executed

SOURCE = textwrap.dedent("""
    import torch


    def square(n, k):
        return torch.ones(n, n)[:, :k]


    def identity(n, k):
        return torch.eye(n)[:, :k]


    def rows(n, k):
        return torch.ones(n, 2 * n)[:k].mT


    def probe(n, k):
        square(n, k).data_ptr()
        identity(n, k).data_ptr()
        rows(n, k).data_ptr()
    """)


@pytest.fixture(scope="module")
def witnesses() -> dict:
    found = lint_source(SOURCE, "s.py", Settings(select=("CTG106",))).findings
    calls = {number: text.strip().split("(")[0]
             for number, text in enumerate(SOURCE.splitlines(), 1) if "data_ptr" in text}
    return {calls[f.line]: f.witness for f in found if f.line in calls}


@pytest.mark.parametrize("name", ["square", "identity", "rows"])
def test_the_witness_of_a_cut_is_a_tensor_torch_makes(witnesses, name):
    witness = witnesses[name]
    assert witness is not None
    values = dict(witness.values)
    made = executed(SOURCE)[name](values["n"], values["k"])
    assert not made.is_contiguous()
    assert (tuple(made.shape), made.stride()) == (witness.sizes, witness.strides)
