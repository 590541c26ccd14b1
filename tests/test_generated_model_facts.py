"""Model facts the generated programs found (tests/test_generated_programs.py): one program
per fixed class, written by hand and run under torch through the same oracle. Views and raw
reads at known and assumed ranks (dtype views: test_generated_dtype_facts.py; the ones
written as one table of programs and verdicts: test_generated_sample_facts.py)."""
from __future__ import annotations

import pytest
import torch

from tests.generated.cases import agreed, program, verdicts_of
from tests.generated.oracle import compare


SIZES3 = ((2, 3, 4), (1, 3, 4), (2, 1, 4), (2, 3, 1))


def test_unflatten_at_an_unknown_rank_keeps_its_size_1_dim():
    """`x.unflatten(1, (1, -1))` of a tensor whose rank the code leaves open splits dim 1 of
    the geometry assumed at the least rank: the new dim is 1, not a free size, so the permute
    that fixes the rank keeps x's named sizes, and the witness names x's sizes alone (it
    used to set the permuted tensor's sizes freely, which no input gives)."""
    p = program("size", ("B = x.size(0)", "N = x.size(1)", "C = x.size(2)"),
                [("v0 = torch.narrow(x, -2, 0, 1)", "op", ""),
                 ("v1 = v0.unflatten(1, (1, -1))", "op", ""),
                 ("v2 = v1.permute(0, 3, 2, 1)", "op", ""), ("s3 = v2.view(-1)", "view", "v2")],
                ("x",), 3, ((4, 5, 6), (1, 5, 6), (4, 1, 6)))
    assert verdicts_of(p) == ["raises"]


def test_a_view_after_a_step_is_witnessed_at_a_dim_the_step_does_not_divide():
    """x[..., ::2] of an even C keeps whole rows at stride 2 (the view works); of an odd C
    it does not (the view raises). The witness names an odd C."""
    p = program("params", ("x = torch.randn(B, N, C)",),
                [("v0 = x[..., ::2]", "op", ""),
                 ("s1 = v0.view(1, B, N * v0.size(2))", "view", "v0")],
                ("B", "N", "C"), 3, ((4, 5, 6), (4, 5, 7), (1, 5, 6)))
    assert verdicts_of(p) == ["raises"]


@pytest.mark.parametrize("view, verdict", [
    ("v.view(C, B * N)", "ok"),  # B and N still neighbours in memory after the movedim
    ("v.view(C * B, N)", "raises"),
])
def test_size_parameters_name_the_dims_a_view_merges(view, verdict):
    p = program("params", ("x = torch.randn(B, N, C)",),
                [("v = x.movedim(-1, 0)", "op", ""), (f"s = {view}", "view", "v")],
                ("B", "N", "C"), 3, SIZES3)
    assert verdicts_of(p) == [verdict]


def test_an_expanded_tensor_viewed_as_its_own_shape_succeeds():
    p = program("params", ("x = torch.randn(B, N, C)",),
                [("v = x.unsqueeze(0).expand(3, -1, -1, -1)", "op", ""),
                 ("s = v.view(3, B, N, C)", "view", "v")], ("B", "N", "C"), 3, SIZES3)
    assert verdicts_of(p) == ["ok"]


def test_a_view_that_merges_dims_next_to_a_cut_one_is_not_reported():
    p = program("params", ("x = torch.randn(B, N, C)",),
                [("v = x[1:, :, 1:]", "op", ""), ("s = v.view((B - 1) * N, C - 1)", "view", "v")],
                ("B", "N", "C"), 3, ((2, 3, 4), (3, 3, 2), (2, 1, 4)))
    assert verdicts_of(p) != ["can raise"]


def test_a_view_that_adds_a_size_one_dim_to_a_diagonal_does_not_crash():
    p = program("literal", ("x = torch.randn(3, 4, 2, 2)",),
                [("v0 = x.diagonal(0, 3, 1)", "op", ""),
                 ("v1 = torch.movedim(v0.permute(0, 2, 1), 0, 1)", "op", ""),
                 ("s = v1.view(1, 2, 3, 2)", "view", "v1"),
                 ("p = v1.data_ptr()", "probe", "v1")])
    assert verdicts_of(p) == ["ok", "strided"]


def test_unpacking_a_parameters_shape_states_its_rank():
    p = program("unpack", ("B, N = x.shape",),
                [("v = x.T", "op", ""), ("s = v.view(N, B)", "view", "v"),
                 ("t = v.view(-1)", "view", "v"), ("p = v.data_ptr()", "probe", "v")],
                ("x",), 2, ((4, 5), (1, 5), (4, 1)))
    assert verdicts_of(p) == ["ok", "raises", "permuted"]


def test_a_piece_of_split_1_has_one_element_along_the_split_dim():
    p = program("params", ("x = torch.randn(B, N)",),
                [("v = x.split(1, 1)[0]", "op", ""), ("s = v.view(-1)", "view", "v"),
                 ("w = torch.split(x, 1, dim=0)[-1]", "op", ""),
                 ("p = w.data_ptr()", "probe", "w")],
                ("B", "N"), 2, ((4, 5), (1, 5), (4, 1)))
    assert verdicts_of(p) == ["ok", "contiguous"]


def test_a_keepdim_reduction_keeps_the_reduced_dim_as_size_one():
    p = program("params", ("x = torch.randn(B, N, C)",),
                [("v = x.sum(-1, keepdim=True).mT", "op", ""), ("p = v.data_ptr()", "probe", "v"),
                 ("w = x.amax(1).mT", "op", ""), ("q = w.data_ptr()", "probe", "w")],
                ("B", "N", "C"), 3, SIZES3)
    assert verdicts_of(p) == ["contiguous", "permuted"]


def test_split_with_sizes_given_by_expressions_gives_narrows_of_those_sizes():
    p = program("params", ("x = torch.randn(B, N, C)",),
                [("v = x.split_with_sizes([1, C - 1], -1)[1]", "op", ""),
                 ("s = v.view(-1)", "view", "v"),
                 ("w = x.split([1, N - 1], 1)[0]", "op", ""), ("t = w.view(B, C)", "view", "w")],
                ("B", "N", "C"), 3, SIZES3)
    assert verdicts_of(p) == ["can raise", "ok"]


def test_a_permuted_piece_of_a_split_to_one_keeps_its_holes():
    # v: (B, 1) with strides (B, 1), a column of a (B, B) tensor; its transpose has strides
    # (1, B): strided (holes), not a dense permutation (tensordot: a result of unknown shape,
    # as matmul's was before its shape was inferred)
    p = program("params", ("x = torch.randn(B, N)",),
                [("v = torch.tensordot(x, x, dims=([1], [1])).split(1, -1)[-1]", "op", ""),
                 ("w = torch.permute(v, (1, 0))", "op", ""), ("p = w.data_ptr()", "probe", "w")],
                ("B", "N"), 2, ((4, 5), (3, 3)))
    assert verdicts_of(p) == ["strided"]


def test_sizes_named_on_a_tensor_whose_layout_was_lost_assume_no_layout():
    """The diagonal of a moved tensor of unknown rank has a layout the model does not know;
    naming its size (`v1.size(1)`) must not make it contiguous by assumption, else moving
    its dims back reads as a permute whose view to its own shape raises."""
    p = program("size", ("B = x.size(0)", "N = x.size(1)", "C = x.size(2)"),
                [("v0 = torch.movedim(x, -2, -3)", "op", ""),
                 ("v1 = v0.diagonal(0, 1, 0)", "op", ""),
                 ("s1 = v1.view(C, v1.size(1), 1)", "view", "v1"),
                 ("v2 = v1.movedim(1, 0)", "op", ""),
                 ("s2 = v2.view(v1.size(1), C)", "view", "v2")],
                ("x",), 3, ((4, 5, 6), (1, 5, 6), (1, 1, 3)))
    assert verdicts_of(p) == ["unknown", "unknown"]


def test_leading_ints_may_drop_the_dims_a_permute_moved():
    """`x.movedim(-2, -3)[-1, -1, -1]`: at the least rank the ints drop every dim, so the
    result is not known to be permuted."""
    p = program("size", ("B = x.size(0)", "N = x.size(1)", "C = x.size(2)"),
                [("v0 = torch.movedim(x, -2, -3)", "op", ""), ("v1 = v0[-1, -1, -1]", "op", ""),
                 ("s1 = v1.data_ptr()", "probe", "v1")],
                ("x",), 3, ((4, 5, 6), (1, 5, 6)))
    assert verdicts_of(p) == ["unknown"]


def test_a_finding_true_only_at_other_sizes_is_proven_by_its_witness():
    """`x.chunk(2)[0][::2]` keeps one element for an x of 4 or 1 (the sizes tried), two of
    them, strided, for an x of 8: the finding's witness names such sizes and torch agrees
    there, so it is no false finding; at the tried sizes alone it would read as one."""
    p = program("params", ("x = torch.randn(B)",),
                [("v0 = x.chunk(2, -1)[0]", "op", ""), ("v1 = v0[::2]", "op", ""),
                 ("s1 = v1.data_ptr()", "probe", "v1")], ("B",), 1, ((4,), (1,)))
    verdicts, found, _ = compare(p)
    assert verdicts[0].finding and verdicts[0].witness and not found, found
    x = torch.randn(8).chunk(2, -1)[0][::2]
    assert not x.is_contiguous() and torch.randn(4).chunk(2, -1)[0][::2].is_contiguous()


@pytest.mark.parametrize("last, verdict", [(6, "ok"), (5, "raises")])
def test_a_step_that_divides_its_dim_still_merges_with_the_dim_outside(last, verdict):
    """`x[:, :, ::2]` keeps 3 of 6 elements with stride 2: the next dim out has stride 6, 3
    times 2, so `.view(90)` merges all three dims; of 5 elements it keeps 3 and does not."""
    p = program("literal", (f"x = torch.randn(6, 5, {last})",),
                [("v0 = x[:, :, ::2]", "op", ""), ("s1 = v0.view(-1)", "view", "v0"),
                 ("s2 = v0.data_ptr()", "probe", "v0")], (), 3, literal_shape=(6, 5, last))
    assert verdicts_of(p) == [verdict, "strided"]


@pytest.mark.parametrize("ops, sink", [
    # flatten of one dim is the tensor itself: its sizes are still x's
    (("v0 = x.flatten(0, 0)", "v1 = v0.permute(1, 0)"), ("s1 = v1.view(N * B)", "view")),
    # a concatenation of x with itself has 2 * B rows, whatever x's rank
    (("v0 = torch.cat([x, x], 0)", "v1 = v0.transpose(0, 1)"), ("s1 = v1.data_ptr()", "probe")),
])
def test_sizes_kept_where_the_rank_is_unknown_give_witnesses_inputs_reach(ops, sink):
    """A witness names sizes; where the model loses how an op's sizes follow from x's, the
    sizes it names freely may be ones no input gives (2 * B = 3)."""
    p = program("size", ("B = x.size(0)", "N = x.size(1)"),
                [(op, "op", "") for op in ops] + [(sink[0], sink[1], "v1")], ("x",), 2,
                ((4, 5), (1, 5), (1, 1)))
    verdicts = agreed(p)
    assert verdicts[0].finding and verdicts[0].witness, verdicts


def test_a_convolution_of_an_input_of_known_rank_keeps_its_sizes():
    """F.conv2d of x (layout unknown, rank 4 from its unpacked shape) with a 1x1 kernel has
    x's batch and spatial sizes: the permute of it is witnessed at sizes x can have."""
    p = program("unpack", ("B, N, C, D = x.shape",),
                [("v0 = F.conv2d(x, torch.randn(3, x.size(1), 1, 1))", "op", ""),
                 ("v1 = torch.permute(v0, (3, 2, 0, 1,))", "op", ""),
                 ("s1 = v1.data_ptr()", "probe", "v1")], ("x",), 4,
                ((4, 5, 6, 7), (4, 5, 6, 1), (2, 1, 4, 3)))
    verdicts = agreed(p)
    assert verdicts[0].finding and set(verdicts[0].witness) <= {"B", "C", "D"}, verdicts


SIZES4 = ((4, 5, 6, 7), (4, 5, 6, 1), (2, 4, 3, 4))


@pytest.mark.parametrize("prologue, ops, sink, sizes", [
    # at rank 2, -2 is 0: the transpose may swap a dim with itself, so its layout is lost
    (("B = x.size(0)", "N = x.size(1)"), ("v0 = x.transpose(0, -2)", "v1 = v0.permute(1, 0)"),
     ("s1 = v1.view(N * B)", "view"), ((4, 5), (1, 5), (1, 1))),
    # a reduction over a dim counted from the front keeps x's other sizes at any rank
    (("B = x.size(0)", "N = x.size(1)", "C = x.size(2)", "D = x.size(3)"),
     ("v0 = x.sum(0, keepdim=True)", "v1 = torch.permute(v0, (3, 1, 0, 2,))"),
     ("s1 = v1.data_ptr()", "probe"), SIZES4),
])
def test_no_witness_is_made_of_sizes_an_op_lost(prologue, ops, sink, sizes):
    p = program("size", prologue, [(op, "op", "") for op in ops] + [(*sink, "v1")], ("x",),
                len(prologue), sizes)
    agreed(p)


@pytest.mark.parametrize("ops, view", [
    # two ints among four items: the result has two dims fewer than x, the view is its shape
    (("v1 = x[1:, 0, 1:, -1]",), "s1 = v1.view(B - 1, C - 1)"),
    # a permute that fixes the rank at the one the earlier transpose assumed: exact again
    (("v0 = x.transpose(0, 1)", "v2 = torch.permute(v0, (0, 1, 2, 3))",
      "v1 = v2.permute(1, 0, 2, 3)"), "s1 = v1.view(B * N, C, D)"),
    # a move the model cannot place at an unknown rank loses the layout: not assumed after
    (("v0 = x.mT", "v2 = v0.moveaxis(0, 3)", "v1 = v2.permute(0, 2, 1, 3)"),
     "s1 = v1.view(-1, B)"),
])
def test_no_view_is_reported_where_the_rank_decides_against_it(ops, view):
    p = program("size", ("B = x.size(0)", "N = x.size(1)", "C = x.size(2)", "D = x.size(3)"),
                [(op, "op", "") for op in ops] + [(view, "view", "v1")], ("x",), 4, SIZES4)
    agreed(p)


def test_a_cut_whose_rank_a_later_op_fixes_otherwise_is_not_assumed_generic():
    """`narrow(x, -3, B - 1, 1)` is a cut of the leading dim at rank 3 (one element left) and a
    cut inside at rank 4: a permute that fixes the rank at 3 must not give the cut dim a
    generic size, else swapping it reads as a permute whose view raises."""
    p = program("size", ("B = x.size(0)", "N = x.size(1)", "C = x.size(2)"),
                [("v0 = torch.narrow(x, -3, B - 1, 1)", "op", ""),
                 ("v2 = torch.permute(v0, (0, 1, 2,))", "op", ""),
                 ("v1 = v2.swapdims(0, -2)", "op", ""), ("s1 = v1.view(-1)", "view", "v1")],
                ("x",), 3, ((4, 5, 6), (1, 5, 6), (2, 1, 3)))
    agreed(p)


def test_an_expand_of_a_named_size_to_another_may_broadcast():
    """`x.expand(C, N)` of x of (B, N): where B is 1 the dim grows with stride 0, where B is C
    it is x itself. The model kept the dim (B taken for C): claimed contiguous."""
    p = program("params", ("x = torch.randn(B, N)",),
                [("v0 = x.expand(C, N)", "op", ""), ("s1 = v0.data_ptr()", "probe", "v0")],
                ("B", "N", "C"), 3, ((1, 3, 4), (4, 3, 4)))
    assert verdicts_of(p) == ["unknown"]


def test_a_step_through_a_broadcast_dim_keeps_it_broadcast():
    """`broadcast_to(...)[::2]` steps through a dim of stride 0: the stride stays 0 and the
    tensor overlapping (it was called strided)."""
    p = program("unpack", ("B, N, C = x.shape",),
                [("v1 = torch.broadcast_to(x.unsqueeze(0), (3, B, N, C,))", "op", ""),
                 ("v3 = v1[::2, ::2, -1]", "op", ""), ("s = v3.data_ptr()", "probe", "v3")],
                ("x",), 3, ((4, 5, 6), (1, 5, 6), (1, 4, 1)))
    assert verdicts_of(p) == ["broadcast"]


@pytest.mark.parametrize("make", ["x.unfold(-1, 1, 1)", "x.unflatten(0, (1, -1))"])
def test_a_diagonal_through_a_size_1_dim_has_at_most_one_element(make):
    """At a rank the code leaves open, a diagonal of dims counted from the front, one of them
    of size 1 in the assumed geometry, has at most one element: not stepped (it was called
    strided; torch's tensor is contiguous)."""
    p = program("size", ("B = x.size(0)",),
                [(f"v0 = {make}", "op", ""), ("v1 = v0.diagonal(0, 1, 0)", "op", ""),
                 ("s = v1.data_ptr()", "probe", "v1")], ("x",), 1, ((4,), (1,)))
    assert verdicts_of(p) == ["unknown"]


@pytest.mark.parametrize("gather, view, verdict", [
    # (C, N, 2) with strides (2, 2C, 1): TensorIterator orders C and N by x's strides and
    # leaves the gathered dim innermost
    ("x.transpose(0, 2)[..., [0, 0]]", "v.view(-1)", "raises"),
    ("x.transpose(0, 2)[..., [0, 0]]", "v.view(C, N * 2)", "raises"),
    ("x.transpose(0, 2)[..., [0, 0]]", "v.transpose(0, 1).view(N, C * 2)", "ok"),
    ("x[0].t()[:, [0, 0]]", "v.view(-1)", "ok"),  # (C, 2), contiguous
    ("x.permute(2, 0, 1)[[0, 0]]", "v.view(-1)", "ok"),  # (2, B, N), contiguous
    # a size-1 dim is ordered by the index's own strides, which the model does not hold
    ("x.transpose(0, 2).unsqueeze(0)[:, [0, 0]]", "v.view(-1)", "unknown"),
])
def test_advanced_indexing_lays_out_its_copy_by_the_input_strides(gather, view, verdict):
    p = program("params", ("x = torch.randn(B, N, C)",),
                [(f"v = {gather}", "op", ""), (f"s = {view}", "view", "v")],
                ("B", "N", "C"), 3, ((2, 3, 4), (3, 2, 5)))
    assert verdicts_of(p) == [verdict]


@pytest.mark.parametrize("sink, role", [("v2.view(C)", "view"), ("v2.data_ptr()", "probe")])
def test_an_op_on_a_geometry_assumed_above_the_least_rank_keeps_the_least_rank(sink, role):
    """`x.narrow(-3, 0, 1)` of a tensor of 3 dims or more is assumed at 4 (at 3 it cuts the
    leading dim); the mean over dim 1 and the transpose keep that geometry one rank above
    the least one. Both used to raise the least rank to the assumed geometry's, and so
    built a witness on a rank the code does not show: at rank 3 the transposed tensor is
    (C, 1), contiguous, and the view and the raw read were reported (CTG101, CTG106)."""
    p = program("size", ("B = x.size(0)", "N = x.size(1)", "C = x.size(2)"),
                [("v0 = x.narrow(-3, 0, 1)", "op", ""), ("v1 = v0.mean(1)", "op", ""),
                 ("v2 = torch.transpose(v1, 1, 0)", "op", ""), (f"s3 = {sink}", role, "v2")],
                ("x",), 3, ((4, 5, 6), (1, 5, 6)))
    _, found, ran = compare(p)
    assert ran and not [d.name for d in found if "finding" in d.name]


# a channels_last copy of a broadcast tensor (seed 82), a layout the model does not place
CHANNELS_LAST_COPY = [("v1 = torch.swapaxes(x, 1, 2)", "op", ""),
                      ("v2 = torch.broadcast_to(v1.unsqueeze(3), (B, C, N, 3,))", "op", ""),
                      ("v3 = v2.to(memory_format=torch.channels_last)", "op", "")]


@pytest.mark.parametrize("joined", ["torch.stack([v3, v3], 0)", "torch.cat([v3, v3], 0)"])
def test_a_join_of_layouts_an_op_lost_is_not_called_contiguous(joined):
    """(seed 82) `.to(memory_format=torch.channels_last)` of a broadcast tensor is a
    channels_last copy, which the model does not place; stack and cat of channels_last
    inputs keep that layout, so neither is contiguous (a view of the stack was called safe)."""
    p = program("unpack", ("B, N, C = x.shape",),
                CHANNELS_LAST_COPY + [(f"v4 = {joined}", "op", ""),
                                      ("s5 = v4.data_ptr()", "probe", "v4"),
                                      ("s6 = v4.view(-1)", "view", "v4")],
                ("x",), 3, ((4, 5, 6), (1, 5, 6), (4, 5, 1)))
    assert verdicts_of(p) == ["unknown", "unknown"]


def test_a_reduction_of_a_dim_past_a_kept_one_leaves_no_free_sizes():
    """(seed 86 of the programs of unknown rank) `x.mean(1, keepdim=True).sum(3)` keeps the
    size-1 dim, which the model cannot place once the rank is fixed: its sizes are not free,
    and the view after a move of that dim was reported raising, witnessed with 4 for it."""
    verdicts = agreed(program("opaque", (), [
        ("v0 = x.mean(1, keepdim=True)", "op", ""), ("v1 = v0.sum(3)", "op", ""),
        ("v3 = v1.permute(0, 1, 2)", "op", ""), ("v4 = torch.movedim(v3, -2, 2)", "op", ""),
        ("s7 = v4.view(v4.size(0), -1)", "view", "v4")],
        ("x",), 4, ((4, 5, 6, 7), (4, 1, 6, 7), (1, 5, 6, 7), (1, 1, 2, 4))))
    assert [v.finding for v in verdicts] == [False]


def test_a_cat_of_whole_flattenings_is_contiguous_whatever_they_flatten():
    """`flatten()` has one dim at every rank, which no channels_last layout has: a cat of
    such is a fresh contiguous tensor even of layouts the model does not place (a
    `.contiguous()` after it is redundant; the cat rule of the test above lost that)."""
    p = program("unpack", ("B, N, C = x.shape",),
                CHANNELS_LAST_COPY + [("v4 = torch.cat([v3.flatten(), v3.flatten()])", "op", ""),
                                      ("s5 = v4.data_ptr()", "probe", "v4")],
                ("x",), 3, ((4, 5, 6), (1, 5, 6), (4, 5, 1)))
    assert verdicts_of(p) == ["contiguous"]
