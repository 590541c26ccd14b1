"""The measured torch behaviour that CTG102, CTG103, CTG104 and CTG112 (and their fixes) rely
on, checked against the installed torch so that a torch upgrade that changes it fails here."""
from __future__ import annotations

import io

import pytest
import torch
import torch.nn as nn


def saved(obj) -> bytes:
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


@pytest.mark.parametrize("view", [
    lambda big: big[:2], lambda big: big[:, 0], lambda big: big.narrow(1, 0, 2),
    lambda big: big.chunk(4)[0], lambda big: big.unbind(0)[3], lambda big: big[:2].contiguous(),
])
def test_saving_a_view_writes_the_whole_storage_and_clone_does_not(view):
    big = torch.randn(256, 256)
    whole = len(saved(big))
    assert len(saved(view(big))) >= whole
    assert len(saved(view(big).clone())) < whole // 2
    assert torch.equal(torch.load(io.BytesIO(saved(view(big).clone()))), view(big))


def test_parameters_and_buffers_keep_strides_and_share_storage():
    weight = torch.randn(3, 4)
    parameter = nn.Parameter(weight.t())
    buffer = nn.Buffer(weight.t())
    module = nn.Module()
    module.register_buffer("b", weight.t())
    for state in (parameter, buffer, module.b):
        assert not state.is_contiguous()
        assert state.data_ptr() == weight.data_ptr()  # so .contiguous() would untie them
    assert module.state_dict()["b"].stride() == (1, 4)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        nn.utils.parameters_to_vector([parameter])
    nn.utils.parameters_to_vector([nn.Parameter(weight.t().contiguous())])


@pytest.mark.parametrize("move", [
    lambda t: t.to("cpu", copy=True), lambda t: t.to(torch.float64),
    lambda t: t.to("cpu", torch.float64),
])
def test_device_copies_keep_permuted_strides_and_memory_format_fixes_them(move):
    permuted = torch.randn(2, 3, 4).permute(2, 0, 1)
    assert move(permuted).stride() == permuted.stride()
    fixed = move_with_format(move, permuted)
    assert fixed.is_contiguous() and torch.equal(fixed, move(permuted))


def move_with_format(move, tensor):
    class Recorder:
        def to(self, *args, **kwargs):
            return tensor.to(*args, memory_format=torch.contiguous_format, **kwargs)
    return move(Recorder())


def test_memory_format_on_a_no_op_move_returns_the_tensor_itself():
    t = torch.randn(3, 4).t()
    assert t.to("cpu", memory_format=torch.contiguous_format) is t
    assert t.cpu(memory_format=torch.contiguous_format) is t


def test_strided_device_copies_come_out_contiguous():
    sliced = torch.randn(3, 8)[:, 1:5]
    assert sliced.to("cpu", copy=True).is_contiguous()
    assert sliced.to(torch.float64).is_contiguous()


def test_a_kept_slice_pins_its_base_and_contiguous_releases_it():
    full = torch.randn(1, 2, 64, 8)
    window = full[:, :, -4:]
    assert not window.is_contiguous()
    assert window.untyped_storage().nbytes() == full.untyped_storage().nbytes()
    copied = window.contiguous()
    assert copied.untyped_storage().nbytes() == window.numel() * window.element_size()


def test_stride_of_a_contiguous_tensor_of_literal_sizes_is_torchs():
    """`x.stride(d)` is evaluated only for canonical contiguous geometries, and then it is the
    stride torch reports (so `as_strided(..., (x.stride(0), step, 1))` is literal)."""
    from contiglint.layout.model.geometry import Geometry as G
    from contiglint.layout.flow.methods import contiguous_stride
    from contiglint.layout.model.sizes import literal as lit
    from contiglint.layout.model.values import IntVal, Kind as K, Tensor as T

    for shape in [(3, 256), (2, 3, 4), (5,), (2, 1, 3)]:
        real = torch.empty(shape)
        model = T(K.CONTIGUOUS, G.contiguous([lit(s) for s in shape]))
        for d in range(-len(shape), len(shape)):
            assert contiguous_stride(model, IntVal(lit(d))) == IntVal(lit(real.stride(d)))
    transposed = G.contiguous([lit(4), lit(1)]).permuted([1, 0])  # randn(4, 1).t(): C
    assert contiguous_stride(T(K.CONTIGUOUS, transposed), IntVal(lit(0))) == IntVal(None)
