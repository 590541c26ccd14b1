"""What an op makes of a tensor whose rank the code does not show.

`x.unsqueeze(2)` of such an x has at least 3 dims, and its dim 2 has size 1 at every rank: the
engine kept neither (a later op gave the result free sizes, so a witness could name a size 3
where torch has 1). A convolution module's output was then given N + 2 dims of free sizes
whatever made its input: where an op made the input, the output may keep a size-1 dim it
holds (a kernel of 1 keeps it), and unbatched inputs have N + 1 dims, so its sizes are not a
caller's choice. Each claim below is run under torch.
"""
from __future__ import annotations

import textwrap

import pytest
import torch

from tests.generated.cases import agreed, executed, program, view_findings

SOURCE = textwrap.dedent("""
    import torch
    from torch import nn


    def swapped(x):
        return x.unsqueeze(2).transpose(0, 2).view(-1)


    def moved_unit(x):
        return x.unsqueeze(1).transpose(1, 2).view(-1)


    class Flatten(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.conv = nn.Conv2d(c, 8, 3, padding=1)

        def forward(self, x):
            f = self.conv(x).transpose(1, 2)
            return f.view(f.size(0), -1)


    class FlattenUnsqueezed(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.conv = nn.Conv2d(c, 8, (1, 3), padding=(0, 1))

        def forward(self, x):
            f = self.conv(x.unsqueeze(2)).transpose(1, 2)
            return f.view(f.size(0), -1)
    """)

LINES = {"swapped": 7, "moved_unit": 11, "Flatten": 21, "FlattenUnsqueezed": 31}


@pytest.fixture(scope="module")
def namespace() -> dict:
    return executed(SOURCE)


@pytest.fixture(scope="module")
def findings() -> dict:
    found = view_findings(SOURCE)
    return {f.line: f for f in found}


def test_the_unsqueezed_dim_has_size_one_in_the_witness(namespace, findings):
    witness = findings[LINES["swapped"]].witness
    assert witness is not None
    # at the least rank x is (a, b): unsqueeze(2) and transpose(0, 2) make (1, b, a)
    one, b, a = witness.sizes
    assert one == 1
    made = torch.randn(a, b).unsqueeze(2).transpose(0, 2)
    assert made.shape == witness.sizes
    assert [s for s, n in zip(made.stride(), made.shape) if n > 1] == \
        [s for s, n in zip(witness.strides, witness.sizes) if n > 1]
    for x in (torch.randn(a, b), torch.randn(a, b, 4)):  # and at any rank above
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            namespace["swapped"](x)


def test_a_view_that_merges_only_around_the_unit_dim_is_not_reported(namespace, findings):
    assert LINES["moved_unit"] not in findings
    for x in (torch.randn(3, 4), torch.randn(2, 3, 4), torch.randn(2, 3, 4, 5)):
        assert namespace["moved_unit"](x).numel() == x.numel()


def test_the_convolution_of_a_callers_input_keeps_its_witness(namespace, findings):
    witness = findings[LINES["Flatten"]].witness
    assert witness is not None
    values = dict(witness.values)
    n, h, w = values["f.size(0)"], values["f.size(1)"], values["f.size(3)"]
    module = namespace["Flatten"](4)
    x = torch.randn(n, 4, h, w)
    made = module.conv(x).transpose(1, 2)
    assert (made.shape, made.stride()) == (witness.sizes, witness.strides)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        module(x)


@pytest.mark.parametrize("shape", [(2, 4, 10), (1, 4, 7), (3, 4, 1), (4, 10)])
def test_the_convolution_of_an_unsqueezed_input_is_not_reported(namespace, findings, shape):
    # its output keeps the size-1 dim (a kernel of 1 across it), so the transpose moves only
    # that dim and the view runs, batched (3-d input) or not (2-d)
    assert LINES["FlattenUnsqueezed"] not in findings
    module = namespace["FlattenUnsqueezed"](4)
    out = module(torch.randn(*shape))
    assert out.shape[0] == (shape[0] if len(shape) == 3 else 8)


# --- found by the programs of unknown rank (tests/test_generated_programs.py) -----------------
# Each program takes an x whose rank the code never shows; the oracle runs it under torch at
# the sizes given (and a finding's witness at the sizes it names, at any rank) and fails on a
# disagreement. Each failed before its fix.
SIZES4 = ((4, 5, 6, 7), (4, 5, 6, 1), (1, 1, 3, 3))


@pytest.mark.parametrize("body, rank, sizes, verdicts", [
    # the permute that fixes x's rank names the dims it moves `x.size(i)`, as the view target
    # does: the witness gives one value to both (they were two free names, the view's target
    # and the dim it matched, at values no input gives)
    ([("v0 = x.permute(3, 1, 0, 2)", "op", ""), ("v1 = v0.permute(3, 1, 0, 2)", "op", ""),
      ("s = v1.view(-1, x.size(0))", "view", "v1")], 4, SIZES4, [("raises", True)]),
    # a test that a dim is 1 binds the name of its size on the path, also where the code reads
    # it again by x (`x.size(0)` is v1's dim 3): the witness is one where the guard holds
    ([("v0 = x.permute(3, 1, 0, 2)", "op", ""), ("v1 = v0.permute(3, 1, 0, 2)", "op", ""),
      ("s = v1.view(-1, x.size(0)) if v1.size(3) <= 1 else None", "view", "v1",
       "v1.size(3) <= 1")], 4, SIZES4,
     [("raises", True)]),
    # keepdim of a literal dim at an unknown rank: that dim has size 1 at every rank, so moving
    # the last dim next to it keeps the tensor contiguous (it was called permuted; the engine
    # claims no layout now, as the move at an unknown rank is not shown to keep one)
    ([("v2 = x.amax(-2, keepdim=True)", "op", ""), ("v3 = torch.movedim(v2, -1, -2)", "op", ""),
      ("s = v3.data_ptr()", "probe", "v3")], 3, ((4, 5, 6), (4, 1, 6), (2, 3, 1)),
     [("unknown", False)]),
    # an expand of dims whose sizes the code names otherwise guesses that all grow; the view is
    # safe only on that guess, so it is not called safe (it raises where only the 1 grows)
    ([("v1 = x.unsqueeze(1).expand(x.size(0), 3, x.size(1), x.size(2))", "op", ""),
      ("v2 = torch.permute(v1, (3, 0, 1, 2,))", "op", ""),
      ("s = v2.view(x.size(2) * x.size(0), 3, x.size(1))", "view", "v2")], 3,
     ((4, 5, 6), (4, 1, 6), (2, 4, 2)), [("unknown", False)]),
    # a list subscript of a parameter is a gather (a list or a dict raises on it): `x[[0]]`
    # has a dim 0 of one element, so the transpose that moves it leaves a view of x's own
    # shape, which runs; taken for a caller's tensor of free sizes, it was reported raising
    ([("v0 = x[[0]]", "op", ""), ("v1 = torch.transpose(v0, 0, 2)", "op", ""),
      ("s = v1.view(x.size(2), x.size(1), 1)", "view", "v1")], 3,
     ((4, 5, 6), (1, 5, 6), (1, 1, 1)), [("unknown", False)]),
    # channels_last of a keepdim result at a rank above the one it is assumed at: its kept
    # size-1 dim is not placed there, so the sizes are not free (with one channel the result
    # is contiguous, and the view runs; it was reported raising)
    ([("v0 = x.amax(-3, keepdim=True)", "op", ""),
      ("v1 = v0.contiguous(memory_format=torch.channels_last)", "op", ""),
      ("s = v1.view(v1.size(0), -1)", "view", "v1")], 4,
     ((4, 5, 6, 7), (4, 1, 6, 7), (1, 4, 2, 3)), [("unknown", False)]),
    # a copy of a cut of unknown extent has the cut's sizes, which no caller chooses: the
    # narrow to 1 puts a dim of one element at dim 0 (rank 4), the permute moves it to the
    # channels, and channels_last of one channel is contiguous (the copy was given free
    # sizes, and the raw read was reported with a witness of 3 channels)
    ([("v0 = x.narrow(-4, 0, 1)", "op", ""), ("v1 = torch.permute(v0, (2, 0, 1, 3,))", "op", ""),
      ("v2 = v1.to(memory_format=torch.channels_last)", "op", ""),
      ("s = v2.data_ptr()", "probe", "v2")], 4,
     ((4, 5, 6, 7), (4, 5, 6, 1), (3, 3, 4, 2)), [("unknown", False)]),
    # the same cut made channels_last by `.contiguous(memory_format=...)`, which does not pass
    # through the copy of `.to(...)`: the channels_last conversion itself keeps the cut's sizes
    # unchosen (it gave them free names and claimed a permuted layout)
    ([("v0 = x.narrow(-4, 0, 1)", "op", ""), ("v1 = torch.permute(v0, (2, 0, 1, 3,))", "op", ""),
      ("v2 = v1.contiguous(memory_format=torch.channels_last)", "op", ""),
      ("s = v2.data_ptr()", "probe", "v2")], 4,
     ((4, 5, 6, 7), (4, 5, 6, 1), (3, 3, 4, 2)), [("unknown", False)]),
    # a test that a dim of x's swap is 1 fixes that dim where the rank is not known and no
    # name stood for it: at the least rank (3) the swapped dims are then 1 and N, which merge,
    # and the view runs (it was reported raising, with a witness that broke the test)
    ([("v4 = x.swapaxes(0, 2)", "op", ""),
      ("s = v4.view(x.size(2) * x.size(1), x.size(0)) if v4.shape[0] == 1 else None", "view",
       "v4", "v4.shape[0] == 1")], 3,
     ((4, 5, 6), (4, 5, 1), (1, 3, 1)), [("can raise", False)]),
    # keepdim of a literal dim keeps it of size 1 at every rank also where an op made the
    # input: moving it next to its neighbour keeps the result contiguous (it was called
    # permuted; its other sizes are an op's, so no witness is built on them). The model
    # proves it at the least rank only (whether a dim is counted from the front or the back is
    # not kept), so neither the probe nor the view has a verdict
    ([("v0 = x.swapdims(1, 2)", "op", ""), ("v1 = v0.swapdims(0, 2)", "op", ""),
      ("v2 = v1.mean(1, keepdim=True)", "op", ""), ("v3 = v2.swapdims(0, 1)", "op", ""),
      ("s = v3.data_ptr()", "probe", "v3"), ("t = v3.view(-1)", "view", "v3")], 3,
     ((4, 5, 6), (4, 1, 6), (1, 2, 3)), [("unknown", False), ("unknown", False)]),
    # a diagonal through a dim of one element has at most one element, whatever the other
    # dim: the narrow to 1 of dim 0 leaves it contiguous (it was called strided)
    ([("v0 = torch.narrow(x, 0, x.size(0) - 1, 1)", "op", ""),
      ("v1 = v0.diagonal(0, 1, 0)", "op", ""), ("s = v1.data_ptr()", "probe", "v1")], 3,
     ((4, 5, 6), (4, 5, 1), (2, 1, 1)), [("unknown", False)]),
    # channels_last fixes the rank of a caller's tensor at 4: its dims are x.size(i), the
    # names the view target reads (they were free sizes of no name, which the swap named
    # v0.size(i), and the witness gave them values apart from x.size(0)'s)
    ([("v0 = x.to(memory_format=torch.channels_last)", "op", ""),
      ("v1 = v0.swapaxes(3, 0)", "op", ""), ("s = v1.view(-1, x.size(0))", "view", "v1")], 4,
     ((4, 5, 6, 7), (4, 5, 6, 1), (1, 5, 6, 7), (1, 1, 1, 3)), [("raises", True)]),
    # a subscript of x fixes no rank, but names the least one it allows: at rank 3 the dims of
    # `x[:, :-1, :]` are x.size(0), x.size(1) - 1 and x.size(2), so the view that merges the
    # first two is witnessed there (it raises at every rank above too); it was "unknown"
    ([("v0 = x[:, :-1, :]", "op", ""), ("s = v0.view(-1, v0.size(-1))", "view", "v0")], 3,
     ((4, 5, 6), (1, 5, 6), (4, 2, 6)), [("raises", True)]),
    # ... and where a view raises only above the least rank, the rank is a guess: not reported
    ([("v0 = x[:, :, 1:]", "op", ""), ("s = v0.view(-1, v0.size(-1))", "view", "v0")], 4,
     ((4, 5, 6, 7), (1, 5, 6, 7), (4, 2, 6, 7)), [("unknown", False)]),
])
def test_programs_of_unknown_rank_agree_with_torch(body, rank, sizes, verdicts):
    found = agreed(program("opaque", (), body, ("x",), rank, sizes))
    assert [(v.engine, v.finding) for v in found] == verdicts
