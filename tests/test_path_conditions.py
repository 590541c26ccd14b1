"""Conditions the code states are evidence: a view reachable only where a check held, or only
where a size is 1, is not a finding; one reachable where the sizes make it fail still is.

Each case runs under torch too: on the path the condition allows it raises exactly where the
engine reports it.
"""
from __future__ import annotations

import pytest
import torch

from contiglint.engine import lint_source
from contiglint.layout.explain.query import analyze
from contiglint.settings import Settings
from tests.explain_truth import bound_tensors, check_claims

PROGRAM = '''
import torch


def conditional_expression(a):
    x = a.view(2, 3, 4).transpose(1, 2)
    return x.view(2, -1) if x.is_contiguous() else x.reshape(2, -1)


def conditional_expression_negated(a):
    x = a.view(2, 3, 4).transpose(1, 2)
    return x.reshape(2, -1) if not x.is_contiguous() else x.view(2, -1)


def torch_check(a):
    x = a.view(2, 3, 4).transpose(1, 2)
    torch._check(x.is_contiguous(), lambda: "x must be contiguous")
    return x.view(2, -1)


def early_raise(a):
    x = a.view(2, 3, 4).transpose(1, 2)
    if not x.is_contiguous():
        raise ValueError("x must be contiguous")
    return x.view(2, -1)


def elif_branch(a, flag):
    x = a.view(2, 3, 4).transpose(1, 2)
    if flag:
        return None
    elif x.is_contiguous():
        return x.view(2, -1)
    return None


def size_name_is_one(a, b, n):
    x = a.view(b, n, 4).transpose(1, 2)
    if n == 1:
        return x.view(b, -1)
    return x.reshape(b, -1)


def shape_entry_is_one(a, b, n):
    x = a.view(b, n, 4).transpose(1, 2)
    if x.shape[2] == 1:
        return x.view(b, -1)
    return None


def asserted_size(a, b, n):
    x = a.view(b, n, 4).transpose(1, 2)
    assert x.size(2) < 2
    return x.view(b, -1)


def size_is_not_one(a, b, n):
    x = a.view(b, n, 4).transpose(1, 2)
    if n != 1:
        return x.reshape(b, -1)
    return x.view(b, -1)


def size_above_one(a, b, n):
    x = a.view(b, n, 4).transpose(1, 2)
    if n > 1:
        return x.view(b, -1)  # raises
    return None


def asserted_width(a, w):
    x = a.view(6, 48).split(16, dim=-1)[0]  # (6, 16) with strides (48, 1)
    n = w.numel()
    assert x.shape[-1] == n
    return x.view(-1, n)  # its own shape where the assert holds


BINARY, MULTILABEL = "binary", "multilabel"


def exclusive_named_modes(a, mode):
    x = a.view(2, 3, 4)
    if mode == BINARY:
        x = x.transpose(1, 2)
    if mode == MULTILABEL:
        return x.view(2, -1)  # never the transposed x: the mode is not both
    return None


def exclusive_literal_modes(a, mode):
    x = a.view(2, 3, 4)
    if mode != "binary":
        pass
    else:
        x = x.transpose(1, 2)
    if mode == "multilabel":
        return x.view(2, -1)
    return None


def literal_and_named_mode(a, mode):
    x = a.view(2, 3, 4)
    if mode == "binary":
        x = x.transpose(1, 2)
    if mode == BINARY:
        return x.view(2, -1)  # raises: the literal is the constant's value
    return None


def checked_then_other_branch(a):
    x = a.view(2, 3, 4).transpose(1, 2)
    if x.is_contiguous():
        return None
    return x.view(2, -1)  # raises


def cut(v, n):
    if v.ndim == 2:
        return v[:, :n]
    return v


def rank_one_after_cut(x, n):
    y = cut(x, n)
    if y.ndim == 1:
        return y.view(1, -1)  # a 1-D tensor views as (1, k) whatever its stride
    return y.reshape(-1)


def rank_not_two_after_cut(x, n):
    y = cut(x, n)
    if y.dim() != 2:
        return y.view(1, -1)
    return None


def rank_two_after_cut(x, n):
    y = cut(x, n)
    if len(y.shape) == 2:
        return y.view(-1)  # raises
    return None


def asserted_rank(x):
    assert x.dim() == 3
    return x.transpose(1, 2).view(x.shape[0], -1)  # raises


def rank_above_two(x):
    if 2 >= x.ndim:
        return None
    return x.transpose(-1, -2).view(-1)  # raises
'''

# name -> arguments that take the path to the view, and whether torch raises there
CASES = {
    "conditional_expression": ((torch.randn(24),), False),
    "conditional_expression_negated": ((torch.randn(24),), False),
    "torch_check": ((torch.randn(24),), "x must be contiguous"),
    "early_raise": ((torch.randn(24),), "x must be contiguous"),
    "elif_branch": ((torch.randn(24), False), False),
    "size_name_is_one": ((torch.randn(8), 2, 1), False),
    "shape_entry_is_one": ((torch.randn(8), 2, 1), False),
    "asserted_size": ((torch.randn(8), 2, 1), False),
    "size_is_not_one": ((torch.randn(8), 2, 1), False),
    "size_above_one": ((torch.randn(24), 2, 3), "view size is not compatible"),
    "asserted_width": ((torch.randn(288), torch.randn(16)), False),
    "checked_then_other_branch": ((torch.randn(24),), "view size is not compatible"),
    "exclusive_named_modes": ((torch.randn(24), "multilabel"), False),
    "exclusive_literal_modes": ((torch.randn(24), "multilabel"), False),
    "literal_and_named_mode": ((torch.randn(24), "binary"), "view size is not compatible"),
    "rank_one_after_cut": ((torch.randn(16)[::2], 3), False),
    "rank_not_two_after_cut": ((torch.randn(16)[::2], 3), False),
    "rank_two_after_cut": ((torch.randn(4, 6), 3), "view size is not compatible"),
    "asserted_rank": ((torch.randn(2, 3, 4),), "view size is not compatible"),
    "rank_above_two": ((torch.randn(2, 3, 4),), "view size is not compatible"),
}
FLAGGED = {"size_above_one", "checked_then_other_branch", "literal_and_named_mode",
           "rank_two_after_cut", "asserted_rank", "rank_above_two"}


def flagged_functions(strict: bool) -> set[str]:
    findings = lint_source(PROGRAM, "conditions.py",
                           Settings(select=("CTG101",), strict=strict)).findings
    lines = PROGRAM.splitlines()
    names = set()
    for finding in findings:
        above = [line for line in lines[:finding.line] if line.startswith("def ")]
        names.add(above[-1][4:above[-1].index("(")])
    return names


def test_views_behind_conditions_that_hold_are_not_reported():
    assert flagged_functions(strict=False) == FLAGGED
    assert flagged_functions(strict=True) == FLAGGED  # the conditions are facts, not guesses


@pytest.mark.parametrize("name", sorted(CASES))
def test_torch_raises_exactly_where_reported(name):
    namespace: dict = {}
    exec(compile(PROGRAM, "conditions.py", "exec"), namespace)
    args, raises = CASES[name]
    if not raises:
        namespace[name](*args)
        assert name not in FLAGGED
        return
    with pytest.raises((RuntimeError, ValueError), match=raises):
        namespace[name](*args)
    if "view size" in raises:
        assert name in FLAGGED


def test_the_witness_of_a_size_test_path_names_a_size_above_one():
    [finding] = [f for f in lint_source(PROGRAM, "conditions.py",
                                        Settings(select=("CTG101",))).findings
                 if f.line == PROGRAM.splitlines().index("        return x.view(b, -1)  # raises")
                 + 1]
    assert dict(finding.witness.values)["n"] > 1


EXPAND_OF_STATED_RANK = '''
import torch


def f(q, x):
    assert x.dim() == 3
    y = x.unsqueeze(0).expand(q.shape[0], -1, -1)
    return y.data_ptr()
'''


def test_an_expand_to_fewer_sizes_than_the_stated_rank_makes_no_layout():
    """x has 3 dims where the assert holds: the expand of its 4-D unsqueeze to 3 sizes raises,
    so no expanded tensor reaches data_ptr (strict mode called it expanded)."""
    namespace: dict = {}
    exec(compile(EXPAND_OF_STATED_RANK, "expand.py", "exec"), namespace)
    with pytest.raises(RuntimeError, match="number of sizes provided"):
        namespace["f"](torch.randn(2, 4), torch.randn(1, 3, 4))
    findings = lint_source(EXPAND_OF_STATED_RANK, "expand.py",
                           Settings(select=("CTG106",), strict=True)).findings
    assert all("expanded" not in f.message for f in findings)


ZERO_DIM = '''
import torch


class Boxes:
    def __init__(self, boxes, width):
        if len(boxes.shape) == 0:
            boxes = boxes.reshape((-1, width))
        self.data = boxes

    def to(self, dtype):
        self.data = self.data.to(dtype=dtype)
        return self
'''


def test_a_tensor_of_rank_zero_is_contiguous_whatever_reshapes_it():
    """One element is contiguous at any shape: the reshape on the 0-d path makes no permuted
    layout (it was called permuted, and `.to()` of it kept the permutation in CTG104)."""
    analysis = analyze(ZERO_DIM, "boxes.py", Settings())
    namespace: dict = {}
    exec(compile(ZERO_DIM, "boxes.py", "exec"), namespace)
    seen = bound_tensors("boxes.py", lambda: namespace["Boxes"](torch.tensor(3.0), 1))
    checked, wrong = check_claims(analysis, seen)
    assert checked == 1 and wrong == []
