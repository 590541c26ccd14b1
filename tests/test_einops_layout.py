"""`einops.rearrange` in user code: its layout follows einops' own reshape, permute, reshape
(the op table test runs random patterns against einops; here, whole functions)."""
from __future__ import annotations

import pytest
import torch

from contiglint.engine import lint_source
from contiglint.settings import Settings

einops = pytest.importorskip("einops")

PROGRAM = '''
import torch
from einops import rearrange


def split_heads_then_view(x, h):
    b, n, _ = x.shape
    q = rearrange(x, "b n (h d) -> b h n d", h=h)
    return q.view(b * h, n, -1)  # raises: h and n are apart in memory


def merge_heads_then_view(x):
    y = rearrange(x, "b h n d -> b n (h d)")
    return y.view(-1)  # the merge copied: contiguous


def tokens_then_view(x):
    b, c, hh, ww = x.shape
    y = rearrange(x, "b c h w -> b (h w) c")
    return y.view(b, hh, ww, c)  # splits a dim, merges none


def kept_order_then_view(x):
    y = rearrange(x, "b n (h d) -> b n h d", h=2)
    return y.view(y.size(0), -1)
'''

CASES = {  # function -> arguments, whether torch raises
    "split_heads_then_view": ((torch.randn(2, 3, 8), 2), True),
    "merge_heads_then_view": ((torch.randn(2, 3, 4, 5),), False),
    "tokens_then_view": ((torch.randn(2, 3, 4, 5),), False),
    "kept_order_then_view": ((torch.randn(2, 3, 8),), False),
}


def _function_at(line: int) -> str:
    above = [text for text in PROGRAM.splitlines()[:line] if text.startswith("def ")]
    return above[-1][4:above[-1].index("(")]


def test_reported_exactly_where_torch_raises():
    findings = lint_source(PROGRAM, "heads.py", Settings(select=("CTG101",))).findings
    assert {_function_at(f.line) for f in findings} == \
        {name for name, (_, raises) in CASES.items() if raises}
    namespace: dict = {}
    exec(compile(PROGRAM, "heads.py", "exec"), namespace)
    for name, (args, raises) in CASES.items():
        if raises:
            with pytest.raises(RuntimeError, match="view size is not compatible"):
                namespace[name](*args)
        else:
            namespace[name](*args)


def test_the_witness_names_sizes_the_inputs_give():
    [finding] = lint_source(PROGRAM, "heads.py", Settings(select=("CTG101",))).findings
    values = dict(finding.witness.values)
    assert {"b", "h", "n"} <= set(values), values
    namespace: dict = {}
    exec(compile(PROGRAM, "heads.py", "exec"), namespace)
    d = values.get("q.size(3)", 2)
    x = torch.randn(values["b"], values["n"], values["h"] * d)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        namespace["split_heads_then_view"](x, values["h"])


@pytest.mark.parametrize("pattern", ["b n (h d -> b h n d", "b n d -> b n", "b b -> b b",
                                     "b (...) -> b ...", "b n -> b n -> b", "b 2 -> b"])
def test_patterns_it_does_not_model_leave_the_layout_unknown(pattern):
    from contiglint.layout.model.einops_transfers import parse
    from contiglint.layout.model.transfer import Call
    from contiglint.layout.model.einops_transfers import rearrange
    from contiglint.layout.model.values import CONTIGUOUS, Const, Kind
    assert parse(pattern) is None
    assert rearrange(Call("einops.rearrange", CONTIGUOUS, [Const(pattern)])).kind is Kind.UNKNOWN
