"""`.view(dtype)` of a tensor whose last dim is not unit-stride raises only when the element
sizes differ. The source's element size comes from its tracked dtype; where the code does not
show it, the verdict is unknown (reported in strict mode only), never "raises"."""
from __future__ import annotations

import textwrap

import pytest
import torch

from contiglint.engine import lint_source
from contiglint.settings import Settings
from tests.clitools import contiglint, write

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


SOURCES = [  # a float16 tensor of each layout class (the last dim unit-stride but the last)
    "torch.randn(4, 8, dtype=torch.float16)",
    "torch.randn(4, 8, dtype=torch.float16)[:, :4]",
    "torch.randn(2, 3, 8, dtype=torch.float16).transpose(0, 1)",
    "torch.randn(4, 1, 8, dtype=torch.float16).expand(4, 3, 8)",
    "torch.randn(4, 8, dtype=torch.float16).t()",
]
VIEWS = ["view({})", "view(dtype={})"]


@pytest.mark.parametrize("made", SOURCES)
@pytest.mark.parametrize("dtype", ["torch.int16", "torch.int32", "torch.uint8"])
@pytest.mark.parametrize("form", VIEWS)
def test_layout_after_a_dtype_view_matches_torch(made, dtype, form):
    """Both spellings of `.view(dtype)` keep the layout class torch gives (a raw pointer of
    the result is flagged exactly when torch says it is not contiguous), and claim a raise
    exactly when torch raises."""
    call = form.format(dtype)
    try:
        contiguous = eval(f"{made}.{call}").is_contiguous()  # noqa: S307 - the case's own text
    except RuntimeError:
        contiguous = None
    text = (f"import torch\n\n\ndef f():\n    w = {made}\n    y = w.{call}\n"
            f"    return y.data_ptr()\n")
    for settings in (Settings(extend_select=("CTG101", "CTG106")),
                     Settings(extend_select=("CTG101", "CTG106"), strict=True)):
        result = lint_source(text, "m.py", settings)
        assert result.errors == []
        codes = [f.code for f in result.findings]
        if contiguous is None:
            assert codes[0] == "CTG101"
        else:
            assert codes == ([] if contiguous else ["CTG106"])


def test_the_keyword_form_in_a_chain_is_checked_not_an_internal_error(tmp_path):
    """`w.view(dtype=torch.int32).flatten()[:n].view(2, -1)` gave E900 (IndexError): the keyword
    form was read as a view to no dims. So did a 0-dim tensor flattened, sliced and viewed."""
    lines = ["w.view(dtype=torch.int32).flatten()[:n].view(2, -1)",
             "w.view(torch.int32).flatten()[:n].view(2, -1)",
             "torch.randn(()).flatten()[:n].view(1, -1)"]
    w, n = torch.randn(4, 8), 8
    for line in lines:
        assert eval(line).is_contiguous()  # noqa: S307 - the lines below, run by torch
    body = "".join(f"    y{i} = {line}\n" for i, line in enumerate(lines))
    write(tmp_path, "m.py", f"import torch\n\n\ndef pack(w, n):\n{body}"
          "    return y0.data_ptr(), y1.data_ptr(), y2.data_ptr()\n\n\n"
          "pack(torch.randn(4, 8), 8)\n")
    process = contiglint("--no-cache", "--select", "CTG1", "--extend-select", "CTG101,CTG106",
                         "m.py", cwd=tmp_path)
    # the prefix leaves the preview rules it does not name out, and says so on the last line
    assert (process.returncode, process.stdout.splitlines()[:1], process.stderr) == \
        (0, ["All checks passed!"], ""), process.stdout + process.stderr
    assert "E900" not in process.stdout and "preview rules not run" in process.stdout


def test_a_keyword_dtype_the_code_does_not_show_is_unknown_not_raises():
    text = textwrap.dedent("""
        import torch


        def as_kind(kind):
            w = torch.randn(6, 8)
            return w.t().view(dtype=kind)
    """)
    assert lint_source(text, "m.py", DEFAULT).findings == []
    [strict] = lint_source(text, "m.py", STRICT).findings
    assert strict.code == "CTG101" and "when the element size differs" in strict.message
    torch.randn(6, 8).t().view(dtype=torch.int32)  # both outcomes are real
    with pytest.raises(RuntimeError):
        torch.randn(6, 8).t().view(dtype=torch.int16)


@pytest.mark.parametrize("made, raises", [
    ("torch.randn(1, 3).t()", True),  # contiguous, strides (1, 3)
    ("torch.randn(n, 1).t()", False),  # (1, n), strides (1, 1): n's stride is 1
    ("torch.randn(1, n).t()", True),  # (n, 1), strides (1, n): raises from n = 2
    ("torch.randn(3, 1, 2).transpose(1, 2)", True),  # (3, 2, 1), strides (2, 1, 2)
])
def test_a_contiguous_tensor_whose_size_one_last_dim_keeps_another_stride(made, raises):
    """torch checks `stride(-1) == 1` for a size-changing dtype view even where the last dim
    has size 1 and the tensor is contiguous (pytorch#116333). The view is reported, with a
    witness, where the model knows that stride; was silent before (only non-contiguous
    tensors were read)."""
    source = eval(made, {"torch": torch, "n": 2})  # noqa: S307 - the case's own text
    assert source.is_contiguous()
    if raises:
        with pytest.raises(RuntimeError, match="stride"):
            source.view(torch.int8)
    else:
        source.view(torch.int8)
    text = f"import torch\n\n\ndef f(n: int):\n    w = {made}\n    return w.view(torch.int8)\n"
    findings = [f for f in lint_source(text, "m.py", Settings()).findings if f.code == "CTG101"]
    assert bool(findings) == raises
    assert all(f.witness is not None for f in findings)
