"""The transfers of the spectral ops: the one-dimensional FFTs (`torch.fft.fft` and kin) and
`torch.stft`, measured on CPU."""
from __future__ import annotations

from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.sizes import literal
from contiglint.layout.model.transfer import Call
from contiglint.layout.model.values import UNKNOWN_TENSOR, Const, IntVal, Kind, Tensor, Value


FFT_COMPLEX = {"float32": "complex64", "float64": "complex128"}
FFT_REAL = {v: k for k, v in FFT_COMPLEX.items()}


def fft(call: Call) -> Value:
    """One-dimensional discrete Fourier transforms (`torch.fft.fft(x, n, dim)` and kin): along
    the last dim of a contiguous input, a contiguous result of the same rank whose last dim has
    the transform's length (measured on CPU). Along another dim, or of any other layout, the
    rank is kept and the layout is unknown (transposed, sliced, expanded and channels_last
    inputs give non-contiguous results)."""
    tensor = call.tensor
    kind = call.name.rsplit(".", 1)[-1]
    dtype = tensor.dtype
    if dtype is not None:
        dtype = FFT_REAL.get(dtype, dtype) if kind in ("irfft", "hfft") else \
            FFT_COMPLEX.get(dtype, dtype)
    dim = call.int_arg(1, "dim", -1)
    rank = tensor.rank
    last = dim == -1 or (rank is not None and dim == rank - 1)
    if tensor.kind is not Kind.CONTIGUOUS or not last:
        return Tensor(Kind.UNKNOWN, min_rank=rank or tensor.min_rank, dtype=dtype)
    if tensor.geometry is None:
        return Tensor(Kind.CONTIGUOUS, min_rank=tensor.min_rank, dtype=dtype)
    sizes = list(tensor.geometry.sizes)
    given = call.arg(0, "n")
    length = sizes[-1] if given is None or given == Const(None) else \
        given.size if isinstance(given, IntVal) else None
    known = length is not None and not length[1]
    if kind in ("rfft", "ihfft"):  # n real samples -> n // 2 + 1 frequencies
        length = literal(length[0] // 2 + 1) if known else None
    elif kind in ("irfft", "hfft") and length is sizes[-1]:  # m frequencies -> 2 (m - 1)
        length = literal(2 * (length[0] - 1)) if known else None
    return evolve(Tensor.of(Geometry.contiguous(sizes[:-1] + [length]), None),
                               dtype=dtype)


def stft(call: Call) -> Value:
    """torch.stft (return_complex=True): `(freq, frames)` or `(batch, freq, frames)` laid out
    frame by frame, so freq is innermost (measured strides (1, F) and (F*T, 1, F))."""
    if isinstance(call.kwargs.get("return_complex"), Const) and \
            call.kwargs["return_complex"].value is False:
        return UNKNOWN_TENSOR
    batched = call.tensor.rank == 2
    memory = Geometry.contiguous([None] * (3 if batched else 2))  # (batch,) frames, freq
    axes = (memory.axes[0], memory.axes[2], memory.axes[1]) if batched \
        else (memory.axes[1], memory.axes[0])
    geometry = Geometry(axes, memory.memory)
    if call.tensor.rank is None:
        return Tensor(Kind.PERMUTED, None, call.origin, min_rank=2, assumed=geometry)
    return Tensor.of(geometry, call.origin)
