"""Programs over leading dims the code never counts (`*batch, C, D = x.shape`), generated
(tests/generated/lead_programs.py) and written by hand from what the generated ones showed.
Each runs under torch with none, one and two leading dims, through the same oracle as every
generated program (tests/generated/oracle.py): no verdict, finding or witness may disagree."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from tests.generated.cases import agreed, program
from tests.generated.programs import programs

LEAD_SAMPLE = 400
SIZES2 = ((5, 3, 4, 6), (4, 6), (5, 4, 6), (1, 4, 6), (5, 1, 6))
PROLOGUE2 = ("*batch, C, D = x.shape",)


def lead_program(body: list[tuple[str, ...]], paths: bool = False):
    """`f(x)` (and `p` with `paths`) after `*batch, C, D = x.shape`, run with x of (C, D) = (4, 6)
    after none, one and two leading dims, and with a size-1 dim."""
    sizes = tuple(s + (1,) for s in SIZES2) + tuple(s + (0,) for s in SIZES2) if paths \
        else SIZES2
    return program("lead", PROLOGUE2, body, ("x",), 4, sizes, paths=paths)


@settings(max_examples=LEAD_SAMPLE, derandomize=True, deadline=None, database=None,
          phases=(Phase.explicit, Phase.generate), suppress_health_check=list(HealthCheck))
@given(program=programs(forms=("lead",)))
def test_programs_over_leading_dims_agree_with_torch(program):
    agreed(program)


def test_a_reshape_into_the_lead_of_a_cut_tensor_is_no_copy():
    # `x[..., 1:, :]` keeps the trailing dims mergeable: reshape views, and with leading dims
    # the view is not contiguous (it was claimed contiguous, and `view(-1)` of it safe)
    verdicts = agreed(lead_program([
        ("v1 = x[..., 1:, :]", "op", ""),
        ("v2 = v1.reshape(*batch, (C - 1) * D)", "op", ""),
        ("s3 = v2.data_ptr()", "probe", "v2"),
        ("s4 = v2.view(-1)", "view", "v2")]))
    assert [v.engine for v in verdicts] == ["unknown", "unknown"]


def test_a_view_of_unknown_shape_of_a_cut_tensor_is_not_taken_as_a_callers():
    # the view's layout is the cut's, which a transpose does not make merely permuted
    verdicts = agreed(lead_program([
        ("v0 = x.amax(-1)", "op", ""), ("v1 = v0[..., :1]", "op", ""),
        ("v2 = v1.view(*batch, 1, 1)", "op", ""), ("v3 = v2.transpose(-1, -2)", "op", ""),
        ("s4 = v3.data_ptr()", "probe", "v3")]))
    assert [v.engine for v in verdicts] == ["unknown"]


def test_the_minus_one_of_a_reshape_after_the_lead_is_no_free_size():
    # `v0.reshape(-1, C)` of (*batch, C, C) is a multiple of C: a witness may not give it 3
    # beside C = 2
    agreed(lead_program([
        ("v0 = x @ x.mT", "op", ""), ("v2 = v0.reshape(-1, C)", "op", ""),
        ("v3 = v2.permute(1, 0)", "op", ""), ("s4 = v3.data_ptr()", "probe", "v3")]))


def test_a_step_over_a_dim_an_op_made_of_size_one_is_not_claimed_strided():
    # on the path of the copy, `[..., ::2]` of a size-1 last dim keeps it contiguous
    verdicts = agreed(lead_program([
        ("v1 = x.narrow(-1, 0, 1)", "op", ""), ("v2 = v1.contiguous() if p else v1", "op", ""),
        ("v4 = v2[..., ::2]", "op", ""), ("s5 = v4.data_ptr()", "probe", "v4")], paths=True))
    assert [v.engine for v in verdicts] == ["unknown"]


def test_a_dtype_view_of_an_expanded_reshape_of_a_transpose_is_not_called_safe():
    # without leading dims the reshape returns the transpose itself, whose last stride is not 1
    verdicts = agreed(lead_program([
        ("v1 = x.mT", "op", ""), ("v2 = v1.reshape(-1, C)", "op", ""),
        ("v4 = v2.unsqueeze(0).expand(3, v2.size(0), C)", "op", ""),
        ("s5 = v4.view(torch.bool)", "dtype_view", "v4")]))
    assert [v.engine for v in verdicts] == ["unknown"]


def test_a_step_of_a_gather_of_unknown_rank_is_not_claimed_strided():
    # (an open class of the programs of unknown rank until the rule above) at rank 1 dim 0 is
    # the gathered one, of one element, and the step keeps it contiguous
    verdicts = agreed(program("opaque", (), [("v0 = x[..., torch.tensor([0])]", "op", ""),
                                            ("v1 = v0[::3]", "op", ""),
                                            ("s2 = v1.data_ptr()", "probe", "v1")],
                              ("x",), 1, ((4,), (1,), (2,))))
    assert [v.engine for v in verdicts] == ["unknown"]


def test_an_int_of_a_moved_tensor_of_unknown_rank_leaves_its_kind_open():
    # (seed 76 of the programs of unknown rank) the ints drop dims the model cannot place:
    # here they leave holes, and `x.mT[..., 0]` would be contiguous; it was called permuted
    verdicts = agreed(program("opaque", (), [("v1 = x.moveaxis(-4, -3)", "op", ""),
                                            ("v3 = v1[:, 0, 0, -1]", "op", ""),
                                            ("s7 = v3.data_ptr()", "probe", "v3")],
                              ("x",), 4, ((4, 5, 6, 7), (4, 5, 1, 7), (3, 3, 4, 3))))
    assert [v.engine for v in verdicts] == ["unknown"]


def test_a_size_one_test_of_a_dim_no_name_stood_for_binds_it():
    # (seed 80) `v1.size(-1) == 1` is of the reshape's `-1` dim: the transpose is contiguous
    # under the test, and the witness gave that dim 3 (a false default finding)
    verdicts = agreed(program("lead", ("*batch, D = x.shape",), [
        ("v0 = x.reshape(-1, D)", "op", ""), ("v1 = torch.transpose(v0, 1, 0)", "op", ""),
        ("s4 = v1.data_ptr() if v1.size(-1) == 1 else None", "probe", "v1",
         "v1.size(-1) == 1")], ("x",), 3, ((5, 3, 6), (6,), (5, 6), (1, 6), (1, 1))))
    assert [v.finding for v in verdicts] == [False]


def test_a_view_into_the_lead_of_a_cut_is_not_taken_as_a_callers():
    # (seed 94) `x.narrow(-1, 0, 1)` viewed into `(*batch, 1, C, 1)` keeps the narrow's holes;
    # taken as a caller's tensor, its swap was called merely permuted
    verdicts = agreed(lead_program([
        ("v0 = x.narrow(-1, 0, 1)", "op", ""), ("v1 = v0.view(*batch, 1, C, 1)", "op", ""),
        ("v2 = v1.swapaxes(-1, -2)", "op", ""), ("s5 = v2.data_ptr()", "probe", "v2")]))
    assert [v.engine for v in verdicts] == ["unknown"]


SIZES1 = ((5, 3, 6), (6,), (5, 6), (1, 6), (5, 1))
PROLOGUE1 = ("*batch, D = x.shape",)


def test_a_view_of_the_dims_after_the_lead_with_a_minus_one_is_decided_by_them():
    # `x.mT.view(*batch, -1)` merges the swapped last dims at every number of leading dims:
    # a default finding whose witness torch fails at (the `-1` had no verdict)
    verdicts = agreed(lead_program([
        ("v1 = x.mT", "op", ""), ("s2 = v1.view(*batch, -1)", "view", "v1")]))
    assert [(v.engine, v.finding, bool(v.witness)) for v in verdicts] == [("raises", True, True)]


@pytest.mark.parametrize("shape", ["-1", "*batch, -1", "*batch, D * 3"])
def test_an_expand_of_the_dims_after_the_lead_keeps_the_lead(shape):
    # `x.unsqueeze(-1).expand(*batch, D, 3)` grows the new last dim alone: merging it with D
    # raises for any D > 1, at every number of leading dims (it had no verdict)
    verdicts = agreed(program("lead", PROLOGUE1, [
        ("v0 = x.unsqueeze(-1).expand(*batch, D, 3)", "op", ""),
        (f"s1 = v0.view({shape})", "view", "v0"), ("s2 = v0.view(*batch, D, 3, 1)", "view", "v0")],
        ("x",), 3, SIZES1))
    # (adding a size-1 dim after the lead has no verdict: the coarse one at an unknown rank)
    assert [(v.engine, v.finding) for v in verdicts] == [("raises", True), ("unknown", False)]
    assert verdicts[0].witness


def test_a_join_with_the_contiguous_copy_keeps_the_lead():
    # `x.contiguous() if p else x` has x's dims after the lead on both paths: the swap of
    # them is decided by them (the join had dropped the lead)
    verdicts = agreed(lead_program([
        ("v2 = x.contiguous() if p else x", "op", ""), ("v3 = v2.mT", "op", ""),
        ("s4 = v3.view(*batch, -1)", "view", "v3")], paths=True))
    assert [(v.engine, v.finding) for v in verdicts] == [("raises", True)]


def test_a_view_after_the_lead_of_a_transposed_tensor_regroups_the_dims_after_it():
    # splitting C of the swapped dims keeps them apart in memory; merging them back raises,
    # merging only the split does not (the view of a non-contiguous tensor dropped the lead)
    verdicts = agreed(lead_program([
        ("v0 = x.transpose(-2, -1)", "op", ""),
        ("v1 = v0.view(*batch, D, C // 2, 2)", "op", ""),
        ("s2 = v1.view(*batch, -1)", "view", "v1"), ("s3 = v1.view(*batch, D, C)", "view", "v1"),
        ("v4 = v0.reshape(*batch, -1)", "op", ""), ("s5 = v4.view(*batch, C, D)", "view", "v4")]))
    assert [(v.engine, v.finding) for v in verdicts] == \
        [("raises", True), ("unknown", False), ("ok", False)]


def test_a_reshape_that_may_view_an_expand_stays_only_maybe_contiguous_after_the_lead():
    # for D = 1 the reshape views the expand (a stride 0 is left): a view of it into the
    # lead is no proof of contiguity, and `.view(-1)` of that raises there
    verdicts = agreed(program("lead", PROLOGUE1, [
        ("v1 = x.unsqueeze(-1).expand(*batch, D, 3)", "op", ""),
        ("v3 = v1.reshape(*batch, -1)", "op", ""),
        ("v4 = v3.view(*batch, v3.size(-1))", "op", ""),
        ("s5 = v4.view(-1)", "view", "v4"), ("s6 = v4.add_(1)", "write", "v4")],
        ("x",), 3, SIZES1))
    assert [v.engine for v in verdicts] == ["unknown", "unknown"]


def test_a_dtype_view_of_a_join_with_the_contiguous_copy_is_not_called_safe():
    # the swap puts D last: of stride 1 on the expand's path, of stride 3 on the copy's, where
    # `.view(torch.uint8)` raises; it was called safe from the expand's path alone
    verdicts = agreed(program("lead", PROLOGUE1, [
        ("v0 = x.unsqueeze(-1).expand(*batch, D, 3)", "op", ""),
        ("v1 = v0.contiguous() if p else v0", "op", ""),
        ("v3 = v1.unsqueeze(-1).expand(*batch, D, 3, 3)", "op", ""),
        ("v4 = v3.transpose(-3, -1)", "op", ""),
        ("s5 = v4.view(torch.uint8)", "dtype_view", "v4")], ("x",), 3,
        tuple(s + (p,) for p in (1, 0) for s in SIZES1), paths=True))
    assert [v.engine for v in verdicts] == ["unknown"]


@pytest.mark.parametrize("product", ["x @ x.mT", "torch.matmul(x, torch.ones(*batch, D, 3))"])
def test_a_product_of_two_tensors_after_one_lead_keeps_the_lead(product):
    # the operands' leading dims are the same sizes: the product has them, and the swap of its
    # last dims raises when merged back at every number of leading dims (the lead was dropped)
    verdicts = agreed(lead_program([
        (f"v0 = {product}", "op", ""), ("v1 = v0.mT", "op", ""),
        ("s2 = v1.view(*batch, -1)", "view", "v1"), ("s3 = v0.view(*batch, -1)", "view", "v0")]))
    assert [(v.engine, v.finding) for v in verdicts] == [("raises", True), ("ok", False)]
    assert verdicts[0].witness


def test_a_product_with_a_tensor_of_unknown_rank_keeps_no_lead():
    # `w` may add leading dims of its own (a broadcast): no view into `(*batch, ...)` is decided
    verdicts = agreed(lead_program([
        ("v0 = x @ x.mT", "op", ""), ("v1 = v0 @ torch.ones_like(v0).flatten(0, -3)", "op", ""),
        ("v2 = v1.mT", "op", ""), ("s3 = v2.view(*batch, -1)", "view", "v2")]))
    assert [v.finding for v in verdicts] == [False]


@pytest.mark.parametrize("made, grown, merged", [
    # a unary op that keeps the shape: x's dims after the lead, densely
    ("torch.relu(x)", "v0.mT", "*batch, D * C"), ("x.float()", "v0.mT", "*batch, D * C"),
    ("x.flip(-1)", "v0.mT", "*batch, D * C"), ("x.clone()", "v0.mT", "*batch, D * C"),
    # a reduction over a dim after the lead: (C,) after it, grown along a new last dim
    ("x.sum(-1)", "v0.unsqueeze(-1).expand(*batch, C, 3)", "*batch, C * 3"),
    ("x.amax(-1)", "v0.unsqueeze(-1).expand(*batch, C, 3)", "*batch, C * 3"),
    ("x.max(-1)[0]", "v0.unsqueeze(-1).expand(*batch, C, 3)", "*batch, C * 3")])
def test_an_op_on_the_dims_after_the_lead_keeps_the_lead(made, grown, merged):
    # merging the swapped (or expanded) last dims back raises at every number of leading dims
    # (the op had dropped the lead, and the view had no verdict)
    verdicts = agreed(lead_program([
        (f"v0 = {made}", "op", ""), (f"v1 = {grown}", "op", ""),
        (f"s2 = v1.view({merged})", "view", "v1")]))
    assert [(v.engine, v.finding) for v in verdicts] == [("raises", True)]
    assert verdicts[0].witness


def test_a_reduction_over_a_leading_dim_keeps_no_lead():
    # dim -3 is a leading dim (or none, at no leading dims, where torch raises): no verdict
    # into `(*batch, ...)` follows from the dims after the lead
    verdicts = agreed(lead_program([
        ("v0 = x.sum(-1, keepdim=True)", "op", ""), ("v1 = v0.expand(*batch, C, 3)", "op", ""),
        ("v2 = v1.mean(-3)", "op", ""), ("s3 = v2.view(*batch[1:], -1)", "view", "v2")]))
    assert [v.finding for v in verdicts] == [False]


@pytest.mark.parametrize("indexed, target", [
    ("x[..., ::2]", "*batch, C * v1.size(-1)"),  # raises for odd D: the witness must say so
    ("x.unsqueeze(-1).expand(*batch, C, D, 3)[..., ::2]", "*batch, C, D * 2")])
def test_an_index_after_an_ellipsis_that_breaks_the_dims_after_the_lead_keeps_it(indexed,
                                                                                  target):
    verdicts = agreed(lead_program([
        (f"v1 = {indexed}", "op", ""), (f"s2 = v1.view({target})", "view", "v1")]))
    assert [(v.engine, v.finding) for v in verdicts] == [("raises", True)]
    assert verdicts[0].witness


@pytest.mark.parametrize("indexed, holes", [
    ("x[..., 1:, :]", True), ("x[..., 0, :]", True), ("x[..., :1]", False)])
def test_an_index_that_leaves_the_dims_after_the_lead_contiguous_has_holes_between_them(
        indexed, holes):
    # contiguous after the lead, with holes between the leading dims' blocks: `.view(-1)`
    # raises with leading dims and not without, so no verdict holds at every number of them,
    # and the finding's witness names one (the lead was dropped, and nothing reported). Cut to
    # one element, the last dim leaves no hole: size-1 dims have no stride
    verdicts = agreed(lead_program([
        (f"v1 = {indexed}", "op", ""), ("s2 = v1.view(-1)", "view", "v1")]))
    assert [(v.engine, v.finding) for v in verdicts] == [("unknown", holes)]
    assert not holes or verdicts[0].witness["x.size(0)"] >= 2


def test_a_flatten_that_keeps_a_size_one_dim_keeps_its_stride_open():
    # (seed 196) `ones(*batch, 1, D).mT` is contiguous with its size-1 last dim at stride D;
    # flattening the dims before it keeps that stride, and a dtype view raises on it (it was
    # called safe: the flatten of unknown rank made it a fresh contiguous tensor)
    verdicts = agreed(program("lead", PROLOGUE1, [
        ("v1 = torch.ones(*batch, 1, D)", "op", ""), ("v3 = v1.transpose(-1, -2)", "op", ""),
        ("v4 = v3.flatten(0, -2)", "op", ""), ("s5 = v4.view(torch.short)", "dtype_view", "v4")],
        ("x",), 3, SIZES1))
    assert [v.engine for v in verdicts] == ["unknown"]


SLICED2 = ("batch = x.shape[:-2]", "C, D = x.shape[-2:]")


@pytest.mark.parametrize("prologue, made", [
    (PROLOGUE2, "x.mT"), (SLICED2, "x.mT"), (PROLOGUE2, "x.transpose(-1, -2)"),
    (PROLOGUE2, "torch.ones(*batch, C, D).mT")])
def test_a_view_that_folds_the_lead_into_a_swapped_dim_raises_with_a_leading_dim(prologue,
                                                                                 made):
    # (D, C) viewed as (-1, C) is the same shape; with a leading dim of size L the view merges
    # L with D, which the swap moved to stride 1: torch raises. No verdict holds at every
    # number of leading dims, and the finding's witness names one, x's first (there was no
    # finding: the dims after the lead alone say nothing)
    verdicts = agreed(program("lead", prologue, [
        (f"v1 = {made}", "op", ""), ("s2 = v1.view(-1, C)", "view", "v1")],
        ("x",), 4, SIZES2))
    assert [(v.engine, v.finding) for v in verdicts] == [("unknown", True)]
    assert verdicts[0].witness["x.size(0)"] >= 2


@pytest.mark.parametrize("made, target", [
    ("x[..., ::2]", "-1, v1.size(-1)"),  # the leading dims merge with C: no hole between
    ("x.mT", "*batch, -1"),  # the lead kept: decided after it, where it raises
    ("x.unsqueeze(-2).expand(*batch, C, 3, D)", "-1, 3, D")])
def test_a_view_that_folds_the_lead_where_it_merges_is_not_reported_for_it(made, target):
    verdicts = agreed(lead_program([
        (f"v1 = {made}", "op", ""), (f"s2 = v1.view({target})", "view", "v1")]))
    assert all("x.size(0)" not in (v.witness or {}) for v in verdicts)


@pytest.mark.parametrize("made", ["x * x", "x * x.sum(-1, keepdim=True)",
                                  "torch.ones(*batch, C, D) + x.flip(-1)"])
def test_an_elementwise_op_of_operands_after_one_lead_keeps_it(made):
    # the operands' leading dims are the same sizes, outermost in each: so are the result's,
    # and merging its expanded last dims back raises at every number of leading dims (an op
    # of more than one tensor operand dropped the lead)
    verdicts = agreed(lead_program([
        (f"v0 = {made}", "op", ""), ("v1 = v0.unsqueeze(-1).expand(*batch, C, D, 3)", "op", ""),
        ("s2 = v1.view(*batch, C, D * 3)", "view", "v1")]))
    assert [(v.engine, v.finding) for v in verdicts] == [("raises", True)]


def test_an_elementwise_op_with_an_operand_reduced_over_a_leading_dim_keeps_no_lead():
    # `x.sum(-3, keepdim=True)` has no lead (dim -3 is a leading dim, or none): the result's
    # leading dims are not decided
    verdicts = agreed(lead_program([
        ("v0 = x * x.sum(-3, keepdim=True)", "op", ""),
        ("v1 = v0.unsqueeze(-1).expand(*batch, C, D, 3)", "op", ""),
        ("s2 = v1.view(*batch, C, D * 3)", "view", "v1")]))
    assert [v.finding for v in verdicts] == [False]


@pytest.mark.parametrize("fold, target", [
    ("reshape(-1, 3)", "-1"), ("view(-1, 3)", "-1"), ("reshape(-1, D, 3)", "-1")])
def test_a_view_that_folds_the_lead_where_it_merges_keeps_the_layout(fold, target):
    # an expand after the lead, folded with the leading dims where they merge: the expanded
    # last dim stays broadcast (stride 0), and merging it raises at every number of leading
    # dims (the fold left the layout unknown)
    verdicts = agreed(lead_program([
        ("v0 = x.unsqueeze(-1).expand(*batch, C, D, 3)", "op", ""), (f"v1 = v0.{fold}", "op", ""),
        (f"s2 = v1.view({target})", "view", "v1")]))
    assert [(v.engine, v.finding) for v in verdicts] == [("raises", True)]


@pytest.mark.parametrize("flattened, target", [
    ("x.flatten(0, -2)", "1, D * v0.size(0)"), ("x.reshape(-1, D)", "-1"),
    ("torch.flatten(x, 0, -2)", "-1")])
def test_a_fold_of_the_lead_into_the_first_dim_after_it_names_its_size(flattened, target):
    # (n, D) with n the leading dims' product times C (C at none): transposed, it merges
    # nothing back. The fold had no sizes: a view of its swap had no witness
    verdicts = agreed(program("lead", SLICED2, [
        (f"v0 = {flattened}", "op", ""), ("v1 = v0.transpose(0, -1)", "op", ""),
        (f"s2 = v1.view({target})", "view", "v1")], ("x",), 4, SIZES2))
    assert [(v.engine, v.finding) for v in verdicts] == [("raises", True)]


@pytest.mark.parametrize("made", ["torch.relu(v1)", "v1.float()", "v1 + 1"])
def test_an_op_on_a_cut_with_holes_between_the_leading_blocks_keeps_no_lead(made):
    # TensorIterator writes the result of a non-dense input densely: no holes, and no view of
    # it raises (a lead kept through the op would carry the holes into a false finding)
    verdicts = agreed(lead_program([
        ("v1 = x[..., 1:, :]", "op", ""), (f"v2 = {made}", "op", ""),
        ("s3 = v2.view(-1)", "view", "v2")]))
    assert [v.finding for v in verdicts] == [False]


def test_a_dtype_view_of_a_join_with_a_transposed_copy_at_a_size_one_last_dim_is_not_safe():
    # (seed 217) where D is 1, the expand's transpose has its last dim at stride 1, but the
    # contiguous copy's transpose at stride 3: torch raises on that path (it was called safe)
    verdicts = agreed(program("lead", PROLOGUE1, [
        ("v1 = x.unsqueeze(-1).expand(*batch, D, 3)", "op", ""),
        ("v2 = v1.contiguous() if p else v1", "op", ""), ("v3 = v2.transpose(-1, -2)", "op", ""),
        ("s4 = v3.view(torch.bfloat16) if v3.shape[-1] == 1 else None", "dtype_view", "v3",
         "v3.shape[-1] == 1")],
        ("x",), 3, tuple(s + (p,) for p in (1, 0) for s in SIZES1), paths=True))
    assert [v.engine for v in verdicts] == ["unknown"]
