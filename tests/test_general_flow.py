"""The torch facts behind the engine's general flow (module parameters, in-place activations,
as_strided windows of unknown size, fft results), each checked against the installed torch;
the flow itself (hooks, properties, functools.partial, subclass attributes) is checked end to
end by the tuning cases under tests/eval/tuning/, whose truth comes from running them (a set
written while tuning the model, so tuned on by construction)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
import torch
import torch.nn.functional as F
from torch import nn

from contiglint.engine import lint_source
from contiglint.layout.model import op_transfers
from contiglint.layout.flow.nn_modules import module_output, module_parameter
from contiglint.layout.model.geometry import Geometry
from contiglint.catalogue.inplace import INPLACE_ACTIVATIONS
from contiglint.layout.model.sizes import literal, symbol
from contiglint.layout.model.transfer import Call
from contiglint.layout.model.values import CONTIGUOUS, Const, IntVal, Kind, Ref, Seq, Tensor
from contiglint.settings import Settings

ROOT = Path(__file__).resolve().parents[1]


def test_tuning_cases_hold_under_torch():
    """Every tuning case does what its marker says when run (the checker the blind set uses)."""
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "eval" / "tuning" /
                                               "_check_truth.py")],
                          capture_output=True, text=True, cwd=str(ROOT), timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "failed=0" in proc.stdout


def expanded() -> torch.Tensor:
    return torch.randn(4, 1, 6).expand(4, 5, 6)


@pytest.mark.parametrize("name", sorted(n for n in INPLACE_ACTIVATIONS if n[0].isupper()))
@pytest.mark.parametrize("training", [True, False])
def test_inplace_activation_modules_write_their_input(name, training):
    module = getattr(nn, name)(inplace=True).train(training)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        module(expanded())
    x = torch.randn(3, 4)
    assert module(x) is x  # the result is the input itself


@pytest.mark.parametrize("name", sorted(n for n in INPLACE_ACTIVATIONS if n[0].islower()))
def test_inplace_functional_activations_write_their_input(name):
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        getattr(F, name)(expanded(), inplace=True)
    x = torch.randn(3, 4)
    assert getattr(F, name)(x, inplace=True) is x


def test_the_activation_list_names_modules_and_functions_torch_has():
    for name in INPLACE_ACTIVATIONS:
        assert hasattr(nn if name[0].isupper() else F, name), name


@pytest.mark.parametrize("module, qualname, width, attribute", [
    (nn.Linear(3, 5), "torch.nn.Linear", 5, "weight"),
    (nn.Linear(3, 5), "torch.nn.Linear", 5, "bias"),
    (nn.Embedding(7, 4), "torch.nn.Embedding", 4, "weight"),
])
def test_module_parameters_are_contiguous_of_the_constructor_shape(module, qualname, width,
                                                                   attribute):
    real = getattr(module, attribute)
    model = module_parameter(Ref(qualname, True, literal(width)), attribute)
    assert model.kind is Kind.CONTIGUOUS and real.is_contiguous()
    assert model.rank == real.dim()
    for size, actual in zip(model.geometry.sizes, real.shape):
        assert size is None or size == literal(actual)


def as_strided_model(sizes, strides) -> Tensor:
    call = Call("torch.as_strided", CONTIGUOUS,
                [Seq(tuple(IntVal(s) for s in sizes)),
                 Seq(tuple(IntVal(literal(s)) for s in strides))])
    return op_transfers.function("torch.as_strided").transfer(call)


@pytest.mark.parametrize("strides, overlapping", [
    ((1, 1), True), ((0, 1), True), ((4, 1, 1), True), ((2, 1, 2), True),
    ((4, 1), False), ((1, 4), False),
])
def test_as_strided_windows_of_unknown_size(strides, overlapping):
    """Sizes not literal (`(n, n)`): the model claims an overlap only for a repeated (or 0)
    stride, which overlaps for every size above 1 (`(4, 1)` overlaps only once n > 4)."""
    model = as_strided_model([symbol("n")] * len(strides), strides)
    assert (model.kind is Kind.BROADCAST) is overlapping
    if overlapping:
        for n in range(2, 6):
            real = torch.arange(n * n * 8).as_strided((n,) * len(strides), strides)
            assert real.unique().numel() < real.numel()  # two elements share memory
    else:  # distinct strides: whether rows overlap depends on the sizes, so no claim
        assert model.kind is Kind.UNKNOWN
    # a literal size 1 takes its dim out of the overlap
    assert as_strided_model([literal(1), symbol("n")], (1, 1)).kind is not Kind.BROADCAST


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
def test_fft_results_have_the_dtype_and_length_the_model_says(name, dtype):
    if name in ("rfft", "ihfft") and dtype.is_complex:
        return
    real = getattr(torch.fft, name)(torch.randn(3, 8, dtype=dtype))
    short = {torch.float32: "float32", torch.complex64: "complex64"}[dtype]
    model = op_transfers.function(f"torch.fft.{name}").transfer(Call(
        f"torch.fft.{name}", Tensor(Kind.CONTIGUOUS, Geometry.contiguous(
            [literal(3), literal(8)]), dtype=short)))
    assert model.dtype == str(real.dtype).removeprefix("torch.")
    assert model.geometry.sizes == (literal(3), literal(real.shape[-1]))
    assert model.kind is Kind.CONTIGUOUS and real.is_contiguous()


def _permuted_frames(batch, width) -> Tensor:
    """The model of `conv(x).transpose(1, 2)`: (batch, t, width), t innermost in memory."""
    memory = Geometry.contiguous([batch, width, None])
    return Tensor.of(Geometry((memory.axes[0], memory.axes[2], memory.axes[1]),
                              memory.memory), None)


@pytest.mark.parametrize("t", [2, 3, 9])
def test_a_broadcast_mask_of_unknown_length_times_transposed_frames_follows_the_frames(t):
    """`mask * feats` with mask (b, t, 1) (t not known to the model) and feats transposed
    (b, t, d): the pair (t, d) is decided by feats (the mask is broadcast in d), so the
    result keeps feats' order and `.view(b * t, d)` raises; the mask's unknown t is t or 1,
    which matters only for pairs the mask would decide."""
    feats = torch.randn(2, 6, t).transpose(1, 2)
    mask = (torch.arange(t)[None, :] < torch.tensor([t, 1])[:, None]).float().unsqueeze(-1)
    real = mask * feats
    assert not real.is_contiguous()
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        real.view(2 * t, 6)
    model_mask = Tensor.of(Geometry.contiguous([literal(2), None, literal(1)]), None)
    model = op_transfers.method("mul").transfer(Call("mul", model_mask, [_permuted_frames(
        literal(2), literal(6))]))
    assert model.kind is Kind.PERMUTED
    assert model.geometry.memory_order() == [0, 2, 1]
    assert [i for i in range(3) if real.stride(i) == 1] == [1]  # t innermost, as modelled


def test_an_operand_of_unknown_size_that_decides_a_pair_leaves_the_result_unknown():
    """feats' batch size unknown to the model while the mask's is 2: the pair (batch, d)
    is decided by feats, whose batch may be 1 (then broadcast): no claim."""
    model_mask = Tensor.of(Geometry.contiguous([literal(2), None, literal(1)]), None)
    model = op_transfers.method("mul").transfer(Call("mul", model_mask, [_permuted_frames(
        None, literal(6))]))
    assert model.kind is Kind.UNKNOWN or model.geometry is None


@pytest.mark.parametrize("data", [[1, 2, 3], [[1.0, 2.0], [3.0, 4.0]], [[[0.5]], [[2.0]]],
                                  [[True, False, True]]])
def test_tensor_of_a_nested_literal_has_its_shape(data):
    model = op_transfers.function("torch.tensor").transfer(
        Call("torch.tensor", _literal_value(data)))
    real = torch.tensor(data)
    assert model.kind is Kind.CONTIGUOUS and real.is_contiguous()
    assert model.geometry.sizes == tuple(literal(s) for s in real.shape)


@pytest.mark.parametrize("data", [[[1, 2], [3]], []])
def test_tensor_of_a_ragged_or_empty_literal_claims_no_shape(data):
    model = op_transfers.function("torch.tensor").transfer(
        Call("torch.tensor", _literal_value(data)))
    assert model.geometry is None


def _literal_value(data):
    if isinstance(data, list):
        return Seq(tuple(_literal_value(d) for d in data))
    return IntVal(literal(data)) if type(data) is int else Const(data)


@pytest.mark.parametrize("qualname, module, shape", [
    ("torch.nn.Conv1d", nn.Conv1d(3, 5, 3, padding=1), (2, 3, 9)),
    ("torch.nn.Conv2d", nn.Conv2d(3, 5, (1, 3)), (4, 3, 1, 8)),
    ("torch.nn.Conv3d", nn.Conv3d(3, 5, 1), (1, 3, 2, 2, 2)),
])
def test_a_batched_convolution_keeps_the_batch_size(qualname, module, shape):
    source = Tensor.of(Geometry.contiguous([literal(s) for s in shape]), None)
    model = module_output(qualname, op_transfers.module(qualname).transfer(Call(qualname, source)),
                          literal(5), source)
    real = module(torch.randn(shape))
    assert model.geometry.sizes[0] == literal(real.shape[0])
    assert model.geometry.sizes[1] == literal(real.shape[1])


ITEM_SIZES = '''import torch


def merged(self, x):
    y = x.view(x.size(0), self.hw[0], self.hw[1], -1)
    z = y.permute(0, 3, 1, 2)
    return z.view(x.size(0), -1, self.hw[0] * self.hw[1])


def swapped(self, x):
    y = x.view(x.size(0), self.hw[0], self.hw[1], -1)
    z = y.permute(0, 3, 2, 1)
    return z.view(x.size(0), -1, self.hw[0] * self.hw[1])
'''


def test_an_item_of_an_attribute_is_a_size_of_its_own():
    """`self.hw[0]` written in two view targets is one size: the permute keeps h and w
    adjacent in `merged`, whose view works (no finding, even in strict mode), and swaps them
    in `swapped`, whose view raises wherever both are more than 1."""
    found = lint_source(ITEM_SIZES, "m.py", Settings(strict=True, select=("CTG101",))).findings
    assert [(f.code, f.line) for f in found] == [("CTG101", 13)]
    space: dict = {}
    exec(compile(ITEM_SIZES, "m.py", "exec"), space)
    owner = type("Owner", (), {"hw": (3, 4)})()
    x = torch.randn(2, 3 * 4 * 5)
    assert space["merged"](owner, x).shape == (2, 5, 12)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        space["swapped"](owner, x)


@given(st.data())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_an_elementwise_op_led_by_an_operand_of_unknown_layout_has_the_broadcast_shape(data):
    """The first operand's layout unknown (a view of a module's output), the other's known:
    the layout stays unknown, but the result has the broadcast shape torch gives, written in
    the operands' sizes (a dim of 1 in one takes the other's); where two sizes differ as
    written, `?`, and the sizes count as made (no free name for a witness); an operand's own
    unknown size stays a free one."""
    rank = data.draw(st.integers(1, 4))
    full = data.draw(st.lists(st.integers(2, 5), min_size=rank, max_size=rank))
    first = [n if data.draw(st.booleans()) else 1 for n in full]
    second_rank = data.draw(st.integers(1, rank))
    second = [n if data.draw(st.booleans()) else 1 for n in full[rank - second_rank:]]
    real = torch.randn(*first).mT.contiguous().mT * torch.randn(*second) if rank > 1 else \
        torch.randn(*first) * torch.randn(*second)
    named = [symbol(f"n{i}") if n > 1 else literal(1) for i, n in enumerate(first)]
    unknown = Tensor(Kind.UNKNOWN, Geometry.contiguous(named), min_rank=rank)
    other = Tensor.of(Geometry.contiguous([literal(n) for n in second]), None)
    model = op_transfers.method("mul").transfer(Call("mul", unknown, [other]))
    assert model.kind is Kind.UNKNOWN and model.geometry.rank == real.dim()
    assert model.lost == (None in model.geometry.sizes)
    dropped = Tensor(Kind.UNKNOWN, Geometry.contiguous([None] * rank), min_rank=rank)
    ones = Tensor.of(Geometry.contiguous([literal(1)] * second_rank), None)
    alone = op_transfers.method("mul").transfer(Call("mul", dropped, [ones]))
    assert alone.geometry.sizes == (None,) * rank and not alone.lost
    for i, (size, n) in enumerate(zip(model.geometry.sizes, real.shape)):
        shifted = i - (rank - second_rank)
        if size is None:  # a name in one, a literal other than 1 in the other
            assert first[i] > 1 and shifted >= 0 and second[shifted] > 1
            assert model.lost
        else:
            assert size == (named[i] if first[i] > 1 else literal(n))
