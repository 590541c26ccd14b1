"""Model facts the generated programs found, each a program of a class the sample (or an
unseen seed of `benchmarks/generated_programs.py`, or real code) showed wrong, written by hand
and run under torch through the same oracle: the verdict at each sink, which torch must not
disprove at any of the sizes given. The single-purpose ones: test_generated_model_facts.py."""
from __future__ import annotations

import pytest

from tests.generated.cases import program, verdicts_of

SIZES3 = ((2, 3, 4), (1, 3, 4), (2, 1, 4), (2, 3, 1))
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
    # advanced indexing keeps the permutation of a permuted tensor (TensorIterator's order):
    # v3's dim 0 is innermost, so v4's last dim walks memory at stride 1
    ("params", ("x = torch.randn(B, N, C, D)",),
     [("v1 = x.permute(3, 2, 0, 1)", "op", ""), ("v3 = v1[:, torch.tensor([0, 0])]", "op", ""),
      ("v4 = torch.permute(v3, (2, 3, 1, 0,))", "op", ""),
      ("s = v4.view(torch.bfloat16)", "dtype_view", "v4")], ("B", "N", "C", "D"), 4, SIZES4,
     ["ok"]),
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
    # a diagonal lives in memory at the outer of the dims it walks (its stride is the sum of
    # theirs): an elementwise op of the diagonal of an expanded tensor puts it outermost, with
    # the broadcast dim where TensorIterator leaves it (the long run of seeds 337-376: it was
    # placed at the inner one and the result claimed contiguous)
    ("literal", ("x = torch.randn(3, 2, 3)",),
     [("v0 = x.unsqueeze(2).expand(3, 2, 3, 3)", "op", ""),
      ("v2 = v0.diagonal(0, 0, 3)", "op", ""), ("v4 = F.gelu(v2)", "op", ""),
      ("s = v4.data_ptr()", "probe", "v4")], (), 3, ((),), ["permuted"]),
    # chunk(2) of an empty dim gives two empty pieces (the model divided by zero), which are
    # contiguous
    ("literal", ("x = torch.randn(1)",),
     [("v0 = x.split_with_sizes([1, 1 - 1], -1)[-1]", "op", ""),
      ("v1 = v0.chunk(2, -1)[0]", "op", ""), ("s = v1.data_ptr()", "probe", "v1")], (), 1,
     ((),), ["contiguous"]),
    # a transpose at a rank the code leaves open loses the layout (-2 may be 0 or not); a
    # select of it may drop the moved dim: (N, C) of a 3-d x is contiguous, not strided
    ("size", ("B = x.size(0)", "N = x.size(1)", "C = x.size(2)"),
     [("v0 = x.transpose(0, -2)", "op", ""), ("v1 = torch.select(v0, 1, 0)", "op", ""),
      ("s = v1.data_ptr()", "probe", "v1")],
     ("x",), 3, ((4, 5, 6), (4, 5, 1), (1, 5, 6), (4, 1, 3)), ["unknown"]),
    # ... and so may an int index, or keep an overlap: the unfold of an expand at a rank the
    # code leaves open, indexed, is broadcast in torch
    ("size", ("B = x.size(0)", "N = x.size(1)"),
     [("v0 = x.unsqueeze(0).expand(3, B, N)", "op", ""), ("v1 = v0.unfold(-3, 1, 1)", "op", ""),
      ("v2 = v1[None, :, 0, :, 0]", "op", ""), ("s = v2.data_ptr()", "probe", "v2")],
     ("x",), 2, ((4, 5), (1, 5), (3, 3)), ["unknown"]),
    # movedim(x, -1, 0) of x of unknown rank: one dim at rank 1, a move above it (seed 104,
    # opaque): not contiguous at the rank a later permute fixes, whose two permutes back
    # to x's order were read as a permute of a contiguous tensor (a false default finding)
    ("opaque", (),
     [("v0 = torch.movedim(x, -1, 0)", "op", ""), ("v3 = v0.permute(2, 0, 1)", "op", ""),
      ("v4 = torch.permute(v3, (2, 0, 1,))", "op", ""),
      ("s = v4.view(x.size(0), x.size(1) * x.size(2))", "view", "v4")],
     ("x",), 3, ((4, 5, 6), (4, 1, 6), (3, 3, 3)), ["unknown"]),
    # a view that adds a dim the code names (N) beside all of x's succeeds only where N is 1:
    # a dim of one element, not one of N elements ordered outside the others (the flattened
    # tokens of a model viewed as (tokens, top_k, hidden) were called permuted, and a later
    # view given a witness of top_k=4: a false default finding on real code)
    ("params", ("x = torch.randn(B, N, C)",),
     [("v0 = x.reshape(B * N, C)", "op", ""), ("v1 = v0.view(B * N, N, C)", "op", ""),
      ("s = v1.data_ptr()", "probe", "v1"), ("s2 = v1.view(-1, C * N)", "view", "v1")],
     ("B", "N", "C"), 3, ((4, 1, 6), (3, 1, 2)), ["contiguous", "ok"]),
    # einsum fixes the rank of a caller's tensor: its sizes are the ones x.size(i) reads
    # (seed 120, opaque: named apart, a witness gave them values no input gives, at which
    # the view merges dims torch keeps in order)
    ("opaque", (),
     [("v0 = torch.einsum('abc->cab', x)", "op", ""), ("v1 = torch.unsqueeze(v0, -3)", "op", ""),
      ("s4 = v1.view(x.size(2), -1)", "view", "v1")],
     ("x",), 3, ((4, 5, 6), (1, 5, 6), (1, 4, 3)), ["ok"]),
    # a piece of a split of dim -4 has 4 dims or more, not 5 (seed 112, opaque): at 4, -2 and
    # 1 of its mean over dim 0 are one dim, and swapping it with itself keeps it contiguous
    ("opaque", (),
     [("v1 = x.tensor_split(2, -4)[0]", "op", ""), ("v2 = v1.mean(0)", "op", ""),
      ("v4 = v2.swapaxes(-2, 1)", "op", ""), ("s8 = v4.data_ptr()", "probe", "v4")],
     ("x",), 4, ((4, 5, 6, 7), (4, 5, 6, 1), (3, 2, 2, 2)), ["unknown"]),
    # what is assumed at a lower rank has no place where an index needs more dims: the first
    # piece of split(1, 0) has a dim 0 of size 1, and keepdim a dim 1 of size 1, at every
    # rank; free sizes there gave witnesses of a view that merges them (seeds 124 and 116,
    # opaque: false view findings)
    ("opaque", (),
     [("v0 = x.split(1, 0)[0]", "op", ""), ("v2 = v0[:, ::2, 1:, -1]", "op", ""),
      ("s4 = v2.view(-1, x.size(2) - 1)", "view", "v2")],
     ("x",), 4, ((4, 5, 6, 7), (4, 5, 1, 7), (1, 5, 6, 7), (1, 4, 1, 2)), ["unknown"]),
    ("opaque", (),
     [("v1 = x.sum(1, keepdim=True)", "op", ""), ("v2 = v1[:, -1, :]", "op", ""),
      ("s5 = v2.view(1, x.size(0) * x.size(2))", "view", "v2")],
     ("x",), 3, ((4, 5, 6), (4, 5, 1), (3, 1, 4)), ["unknown"]),
    # a narrow of dim 1 implies rank 2 or more, as `x[:, :1]` does: its size-1 cut stays in
    # the geometry assumed there, and the main diagonal of it and dim 0 has one element
    # (seed 102, opaque: called strided, the cut lost at rank 0)
    ("opaque", (),
     [("v0 = x.narrow(1, 0, 1)", "op", ""), ("v1 = v0.diagonal(0, 1, 0)", "op", ""),
      ("s3 = v1.data_ptr()", "probe", "v1")],
     ("x",), 3, ((4, 5, 6), (4, 5, 1), (4, 3, 3)), ["unknown"]),
    # ... and a select of dim 2 rank 3, at which it leaves holes where dim 2 has 2 elements
    ("opaque", (),
     [("v0 = x.select(2, 0)", "op", ""), ("s1 = v0.data_ptr()", "probe", "v0")],
     ("x",), 3, ((4, 5, 6), (4, 5, 1), (1, 1, 3)), ["strided"]),
    # topk keeps x's sizes but k at its dim; max, min, median, mode and kthvalue over a dim
    # give values and indices of a reduction's sizes, as a pair or by field (`.values`), the
    # indices int64 (their sizes were unknown, so the views' verdicts were too, and a dtype
    # view of the indices to float64, of the same element size, was called raising)
    ("params", ("x = torch.randn(B, N, C)",),
     [("v0 = x.topk(2, dim=1)[0]", "op", ""), ("v1 = v0.transpose(0, 1)", "op", ""),
      ("s = v1.view(2, B, C)", "view", "v1")], ("B", "N", "C"), 3, SIZES3 + ((3, 2, 2),),
     ["ok"]),
    ("params", ("x = torch.randn(B, N, C)",),
     [("v0 = x.max(1)[0]", "op", ""), ("v1 = v0.t()", "op", ""),
      ("s = v1.view(C, B)", "view", "v1")], ("B", "N", "C"), 3, SIZES3, ["ok"]),
    ("params", ("x = torch.randn(B, N, C)",),
     [("v0 = torch.median(x, dim=1).values", "op", ""), ("v1 = v0.t()", "op", ""),
      ("s = v1.view(C, B)", "view", "v1")], ("B", "N", "C"), 3, SIZES3, ["ok"]),
    ("params", ("x = torch.randn(B, N, C)",),
     [("v0 = x.kthvalue(2, 1, True)[0]", "op", ""), ("v1 = v0.transpose(1, 2)", "op", ""),
      ("s = v1.view(B, C)", "view", "v1")], ("B", "N", "C"), 3, SIZES3, ["ok"]),
    ("params", ("x = torch.randn(B, N, C)",),
     [("v0 = x.topk(1, 1).indices", "op", ""), ("v1 = v0.transpose(1, 2)", "op", ""),
      ("s = v1.view(torch.float64)", "dtype_view", "v1")], ("B", "N", "C"), 3, SIZES3, ["ok"]),
    # ... and at a rank the model does not know, topk's k elements lie at its dim in the
    # geometry assumed at the least rank, as keepdim's size-1 dim does: a witness gave dim 0
    # of topk(1, 0) two elements (seed 140: a false view finding), and the transpose of
    # topk(1, -1) of a matrix was called permuted (seed 141, opaque)
    ("size", ("B = x.size(0)",),
     [("v0 = x.topk(1, 0)[1]", "op", ""), ("v3 = v0.unsqueeze(1).expand(-1, 3)", "op", ""),
      ("s5 = v3.view(1, -1)", "view", "v3")], ("x",), 1, ((4,), (1,)), ["unknown"]),
    ("opaque", (),
     [("v2 = x.topk(1, -1).values", "op", ""), ("v4 = v2.t()", "op", ""),
      ("s7 = v4.data_ptr()", "probe", "v4")], ("x",), 2, ((4, 5), (4, 1), (1, 5)),
     ["unknown"]),
    # ... but max of two tensors is torch.maximum, elementwise: it keeps the operands'
    # permuted layout (it was taken for a (values, indices) pair)
    ("params", ("x = torch.randn(B, N)",),
     [("v0 = x.t()", "op", ""), ("v1 = torch.max(v0, v0 * 2)", "op", ""),
      ("s = v1.data_ptr()", "probe", "v1"), ("s2 = v1.view(-1)", "view", "v1")],
     ("B", "N"), 2, ((4, 5), (1, 5), (4, 1)), ["permuted", "raises"]),
    # keepdim over dim 1 of a tensor of unknown rank, then .mT: at rank 2 the moved dims are
    # the kept size-1 dim and dim 0, contiguous; at rank 4 they are two others, and a view
    # merging them raises (seed 140, opaque: the view was called safe)
    ("opaque", (),
     [("v0 = x.max(1, keepdim=True)[1]", "op", ""), ("v1 = v0.mT", "op", ""),
      ("s3 = v1.view(x.size(0), -1)", "view", "v1")],
     ("x",), 4, ((4, 5, 6, 7), (1, 5, 6, 7), (1, 1, 1, 1)), ["unknown"]),
    # one-element slices keep their dims of size 1: a cut of the next dim leaves no hole at
    # any rank (`v1[:1, :1, :]` of a stack was called strided: seed 141, opaque)
    ("opaque", (),
     [("v0 = x.contiguous()", "op", ""), ("v1 = torch.stack([v0, v0], 1)", "op", ""),
      ("v3 = v1[:1, :1, :]", "op", ""), ("s4 = v3.data_ptr()", "probe", "v3")],
     ("x",), 2, ((4, 5), (1, 5), (3, 2)), ["contiguous"]),
    # ... but a cut after a dim of more than one element still leaves holes
    ("opaque", (),
     [("v0 = x.contiguous()", "op", ""), ("v3 = v0[-1:, 2:3, :, 1:]", "op", ""),
      ("s4 = v3.data_ptr()", "probe", "v3")],
     ("x",), 4, ((4, 5, 6, 7), (1, 3, 2, 2), (2, 4, 3, 3)), ["strided"]),
    # repeat_interleave over a dim keeps x's other sizes (its rank only was known)
    ("params", ("x = torch.randn(B, N, C)",),
     [("v0 = x.transpose(1, 2).repeat_interleave(2, dim=1)", "op", ""),
      ("v1 = v0.transpose(0, 1)", "op", ""), ("s = v1.view(2 * C, B, N)", "view", "v1")],
     ("B", "N", "C"), 3, SIZES3, ["ok"]),
])
def test_model_facts_found_by_the_sample(form, prologue, body, params, rank, sizes, verdicts):
    assert verdicts_of(program(form, prologue, body, params, rank, sizes)) == verdicts
