"""Two paths that join: what the model knows of each layout, held to torch down both paths.

A tensor that is non-contiguous on one path and a known contiguous layout on the other keeps
both (`Tensor.elsewhere`), so that an op that restores the first breaks the second: the timm
attention that runs a fused kernel or the math path, then `x.transpose(1, 2)`. Two different
broken layouts that join keep only the kind they share: a sink's verdict would depend on the
path. Each program runs under torch with `p` true and false (tests/generated/oracle.py).
"""
from __future__ import annotations

import textwrap

import torch

from contiglint.engine import lint_source
from contiglint.layout.explain.query import analyze
from contiglint.settings import Settings
from tests.explain_truth import bindings, bound_tensors, check_claims, claim_of
from tests.generated.cases import program, verdicts_of

SIZES4 = ((4, 5, 6, 7), (1, 5, 6, 7), (2, 4, 3, 3))


def test_a_transpose_of_a_join_breaks_the_contiguous_path():
    """`v1` is permuted on one path and contiguous on the other; `v1.transpose(1, 2)` is
    contiguous on the first and permuted on the second, whose view raises."""
    p = program("params", ("x = torch.randn(B, N, C, D)",),
                [("v0 = x.transpose(1, 2)", "op", ""),
                 ("v1 = v0 if p else v0.contiguous()", "op", ""),
                 ("v2 = v1.transpose(1, 2)", "op", ""),
                 ("s3 = v2.view(B, C, N * D)", "view", "v2")], ("B", "N", "C", "D"), 4,
                SIZES4, paths=True)
    assert verdicts_of(p) == ["can raise"]


def test_two_broken_layouts_that_join_claim_no_verdict_of_one():
    """channels_last on one path, a swap of dims 1 and 2 on the other: the view merges the
    last two dims of the first and not of the second. The join used to keep the first's
    geometry and call the view ok; torch raises on the second path."""
    p = program("params", ("x = torch.randn(B, N, C, D)",),
                [("v0 = torch.swapaxes(x, 2, 1)", "op", ""),
                 ("v1 = v0.contiguous(memory_format=torch.channels_last)", "op", ""),
                 ("v2 = v1 if p else v0", "op", ""),
                 ("s3 = v2.view(1, B, C, N * D)", "view", "v2")], ("B", "N", "C", "D"), 4,
                SIZES4, paths=True)
    assert verdicts_of(p) != ["ok"]


def test_a_join_keeps_the_sizes_each_path_names():
    """`x` and `x.contiguous()` hold the sizes `x.size(i)` names on both paths: the witness
    of the permuted view gives those names (it gave the view's own dims free values that no
    input has, beside `x.size(0)`)."""
    p = program("size", ("B = x.size(0)", "N = x.size(1)", "C = x.size(2)", "D = x.size(3)"),
                [("v0 = x.contiguous() if p else x", "op", ""),
                 ("v1 = v0.permute(0, 2, 1, 3)", "op", ""),
                 ("s2 = v1.view(B, -1)", "view", "v1")], ("x",), 4, SIZES4, paths=True)
    assert verdicts_of(p) == ["raises"]


def test_an_advanced_index_of_a_join_is_broken_on_some_paths_only():
    """Gathering from a tensor permuted on one path keeps the permutation there; on the
    contiguous path the result is contiguous: the probe's claim is not a definite layout."""
    p = program("literal", ("x = torch.randn(2, 4, 2, 2)",),
                [("v1 = x.permute(3, 2, 0, 1)", "op", ""),
                 ("v2 = v1.contiguous() if p else v1", "op", ""),
                 ("v4 = v2[:, :, :, torch.tensor([0, 0])]", "op", ""),
                 ("s5 = v4.data_ptr()", "probe", "v4")], (), 0, ((),), (2, 4, 2, 2),
                paths=True)
    assert verdicts_of(p) == ["unknown"]


ATTENTION = '''
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim, num_heads=2, fused=True):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scale = self.head_dim ** -0.5
        self.fused_attn = fused
        self.qkv = nn.Linear(dim, dim * 3)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        if self.fused_attn:
            x = F.scaled_dot_product_attention(q, k, v)
        else:
            attn = (q * self.scale) @ k.transpose(-2, -1)
            x = attn.softmax(dim=-1) @ v
        return x.transpose(1, 2).view(B, N, C)
'''


def test_the_attention_that_runs_a_fused_kernel_or_the_math_path():
    """timm's attention written with `.view`: the math path's contiguous output, transposed,
    does not merge its heads; a plain run reports it, and torch raises there."""
    findings = lint_source(ATTENTION, "attention.py", Settings()).findings
    assert [(f.code, f.line) for f in findings] == [("CTG101", 24)]
    assert findings[0].witness is not None
    namespace: dict = {}
    exec(compile(textwrap.dedent(ATTENTION), "attention.py", "exec"), namespace)
    math = namespace["Attention"](16, fused=False)
    try:
        math(torch.randn(2, 5, 16))
    except RuntimeError as error:
        assert "view size is not compatible" in str(error)
    else:
        raise AssertionError("the math path's view did not raise")


def test_a_join_of_contiguous_paths_keeps_a_size_one_stride_open():
    """A diagonal narrowed to one element is contiguous with stride N + 1; joined with a
    fresh tensor's, the join's geometry is a fresh one, whose unit last stride the dtype view
    would read: torch raises on the diagonal's path. The stride stays open (unknown)."""
    p = program("params", ("x = torch.randn(B, N)",),
                [("v0 = x.diagonal(0, 1, 0)", "op", ""),
                 ("v1 = v0.contiguous() if p else v0", "op", ""),
                 ("v2 = torch.narrow(v1, 0, 0, 1)", "op", ""),
                 ("s3 = v2.view(torch.float8_e5m2) if v2.is_contiguous() else None",
                  "dtype_view", "v2", "v2.is_contiguous()")], ("B", "N"), 2,
                ((4, 5), (1, 5), (1, 1)), paths=True)
    assert verdicts_of(p) != ["ok"]


def test_two_choices_by_one_flag_take_the_same_path():
    """`v1` is contiguous where `p` holds and a slice elsewhere; `v2` takes `v1` where `p`
    holds and a copy elsewhere: contiguous on both paths. Joined as values, the two choices
    gave a view finding on a path that does not exist (p true for one, false for the other)."""
    p = program("literal", ("x = torch.randn(2, 2, 2, 2)",),
                [("v0 = torch.select(x, 1, 0)", "op", ""),
                 ("v1 = v0.contiguous() if p else v0", "op", ""),
                 ("v2 = v1 if p else v1.contiguous()", "op", ""),
                 ("s3 = v2.view(-1)", "view", "v2")], (), 0, ((),), (2, 2, 2, 2),
                paths=True)
    assert verdicts_of(p) == ["ok"]


def test_a_choice_undone_by_a_second_choice_by_the_same_flag():
    """Transposed where `p` holds, and transposed back where it holds again: `v2` is `x`
    on both paths, and its view never raises."""
    p = program("params", ("x = torch.randn(B, N, C, D)",),
                [("v1 = x.transpose(1, 2) if p else x", "op", ""),
                 ("v2 = v1.transpose(1, 2) if p else v1", "op", ""),
                 ("s3 = v2.view(B, N * C * D)", "view", "v2")], ("B", "N", "C", "D"), 4,
                SIZES4, paths=True)
    assert verdicts_of(p) == ["ok"]


SIZED_PATHS = """import torch


def run(p):
    a = torch.randn(2, 3, 6, 7).contiguous(memory_format=torch.channels_last)
    b = torch.randn(1, 3, 6, 7).contiguous(memory_format=torch.channels_last)
    g = a if p else b
    return g
"""


def test_a_join_of_one_broken_layout_keeps_only_the_sizes_both_paths_give(tmp_path):
    """channels_last on both paths, of batch 2 on one and 1 on the other: the join is
    channels_last of batch `?`. It kept the first path's sizes and claimed (2, 3, 6, 7)
    for a tensor that is (1, 3, 6, 7) on the other (explain's claims against torch)."""
    path = tmp_path / "sized_paths.py"
    path.write_text(SIZED_PATHS)
    analysis = analyze(SIZED_PATHS, str(path), Settings())
    namespace: dict = {}
    exec(compile(SIZED_PATHS, str(path), "exec"), namespace)
    seen = bound_tensors(str(path), lambda: (namespace["run"](True), namespace["run"](False)))
    checked, wrong = check_claims(analysis, seen)
    assert wrong == [] and checked == 6  # a, b and g, on each path
    layout = claim_of(analysis, bindings(analysis)[(7, "g")][0])
    assert tuple(layout.shape) == ("?", "3", "6", "7") and layout.contiguous == "no"
