"""A witness chooses only sizes that the function's inputs set (contiglint/rules/
witness_inputs.py): where the flow lost how a computed tensor's sizes follow from the inputs,
and names them after the tensor, a value chosen for them may be one no input gives, so the
finding is strict-mode only. Each program is checked against torch."""
from __future__ import annotations

from dataclasses import replace

import pytest

from contiglint.engine import lint_source
from contiglint.settings import Settings

torch = pytest.importorskip("torch")

# The flow does not follow x's sizes through the two memory-format conversions, and names
# those of `v1` after it: no witness may give them values.
COMPUTED = """import torch


def f(x):
    B, N, C, D = x.size(0), x.size(1), x.size(2), x.size(3)
    v0 = x.contiguous(memory_format=torch.contiguous_format)
    v1 = v0.contiguous(memory_format=torch.channels_last)
    return v1.view(-1)
"""
# The same view of a tensor whose sizes the code takes from its parameter
FROM_INPUTS = """import torch


def f(x):
    B, H, N, D = x.shape
    return x.transpose(1, 2).view(B, N, H * D)
"""


def run(program: str, *args):
    namespace = {}
    exec(compile(program, "program.py", "exec"), namespace)
    return namespace["f"](*args)


def test_sizes_of_a_computed_tensor_are_not_chosen_by_a_witness():
    with pytest.raises(RuntimeError):  # a real bug: channels_last cannot be flattened
        run(COMPUTED, torch.randn(2, 3, 4, 5))
    assert lint_source(COMPUTED, "computed.py").findings == []
    [strict] = lint_source(COMPUTED, "computed.py", replace(Settings(), strict=True)).findings
    assert strict.code == "CTG101" and strict.witness is None


def test_sizes_of_a_parameter_are():
    [finding] = lint_source(FROM_INPUTS, "inputs.py").findings
    values = dict(finding.witness.values)
    assert set(values) <= {"B", "H", "N", "D"}, values
    shape = [values.get(name, 3) for name in ("B", "H", "N", "D")]
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        run(FROM_INPUTS, torch.randn(*shape))
