"""Numbers and strs among a function's values, told from sizes and tensors. A parameter
annotated `int` is a number a caller chooses: where code gives it as a size
(`x.view(B, H, W, C)`) it is the size named by the parameter, as an unannotated parameter's
name is (it was taken for something other than a size, so the view's sizes were unknown and
no witness was found). A split by a str separator is a str's. Each claim runs under torch."""
from __future__ import annotations

import textwrap

import torch

from tests.generated.cases import executed, view_findings, view_findings_by_function

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


WINDOWS = textwrap.dedent("""
    import torch


    def window_reverse(windows, window_size: int, H: int, W: int):
        B = int(windows.shape[0] / (H * W / window_size / window_size))
        x = windows.view(B, H // window_size, W // window_size, window_size, window_size, -1)
        return x.permute(0, 1, 3, 2, 4, 5).view(B, H, W, -1)
""")


def test_a_number_bound_once_is_one_size_wherever_the_code_gives_it():
    """Swin's window_reverse without its `.contiguous()`: B, computed by `int(...)`, is a
    number the model does not know, given as a size twice. Each read was an unknown of its
    own, and the witness viewed a tensor of 7 windows' batches as 4 (no input does that);
    bound once, B is one size, and torch raises on the tensor the witness names."""
    [finding] = view_findings(WINDOWS)
    witness = finding.witness
    values = dict(witness.values)
    B, H, W, ws = values["B"], values["H"], values["W"], values["window_size"]
    assert witness.sizes[0] == witness.target[0] == B
    windows = torch.randn(B * (H // ws) * (W // ws), ws, ws, witness.sizes[-1])
    x = windows.view(B, H // ws, W // ws, ws, ws, -1).permute(0, 1, 3, 2, 4, 5)
    assert (tuple(x.shape), x.stride()) == (witness.sizes, witness.strides)
    try:
        executed(WINDOWS)["window_reverse"](windows, ws, H, W)
    except RuntimeError as error:
        assert "view size is not compatible" in str(error)
    else:
        raise AssertionError(f"torch viewed the windows at {values}")
