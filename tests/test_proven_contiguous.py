"""CTG113 removes a `.contiguous()` only where the tensor is contiguous on every path: a layout
that holds on some paths, or an index whose kind the code does not show, proves nothing.

Each case runs under torch: some input or path the code allows gives a non-contiguous tensor at
the `.contiguous()` (so removing it would change what follows), and CTG113 stays quiet. The
cases that stay proven are checked the same way: contiguous for every input tried.
"""
from __future__ import annotations

import textwrap

import pytest
import torch
import torch.nn.functional as F

from contiglint.engine import lint_source
from contiglint.settings import Settings

SETTINGS = Settings(select=("CTG113",))


def redundant(source: str) -> list[int]:
    return [f.line for f in lint_source(textwrap.dedent(source), "m.py", SETTINGS).findings]


PERMUTED_BACK = """
    import torch
    import torch.nn.functional as F

    def attend(q, k, v, p, training):
        out = F.scaled_dot_product_attention(q.permute(0, 2, 1, 3), k.permute(0, 2, 1, 3),
                                             v.permute(0, 2, 1, 3),
                                             dropout_p=p if training else 0.0)
        return out.permute(0, 2, 1, 3).contiguous()
    """


def test_a_layout_of_some_paths_undone_is_not_proven_contiguous():
    """SDPA's fused CPU kernel lays its output out as (B, L, H, D), so permuting it back is
    contiguous; with dropout it takes the math path, whose output is contiguous as (B, H, L, D)
    and permuted back is not. The `.contiguous()` is needed on that path."""
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 5, 3, 4) for _ in range(3))
    layouts = set()
    for p in (0.0, 0.5):
        out = F.scaled_dot_product_attention(q.permute(0, 2, 1, 3), k.permute(0, 2, 1, 3),
                                             v.permute(0, 2, 1, 3), dropout_p=p)
        layouts.add(out.permute(0, 2, 1, 3).is_contiguous())
    assert layouts == {True, False}
    assert redundant(PERMUTED_BACK) == []


BRANCHES = """
    import torch

    def f(B, N, flag):
        x = torch.randn(B, N, 4)
        y = x.transpose(1, 2) if flag else x
        z = y.transpose(1, 2)
        return z.contiguous()

    def g(B, N, flag):
        x = torch.randn(B, N, 4)
        y = x.transpose(1, 2) if flag else x
        z = y.sum(0)
        return z.contiguous()
    """


def test_an_op_that_undoes_one_path_breaks_the_other():
    """A transpose undoes the branch that transposed, and transposes the branch that did not:
    f's `.contiguous()` is needed when flag is false. g's sum makes a fresh tensor on both
    paths: its `.contiguous()` is redundant, and still reported."""
    for flag, contiguous in ((True, True), (False, False)):
        x = torch.randn(2, 3, 4)
        y = x.transpose(1, 2) if flag else x
        assert y.transpose(1, 2).is_contiguous() is contiguous
        assert (x.transpose(1, 2) if flag else x).sum(0).is_contiguous()
    assert redundant(BRANCHES) == [14]


INDEXED = """
    import torch

    def block(B, N, offsets, shape):
        full = torch.randn(B, N)
        slices = tuple(slice(o, o + n) for o, n in zip(offsets, shape))
        return full[slices].contiguous()

    def gathered(B, N):
        full = torch.randn(B, N)
        return full[[0, 2]].contiguous()

    def columns(B, N, perm):
        full = torch.randn(B, N)
        return full[:, list(perm)].contiguous()
    """


@pytest.mark.parametrize("offsets, shape", [((0, 1), (2, 2)), ((1, 1), (2, 3))])
def test_an_index_held_in_a_name_may_be_a_tuple_of_slices(offsets, shape):
    """`full[slices]` with a tuple of slices is a view, not a gather: a block cut from the
    middle of a row is not contiguous. A literal list is a gather (a fresh, contiguous tensor),
    and so is any sequence among several indices (`full[:, perm]`): those `.contiguous()`
    calls stay reported."""
    full = torch.randn(4, 5)
    slices = tuple(slice(o, o + n) for o, n in zip(offsets, shape))
    assert not full[slices].is_contiguous()
    assert full[[0, 2]].is_contiguous() and full[:, list((2, 0))].is_contiguous()
    assert redundant(INDEXED) == [11, 15]


TILES = """
    import torch

    def tiles(mask, m):
        mh, mw = mask.shape
        a = mask.reshape(mh // m, m, mw // m, m).transpose(1, 2)
        return a.reshape(-1, m, m).contiguous()

    def tiles_of_fixed_size(mask):
        mh, mw = mask.shape
        a = mask.reshape(mh, 4, mw // 4).transpose(0, 1)
        return a.reshape(-1, mw // 4).contiguous()
    """


def test_a_reshape_that_views_where_a_size_made_of_others_is_one_is_not_proven_contiguous():
    """The tiles of an (mh, mw) mask, transposed and flattened: the reshape copies, except
    where one row of tiles is all there is (mh // m == 1, as at mh = m = 2). There it merges
    the leading dims as a view, whose tiles are not contiguous. The proof set names to 1,
    never a size made of them (`mh // m`); it called the `.contiguous()` redundant.
    The second reshape copies for every size that keeps more than one row (mh of 1 leaves
    one element per row of the result, which is contiguous): still reported."""
    for mh, m, mw in ((2, 2, 4), (4, 2, 4)):
        a = torch.ones(mh, mw).reshape(mh // m, m, mw // m, m).transpose(1, 2)
        assert a.reshape(-1, m, m).is_contiguous() is (mh // m > 1)
    for mh, mw in ((1, 8), (3, 8), (2, 4)):
        b = torch.ones(mh, 4 * mw).reshape(mh, 4, mw).transpose(0, 1).reshape(-1, mw)
        assert b.is_contiguous()
    assert redundant(TILES) == [12]
