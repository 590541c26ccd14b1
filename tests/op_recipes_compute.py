"""Case recipes for the computing entries of the op table: conversions, elementwise ops, copies,
matmul, reductions, concatenation, einsum and the nn layers. Each draws one valid call of one
spelling; per-spelling arguments live in small tables next to the recipe that uses them."""
from __future__ import annotations

import torch
from hypothesis import strategies as st

from tests.op_cases import Case
from tests.op_recipes_views import dim, plain, simple
from tests.op_world import twins

INTEGER_ONLY = {"bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor"}
FLOAT_DTYPES = st.sampled_from([torch.float32, torch.float64])


def _dtype(draw, name):
    return torch.int64 if name.rsplit(".", 1)[-1] in INTEGER_ONLY else draw(FLOAT_DTYPES)


def clone(draw, form, name):
    x = draw(twins(dtype=draw(FLOAT_DTYPES)))
    formats = [None, torch.preserve_format, torch.contiguous_format]
    if x.real.dim() == 4:
        formats.append(torch.channels_last)
    fmt = draw(st.sampled_from(formats))
    return Case(form, name, x, (), {"memory_format": fmt} if fmt is not None else {})


def conversion(draw, form, name):
    x = draw(twins(dtype=draw(st.sampled_from([torch.float32, torch.float64, torch.int64]))))
    if name == "to":
        choice = draw(st.sampled_from(["dtype", "device", "copy", "format"]))
        if choice == "dtype":
            return Case(form, name, x, (draw(FLOAT_DTYPES),))
        if choice == "device":
            return Case(form, name, x, ("cpu",))
        if choice == "copy":
            return Case(form, name, x, (torch.float64,), {"copy": True})
        fmt = torch.channels_last if x.real.dim() == 4 and draw(st.booleans()) \
            else torch.contiguous_format
        return Case(form, name, x, (), {"memory_format": fmt})
    if name == "type":
        return Case(form, name, x, (draw(FLOAT_DTYPES),))
    if name == "type_as":
        return Case(form, name, x, (plain(torch.zeros(2, dtype=draw(FLOAT_DTYPES))),))
    return Case(form, name, x)


def flip(draw, form, name):
    short = name.rsplit(".", 1)[-1]
    x = draw(twins(rank=(2, 4) if short == "fliplr" else (1, 4), dtype=draw(FLOAT_DTYPES)))
    if short == "flip":
        dims = draw(st.lists(st.integers(0, x.real.dim() - 1), min_size=1, unique=True))
        return Case(form, name, x, (tuple(dims),))
    if short == "sort":
        return Case(form, name, x, (dim(draw, x),))
    return Case(form, name, x)


UNARY_ARGS = {"clamp": ((), {"min": -0.5}), "clip": ((-0.5, 0.5), {}), "clamp_min": ((0.0,), {}),
              "clamp_max": ((0.0,), {})}


def unary(draw, form, name):
    short = name.rsplit(".", 1)[-1]
    x = draw(twins(dtype=_dtype(draw, name)))
    args, kwargs = UNARY_ARGS.get(short, ((), {}))
    return Case(form, name, x, args, dict(kwargs))


def binary(draw, form, name):
    short = name.rsplit(".", 1)[-1]
    dtype = _dtype(draw, name)
    x = draw(twins(dtype=dtype))
    shape = tuple(x.real.shape)
    kind = draw(st.sampled_from(["same", "broadcast", "scalar"]))
    if short in ("lerp", "addcmul", "addcdiv", "atan2", "hypot", "copysign", "xlogy", "maximum",
                 "minimum", "fmax", "fmin", "logical_and", "logical_or", "logical_xor"):
        kind = "same" if kind == "scalar" else kind
    if kind == "scalar":
        other = 2 if dtype == torch.int64 else 0.5
    elif kind == "same":
        other = draw(twins(shape=shape, dtype=dtype))
    else:
        other = plain(torch.randn(shape[draw(st.integers(0, len(shape))):]).to(dtype))
    if short == "lerp":
        return Case(form, name, x, (other, 0.5))
    if short in ("addcmul", "addcdiv"):
        return Case(form, name, x, (other, plain(torch.rand(shape) + 1)))
    return Case(form, name, x, (other,))


def pair(draw, form, name):
    """torch.polar(abs, angle) / torch.complex(real, imag): two float tensors of one shape."""
    x = draw(twins(dtype=draw(FLOAT_DTYPES)))
    return Case(form, name, x, (draw(twins(shape=tuple(x.real.shape), dtype=x.real.dtype)),))


def where(draw, form, name):
    x = draw(twins(dtype=draw(FLOAT_DTYPES)))
    shape = tuple(x.real.shape)
    cond = draw(twins(shape=shape, dtype=torch.bool))
    other = draw(twins(shape=shape, dtype=x.real.dtype))
    if form == "method":
        return Case(form, name, x, (cond, other))
    return Case(form, name, cond, (x, other))


ACTIVATION_RANK = {"dropout1d": (2, 3), "dropout2d": (3, 4), "dropout3d": (4, 5),
                   "Dropout1d": (2, 3), "Dropout2d": (3, 4), "Dropout3d": (4, 5)}
ACTIVATION_ARGS = {"threshold": (0.1, 0.0), "Threshold": (0.1, 0.0)}


def activation(draw, form, name):
    short = name.rsplit(".", 1)[-1]
    rank = ACTIVATION_RANK.get(short, (2, 4) if short == "normalize" else (1, 4))
    x = draw(twins(rank=rank, dtype=draw(FLOAT_DTYPES)))
    if short == "glu":
        x = draw(twins(shape=tuple(x.real.shape[:-1]) + (2 * draw(st.integers(1, 2)),)))
    if form == "module":
        return Case(form, name, x, ctor=ACTIVATION_ARGS.get(short, ()))
    return Case(form, name, x, ACTIVATION_ARGS.get(short, ()))


def like(draw, form, name):
    x = draw(twins(dtype=draw(FLOAT_DTYPES)))
    args = {"full_like": (1.0,), "randint_like": (10,)}.get(name.rsplit(".", 1)[-1], ())
    formats = [None, torch.contiguous_format] + ([torch.channels_last] if x.real.dim() == 4 else [])
    fmt = draw(st.sampled_from(formats))
    return Case(form, name, x, args, {"memory_format": fmt} if fmt is not None else {})


def attention(draw, form, name):
    q = draw(twins(rank=(3, 4), dtype=torch.float32))
    shape = tuple(q.real.shape)
    k = draw(twins(shape=shape))
    v = draw(twins(shape=shape))
    return Case(form, name, q, (k, v))


EINSUM = {"ij->ji": 1, "ij->ij": 1, "ijk->kij": 1, "ijk->ikj": 1, "ii->i": 1, "ij,jk->ik": 2,
          "ij,jk->ki": 2, "ij,kj->ik": 2, "bij,bjk->bik": 2, "bij,bjk->jbk": 2, "i,j->ij": 2,
          "ij,ij->ij": 2, "bij,bkj->bik": 2, "ij,bjk->bik": 2, "bld,bod->bol": 2,
          "bij,bjk->kib": 2, "bijd,bjd->bdi": 2, "bldsk,bokl->bolsd": 2}


def einsum(draw, form, name):
    spec = draw(st.sampled_from(sorted(EINSUM)))
    letters = sorted(set(spec.replace(",", "").replace("->", "")))
    sizes = {c: draw(st.integers(1, 4)) for c in letters}
    operands = [draw(twins(shape=tuple(sizes[c] for c in part)))
                for part in spec.split("->")[0].split(",")]
    return Case(form, name, spec, tuple(operands))


def contiguous(draw, form, name):
    x = draw(twins())
    fmt = draw(st.sampled_from([None, torch.contiguous_format] +
                               ([torch.channels_last] if x.real.dim() == 4 else [])))
    return Case(form, name, x, (), {"memory_format": fmt} if fmt is not None else {})


def concatenation(draw, form, name):
    x = draw(twins(rank=(1, 4)))
    shape = tuple(x.real.shape)
    items = [x] + [draw(twins(shape=shape)) for _ in range(draw(st.integers(0, 2)))]
    short = name.rsplit(".", 1)[-1]
    if short in ("cat", "concat", "concatenate", "stack"):
        limit = len(shape) + (1 if short == "stack" else 0)
        return Case(form, name, items, (draw(st.integers(0, limit - 1)),))
    return Case(form, name, items)


REDUCTION_NEEDS_DIM = {"logsumexp"}
REDUCTION_FLOAT = {"mean", "std", "var", "norm", "logsumexp", "nanmean", "median", "prod"}


def reduction(draw, form, name):
    short = name.rsplit(".", 1)[-1]
    x = draw(twins(dtype=draw(FLOAT_DTYPES)))
    if short in ("all", "any"):
        x = draw(twins(shape=tuple(x.real.shape), dtype=torch.bool))
    if short not in REDUCTION_NEEDS_DIM and draw(st.integers(0, 3)) == 0:
        return Case(form, name, x)
    d = dim(draw, x)
    if short == "count_nonzero":
        return Case(form, name, x, (d,))
    return Case(form, name, x, (d,), {"keepdim": draw(st.booleans())})


def new_factory(draw, form, name):
    x = draw(twins())
    sizes = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    args = (sizes, 1.0) if name == "new_full" else (sizes,)
    if name != "new_full" and draw(st.booleans()):
        args = sizes
    return Case(form, name, x, args)


def fft(draw, form, name):
    """A 1-D transform of a real or complex input, along a drawn dim, of a drawn length."""
    kind = name.rsplit(".", 1)[-1]
    dtypes = {"rfft": [torch.float32, torch.float64], "ihfft": [torch.float32],
              "irfft": [torch.complex64], "hfft": [torch.complex64, torch.complex128]}
    choices = dtypes.get(kind, [torch.float32, torch.complex64])
    x = draw(twins(dtype=draw(st.sampled_from(choices)), min_size=2))
    kwargs = {}
    if draw(st.booleans()):
        kwargs["dim"] = dim(draw, x)
    if draw(st.booleans()):
        kwargs["n"] = draw(st.integers(2, 6))
    return Case(form, name, x, (), kwargs)


RECIPES = {
    "clone": clone,
    "torch.fft.fft": fft,
    "to": conversion,
    "flip": flip,
    "torch.sort": simple(args=lambda draw, x, form: ((dim(draw, x),), {})),
    "abs": unary,
    "add": binary,
    "torch.where": where,
    "torch.polar": pair,
    "where": where,
    "torch.nn.functional.relu": activation,
    "torch.nn.functional.dropout": activation,
    "torch.nn.Identity": activation,
    "torch.nn.functional.glu": activation,
    "torch.zeros_like": like,
    "torch.nn.functional.scaled_dot_product_attention": attention,
    "torch.einsum": einsum,
    "contiguous": contiguous,
    "torch.cat": concatenation,
    "torch.stack": concatenation,
    "sum": reduction,
    "torch.max": reduction,
    "max": reduction,
    "sort": flip,
    "new_zeros": new_factory,
}
