"""Sizes the generated programs found the model wrong about (tests/test_generated_programs.py):
reshapes that copy only for some sizes, and sizes an op derives, which no witness may choose
freely. One program per fixed class, run under torch through the same oracle."""
from __future__ import annotations

import pytest
import torch

from tests.generated import fixes
from tests.generated.cases import SIZE3, agreed, program, verdicts_of
from tests.generated.oracle import compare


# --- reshapes that copy only for some sizes ---------------------------------------------------
@pytest.mark.parametrize("ops", [
    # the diagonal's stride D + 1 makes the flatten copy, unless B and N are 1: then it views,
    # and the view keeps the diagonal's holes
    [("v0 = x.diagonal(0, 2, 3)", "op", ""), ("v1 = torch.flatten(v0, 0, 2)", "op", "")],
    # the reshape copies, unless D is 1: then it views, and dims 0 and 1 stay swapped
    [("v0 = x.permute(1, 0, 3, 2)", "op", ""),
     ("v1 = v0.reshape(x.size(1), x.size(0), -1)", "op", "")],
])
def test_a_reshape_that_views_at_some_sizes_is_not_proven_contiguous(ops):
    """A reshape that copies for generic sizes views where a size is 1, and the view is as
    contiguous as its input: not contiguous here. The result is contiguous only for some
    sizes, so CTG113 must not offer to remove a `.contiguous()` of it as a safe fix."""
    sizes = ((2, 3, 4, 5), (1, 1, 4, 5), (2, 3, 4, 1), (2, 3, 4, 4))
    probe = program("size", ("B = x.size(0)", "N = x.size(1)"),
                    ops + [("s = v1.data_ptr()", "probe", "v1")], ("x",), 4, sizes)
    assert verdicts_of(probe) == ["unknown"]
    copied = program("size", ("B = x.size(0)", "N = x.size(1)"),
                     ops + [("v2 = v1.contiguous()", "op", ""), ("s = v2.view(-1)", "view", "v2")],
                     ("x",), 4, sizes)
    assert fixes.fixed_sources(copied) == {}
    assert verdicts_of(copied) == ["ok"]


# --- sizes an op derives are not free ---------------------------------------------------------


@pytest.mark.parametrize("form, prologue, body, params, rank, sizes, verdicts", [
    # `x * x` has x's shape: the sizes the code named for x stay those of the result, so the
    # permute that fixes the rank is witnessed at x's sizes (it used to get free ones)
    ("size", SIZE3, [("v0 = x * x", "op", ""), ("v3 = v0.permute(2, 1, 0)", "op", ""),
                     ("s = v3.view(C * N, B)", "view", "v3")], ("x",), 3,
     ((4, 5, 6), (1, 5, 6), (1, 1, 1)), ["raises"]),
    # a conversion to a dtype the code does not show returns the tensor itself or a dense
    # copy: layout unknown, and the sizes (a narrow to 1) are not free for the permute
    ("size", ("B, N, C, D = x.shape",),
     [("v0 = x.narrow(-3, 0, 1)", "op", ""), ("v1 = v0.double()", "op", ""),
      ("v4 = torch.permute(v1, (2, 1, 3, 0,))", "op", ""), ("s = v4.view(-1)", "view", "v4")],
     ("x",), 4, ((4, 5, 6, 7), (4, 5, 1, 7), (1, 4, 3, 4)), ["unknown"]),
    # a cat at an unknown rank on a dim counted from the back: the joined dim is a sum, so a
    # permute that fixes the rank gives it no free sizes
    ("size", SIZE3 + ("D = x.size(3)",),
     [("v0 = x.moveaxis(-1, -3)", "op", ""), ("v1 = torch.cat([v0, v0], -2)", "op", ""),
      ("v4 = v1.permute(3, 2, 0, 1)", "op", ""), ("s = v4.view(-1)", "view", "v4")],
     ("x",), 4, ((4, 5, 6, 7), (1, 5, 6, 7), (3, 2, 2, 3)), ["unknown"]),
    # a cat of channels_last tensors joins the sizes on its dim (2 * N), as any cat does
    ("params", ("x = torch.randn(B, N, C, D)",),
     [("v1 = x.contiguous(memory_format=torch.channels_last)", "op", ""),
      ("v3 = torch.cat([v1, v1], -3)", "op", ""), ("s = v3.data_ptr()", "probe", "v3")],
     ("B", "N", "C", "D"), 4, ((4, 5, 6, 7), (1, 5, 6, 7), (3, 1, 1, 1)), ["permuted"]),
    # channels_last of a tensor an op made at an unknown rank: its sizes are not free
    ("size", SIZE3, [("v0 = torch.transpose(x, 1, -1)", "op", ""),
                     ("v1 = v0.unfold(2, 1, 1)", "op", ""),
                     ("v3 = v1.to(memory_format=torch.channels_last)", "op", ""),
                     ("s = v3.view(-1)", "view", "v3")], ("x",), 3,
     ((4, 5, 6), (4, 1, 6), (4, 4, 4)), ["unknown"]),
    # a narrow to 1 of the last dim of a tensor of rank 1 or more: the cut of a second dim is
    # a guess kept for the ops that fix the rank, not a layout the unflatten after it has
    ("size", ("B = x.size(0)",), [("v0 = x.narrow(-1, 0, 1)", "op", ""),
                                  ("v1 = v0.unflatten(-1, (1, -1))", "op", ""),
                                  ("s = v1.data_ptr()", "probe", "v1")], ("x",), 1,
     ((4,), (1,)), ["unknown"]),
])
def test_sizes_an_op_derives_are_not_given_free_values(form, prologue, body, params, rank,
                                                       sizes, verdicts):
    assert verdicts_of(program(form, prologue, body, params, rank, sizes)) == verdicts


def test_an_elementwise_op_of_a_contiguous_tensor_of_unknown_rank_is_contiguous():
    """preserve_format keeps a contiguous input's layout: tanh of a cat is contiguous (it was
    called unknown wherever the rank was)."""
    p = program("size", ("B = x.size(0)",),
                [("v0 = torch.cat([x, x], -1)", "op", ""), ("v1 = torch.tanh(v0)", "op", ""),
                 ("s = v1.data_ptr()", "probe", "v1")], ("x",), 2, ((4, 5), (1, 5), (4, 1)))
    assert verdicts_of(p) == ["contiguous"]


def test_contiguity_through_a_size_1_dim_of_an_assumed_rank_is_not_proven():
    """`e[..., None, :].transpose(0, 1)` swaps the new size-1 dim only where e is 1-D: at
    other ranks it swaps two dims of e and is not contiguous, so CTG113 must not remove the
    `.contiguous()` after it as a safe fix."""
    p = program("size", ("B = x.size(0)",),
                [("v0 = x.sum(0)", "op", ""), ("v1 = v0[..., None, :]", "op", ""),
                 ("v2 = v1.transpose(0, 1)", "op", ""), ("v3 = v2.contiguous()", "op", ""),
                 ("s = v3.view(-1)", "view", "v3")], ("x",), 4,
                ((4, 5, 6, 7), (1, 5, 6, 7), (4, 5, 1, 7)))
    assert fixes.fixed_sources(p) == {}
    assert verdicts_of(p) == ["ok"]


def test_a_size_1_dim_dropped_by_a_view_at_an_unknown_rank_is_no_merge():
    """`v1 = x.contiguous()[:1, ::2, 1:]` of a tensor of rank 4 or more: a view into three
    dims drops the size-1 dim 0 and merges nothing. It was reported raising (three target dims
    for four dims), and the `.contiguous()` lost the sizes x.size(i) named."""
    p = program("size", ("B = x.size(0)", "N = x.size(1)", "C = x.size(2)", "D = x.size(3)"),
                [("v0 = x.contiguous(memory_format=torch.contiguous_format)", "op", ""),
                 ("v1 = v0[:1, ::2, 1:]", "op", ""),
                 ("s = v1.view(v1.size(1), C - 1, D)", "view", "v1")], ("x",), 4,
                ((4, 5, 6, 7), (1, 5, 6, 7), (4, 1, 6, 7), (1, 1, 1, 1)))
    assert verdicts_of(p) == ["unknown"]


def test_size_1_dims_made_at_an_unknown_rank_are_not_taken_for_generic_ones():
    """A keepdim mean, a conversion to a dtype, an unflatten to (1, -1) and an unfold of window
    1 at an unknown rank: the permuted result's last dim has one element and stride 1, so its
    dtype view works. The conversion's result is lost (itself or a dense copy), so the
    permute invents no free sizes and reports nothing (it reported the dtype view raising)."""
    p = program("size", ("B = x.size(0)",),
                [("v0 = x.mean(-1, keepdim=True)", "op", ""),
                 ("v1 = v0.to(torch.int32)", "op", ""),
                 ("v2 = v1.unflatten(-1, (1, -1))", "op", ""),
                 ("v3 = v2.unfold(1, 1, 1)", "op", ""),
                 ("v4 = torch.permute(v3, (2, 1, 0,))", "op", ""),
                 ("s8 = v4.view(torch.float16)", "dtype_view", "v4")], ("x",), 1,
                ((4,), (1,), (2,)))
    assert verdicts_of(p) == ["unknown"]


@pytest.mark.parametrize("prologue, body, rank, sizes, verdicts", [
    # an unsqueeze of a transposed tensor of unknown rank keeps the sizes assumed at its least
    # rank, so the repeat that fixes the rank at it has x's sizes: the view is witnessed with
    # N where the last dim is (the repeat's result used to get free sizes, and N another)
    (SIZE3, [("v0 = x.mT", "op", ""), ("v1 = v0.unsqueeze(1).repeat(1, 3, 1, 1)", "op", ""),
             ("v3 = v1.transpose(-2, 0)", "op", ""), ("s = v3.view(-1, N)", "view", "v3")],
     3, ((4, 5, 6), (1, 5, 6), (4, 1, 6), (2, 1, 1)), ["raises"]),
    # F.interpolate at an unknown rank: batch and channels are x's, the spatial sizes double
    (SIZE3 + ("D = x.size(3)",),
     [("v0 = F.interpolate(x, scale_factor=2)", "op", ""),
      ("v1 = v0.permute(3, 1, 2, 0)", "op", ""), ("v3 = v1.transpose(2, 0)", "op", ""),
      ("s = v3.view(-1, B)", "view", "v3")],
     4, ((4, 5, 6, 7), (4, 1, 6, 7), (3, 1, 1, 1)), ["raises"]),
    # a where of x's mask and x has x's shape: the mask's dtype is not its shape
    (SIZE3 + ("D = x.size(3)",),
     [("v2 = torch.where(x > 0, x, 0.0)", "op", ""),
      ("v4 = torch.permute(v2, (2, 0, 3, 1,))", "op", ""), ("s = v4.view(C, -1)", "view", "v4")],
     4, ((4, 5, 6, 7), (4, 5, 6, 1), (3, 4, 2, 4)), ["raises"]),
    # a keepdim reduction over a dim counted from the back, at the assumed rank: (B, 1), so
    # its transpose is contiguous there; at rank 3, (B, N, 1) transposed is (N, B, 1), not
    # contiguous, so the view has no verdict (it was called safe on the least rank's word)
    (("B = x.size(0)", "N = x.size(1)"),
     [("v1 = x.amax(-1, keepdim=True)", "op", ""), ("v3 = v1.transpose(1, 0)", "op", ""),
      ("s = v3.view(1, B)", "view", "v3")], 2, ((4, 5), (1, 5), (1, 1)), ["unknown"]),
])
def test_sizes_assumed_at_the_least_rank_follow_the_ops_that_keep_it(prologue, body, rank,
                                                                     sizes, verdicts):
    p = program("size", prologue, body, ("x",), rank, sizes)
    verdicts_found, found, _ = compare(p)
    assert not found, [d.detail for d in found]
    assert [v.engine for v in verdicts_found] == verdicts
    assert all(v.witness for v in verdicts_found if v.finding)


def test_a_keepdim_reduction_over_a_dim_the_model_cannot_place_gives_no_free_sizes():
    """`x.sum(d, keepdim=True)` for a d the code does not show keeps a dim of size 1 somewhere:
    the transpose of it at rank 2 is contiguous, so the view of it must not be a finding."""
    p = program("size", ("B = x.size(0)", "N = x.size(1)"),
                [("v0 = x.sum(B - B, keepdim=True)", "op", ""),
                 ("v1 = v0.permute(1, 0)", "op", ""), ("s = v1.view(-1)", "view", "v1")],
                ("x",), 2, ((4, 5), (1, 5), (4, 1)))
    verdicts = agreed(p)
    assert not any(v.finding for v in verdicts), verdicts


def test_a_size_1_last_dim_of_an_assumed_geometry_is_not_taken_for_unit_stride():
    """`x.amax(-2).unfold(0, 1, 1)` at the least rank ends in a window dim of one element whose
    stride is the first dim's: torch's dtype view to a smaller element raises there (at a
    higher rank the last dim is another), so the dtype view is not called working."""
    p = program("size", SIZE3 + ("D = x.size(3)",),
                [("v0 = x.amax(-2)", "op", ""), ("v2 = v0.unfold(0, 1, 1)", "op", ""),
                 ("s = v2.view(torch.short)", "dtype_view", "v2")], ("x",), 4,
                ((4, 5, 6, 7), (4, 5, 1, 7), (4, 1, 6, 7)))
    verdicts = agreed(p)
    assert [v.engine for v in verdicts] == ["unknown"]


def test_a_piece_of_a_dim_of_one_element_is_the_whole_dim():
    """`x.amax(-1, keepdim=True).tensor_split(2, 1)[0]` cuts a dim of size 1: the piece is the
    whole dim (or empty), contiguous. The cut gave the dim a free length and a raw-memory
    finding whose witness made it 2."""
    p = program("size", ("B = x.size(0)", "N = x.size(1)"),
                [("v0 = x.amax(-1, keepdim=True)", "op", ""),
                 ("v1 = v0.tensor_split(2, 1)[0]", "op", ""),
                 ("s = v1.data_ptr()", "probe", "v1")], ("x",), 2,
                ((4, 5), (1, 5), (4, 1), (1, 1)))
    verdicts = agreed(p)
    assert not any(v.finding for v in verdicts), verdicts


@pytest.mark.parametrize("body, verdicts", [
    # chunk(2) of a dim of B: the first piece has (B + 1) // 2 elements, which the view's
    # target names as v3.size(2); a free length let the witness make it 3 with B = 2
    ([("v0 = x @ x.mT", "op", ""), ("v2 = v0.unsqueeze(0).expand(3, -1, -1)", "op", ""),
      ("v3 = v2.chunk(2, 2)[0]", "op", ""), ("s = v3.view(3 * B, v3.size(2))", "view", "v3")],
     ["raises"]),
    # the second half of a tensor_split(2) has N // 2 columns: a cut of the row
    ([("v3 = x.tensor_split(2, 1)[1]", "op", ""), ("s = v3.view(B * (N // 2))", "view", "v3")],
     ["raises"]),
])
def test_the_halves_of_a_dim_of_symbolic_size_have_sizes_of_it(body, verdicts):
    p = program("params", ("x = torch.randn(B, N)",), body, ("B", "N"), 2,
                ((4, 5), (2, 6), (3, 7)))
    found_verdicts = agreed(p)
    assert [v.engine for v in found_verdicts] == verdicts
    assert all(v.witness for v in found_verdicts)


@pytest.mark.parametrize("body", [
    # tensor_split(2, 2) of x known at rank 4 or more: the first piece has (C + 1) // 2
    # elements along dim 2 at every rank, so `v0.size(2)` and the permuted dim are one size
    [("v0 = x.tensor_split(2, 2)[0]", "op", ""), ("v1 = v0.permute(2, 0, 1, 3)", "op", ""),
     ("s = v1.view(v0.size(2), -1)", "view", "v1")],
    # F.conv2d takes 3 or 4 dims: x known to have at least 4 has 4, and the output has x's
    # batch and spatial sizes
    [("v0 = F.conv2d(x, torch.randn(3, x.size(1), 1, 1))", "op", ""),
     ("v1 = torch.permute(v0, (0, 2, 1, 3,))", "op", ""),
     ("s = v1.view(B * C, 3, D)", "view", "v1")],
])
def test_sizes_an_op_keeps_at_the_least_rank_are_the_witness_sizes(body):
    """Free names for sizes the code gives otherwise let the witness give values no input
    gives (two names of one dim set to different values)."""
    p = program("size", SIZE3 + ("D = x.size(3)",), body, ("x",), 4,
                ((4, 5, 6, 7), (1, 5, 6, 7), (1, 3, 1, 1), (1, 1, 1, 4)))
    verdicts = agreed(p)
    assert [v.engine for v in verdicts] == ["raises"] and verdicts[0].witness


def test_the_diagonal_of_a_tensor_whose_layout_was_lost_is_not_called_stepped():
    """The diagonal of an expanded tensor keeps a stride-0 dim (broadcast), and that of dims of
    strides 0 and 1 is contiguous: with the dims lost (a transpose of dims counted from the
    back at an unknown rank), the model says nothing of it."""
    p = program("size", SIZE3,
                [("v0 = torch.transpose(x, -2, -1)", "op", ""),
                 ("v3 = v0.unsqueeze(2).expand(-1, -1, 3, -1)", "op", ""),
                 ("v4 = v3.diagonal(0, 0, 3)", "op", ""), ("s = v4.data_ptr()", "probe", "v4")],
                ("x",), 3, ((4, 5, 6), (1, 5, 6), (4, 1, 6), (1, 2, 2)))
    verdicts = agreed(p)
    assert [v.engine for v in verdicts] == ["unknown"]
    assert torch.randn(3).expand(3, 3).diagonal().is_contiguous()


def test_the_stride_of_a_size_one_last_dim_is_not_taken_for_one():
    """torch's dtype view to a smaller element checks stride(-1) == 1 even where the last dim
    has one element (pytorch#116333): a step over a dim of one element multiplies its stride
    ((3, 1)[:, ::2] has strides (1, 2)), and advanced indexing lays its result out in the order
    of the input's strides, which the model does not follow (the permute of it is not known to
    end in a unit stride)."""
    stepped = program("params", ("x = torch.randn(B)",),
                      [("v0 = x.narrow(0, 0, 1)", "op", ""),
                       ("v1 = torch.broadcast_to(v0.unsqueeze(0), (3, 1))", "op", ""),
                       ("v2 = v1[..., 1:, ::2]", "op", ""),
                       ("s = v2.view(torch.bool)", "dtype_view", "v2")],
                      ("B",), 1, ((4,), (1,), (2,)))
    gathered = program("size", SIZE3,
                       [("v0 = torch.narrow(x, -2, 0, 1)", "op", ""),
                        ("v1 = torch.permute(v0, (2, 0, 1))", "op", ""),
                        ("v2 = v1[:, torch.tensor([0, 0])]", "op", ""),
                        ("v4 = torch.permute(v2, (1, 0, 2))", "op", ""),
                        ("s = v4.view(torch.float8_e5m2fnuz)", "dtype_view", "v4")],
                       ("x",), 3, ((4, 5, 6), (4, 5, 1), (1, 5, 6), (4, 4, 2)))
    for p, verdict in ((stepped, "raises"), (gathered, "unknown")):
        assert [v.engine for v in agreed(p)] == [verdict]


def test_a_cut_contiguous_at_the_least_rank_is_only_possibly_strided():
    """`x[..., :1, :1]` of x of at least 2 dims: one element at 2 dims (contiguous), holes at 3
    (strides (30, 6, 1) for (4, 5, 6)). The model knows only the least rank, so the cut is
    only possibly strided."""
    p = program("size", ("B = x.size(0)", "N = x.size(1)"),
                [("v2 = x[..., :1, :1]", "op", ""), ("s = v2.data_ptr()", "probe", "v2")],
                ("x",), 2, ((4, 5), (1, 5), (2, 1)))
    verdicts = agreed(p)
    assert not verdicts[0].finding
    assert not torch.randn(4, 5, 6)[..., :1, :1].is_contiguous()


def test_a_batched_product_has_three_dims():
    """bmm takes 3 dims: of x known to have at least 3 it is (B, N, N), so the transpose of one
    of its matrices viewed as (N, N) is a view to its own shape, which succeeds. At a rank the
    product cannot have, the witness made it raise."""
    p = program("size", SIZE3,
                [("v0 = torch.bmm(x, x.transpose(1, 2))", "op", ""),
                 ("v1 = torch.select(v0, 0, 0)", "op", ""), ("v3 = v1.swapdims(1, 0)", "op", ""),
                 ("s = v3.view(N, N)", "view", "v3")], ("x",), 3,
                ((4, 5, 6), (1, 5, 6), (1, 1, 1)))
    verdicts = agreed(p)
    assert [v.engine for v in verdicts] == ["ok"]


def test_a_view_target_that_multiplies_a_tensors_size_is_that_product():
    """`v0.view(B, v0.size(1) * C)` of v0 = x[..., ::3]: the target's second size is N * C,
    which equals v0's element count only where C = 1 (a step through one element: contiguous).
    An unread product was a free size that the witness set to whatever matched."""
    p = program("params", ("x = torch.randn(B, N, C)",),
                [("v0 = x[..., ::3]", "op", ""), ("s = v0.view(B, v0.size(1) * C)", "view", "v0")],
                ("B", "N", "C"), 3, ((4, 5, 6), (4, 5, 1), (1, 5, 6), (4, 1, 3)))
    verdicts = agreed(p)
    assert not verdicts[0].finding


def test_a_flatten_at_the_least_rank_keeps_the_sizes_it_merges():
    """flatten(2, 3) of x.unsqueeze(0), x named (B, N, C): (1, B, N * C) where x has 3 dims,
    the rank the einsum 'abc->cab' then fixes; the permuted result is witnessed with x's
    sizes (free sizes named v3.size(i) were sizes no input gives)."""
    p = program("size", SIZE3,
                [("v0 = x.unsqueeze(0)", "op", ""), ("v2 = torch.flatten(v0, 2, 3)", "op", ""),
                 ("v3 = torch.einsum('abc->cab', v2)", "op", ""),
                 ("s = v3.data_ptr()", "probe", "v3")], ("x",), 3,
                ((4, 5, 6), (4, 5, 1), (4, 1, 6), (1, 2, 4)))
    verdicts = agreed(p)
    assert [v.engine for v in verdicts] == ["permuted"] and verdicts[0].witness
