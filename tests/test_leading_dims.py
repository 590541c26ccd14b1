"""Leading dims of unknown number: `*batch, d = x.shape` of a tensor whose rank the code never
shows, and views into `(*batch, ...)`.

`batch` is a `Lead`: the leading dims of x, none included. A view into `(*batch, d // 2, 2)`
keeps them in front, an op on the last dims alone keeps them there (`.transpose(-1, -2)`,
`.mT`), and a view back into `(*batch, d)` is then decided by the dims after them, at every
number of leading dims (the witness takes none). Any other op drops the lead. Each claim below
is run under torch at several ranks.
"""
from __future__ import annotations

import textwrap

import pytest
import torch

from tests.generated.cases import executed, view_findings_by_function

SOURCE = textwrap.dedent("""
    import torch


    def interleaved(x):
        *batch, d = x.shape
        return x.view(*batch, d // 2, 2).transpose(-1, -2).view(*batch, d)


    def own_lead(x):
        *batch, h, w = x.shape
        return x.transpose(-1, -2).view(*batch, h * w)


    def front_swapped(x):
        *batch, d = x.shape
        return x.view(*batch, d // 2, 2).transpose(0, 1).view(*batch, d)


    def kept_contiguous(x):
        *batch, d = x.shape
        return x.view(*batch, 2, d // 2).view(*batch, d)


    def made_contiguous(x):
        *batch, h, w = x.shape
        return x.transpose(-1, -2).contiguous().view(*batch, h * w)


    def indexed(x):
        *batch, d = x.shape
        y = x.view(*batch, d // 2, 2).transpose(-1, -2)[0]
        return y.view(*batch, d)


    def another_unpack(x):
        *batch, d = x.shape
        *other, e = x.shape
        return x.view(*batch, d // 2, 2).mT.view(*other, d)


    def known_rank(x):
        b, t, d = x.shape
        *batch, d = x.shape
        return x.view(*batch, d // 2, 2).transpose(-1, -2).view(*batch, d)


    def sliced(q):
        x = q[..., :8]
        *batch, d = x.shape
        return x.view(*batch, d // 2, 2).transpose(-1, -2).view(*batch, d)


    def caller(q):
        b, t, h = q.shape
        return sliced(q)


    def ranked(x):
        if x.ndim == 3:
            *lead, w = x.shape[1:]
            return x.transpose(1, 2).view(-1, w)
    """)


@pytest.fixture(scope="module")
def namespace() -> dict:
    return executed(SOURCE)


@pytest.fixture(scope="module")
def findings() -> dict:
    return view_findings_by_function(SOURCE)


def _raises(function, x) -> bool:
    try:
        function(x)
    except RuntimeError as error:
        assert "view size is not compatible" in str(error)
        return True
    return False


@pytest.mark.parametrize("name, shape", [("interleaved", (6, 8)), ("own_lead", (2, 3, 4, 5))])
def test_a_view_back_over_moved_last_dims_is_reported_with_its_witness(
        namespace, findings, name, shape):
    finding = findings[name]
    witness = finding.witness
    assert witness is not None
    assert "raises" in finding.message
    values = dict(witness.values)
    # the witness takes no leading dims: x holds the named last dims alone
    last = (values["d"],) if name == "interleaved" else (values["h"], values["w"])
    assert _raises(namespace[name], torch.randn(*last))
    # and the view raises at every number of leading dims
    for lead in ((), (3,), (2, 5)):
        assert _raises(namespace[name], torch.randn(*lead, *last))
    assert _raises(namespace[name], torch.randn(*shape))


@pytest.mark.parametrize("name, shape", [("front_swapped", (3, 4, 8)), ("indexed", (1, 8)),
                                         ("another_unpack", (3, 4, 8))])
def test_an_op_on_the_leading_dims_or_another_unpack_gives_no_default_finding(
        namespace, findings, name, shape):
    # the lead is dropped: torch raises for some inputs, but what the view's leading dims are
    # is not known there, so no witness is claimed
    assert name not in findings
    assert _raises(namespace[name], torch.randn(*shape))


@pytest.mark.parametrize("name", ["kept_contiguous", "made_contiguous"])
@pytest.mark.parametrize("shape", [(4, 8), (3, 4, 8), (2, 3, 4, 6)])
def test_a_contiguous_view_back_is_not_reported(namespace, findings, name, shape):
    assert name not in findings
    assert not _raises(namespace[name], torch.randn(*shape))


@pytest.mark.parametrize("name", ["known_rank", "sliced"])
def test_a_starred_unpack_of_a_known_rank_names_every_size(namespace, findings, name):
    # the star takes the dims between the names (b, t of a 3-d x): the view's shape is known
    finding = findings[name]
    witness = finding.witness
    assert witness is not None
    values = dict(witness.values)
    b, t = values["b"], values["t"]
    last = values.get("d", 8) if name == "known_rank" else 10  # `q[..., :8]` needs 8 or more
    assert _raises(namespace[name], torch.randn(b, t, last))
    assert _raises(namespace["caller"], torch.randn(2, 3, 12))


def test_a_starred_unpack_names_no_size_apart_from_the_tensors(namespace, findings):
    # `w` is x's last size: where x's geometry did not name it, it stays unknown rather than
    # becoming a free name a witness could give another value (it was `w`, apart from
    # `x.size(2)`)
    witness = findings["ranked"].witness
    assert witness is not None
    values = dict(witness.values)
    assert set(values) == {"x.size(0)", "x.size(1)", "x.size(2)"}
    x = torch.randn(values["x.size(0)"], values["x.size(1)"], values["x.size(2)"])
    assert _raises(namespace["ranked"], x)
