"""Witnesses of tensors from other sources: recurrent modules' states, an attribute of an
object of another class, reshapes proven contiguous, sizes an op made. Each case runs under
torch.
"""
from __future__ import annotations

import sys

import pytest
import torch

from contiglint.engine import lint_source
from contiglint.layout.model.witness import Witness
from contiglint.settings import Settings
from contiglint.verify.witnesses import replay


RECURRENT = '''
import torch
from torch import nn


def lstm_states(x):
    rnn = nn.LSTM(4, 6, num_layers=2, bidirectional=True, batch_first=True)
    _, (h, c) = rnn(x)
    flat = c.view(-1)
    return h.transpose(0, 1).view(x.size(0), -1)


def gru_state(x):
    rnn = nn.GRU(4, 6, num_layers=2, bidirectional=True)
    _, h = rnn(x)
    flat = h.view(-1)
    return h.transpose(0, 1).view(x.size(1), -1)


def main():
    lstm_states(torch.randn(3, 5, 4))
    gru_state(torch.randn(5, 3, 4))
'''


@pytest.mark.parametrize("cls", [torch.nn.LSTM, torch.nn.GRU, torch.nn.RNN])
@pytest.mark.parametrize("batch_first", [True, False])
def test_recurrent_states_are_contiguous_3d_and_their_transposed_view_is_witnessed(
        cls, batch_first):
    """The catalogue's fact (transfer.recurrent): a batched input gives a contiguous
    (layers * directions, B, H) state; the engine witnesses the view that merges across it."""
    rnn = cls(4, 6, num_layers=2, bidirectional=True, batch_first=batch_first)
    x = torch.randn(3, 5, 4) if batch_first else torch.randn(5, 3, 4)
    _, hidden = rnn(x)
    for state in hidden if isinstance(hidden, tuple) else (hidden,):
        assert state.dim() == 3 and state.is_contiguous() and state.shape[1] == 3
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            state.transpose(0, 1).view(3, -1)
    findings = lint_source(RECURRENT, "rnn.py", Settings(select=("CTG101",))).findings
    lines = RECURRENT.splitlines()
    assert [lines[f.line - 1].strip()[:30] for f in findings] == \
        ["return h.transpose(0, 1).view("] * 2
    assert all(replay(f.witness) is None for f in findings)


HELD_OBJECT = """import math
import torch
from torch import nn
from external_models import Encoder


class Interpolated(nn.Module):
    @classmethod
    def from_encoder(cls, source: Encoder):
        made = cls()
        made.pos_embedding = source.pos_embedding
        return made

    def forward(self, x):
        n = self.pos_embedding.shape[1] - 1
        side = int(math.sqrt(n))
        pos = self.pos_embedding[:, 1:]
        dim = x.shape[-1]
        pos = nn.functional.interpolate(
            pos.reshape(1, side, side, dim).permute(0, 3, 1, 2), scale_factor=2, mode="bicubic")
        return pos.permute(0, 2, 3, 1).view(1, -1, dim)


def run(encoder, x):
    return Interpolated.from_encoder(encoder)(x)
"""


def test_an_attribute_of_an_object_of_another_class_is_a_tensor_of_unknown_layout(monkeypatch):
    """`source: Encoder` (a class from elsewhere) holds tensors: `source.pos_embedding` is a
    tensor of unknown layout, not "not a tensor", so the interpolate of its NCHW-permuted
    reshape keeps the permuted (channels_last) layout and the view after permuting it back
    succeeds, as under torch. Taking the attribute for a non-tensor made the interpolate's
    result an unknown tensor assumed contiguous, and the view a witnessed finding."""
    encoder = type("Encoder", (), {})
    module = type(sys)("external_models")
    module.Encoder = encoder
    monkeypatch.setitem(sys.modules, "external_models", module)
    namespace: dict = {}
    exec(HELD_OBJECT, namespace)
    held = encoder()
    held.pos_embedding = torch.nn.Parameter(torch.randn(1, 10, 4))
    assert namespace["run"](held, torch.randn(2, 37, 4)).shape == (1, 36, 4)  # torch: no error
    settings = Settings(select=("CTG101",))
    assert lint_source(HELD_OBJECT, "m.py", settings).findings == []


RESHAPES = [  # ops on x = torch.randn(B, N, C, D), and a reshape target that copies for
    # generic sizes
    ("x.transpose(1, 2)", "B, C, N * D"),  # views, permuted, where D is 1
    ("x.transpose(1, 2)", "B, C * N, D"),  # views only where it is contiguous
    ("x.permute(1, 0, 3, 2)", "N, B, -1"),
    ("x.diagonal(0, 2, 3)", "-1"),  # views with holes where B and N are 1
    ("x[:, :, ::2]", "B, -1"),
    ("x.permute(0, 2, 3, 1)", "B, C * D, N"),
    ("x.permute(3, 2, 1, 0)", "-1"),
]


@pytest.mark.parametrize("ops, target", RESHAPES)
def test_a_reshape_is_proven_contiguous_only_where_torch_never_views_holes(ops, target):
    """`reshape_proven_contiguous` against torch on every size in 1..3: it says proven
    exactly when no size makes the reshape return a non-contiguous tensor, and the tensor
    its witness names is one whose view works and is not contiguous."""
    from contiglint.layout.flow.program import analyze_module
    from contiglint.layout.model.witness import (reshape_proven_contiguous,
                                                 view_with_holes_witness)
    from contiglint.source import SourceMap
    source = f"import torch\ndef f(B, N, C, D):\n    x = torch.randn(B, N, C, D)\n" \
             f"    v = {ops}\n    v.data_ptr()\n    v.view({target})\n"
    sinks = analyze_module(__import__("ast").parse(source), SourceMap(source))
    tensor = next(s for s in sinks if s.kind == "raw_memory").tensor
    shape = next(s for s in sinks if s.kind == "view").sizes
    assert tensor.geometry is not None
    holes = []
    for sizes in __import__("itertools").product((1, 2, 3), repeat=4):
        env = dict(zip("BNCD", sizes))
        x = torch.randn(*sizes)
        v = eval(ops, {"x": x})
        result = v.reshape(eval(f"({target},)", env))
        if not result.is_contiguous():
            holes.append(sizes)
    assert reshape_proven_contiguous(tensor.geometry, list(shape)) == (not holes), holes
    witness = view_with_holes_witness(tensor.geometry, list(shape))
    assert (witness is None) == (not holes)
    if witness is not None:
        assert replay(witness) is None
        torch.empty_strided(witness.sizes, witness.strides).view(witness.target)


MADE_SIZES = '''import torch


def decode(parts, k0, k1):
    kpt = torch.cat([p.view(p.size(0), k0 * (k1 + 2), -1) for p in parts], -1)
    spatial = kpt.shape[-1]
    kpt = kpt.view(kpt.size(0), k0, k1 + 2, spatial)[:, :, :-2, :]
    return kpt.view(kpt.size(0), k0 * k1, spatial)
'''


def test_a_size_an_op_made_is_witnessed_at_any_size_from_2():
    """`spatial` is the length of a cat, which no caller chooses: the witness holds at every
    size of it (and of the cat's batch) from 2, as torch shows for lengths that parts of
    several sizes give, and says so in its description and its JSON."""
    [finding] = lint_source(MADE_SIZES, "m.py", Settings(select=("CTG101",))).findings
    witness = finding.witness
    assert set(witness.any_size) == {"kpt.size(0)", "kpt.size(-1)"}
    assert "kpt.size(-1)=" in witness.describe() and "(or any size from 2)" in \
        witness.describe()
    assert Witness.from_json(witness.as_json()) == witness
    assert replay(witness) is None
    space: dict = {}
    exec(compile(MADE_SIZES, "m.py", "exec"), space)
    values = dict(witness.values)
    k0, k1 = values["k0"], values["k1"]
    for batch in (2, 3):
        for lengths in ((1, 1), (2, 1), (3,), (2, 2), (4, 3)):
            parts = [torch.randn(batch, k0 * (k1 + 2) * n) for n in lengths]
            with pytest.raises(RuntimeError, match="view size is not compatible"):
                space["decode"](parts, k0, k1)
