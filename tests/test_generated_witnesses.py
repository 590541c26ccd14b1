"""Witnesses of the long run's wrong-witness classes (seeds 57-96): sizes an op made are not
free for the op that fixes the rank, a step through a cut is not witnessed at the cut's extent,
the oracle checks a witness of a flattened size at the inputs that give it; and a view whose
grouping the sizes decide is witnessed where the code names every size. Each case runs under
torch (tests/generated/oracle.py) and failed before its fix."""
import pytest
import torch

from tests.generated.cases import SIZE3, agreed, program
from tests.generated.oracle import compare


SIZE4 = SIZE3 + ("D = x.size(3)",)
SIZES4 = ((4, 5, 6, 7), (1, 5, 6, 7), (4, 5, 6, 1), (1, 2, 2, 2))
SIZES = {1: ((4,), (1,), (3,)),
         2: ((4, 5), (4, 1), (1, 5), (4, 2)), 3: ((4, 5, 6), (4, 5, 1), (4, 1, 6), (3, 2, 3)),
         4: SIZES4}  # input sizes per rank, size-1 dims among them


@pytest.mark.parametrize("prologue, body, rank, verdicts", [
    # a product whose operands' shapes are unknown is square here (v0 @ v0.mT): its sizes are
    # the operands', so the permute that fixes its rank does not give it free ones
    (SIZE4, [("v0 = torch.select(x, -2, 0)", "op", ""),
             ("v1 = torch.matmul(v0, v0.mT)", "op", ""),
             ("v3 = torch.permute(v1, (0, 2, 1,))", "op", ""),
             ("s = v3.view(v3.size(0), -1)", "view", "v3")], 4, [("raises", False)]),
    # a repeat of a diagonal taken at an unknown rank: the diagonal's dims are x's
    (SIZE4, [("v0 = x.diagonal(0, 0, 3)", "op", ""),
             ("v1 = v0.unsqueeze(0).repeat(3, 1, 1, 1)", "op", ""),
             ("v2 = v1.swapdims(0, -3)", "op", ""), ("s = v2.view(N, -1)", "view", "v2")], 4,
     [("unknown", False)]),
    # a narrow of that diagonal, expanded: the cut's sizes are the diagonal's, and stay so
    # through the expand and the permute after it
    (SIZE4, [("v0 = x.diagonal(0, 0, 3)", "op", ""),
             ("v1 = torch.narrow(v0, 0, 0, 1)", "op", ""),
             ("v2 = v1.unsqueeze(0).expand(3, -1, -1, -1)", "op", ""),
             ("v3 = v2.permute(0, 2, 1, 3)", "op", ""), ("s = v3.view(-1)", "view", "v3")], 4,
     [("unknown", False)]),
    # adaptive pooling fixes the rank of x, known to have 4 dims or more, at 4: its batch and
    # channels are x's, so this view is x's own (B, 2, N, 1) and succeeds
    (SIZE4, [("v0 = F.adaptive_avg_pool2d(x, 1)", "op", ""),
             ("v1 = v0[:, :, [0, 0]]", "op", ""), ("v2 = torch.transpose(v1, 2, 1)", "op", ""),
             ("s = v2.view(B, 2, N, 1)", "view", "v2")], 4, [("ok", False)]),
    # interpolation of a permuted tensor of unknown rank: its sizes are x's, moved and doubled,
    # not free for the permutes that fix the rank (seed 110 of the long run read after the fix
    # above)
    (SIZE4, [("v0 = x.moveaxis(-2, -3)", "op", ""),
             ("v1 = F.interpolate(v0, scale_factor=2)", "op", ""),
             ("v2 = v1.transpose(1, 0)", "op", ""),
             ("v3 = torch.permute(v2, (0, 2, 1, 3,))", "op", ""),
             ("v4 = torch.permute(v3, (1, 3, 2, 0,))", "op", ""),
             ("s = v4.view(-1)", "view", "v4")], 4, [("unknown", False)]),
    # an expand to as many sizes as x has dims at least fixes its rank: (3, B, N, C), with
    # x's sizes (seed 102)
    (SIZE3, [("v0 = x.unsqueeze(0).expand(3, B, N, C)", "op", ""),
             ("v1 = v0.flatten(1, 2)", "op", ""), ("v3 = v1.permute(2, 1, 0)", "op", ""),
             ("s = v3.view(-1)", "view", "v3")], 3, [("can raise", True)]),
    # a piece of one element of dim -4, at a rank above x's least: x's named sizes are not
    # placed there, so the geometry assumed at that rank has no free sizes (seed 105)
    (SIZE4, [("v0 = torch.split(x, 1, dim=-4)[-1]", "op", ""), ("v1 = v0 + 1", "op", ""),
             ("v2 = v1.transpose(0, 3)", "op", ""), ("v3 = v2.permute(0, 2, 1, 3)", "op", ""),
             ("s = v3.view(D * C, N, 1)", "view", "v3")], 4, [("unknown", False)]),
    # a stack of inputs of unknown shape has one dim of the inputs' count: not free sizes for
    # the permute that fixes its rank (the long run of seeds 97-136); nor a known layout, since
    # the mask's result is one the model does not place, and a stack of channels_last inputs
    # keeps theirs
    (("B, N, C, D = x.shape",),
     [("v0 = x[x == x]", "op", ""), ("v1 = torch.stack([v0, v0], 0)", "op", ""),
      ("v3 = torch.permute(v1, (1, 0,))", "op", ""),
      ("s = v3.view(v0.size(0) * 2)", "view", "v3")], 4, [("unknown", False)]),
    # an elementwise op of a piece of a split keeps the piece's sizes: (B, N - 1) here
    (("B = x.size(0)", "N = x.size(1)"),
     [("v0 = x.split_with_sizes([1, N - 1], 1)[-1]", "op", ""), ("v1 = v0 + 1", "op", ""),
      ("v2 = v1.t()", "op", ""), ("s = v2.view(1, (N - 1) * B)", "view", "v2")], 2,
     [("raises", True)]),
])
def test_sizes_an_op_made_are_not_free_for_the_op_that_fixes_the_rank(prologue, body, rank,
                                                                       verdicts):
    """From the long run of seeds 57-96: each gave a witness whose sizes no input gives."""
    found = agreed(program("size", prologue, body, ("x",), rank, SIZES[rank]))
    assert [(v.engine, v.finding) for v in found] == verdicts


@pytest.mark.parametrize("prologue, body, rank, verdicts", [
    # a conversion to a dtype the code does not show of a narrow: the narrow itself (x of
    # that dtype) or a dense copy, so the step after it is not witnessed on the narrow's
    # strides (seed 162 of the long run of seeds 137-176: B = 2 has one row, and the copy is
    # contiguous); nor called strided: of a layout an op lost, the model does not know the
    # stepped dim's size, which an op may have made 1 (tests/test_lead_programs.py)
    (SIZE4, [("v0 = torch.narrow(x, 3, D - 1, 1)", "op", ""),
             ("s1 = v0.view(B, N, C, 1)", "view", "v0"),
             ("v1 = v0.to(torch.uint8)", "op", ""), ("v2 = v1[::3, :, :, None]", "op", ""),
             ("s5 = v2.data_ptr()", "probe", "v2")], 4,
     [("unknown", False), ("unknown", False)]),
    # a real copy of the narrow (both dtypes known) is dense: contiguous, so its transpose is
    # permuted, not strided (a disagreement on the kind before)
    (("x = x.float()",) + SIZE4, [("v0 = torch.narrow(x, 3, D - 1, 1)", "op", ""),
                                  ("v1 = v0.to(torch.uint8)", "op", ""),
                                  ("v2 = v1.transpose(0, 1)", "op", ""),
                                  ("s5 = v2.data_ptr()", "probe", "v2")], 4,
     [("permuted", True)]),
    # a boolean mask selects a count the sizes decide (here B * B): not a free size for the
    # expand and view after it (seed 170)
    (("B = x.size(0)", "N = x.size(1)"),
     [("v0 = x @ x.mT", "op", ""), ("v3 = v0[v0 == v0]", "op", ""),
      ("v4 = v3.unsqueeze(1).expand(-1, 3)", "op", ""),
      ("s8 = v4.view(v3.size(0) * 3)", "view", "v4")], 2, [("can raise", False)]),
    # a pad at an unknown rank has at least 3 elements: the size of its flattening is no
    # free name for the expand and view after it (the long run of seeds 217-256 witnessed it
    # at 2); the view raises at every size from 2, so the witness names it at any of them
    (("B = x.size(0)",),
     [("v0 = F.pad(x, (1, 1))", "op", ""), ("v1 = v0.reshape(-1)", "op", ""),
      ("v3 = v1.unsqueeze(0).expand(3, -1)", "op", ""),
      ("s8 = v3.view(3 * v1.size(0))", "view", "v3")], 1, [("can raise", True)]),
    # the size of a flattening named by `.size()`: one size wherever the code names it, but
    # no free one; the view of the expand raises at every size from 2, so the witness names
    # n at any of them, which a pad of 3 or more elements gives
    (("B = x.size(0)",),
     [("v0 = F.pad(x, (1, 1))", "op", ""), ("v1 = v0.reshape(-1)", "op", ""),
      ("n = v1.size(0)", "op", ""), ("v3 = v1.unsqueeze(0).expand(3, n)", "op", ""),
      ("s8 = v3.view(3 * n)", "view", "v3")], 1, [("can raise", True)]),
    # ...where the view raises only at some sizes of n (4 or more, and even), no witness: a
    # size the op made is not chosen, so a finding needs the failure at every size from 2
    (("B = x.size(0)",),
     [("v0 = F.pad(x, (1, 1))", "op", ""), ("v1 = v0.reshape(-1)", "op", ""),
      ("n = v1.size(0)", "op", ""), ("v3 = v1.view(2, n // 2).t()", "op", ""),
      ("s8 = v3.view(n)", "view", "v3")], 1, [("can raise", False)]),
    # (in the three above, the pad of x of unknown dtype has a layout the model does not know,
    # which its flattening keeps lost: the expand of it is broadcast, with the other strides
    # only possible, so the verdict is "can raise"; the finding is witnessed all the same)
])
def test_sizes_and_strides_a_copy_or_a_mask_made_are_not_the_inputs(prologue, body, rank,
                                                                   verdicts):
    """From the long run of seeds 137-176: each gave a witness under which torch succeeds."""
    found = agreed(program("size", prologue, body, ("x",), rank, SIZES[rank]))
    assert [(v.engine, v.finding) for v in found] == verdicts


def test_a_view_whose_grouping_the_sizes_decide_is_witnessed_where_the_code_names_them():
    """`B, N, K, S = x.shape; x.transpose(2, 3).view(B, N, -1, K * 2)` splits S in two and
    merges the halves with K: the sizes decide, and the code names every one of them, so the
    finding is witnessed (it was a strict-mode finding only). At K = 1 the view succeeds."""
    p = program("size", ("B, N, K, S = x.shape",),
                [("v0 = x.transpose(2, 3)", "op", ""),
                 ("s = v0.view(B, N, -1, K * 2)", "view", "v0")], ("x",), 4,
                ((2, 3, 4, 6), (2, 3, 1, 6), (1, 1, 2, 2)))
    verdicts = agreed(p)
    assert [v.finding for v in verdicts] == [True] and verdicts[0].witness
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        torch.randn(2, 3, 4, 6).transpose(2, 3).view(2, 3, -1, 8)
    assert torch.randn(2, 3, 1, 6).transpose(2, 3).view(2, 3, -1, 2).shape == (2, 3, 3, 2)


def test_a_witness_of_a_flattened_size_is_checked_at_inputs_that_give_it():
    """`x.reshape(-1).size(0) = 2` holds where every input size but one is 1: the oracle tries
    those assignments first (it sampled 1,500 of 12^4 and called the witness wrong)."""
    p = program("size", SIZE4, [("v1 = x.reshape(-1)", "op", ""),
                                ("v2 = v1.unsqueeze(1).expand(v1.size(0), 3)", "op", ""),
                                ("s = v2.view(v1.size(0) * 3)", "view", "v2")], ("x",), 4,
                SIZES4)
    verdicts = agreed(p)
    assert [v.finding for v in verdicts] == [True]
    assert set(verdicts[0].witness) == {"v1.size(0)"}


def test_a_step_through_a_cut_is_not_witnessed_at_the_cut_s_extent():
    """`x[:, 1:][:, ::2]` steps through N - 1 elements of a dim N long in memory: the view that
    merges it with the dim outside succeeds where N is twice the stepped size (N = 4), so a
    witness built on a dim N - 1 long named sizes at which torch does not raise."""
    p = program("params", ("x = torch.randn(B, N, C)",),
                [("v1 = x[..., 1:, :1]", "op", ""), ("v3 = v1[1:, ::2, :]", "op", ""),
                 ("s = v3.view(-1)", "view", "v3")], ("B", "N", "C"), 3,
                ((4, 5, 6), (4, 4, 12), (4, 1, 6)))
    verdicts = agreed(p)
    assert [v.witness for v in verdicts] == [None]
    assert torch.randn(4, 4, 12)[..., 1:, :1][1:, ::2, :].view(-1).shape == (6,)


def test_an_expand_fixes_the_rank_only_where_the_sizes_there_are_known():
    """`broadcast_to(v.unsqueeze(0), (3, v.size(0)))` of a 1-D v of unknown size: the second
    dim may or may not grow, so the rank fixed at 2 with free sizes made both dims stride 0
    and the view that torch refuses 'ok' (seeds 137-144, after the expand fix above)."""
    p = program("params", ("x = torch.randn(B, N, C)",),
                [("v0 = x[x == x]", "op", ""),
                 ("v1 = torch.broadcast_to(v0.unsqueeze(0), (3, v0.size(0),))", "op", ""),
                 ("s = v1.view(-1)", "view", "v1")], ("B", "N", "C"), 3,
                ((4, 5, 6), (4, 5, 1), (3, 2, 3)))
    assert [v.engine for v in agreed(p)] != ["ok"]


@pytest.mark.parametrize("form, prologue, body, params, rank, sizes, verdicts", [
    # a select of a tensor of 3 dims or more has 2 or more: its transpose is assumed at 2, so
    # the second transpose restores it (it was taken for 3 dims, the second transpose for a
    # permute of fresh sizes, and the view of the tensor's own shape for one that raises)
    ("size", SIZE3, [("v0 = x.select(0, -1)", "op", ""), ("v1 = v0.mT", "op", ""),
                     ("v2 = v1.exp()", "op", ""), ("v4 = v2.mT", "op", ""),
                     ("s = v4.view(N, C)", "view", "v4")],
     ("x",), 3, ((4, 5, 6), (4, 1, 6), (1, 4, 1)), [("unknown", False)]),
    # a pad of a piece of a split that may have holes: its layout and sizes are lost, not
    # free sizes for the permute after it
    ("size", ("B, N, C = x.shape",),
     [("v0 = x.split(1, -1)[-1]", "op", ""), ("v1 = F.pad(v0, (1, 1))", "op", ""),
      ("v2 = v1.permute(0, 1, 2)", "op", ""), ("v4 = torch.permute(v2, (2, 1, 0,))", "op", ""),
      ("s = v4.view((1 + 2) * N, B)", "view", "v4")],
     ("x",), 3, ((4, 5, 6), (1, 5, 6), (1, 1, 1)), [("unknown", False)]),
    # a view to a larger dtype of a cut: torch checks the storage offset before the last
    # stride, so the witness takes sizes at which any start of the cut is a whole element
    ("params", ("x = torch.randn(B, N, C)",),
     [("v1 = torch.swapaxes(x, -1, 1)", "op", ""), ("v2 = v1[..., 1:]", "op", ""),
      ("s = v2.view(torch.cfloat)", "view", "v2")],
     ("B", "N", "C"), 3, ((4, 5, 6), (4, 5, 1), (1, 5, 6), (4, 4, 4)), [("unknown", True)]),
    # a narrow of dim -2 of a tensor of 2 dims or more: a rank the code does not show, so no
    # witness (at 2 dims the narrow cuts the leading dim, and this view works); its layout is
    # lost, and a cut of it may span a dim the narrow made of size 1, so no claim either
    ("size", ("B = x.size(0)", "N = x.size(1)"),
     [("v1 = torch.narrow(x, -2, B - 1, 1)", "op", ""), ("v3 = v1[:, :1]", "op", ""),
      ("s = v3.view(1, -1)", "view", "v3")],
     ("x",), 2, ((4, 5), (4, 1), (3, 1)), [("unknown", False)]),
    # torch.where follows its condition's layout but has its values' dtype, not the
    # condition's bool: x's dtype is not shown, so no witness of a view to 4-byte elements
    # (the long run of seeds 297-336: torch.where of float32 x views as int)
    ("size", ("B, N, C = x.shape",),
     [("v1 = torch.where(x > 0, x, 0.0)", "op", ""),
      ("v4 = torch.permute(v1, (0, 2, 1,))", "op", ""), ("s = v4.view(torch.int)", "view", "v4")],
     ("x",), 3, ((4, 5, 6), (4, 1, 6), (3, 4, 4)), [("unknown", False)]),
])
def test_ranks_offsets_pads_and_dtypes_the_long_runs_found(form, prologue, body, params,
                                                           rank, sizes, verdicts):
    """From the long runs of seeds 257-296 and 297-336: each gave a false finding or a wrong
    witness."""
    found = agreed(program(form, prologue, body, params, rank, sizes))
    assert [(v.engine, v.finding) for v in found] == verdicts


def test_a_step_of_a_masked_selection_is_not_witnessed_at_a_length_it_names():
    """A boolean mask selects as many elements as are true: the length of a step through
    them is not free either (the long run of seeds 257-296 witnessed `v4.size(0) = 2` where
    the mask keeps 2 elements and the step 1, contiguous). The claim that the step has holes
    stays open (claimed non-contiguous, torch contiguous); no finding is made of it."""
    p = program("literal", ("x = torch.randn(4)",),
                [("v0 = x.tensor_split(2, -1)[0]", "op", ""), ("v2 = v0[v0 == v0]", "op", ""),
                 ("v4 = v2[::2]", "op", ""), ("s = v4.data_ptr()", "probe", "v4")],
                (), 1, ((),), (4,))
    verdicts, found, ran = compare(p)
    assert ran
    assert [(v.engine, v.finding) for v in verdicts] == [("strided", False)]
    assert {d.name for d in found} == {"claimed non-contiguous, torch contiguous"}


def test_a_size_an_op_made_from_literals_alone_is_no_size_a_witness_names():
    """In a function of no parameters a mask's count is a number the literals fix (1 of a
    tensor of 1 element here): no witness names it at any size from 2 (the long run of seeds
    337-376 found `.view(torch.short)` of its expand reported to raise), and the expand of the
    selection to its own count keeps the selection's stride."""
    p = program("literal", ("x = torch.randn(1)",),
                [("v0 = x[x == x]", "op", ""),
                 ("v3 = v0.unsqueeze(0).expand(3, v0.size(0))", "op", ""),
                 ("s = v3.view(torch.short)", "dtype_view", "v3")], (), 1, ((),), (1,))
    verdicts, found, ran = compare(p)
    assert ran and not found, found
    assert [v.finding for v in verdicts] == [False]


def test_a_cut_diagonal_is_witnessed_where_its_offset_lets_the_stride_error_show():
    """`x.diagonal(0, 0, 2)[:, 1:]` starts one diagonal step (N*C + 1 elements) into x, which
    the geometry does not hold: torch checks the storage offset before the last stride, so a
    witness of the stride error needs that step divisible by the element-size ratio (the
    witness B = C = 5, N = 2 met the offset error)."""
    p = program("params", ("x = torch.randn(B, N, C)",),
                [("v1 = x.diagonal(0, 0, 2)", "op", ""), ("v2 = v1[:, 1:]", "op", ""),
                 ("s2 = v2.view(torch.complex128)", "dtype_view", "v2")], ("B", "N", "C"), 3,
                ((4, 5, 6), (1, 5, 6), (4, 1, 6), (1, 1, 3)))
    [verdict] = agreed(p)
    assert verdict.finding and verdict.witness is not None


def test_a_mask_of_one_element_selects_at_most_one():
    """`v1[v1 == v1]` of a one-element v1 has 0 or 1 elements: expanded to 3 rows it views as
    one dim (a dim of size 1 has no stride that matters). A size an op made was witnessed at
    any size from 2, which this mask never selects."""
    p = program("params", ("x = torch.randn(B)",),
                [("v1 = x.narrow(0, B - 1, 1)", "op", ""), ("v3 = v1[v1 == v1]", "op", ""),
                 ("v4 = v3.unsqueeze(0).expand(3, -1)", "op", ""),
                 ("s6 = v4.view(-1)", "view", "v4")],
                ("B",), 1, ((4,), (1,)))
    [verdict] = agreed(p)
    assert not verdict.finding


def test_a_witness_builds_a_dropped_dim_at_the_size_a_size_test_gave_it():
    """`x[::3, :1, 1:, 0]` drops x's last dim D; under `D <= 1` its base axis is one element
    long (`Geometry.extents`). The witness built the dropped dim 2 long: its raw read was
    witnessed at B = 2, where the stepped dim has one element and the tensor is contiguous
    once D is 1 (a wrong witness: at D = 1 torch reads it contiguous). The witness now
    builds it at the size the test gave, and names a B at which the step leaves gaps."""
    p = program("size", ("B = x.size(0)", "N = x.size(1)", "C = x.size(2)", "D = x.size(3)"),
                [("v0 = x[::3, :1, 1:, 0]", "op", ""),
                 ("s1 = v0.data_ptr() if D <= 1 else None", "probe", "v0", "D <= 1")],
                ("x",), 4, ((4, 5, 6, 7), (4, 5, 1, 7), (4, 5, 6, 1), (2, 2, 3, 4)))
    _, found, ran = compare(p)
    assert ran and not found


def test_a_size_computed_from_another_is_named_by_the_names_that_size_is_made_of():
    """`v1.size(0) - 1` of a stepped `v1` is `(N + 1) // 2 - 1`, the size the cut gave the
    dim. It was named by its text, `v1.size(0) - 1`, whose name `v1.size(0)` a witness gave
    a value of its own: the view was witnessed at N=5, B=7, v1.size(0)=2, v1.size(1)=5,
    sizes no input gives (at the sizes the program ran, torch never raised)."""
    p = program("unpack", ("B, N = x.shape",),
                [("v0 = torch.permute(x, (1, 0,))", "op", ""), ("v1 = v0[::2, ::3]", "op", ""),
                 ("v3 = v1[..., 1:, 1:]", "op", ""),
                 ("s6 = v3.view((v1.size(0) - 1) * (v1.size(1) - 1))", "view", "v3")],
                ("x",), 2, ((4, 5), (4, 1), (1, 1)))
    _, found, ran = compare(p)
    assert ran and not found
