"""Numbers and strs among a function's values, told from sizes and tensors. A parameter
annotated `int` is a number a caller chooses: where code gives it as a size
(`x.view(B, H, W, C)`) it is the size named by the parameter, as an unannotated parameter's
name is (it was taken for something other than a size, so the view's sizes were unknown and
no witness was found). A split by a str separator is a str's. Each claim runs under torch."""
from __future__ import annotations

import textwrap

import torch

from tests.generated.cases import executed, view_findings_by_function

SOURCE = textwrap.dedent("""
    import torch


    def channels_first(x, H: int, W: int):
        B, N, C = x.shape
        y = x.view(B, H, W, C).permute(0, 3, 1, 2)
        return y.view(B, C * H, W)


    def columns(x, H: int, W: int):
        B, N, C = x.shape
        y = x.view(B, H, W, C).permute(0, 3, 1, 2)
        return y.view(B, C, H * W)
""")


def test_an_int_parameter_given_as_a_size_names_the_size():
    found = view_findings_by_function(SOURCE)
    namespace = executed(SOURCE)
    witness = found["channels_first"].witness
    values = dict(witness.values)
    B, C, H, W = (values[name] for name in "BCHW")
    x = torch.randn(B, H * W, C)
    try:
        namespace["channels_first"](x, H, W)
    except RuntimeError as error:
        assert "view size is not compatible" in str(error)
    else:
        raise AssertionError(f"torch viewed {x.shape} at {values}")
    # merging the two dims the permute kept in order is a view at every size
    assert "columns" not in found
    for sizes in ((2, 3, 4, 5), (1, 1, 3, 2), (2, 2, 1, 3)):
        B, C, H, W = sizes
        assert namespace["columns"](torch.randn(B, H * W, C), H, W).shape == (B, C, H * W)


STORED = textwrap.dedent("""
    import torch


    class Client:
        def __init__(self, url, x):
            endpoint = url.path.strip("/").split("/", 1)[0]
            self.endpoint = endpoint
            self.piece = x.split(2, 1)[0]
""")


def test_a_split_by_a_separator_is_a_strs_and_a_split_of_dim_1_a_tensors():
    """`s.split("/", 1)` is str.split (a separator and a count): since a split of dim 1
    implies two dims, its first piece was a strided tensor stored on self (a false CTG102
    finding on ultralytics, held-out corpus). A tensor's split of dim 1 stays one."""
    from contiglint.engine import lint_source
    from contiglint.settings import Settings

    x = torch.randn(3, 5)
    assert not x.split(2, 1)[0].is_contiguous()
    found = lint_source(STORED, "m.py", Settings(select=("CTG102",), preview=True)).findings
    assert [f.line for f in found] == [9]
