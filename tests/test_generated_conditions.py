"""Path conditions in generated programs (tests/generated/programs.py draws sinks guarded by a
test of contiguity, of a size against 1, or of the rank): one program per class of
disagreement the guarded sinks found, run under torch through the same oracle. A sink under a
guard is read only at the sizes where the guard holds."""
from __future__ import annotations

import pytest

from tests.generated.cases import SIZE3, agreed, program, verdicts_of
from tests.generated.oracle import compare

SIZES2 = ((4, 5), (1, 5), (4, 1))


@pytest.mark.parametrize("form, prologue, params, move", [
    ("params", ("x = torch.randn(B, N)",), ("B", "N"), "x.transpose(0, 1)"),
    ("size", ("B = x.size(0)", "N = x.size(1)"), ("x",), "torch.movedim(x, -2, -1)"),
])
def test_a_dtype_view_under_a_contiguity_check_may_still_raise(form, prologue, params, move):
    """`is_contiguous()` of a transpose holds where one of the swapped dims has size 1, and
    torch checks `stride(-1) == 1` all the same: at B = 1 the (N, 1) tensor has strides
    (1, N) and its dtype view raises; at N = 1 it views. Called safe before (the known and
    the assumed geometry both)."""
    p = program(form, prologue,
                [("v0 = " + move, "op", ""),
                 ("s1 = v0.view(torch.float16) if v0.is_contiguous() else None", "dtype_view",
                  "v0", "v0.is_contiguous()")], params, 2, SIZES2)
    assert verdicts_of(p) == ["unknown"]


def test_a_dtype_view_where_a_size_test_made_the_last_dim_one():
    """Where `v.size(1) <= 1`, the swapped tensor's last dim is x's first, of size 1 and of
    stride N: the dtype view raises (the assumed geometry's last dim, read as size 1)."""
    p = program("size", ("B = x.size(0)", "N = x.size(1)"),
                [("v0 = torch.swapaxes(x.float(), 0, 1)", "op", ""),
                 ("s1 = v0.view(torch.float8_e4m3fn) if v0.size(1) <= 1 else None",
                  "dtype_view", "v0", "v0.size(1) <= 1")], ("x",), 2, SIZES2)
    assert verdicts_of(p) == ["raises"]


def test_a_cut_of_a_leading_dim_that_is_innermost_in_memory_leaves_holes():
    """`x.movedim(-1, 0)[1:]` at a rank the code leaves open cuts x's last dim: strided, not
    permuted, at every rank."""
    p = program("size", SIZE3,
                [("v0 = torch.movedim(x, -1, 0)", "op", ""), ("v1 = v0[1:]", "op", ""),
                 ("s2 = v1.data_ptr()", "probe", "v1")], ("x",), 3,
                ((4, 5, 6), (4, 1, 6), (4, 5, 2)))
    assert verdicts_of(p) == ["strided"]


def test_a_size_test_binds_the_sizes_made_of_the_name():
    """Where `B < 2`, `x[1:]` has B - 1 = 0 rows: the transpose holds no element, and torch
    calls a tensor without elements contiguous (the view works). The size `B - 1` took B's
    value too; before, the finding was witnessed at B = 3, where the guard fails."""
    p = program("unpack", ("B, N, C = x.shape",),
                [("v0 = x[1:].transpose(0, 2)", "op", ""),
                 ("s1 = v0.view(-1) if B < 2 else None", "view", "v0", "B < 2")], ("x",), 3,
                ((1, 5, 6), (1, 1, 6), (4, 5, 6)))
    assert verdicts_of(p) == ["ok"]


def test_a_witness_gives_a_size_the_path_shows_above_one_two_or_more():
    """Where `v0.shape[0] > 1`, the witness of the dtype view of `x[::2]` may not pick B = 2
    ((B + 1) // 2 = 1 row, where the guard fails; torch raises there all the same, for the
    stride of the size-1 dim): it names B = 3 or more (`Sink.above_one`)."""
    p = program("params", ("x = torch.randn(B)",),
                [("v0 = x[::2]", "op", ""),
                 ("s1 = v0.view(torch.uint8) if v0.shape[0] > 1 else None", "dtype_view", "v0",
                  "v0.shape[0] > 1")], ("B",), 1, ((4,), (1,), (2,)))
    [verdict] = agreed(p)
    assert verdict.finding and (verdict.witness["B"] + 1) // 2 >= 2


def test_a_size_parameter_a_test_shows_is_1_is_1_where_the_code_reads_it_again():
    """Where `v0.shape[0] <= 1`, B is 1: the view target `(B, -1)` reads B again, and the
    witness may not give it 2 (it did: the guard fails there)."""
    p = program("params", ("x = torch.randn(B, N, C)",),
                [("v0 = x.unsqueeze(3).expand(B, N, C, 3)", "op", ""),
                 ("s1 = v0.view(B, -1) if v0.shape[0] <= 1 else None", "view", "v0",
                  "v0.shape[0] <= 1")], ("B", "N", "C"), 3, ((4, 5, 6), (1, 5, 6), (2, 3, 1)))
    [verdict] = agreed(p)
    assert verdict.finding and verdict.witness.get("B", 1) == 1


SIZES3 = ((4, 5, 6), (4, 1, 6), (1, 1, 6), (4, 5, 1))


@pytest.mark.parametrize("cut, sink, role, expected", [
    ("x.narrow(1, 0, 1).mT", "v0.data_ptr()", "probe", "contiguous"),
    ("x.select(1, 0)", "v0.data_ptr()", "probe", "contiguous"),
    ("x.split_with_sizes([1, N - 1], -2)[0]", "v0.view(-1)", "view", "ok"),
    ("x.narrow(1, 0, 1)", "v0.view(-1)", "view", "ok"),
    ("x[:, 0]", "v0.view(-1)", "view", "ok"),
    ("x[:, :1]", "v0.view(-1)", "view", "ok"),
])
def test_a_size_test_that_makes_a_cut_dim_one_element_long_closes_its_gap(cut, sink, role,
                                                                          expected):
    """A cut or an index leaves x's middle dim with fewer elements than it has in memory, so
    the outer dim's stride skips N * C elements: a gap, except where N is 1. Under `N < 2`
    the tensor is contiguous. The geometry keeps the size of the base axis a cut or an
    index leaves (`Geometry.extents`), which the size test binds; before, the cut dim's
    base axis had no size, and each of these was reported."""
    p = program("unpack", ("B, N, C = x.shape",),
                [("v0 = " + cut, "op", ""),
                 (f"s1 = {sink} if N < 2 else None", role, "v0", "N < 2")], ("x",), 3, SIZES3)
    assert verdicts_of(p) == [expected]


def test_without_the_size_test_the_cut_dim_still_leaves_a_gap():
    p = program("unpack", ("B, N, C = x.shape",),
                [("v0 = x[:, 0]", "op", ""), ("s1 = v0.view(-1)", "view", "v0")], ("x",), 3,
                SIZES3)
    assert verdicts_of(p) == ["raises"]


def test_a_dtype_view_of_a_cut_dim_drops_the_size_its_base_axis_had():
    """`x[..., :1]` keeps C as the size of the last base axis; a dtype view to 2-byte
    elements makes the last dim 2 long, in elements of the new size: under `C <= 1` its base
    axis is not one element long. The engine skipped it as one and crashed on the live dim
    that spans it. (The view is still reported: once its base axis's size is dropped, the
    cut dim of 2 elements may leave a gap.)"""
    p = program("unpack", ("B, N, C = x.shape",),
                [("v0 = x[..., :, :1].view(torch.int16)", "op", ""),
                 ("s1 = v0.view(-1) if C <= 1 else None", "view", "v0", "C <= 1")], ("x",), 3,
                SIZES3)
    _, found, ran = compare(p)
    assert ran and "engine internal error" not in {d.name for d in found}


LEAD_SIZES1 = ((5, 3, 6), (6,), (5, 6), (1, 6), (5, 1), (3,))


def test_a_witness_keeps_the_element_count_of_a_reshape_the_path_ran():
    """(lead seed 103) `x.reshape(*batch, D // 2, 2)` raises for an odd D, so a later sink's
    witness is on the path only at an even D: the strided slice's witness named D = 3, where
    the program stops at the reshape (`PathConditions.counts`). x of odd D runs too: the
    oracle asks that every input the witness names reaches the sink."""
    p = program("lead", ("*batch, D = x.shape",),
                [("v0 = x.reshape(*batch, D // 2, 2)", "op", ""), ("v1 = x[..., ::2]", "op", ""),
                 ("s2 = v1.data_ptr()", "probe", "v1")], ("x",), 3, LEAD_SIZES1)
    [verdict] = agreed(p)
    assert verdict.finding and verdict.witness["D"] % 2 == 0


def test_a_witness_keeps_the_element_count_of_a_reshape_of_a_swap():
    """(lead seed 104) The reshape of the swapped `(D, C)` into `(*batch, D, C // 2, 2)` needs
    an even C; the view's witness named C = 3."""
    p = program("lead", ("*batch, C, D = x.shape",),
                [("v0 = torch.transpose(x, -2, -1)", "op", ""),
                 ("v2 = v0.reshape(*batch, D, C // 2, 2)", "op", ""),
                 ("s3 = v0.view(-1)", "view", "v0")], ("x",), 4,
                ((5, 3, 4, 6), (4, 6), (1, 4, 6), (5, 3, 3, 6), (4, 1)))
    [verdict] = agreed(p)
    assert verdict.finding and verdict.witness["C"] % 2 == 0


@pytest.mark.parametrize("part", [2, 3])
def test_a_witness_keeps_the_element_count_of_a_view_of_known_sizes(part):
    """`x.view(B, N // part, part)` runs only where part divides N: the witness of the later
    view of the transpose picks such an N. (`N // 3` of a size parameter was a size the
    model did not know, and the witness named N = 2.)"""
    p = program("params", ("x = torch.randn(B, N)",),
                [(f"v0 = x.view(B, N // {part}, {part})", "op", ""), ("v1 = x.t()", "op", ""),
                 ("s2 = v1.view(-1)", "view", "v1")], ("B", "N"), 2,
                ((4, 6), (3, 5), (1, 6), (4, part)))
    [verdict] = agreed(p)
    assert verdict.finding and verdict.witness["N"] % part == 0


def test_where_paths_meet_the_element_counts_both_ran_stay():
    """A reshape before a branch is on both paths: past the join its count still holds
    (environments.join_envs keeps the path facts both paths show)."""
    p = program("lead", ("*batch, D = x.shape",),
                [("v0 = x.reshape(*batch, D // 2, 2)", "op", ""),
                 ("v1 = x[..., ::2] if p else x[..., 1::2]", "op", ""),
                 ("s2 = v1.data_ptr()", "probe", "v1")], ("x",), 3,
                tuple(s + (flag,) for s in LEAD_SIZES1 for flag in (1, 0)), paths=True)
    [verdict] = agreed(p)
    assert verdict.finding and verdict.witness["D"] % 2 == 0


@pytest.mark.parametrize("guard, expected", [("v1.size(0) < 2", "ok"),
                                             ("v1.size(0) > 1", "raises")])
def test_a_size_test_of_a_product_binds_each_name_or_keeps_the_product_above_one(guard,
                                                                                expected):
    """`v1.size(0)` is B * N: where it is below 2, each of B and N is 1 and the expanded
    (1, 3) views as (3,); where it is above 1, the witness keeps it so. The test of a product
    was read as no test at all, and the finding under `< 2` witnessed at B = 2, N = 3."""
    p = program("unpack", ("B, N = x.shape",),
                [("v0 = x.reshape(B * N, 1)", "op", ""),
                 ("v1 = v0.expand(B * N, 3)", "op", ""),
                 (f"s2 = v1.view(-1) if {guard} else None", "view", "v1", guard)], ("x",), 2,
                ((1, 1), (1, 5), (4, 5), (4, 1)))
    verdicts, found, _ = compare(p)
    assert not found, [d.detail for d in found]
    assert [(v.engine, v.finding) for v in verdicts] == [(expected, expected == "raises")]
