"""describe(): the layout facts of one tensor, as text and as HTML for Jupyter."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from contiglint.runtime import describe  # noqa: E402


def test_transposed():
    d = describe(torch.arange(12.).reshape(3, 4).t())
    assert (d.shape, d.strides, d.contiguous, d.dense, d.overlapping) == ((4, 3), (1, 4), False,
                                                                          True, False)
    assert "dense but permuted" in str(d) and "contiguous in   none" in str(d)


def test_slice_shares_storage_with_offset():
    d = describe(torch.arange(12.).reshape(3, 4)[:, 1:])
    assert d.storage_offset == 1 and d.shares_storage and not d.dense
    assert "a view into a bigger base" in str(d)


def test_channels_last_and_expanded():
    cl = describe(torch.randn(2, 3, 4, 4).contiguous(memory_format=torch.channels_last))
    assert cl.memory_formats == ("channels_last",) and not cl.contiguous
    ex = describe(torch.ones(3).expand(2, 3))
    assert ex.overlapping and "out of bounds" in str(ex)


def test_html_and_meta_device():
    html = describe(torch.empty(2, 3, device="meta").t())._repr_html_()
    assert html.startswith("<table") and "(1, 3)" in html and "meta" in html


def test_rejects_non_tensors():
    with pytest.raises(TypeError):
        describe([1, 2])
