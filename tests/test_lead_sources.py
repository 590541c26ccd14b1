"""Where leading dims of unknown number come from, besides `*batch, d = x.shape`: a slice of
the shape (`batch = x.shape[:-2]`, with `h, w = x.shape[-2:]` naming the last dims), a
factory given them (`torch.zeros(*batch, h, w)`), and an elementwise op whose other operand
is a caller's tensor of a shape the code does not show (`g / scale`): at a 0-d `scale` the
result has g's sizes and layout, which is what the witness takes. Each claim is run under
torch, at several numbers of leading dims.
"""
from __future__ import annotations

import textwrap

import pytest
import torch

from tests.generated.cases import executed, view_findings_by_function

SOURCE = textwrap.dedent("""
    import torch


    def sliced(x):
        batch = x.shape[:-2]
        h, w = x.shape[-2:]
        return x.transpose(-1, -2).view(*batch, h * w)


    def sliced_inline(x):
        h, w = x.size()[-2:]
        return x.mT.view(*x.shape[:-2], h * w)


    def fresh(x):
        *batch, h, w = x.shape
        y = torch.zeros(*batch, h, w)
        return y.mT.view(*batch, h * w)


    def kernel_diag(x1, x2, scale):
        batch = x1.shape[:-2]
        n1, d = x1.shape[-2:]
        n2 = x2.shape[-2]
        g = 3 * torch.ones(*batch, n2, d) / scale.pow(2)
        return g.transpose(-1, -2).view(*batch, n2 * d)


    def scaled_lead(x, scale):
        *batch, h, w = x.shape
        y = x.mT * scale
        return y.view(*batch, h * w)


    def scaled_known(x, scale):
        b, n, c = x.shape
        g = torch.ones(b, n, c) / scale.abs()
        return g.transpose(1, 2).view(b, n * c)


    def scaled_on_a_path(x, scale, p):
        b, n, c = x.shape
        y = torch.ones(b, n, c)
        if p:
            y = y * scale.abs()
        return y.transpose(1, 2).view(b, -1)


    def fresh_contiguous(x):
        *batch, h, w = x.shape
        return torch.ones(*batch, h, w).view(*batch, h * w)


    def sliced_contiguous(x):
        batch = x.shape[:-2]
        h, w = x.shape[-2:]
        return (x * 2).view(*batch, h * w)
    """)


@pytest.fixture(scope="module")
def namespace() -> dict:
    return executed(SOURCE)


@pytest.fixture(scope="module")
def findings() -> dict:
    return view_findings_by_function(SOURCE)


def _raises(call) -> bool:
    try:
        call()
    except RuntimeError as error:
        assert "view size is not compatible" in str(error)
        return True
    return False


LEADS = ((), (3,), (2, 5))
SCALES = (torch.tensor(2.0), torch.tensor([2.0]))  # 0-d, and one element of one dim


@pytest.mark.parametrize("name", ["sliced", "sliced_inline", "fresh"])
def test_leading_dims_sliced_from_a_shape_or_given_to_a_factory_are_kept(
        namespace, findings, name):
    finding = findings[name]
    assert finding.witness is not None and "raises" in finding.message
    values = dict(finding.witness.values)
    last = (values["h"], values["w"])
    for lead in LEADS:  # the witness takes none; torch raises at every number of them
        assert _raises(lambda: namespace[name](torch.randn(*lead, *last)))


def test_a_factory_of_the_leading_dims_divided_by_a_caller_tensor(namespace, findings):
    finding = findings["kernel_diag"]
    assert finding.witness is not None
    values = dict(finding.witness.values)
    n2, d = values["x2.size(-2)"], values["d"]
    for lead in LEADS:
        for scale in SCALES + (torch.ones(1, d),):  # a lengthscale of one row
            assert _raises(lambda: namespace["kernel_diag"](
                torch.randn(*lead, 4, d), torch.randn(*lead, n2, d), scale))


def test_an_elementwise_op_beside_a_caller_tensor_keeps_the_leading_dims(namespace, findings):
    finding = findings["scaled_lead"]
    assert finding.witness is not None
    values = dict(finding.witness.values)
    for lead in LEADS:
        for scale in SCALES:
            assert _raises(lambda: namespace["scaled_lead"](
                torch.randn(*lead, values["h"], values["w"]), scale))


@pytest.mark.parametrize("name", ["scaled_known", "scaled_on_a_path"])
def test_the_witness_of_an_op_beside_a_caller_tensor_names_the_known_sizes(
        namespace, findings, name):
    # the sizes are the first operand's (b, n, c), not free sizes of a tensor of unknown rank
    # (which gave `(2, 3, 35)` for a `(b, n, c)` tensor)
    finding = findings[name]
    assert finding.witness is not None
    values = dict(finding.witness.values)
    assert set(values) == {"b", "n", "c"}
    assert finding.witness.sizes == (values["b"], values["c"], values["n"])
    x = torch.randn(values["b"], values["n"], values["c"])
    for scale in SCALES:
        arguments = (x, scale) if name == "scaled_known" else (x, scale, True)
        assert _raises(lambda: namespace[name](*arguments))
    if name == "scaled_on_a_path":
        assert _raises(lambda: namespace[name](x, None, False))


@pytest.mark.parametrize("name", ["fresh_contiguous", "sliced_contiguous"])
def test_a_contiguous_view_over_the_leading_dims_is_not_reported(namespace, findings, name):
    assert name not in findings
    for lead in LEADS:
        assert not _raises(lambda: namespace[name](torch.randn(*lead, 3, 4)))
