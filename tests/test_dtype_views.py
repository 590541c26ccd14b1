"""`.view(dtype)` of a tensor whose last dim is not unit-stride raises only when the element
sizes differ. The source's element size comes from its tracked dtype; where the code does not
show it, the verdict is unknown (reported in strict mode only), never "raises"."""
from __future__ import annotations

import textwrap

import pytest
import torch

from contiglint.engine import lint_source
from contiglint.settings import Settings

DEFAULT = Settings(extend_select=("CTG101",))
STRICT = Settings(extend_select=("CTG101",), strict=True)

CASES = [  # (how the source is made, the target dtype, raises)
    ("torch.randn(6, 8, dtype=torch.bfloat16)", "torch.int16", False),
    ("torch.randn(6, 8).to(torch.bfloat16)", "torch.int16", False),
    ("torch.randn(6, 8).to(torch.float8_e4m3fn)", "torch.uint8", False),
    ("torch.randn(6, 8).half()", "torch.int16", False),
    ("torch.randn(6, 8)", "torch.int32", False),
    ("torch.randn(6, 8)", "torch.uint8", True),
    ("torch.randn(6, 8, dtype=torch.bfloat16)", "torch.int32", True),
    ("torch.randn(6, 8).half()", "torch.float32", True),
]


@pytest.mark.parametrize("made, dtype, raises", CASES)
def test_static_verdict_matches_torch(made, dtype, raises):
    source = eval(made).t()  # noqa: S307 - the case's own constructor text
    target = eval(dtype)  # noqa: S307
    if raises:
        with pytest.raises(RuntimeError):
            source.view(target)
    else:
        source.view(target)
    text = f"import torch\n\n\ndef f():\n    w = {made}\n    return w.t().view({dtype})\n"
    found = [f.code for f in lint_source(text, "m.py", DEFAULT).findings]
    assert found == (["CTG101"] if raises else [])


def test_unknown_source_dtype_is_unknown_not_raises():
    text = textwrap.dedent("""
        import torch


        def scales_as_bytes(scales):
            return scales.t().view(torch.uint8)
    """)
    assert lint_source(text, "m.py", DEFAULT).findings == []
    strict = lint_source(text, "m.py", STRICT).findings
    assert [f.code for f in strict] == ["CTG101"]
    assert "when the element size differs" in strict[0].message
    # both outcomes are real: e8m0/fp8 scales view as bytes, float32 ones raise
    torch.ones(4, 3, dtype=torch.float8_e8m0fnu).t().view(torch.uint8)
    with pytest.raises(RuntimeError):
        torch.ones(4, 3).t().view(torch.uint8)
