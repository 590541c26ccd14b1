"""Model facts of dtype views the generated programs found (tests/test_generated_programs.py),
one program per fixed class, run under torch through the same oracle: element sizes, and the
stride of the last dim, which a view to another element size needs to be 1 (torch checks it
even where that dim has size 1)."""
from __future__ import annotations

import pytest
import torch

from contiglint.catalogue.dtypes import ELEMENT_SIZE
from tests.generated.cases import program, verdicts_of


def test_every_torch_dtype_has_its_element_size():
    names = [n for n in dir(torch) if isinstance(getattr(torch, n), torch.dtype)]
    wrong = {n: (ELEMENT_SIZE.get(n), getattr(torch, n).itemsize) for n in names
             if ELEMENT_SIZE.get(n) != getattr(torch, n).itemsize}
    assert not wrong, wrong


def test_a_view_between_one_byte_dtypes_is_not_reported():
    p = program("literal", ("x = torch.randn(4, 6)",),
                [("v = x.to(torch.uint8).t()", "op", ""),
                 ("s = v.view(torch.float8_e8m0fnu)", "dtype_view", "v"),
                 ("t = v.view(torch.float4_e2m1fn_x2)", "dtype_view", "v")])
    assert verdicts_of(p) == ["ok", "ok"]


@pytest.mark.parametrize("made, verdict", [
    ("torch.randn(1, 3).t()", "raises"),  # contiguous, strides (1, 3)
    ("torch.randn(3, 1).t().t()", "ok"),  # strides (1, 1)
    ("torch.randn(4, 3)[:, :1]", "ok"),  # strides (3, 1)
    ("torch.randn(4, 3).t()[:, :1]", "raises"),  # strides (1, 3)
])
def test_a_dtype_view_reads_the_stride_of_a_size_one_last_dim(made, verdict):
    p = program("literal", ("x = torch.randn(2)",),
                [(f"v = {made}.double()", "op", ""),
                 ("s = v.view(torch.int16)", "dtype_view", "v")])
    assert verdicts_of(p) == [verdict]


def test_an_int_index_drops_a_size_one_dim_without_a_hole():
    """`x[:, :, 0]` of a (1, 2, 1) tensor drops a dim of one element: the rest stays
    contiguous, and its dtype view succeeds."""
    p = program("literal", ("x = torch.randn(1, 2, 1)",),
                [("v0 = x[:, :, 0]", "op", ""), ("s1 = v0.data_ptr()", "probe", "v0"),
                 ("s2 = v0.view(torch.float64)", "dtype_view", "v0")], (), 3,
                literal_shape=(1, 2, 1))
    assert verdicts_of(p) == ["contiguous", "ok"]


@pytest.mark.parametrize("form, prologue, body, params, rank, sizes, verdicts", [
    # .contiguous() of a tensor contiguous already returns it itself: the window dim of
    # unfold(0, 1, 1) keeps its stride of N * C, and a dtype view to another element size
    # raises (it was called fine: the model took the result for a fresh copy)
    ("params", ("x = torch.randn(B, N, C)",),
     [("v0 = x.unfold(0, 1, 1)", "op", ""),
      ("v1 = v0.contiguous(memory_format=torch.contiguous_format)", "op", ""),
      ("s3 = v1.view(torch.float8_e5m2fnuz)", "dtype_view", "v1")],
     ("B", "N", "C"), 3, ((4, 5, 6), (1, 5, 6), (4, 1, 6), (2, 1, 3)), ["raises"]),
    # ... and of a strided tensor its copy's last stride is 1 only where that dim is not 1:
    # at a size-1 last dim the tensor may be contiguous already and come back itself
    ("params", ("x = torch.randn(B, N, C)",),
     [("v0 = x.transpose(1, 2)", "op", ""), ("v1 = v0.contiguous()", "op", ""),
      ("s3 = v1.view(torch.int8)", "dtype_view", "v1")],
     ("B", "N", "C"), 3, ((4, 5, 6), (4, 1, 6)), ["unknown"]),
    # a copy of a layout that is not dense orders its dims by their strides: where the
    # diagonal has one element (C = 1) its stride D + 1 passes the N dim's (C * D), so the
    # copy's last dim is not innermost and a dtype view of it raises
    ("unpack", ("B, N, C, D = x.shape",),
     [("v1 = x.diagonal(0, 3, 2)", "op", ""), ("v2 = v1.clone()", "op", ""),
      ("s = v2.view(torch.float8_e5m2)", "dtype_view", "v2")],
     ("x",), 4, ((4, 5, 6, 7), (4, 1, 6, 7), (4, 4, 1, 4)), ["unknown"]),
    # a diagonal found contiguous by a check is so where it has one element, whose stride is
    # the sum of its dims' strides
    ("size", ("B = x.size(0)", "N = x.size(1)", "C = x.size(2)"),
     [("v0 = x.diagonal(0, 1, 0)", "op", ""), ("v1 = v0.diagonal(0, 0, 1)", "op", ""),
      ("s = v1.view(torch.float8_e4m3fn) if v1.is_contiguous() else None", "dtype_view",
       "v1", "v1.is_contiguous()")],
     ("x",), 3, ((4, 5, 6), (1, 5, 6), (2, 1, 1)), ["unknown"]),
    # an elementwise op of a permuted tensor that is contiguous at a size of 1 (x.T of x of
    # (4, 1)) gives a contiguous output, (1, 4) with strides (4, 1), not the permuted layout's
    # (1, 1): transposed back, its last dim of one element has stride 4, and a dtype view to
    # another element size raises (called fine: the permuted layout's strides, and a view
    # dropped what the copy had left open)
    ("unpack", ("B, N = x.shape",),
     [("v0 = x.T", "op", ""), ("v1 = v0 * v0", "op", ""), ("v3 = v1.transpose(1, 0)", "op", ""),
      ("s6 = v3.view(torch.bfloat16)", "dtype_view", "v3")],
     ("x",), 2, ((4, 5), (1, 5), (4, 1), (1, 1)), ["unknown"]),
])
def test_a_size_one_dim_may_keep_a_stride_torch_left_it(form, prologue, body, params, rank, sizes,
                                                       verdicts):
    assert verdicts_of(program(form, prologue, body, params, rank, sizes)) == verdicts


def test_a_copy_of_a_contiguous_tensor_leaves_a_size_one_stride_open():
    """`x.mT` of a (4, 2, 1, 4) tensor is contiguous with its size-1 dim at stride 4; `-v`
    gives that dim stride 1, `v * 2` keeps 4 (measured): a dtype view of the copy is called
    neither ok nor raising (it was "raises", and CTG101 reported it once it read contiguous
    tensors' last strides)."""
    x = torch.randn(4, 2, 1, 4).mT
    assert (-x).stride()[-1] == 1 and (x * 2).stride()[-1] == 4
    p = program("literal", ("x = torch.randn(4, 2, 1, 4)",),
                [("v0 = x.mT", "op", ""), ("v1 = -v0", "op", ""),
                 ("s2 = v1.view(torch.float4_e2m1fn_x2)", "dtype_view", "v1")],
                (), 4, ((),), (4, 2, 1, 4))
    assert verdicts_of(p) == ["unknown"]
