"""The torch facts behind the engine's general flow (module parameters, in-place activations,
as_strided windows of unknown size, fft results), each checked against the installed torch;
the flow itself (hooks, properties, functools.partial, subclass attributes) is checked end to
end by the tuning cases under tests/eval/tuning/, whose truth comes from running them."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from contiglint.layout.model import ops
from contiglint.layout.flow.calls import module_parameter
from contiglint.layout.model.geometry import Geometry
from contiglint.catalogue.inplace import INPLACE_ACTIVATIONS
from contiglint.layout.model.sizes import literal, symbol
from contiglint.layout.model.transfer import Call
from contiglint.layout.model.values import CONTIGUOUS, IntVal, Kind, Ref, Seq, Tensor

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
    return ops.function("torch.as_strided").transfer(call)


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
    model = ops.function(f"torch.fft.{name}").transfer(Call(
        f"torch.fft.{name}", Tensor(Kind.CONTIGUOUS, Geometry.contiguous(
            [literal(3), literal(8)]), dtype=short)))
    assert model.dtype == str(real.dtype).removeprefix("torch.")
    assert model.geometry.sizes == (literal(3), literal(real.shape[-1]))
    assert model.kind is Kind.CONTIGUOUS and real.is_contiguous()
