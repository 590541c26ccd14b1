"""The layout model's exam: random tensor programs run under torch and through the engine.

A seeded sample of the programs of tests/generated/ (the long run is
benchmarks/generated_programs.py); every sink's engine verdict is compared with what torch did
(tests/generated/oracle.py defines a disagreement). Disagreement classes the model does not get
right yet are listed in OPEN, each with what is wrong and a program that shows it: that program
must still disagree in that class (a class whose witness agrees with torch is taken off the
list, or given a witness that still fails), and the sample must show no class outside OPEN.
The sample is the same on every machine: Hypothesis draws it from a fixed seed, and the test
extras pin Hypothesis, whose generation changes between releases. Below, one program per
fixed class, run under torch the same way.
"""
from __future__ import annotations

import pytest
import torch
from hypothesis import HealthCheck, Phase, given, settings

from contiglint.catalogue.dtypes import ELEMENT_SIZE
from tests.generated import fixes
from tests.generated.oracle import compare
from tests.generated.programs import Line, Program, programs

SAMPLE = 2000


def program(form: str, prologue: tuple[str, ...], body: list[tuple[str, str, str]],
            params: tuple[str, ...] = (), rank: int = 0, sizes=((),),
            literal_shape: tuple[int, ...] = ()) -> Program:
    """A program written by hand: `body` holds (statement, kind, target) triples."""
    lines = tuple(Line(text, kind, "hand", target) for text, kind, target in body)
    return Program(form, params, prologue, lines, rank, literal_shape, tuple(sizes))


def agreed(p: Program) -> list:
    """The engine's verdicts on `p`, none of which may disagree with torch."""
    verdicts, found, _ = compare(p)
    assert not found, [d.detail for d in found]
    return verdicts


OPEN = {
    "view finding, torch never raises": (
        "a size-1 dim that an op makes on a tensor of unknown geometry (a narrow to 1 of a dim "
        "counted from the back) is taken for a generic one",
        program("size", ("B = x.size(0)", "N = x.size(1)", "C = x.size(2)"),
                [("v0 = x.narrow(-3, 0, 1)", "op", ""), ("v1 = v0.mean(1)", "op", ""),
                 ("v2 = torch.transpose(v1, 1, 0)", "op", ""), ("s3 = v2.view(C)", "view", "v2")],
                ("x",), 3, ((4, 5, 6), (1, 5, 6)))),
    "raw-memory finding, torch contiguous": (
        "CTG106 on the same size-1 dim: the transpose is called permuted",
        program("size", ("B = x.size(0)", "N = x.size(1)", "C = x.size(2)"),
                [("v0 = x.narrow(-3, 0, 1)", "op", ""), ("v1 = v0.mean(1)", "op", ""),
                 ("v2 = torch.transpose(v1, 1, 0)", "op", ""),
                 ("s3 = v2.data_ptr()", "probe", "v2")], ("x",), 3, ((4, 5, 6), (1, 5, 6)))),
    "dtype-view ok, torch raises": (
        "the stride of a size-1 last dim: .contiguous() of a tensor that is contiguous but for "
        "it returns the tensor itself, whose last stride is not 1",
        program("params", ("x = torch.randn(B, N, C)",),
                [("v0 = x.unfold(0, 1, 1)", "op", ""),
                 ("v1 = v0.contiguous(memory_format=torch.contiguous_format)", "op", ""),
                 ("s3 = v1.view(torch.float8_e5m2fnuz)", "dtype_view", "v1")],
                ("B", "N", "C"), 3, ((4, 5, 6), (1, 5, 6), (4, 1, 6), (2, 1, 3)))),
    "claimed non-contiguous, torch contiguous": (
        "the diagonal of a size-1 dim that unfold adds and a generic dim is called stepped: "
        "it has a single element",
        program("size", ("B = x.size(0)",),
                [("v0 = x.unfold(-1, 1, 1)", "op", ""), ("v1 = v0.diagonal(0, 1, 0)", "op", ""),
                 ("s3 = v1.data_ptr()", "probe", "v1")], ("x",), 1, ((4,), (1,)))),
    "claimed contiguous, torch not": (
        "torch.stack of tensors whose only non-contiguity is in size-1 dims keeps their "
        "strides; the model calls the result contiguous",
        program("literal", ("x = torch.randn(2, 1, 2, 1)",),
                [("v0 = torch.movedim(x, -1, -3)", "op", ""),
                 ("v1 = torch.stack([v0, v0], 1)", "op", ""),
                 ("s2 = v1.data_ptr()", "probe", "v1")], (), 4, literal_shape=(2, 1, 2, 1))),
    "view ok, torch raises": (
        "the same stack: a view of it is called safe",
        program("literal", ("x = torch.randn(2, 1, 2, 1)",),
                [("v0 = torch.movedim(x, -1, -3)", "op", ""),
                 ("v1 = torch.stack([v0, v0], 1)", "op", ""),
                 ("s2 = v1.view(4, 1, 1, 2)", "view", "v1")], (), 4, literal_shape=(2, 1, 2, 1))),
}


@settings(max_examples=SAMPLE, derandomize=True, deadline=None, database=None,
          phases=(Phase.explicit, Phase.generate), suppress_health_check=list(HealthCheck))
@given(program=programs())
def test_generated_programs_agree_with_torch(program):
    _, found, _ = compare(program)
    new = [d for d in found if d.name not in OPEN]
    assert not new, "\n".join(f"{d.name} at line {d.line}: {d.detail}" for d in new) + \
        f"\n{program}"


@pytest.mark.parametrize("name", sorted(OPEN))
def test_open_classes_still_disagree(name):
    _, witness = OPEN[name]
    _, found, ran = compare(witness)
    assert ran, f"torch ran no size assignment of\n{witness}"
    assert name in {d.name for d in found}, \
        f"the witness of {name!r} now agrees with torch: take the class off OPEN, or give it " \
        f"a witness that still disagrees\n{witness}"


def verdicts_of(p: Program) -> list[str]:
    verdicts, found, ran = compare(p)
    assert ran, f"torch ran no size assignment of\n{p}"
    assert not found, "\n".join(f"{d.name}: {d.detail}" for d in found)
    return [v.engine for v in verdicts]


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


def test_split_with_sizes_given_by_expressions_gives_narrows_of_those_sizes():
    p = program("params", ("x = torch.randn(B, N, C)",),
                [("v = x.split_with_sizes([1, C - 1], -1)[1]", "op", ""),
                 ("s = v.view(-1)", "view", "v"),
                 ("w = x.split([1, N - 1], 1)[0]", "op", ""), ("t = w.view(B, C)", "view", "w")],
                ("B", "N", "C"), 3, SIZES3)
    assert verdicts_of(p) == ["can raise", "ok"]


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


def test_a_permuted_piece_of_a_split_to_one_keeps_its_holes():
    # v: (B, 1) with strides (B, 1), a column of a (B, B) tensor; its transpose has strides
    # (1, B): strided (holes), not a dense permutation (tensordot: a result of unknown shape,
    # as matmul's was before its shape was inferred)
    p = program("params", ("x = torch.randn(B, N)",),
                [("v = torch.tensordot(x, x, dims=([1], [1])).split(1, -1)[-1]", "op", ""),
                 ("w = torch.permute(v, (1, 0))", "op", ""), ("p = w.data_ptr()", "probe", "w")],
                ("B", "N"), 2, ((4, 5), (3, 3)))
    assert verdicts_of(p) == ["strided"]


SIZES2 = ((4, 5), (1, 5), (4, 1))
SIZES4 = ((4, 5, 6, 7), (4, 5, 1, 7), (3, 3, 3, 3))


@pytest.mark.parametrize("form, prologue, body, params, rank, sizes, verdicts", [
    # the main diagonal of two dims of unrelated sizes is stepped: its transpose has holes
    ("params", ("x = torch.randn(B, N, C)",),
     [("v0 = x.diagonal(0, 0, 2)", "op", ""), ("v2 = v0.movedim(1, 0)", "op", ""),
      ("s = v2.data_ptr()", "probe", "v2")], ("B", "N", "C"), 3, SIZES3, ["unknown"]),
    # x.size(2) states that x has 3 dims: the piece of split_with_sizes([1, C - 1], -1) has a
    # size-1 last dim, and a dtype copy of its permutation is contiguous
    ("size", ("B = x.size(0)", "N = x.size(1)", "C = x.size(2)"),
     [("v0 = x.split_with_sizes([1, C - 1], -1)[0]", "op", ""),
      ("v2 = torch.permute(v0, (2, 0, 1,))", "op", ""), ("v3 = v2.to(torch.float64)", "op", ""),
      ("s = v3.view(torch.float16)", "dtype_view", "v3")], ("x",), 3, SIZES3, ["unknown"]),
    # a stepped slice of a dim of unknown size has holes, kept through transposes
    ("size", ("B = x.size(0)", "N = x.size(1)", "C = x.size(2)"),
     [("v0 = x[1:, :1, ::3]", "op", ""), ("v1 = torch.swapaxes(v0, 0, 0)", "op", ""),
      ("v4 = v1.transpose(0, 2)", "op", ""), ("s = v4.data_ptr()", "probe", "v4")],
     ("x",), 3, ((4, 5, 6), (1, 5, 6)), ["strided"]),
    # ... and in an assumed geometry that a transpose permuted first
    ("size", ("B = x.size(0)", "N = x.size(1)", "C = x.size(2)", "D = x.size(3)"),
     [("v2 = x.mT", "op", ""), ("v4 = v2[:, 0, -1, ::2]", "op", ""),
      ("s = v4.data_ptr()", "probe", "v4")], ("x",), 4, SIZES4, ["strided"]),
    # advanced indexing keeps the permutation of a permuted tensor (TensorIterator's order)
    ("params", ("x = torch.randn(B, N, C, D)",),
     [("v1 = x.permute(3, 2, 0, 1)", "op", ""), ("v3 = v1[:, torch.tensor([0, 0])]", "op", ""),
      ("v4 = torch.permute(v3, (2, 3, 1, 0,))", "op", ""),
      ("s = v4.view(torch.bfloat16)", "dtype_view", "v4")], ("B", "N", "C", "D"), 4, SIZES4,
     ["unknown"]),
    # repeat's result has one dim per count, and expand's -1 names a dim the input has: the
    # diagonal of a broadcast dim and a real one, transposed, is no dense permutation
    ("params", ("x = torch.randn(B, N)",),
     [("v0 = x.unsqueeze(1).repeat(1, 3, 1)", "op", ""),
      ("v1 = v0.unsqueeze(0).expand(3, -1, -1, -1)", "op", ""),
      ("v3 = v1.diagonal(0, 3, 0)", "op", ""), ("v4 = v3.swapdims(2, 0)", "op", ""),
      ("s = v4.data_ptr()", "probe", "v4")], ("B", "N"), 2, SIZES2, ["unknown"]),
    # a memory format fixes the rank, so the sizes the code read (x.size(i)) are the result's:
    # the witness names them, not sizes of the interpolate's result that no input gives
    ("size", ("B = x.size(0)", "N = x.size(1)", "C = x.size(2)", "D = x.size(3)"),
     [("v0 = x.to(memory_format=torch.channels_last)", "op", ""),
      ("v1 = F.interpolate(v0, scale_factor=2)", "op", ""), ("v2 = v1.swapdims(0, 3)", "op", ""),
      ("s = v2.view(-1)", "view", "v2")], ("x",), 4, SIZES4, ["raises"]),
    # ... and so do as many repeat counts as the dims the code read: (N, 3, B) after transposing
    ("size", ("B = x.size(0)", "N = x.size(1)"),
     [("v0 = x.unsqueeze(1).repeat(1, 3, 1)", "op", ""), ("v2 = v0.transpose(1, 0)", "op", ""),
      ("s = v2.view(-1)", "view", "v2")], ("x",), 2, SIZES2, ["raises"]),
    # chunk(2) of an empty dim gives two empty pieces (the model divided by zero), which are
    # contiguous
    ("literal", ("x = torch.randn(1)",),
     [("v0 = x.split_with_sizes([1, 1 - 1], -1)[-1]", "op", ""),
      ("v1 = v0.chunk(2, -1)[0]", "op", ""), ("s = v1.data_ptr()", "probe", "v1")], (), 1,
     ((),), ["contiguous"]),
])
def test_model_facts_found_by_the_sample(form, prologue, body, params, rank, sizes, verdicts):
    assert verdicts_of(program(form, prologue, body, params, rank, sizes)) == verdicts


# --- safe fixes (tests/generated/fixes.py) ------------------------------------------------------
EXPANDED = program("params", ("x = torch.randn(B, N)",),
                   [("v0 = x.unsqueeze(1).expand(-1, 3, -1)", "op", ""),
                    ("v1 = v0.contiguous()", "op", ""), ("s = v1.view(-1)", "view", "v1")],
                   ("B", "N"), 2, SIZES2)


def test_the_contiguous_copy_of_an_expanded_tensor_is_kept_and_the_program_agrees():
    # the contiguous copy is needed: CTG113 must not remove it (a safe fix that did raised)
    assert fixes.fixed_sources(EXPANDED) == {}
    assert verdicts_of(EXPANDED) == ["ok"]


def test_a_safe_fix_that_breaks_the_program_is_a_disagreement(monkeypatch):
    # the check itself: were the copy removed as a "safe" fix, the view would raise
    broken = EXPANDED.source().replace("v0.contiguous()", "v0")
    monkeypatch.setattr(fixes, "fixed_sources", lambda p: {"default": broken})
    assert [name for name, _ in fixes.fix_disagreements(EXPANDED)] == ["safe fix raises"]
    changed = EXPANDED.source().replace("s = v1.view(-1)", "s = v1.view(-1) * 2")
    monkeypatch.setattr(fixes, "fixed_sources", lambda p: {"default": changed})
    assert [name for name, _ in fixes.fix_disagreements(EXPANDED)] == ["safe fix changes values"]


def test_the_view_fix_keeps_the_values_of_a_view_that_runs():
    # v.view(-1) of a transpose is reported and fixed as .reshape(-1); where the view runs
    # (a size-1 dim), the reshape gives the same values
    p = program("params", ("x = torch.randn(B, N)",),
                [("v = x.t()", "op", ""), ("s = v.view(-1)", "view", "v")],
                ("B", "N"), 2, SIZES2)
    fixed = fixes.fixed_sources(p)
    assert fixed and all("v.reshape(-1)" in text for text in fixed.values())
    assert fixes.fix_disagreements(p) == []


def test_an_int_index_drops_a_size_one_dim_without_a_hole():
    """`x[:, :, 0]` of a (1, 2, 1) tensor drops a dim of one element: the rest stays
    contiguous, and its dtype view succeeds."""
    p = program("literal", ("x = torch.randn(1, 2, 1)",),
                [("v0 = x[:, :, 0]", "op", ""), ("s1 = v0.data_ptr()", "probe", "v0"),
                 ("s2 = v0.view(torch.float64)", "dtype_view", "v0")], (), 3,
                literal_shape=(1, 2, 1))
    assert verdicts_of(p) == ["contiguous", "ok"]


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
SIZE3 = ("B = x.size(0)", "N = x.size(1)", "C = x.size(2)")


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
    # its transpose is contiguous and views as (1, B)
    (("B = x.size(0)", "N = x.size(1)"),
     [("v1 = x.amax(-1, keepdim=True)", "op", ""), ("v3 = v1.transpose(1, 0)", "op", ""),
      ("s = v3.view(1, B)", "view", "v3")], 2, ((4, 5), (1, 5), (1, 1)), ["ok"]),
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

