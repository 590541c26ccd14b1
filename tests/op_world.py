"""Twin tensors for the op-table tests: a real torch tensor and its contiglint abstract value,
made by the same steps in both worlds, and the check that the abstract kind tells the truth.

The abstract twin is always built with the table's own transfers (transpose, permute, narrow,
expand, indexing, ...), so preparing an input is itself a test of those transfers: every
preparation step is checked against torch before the op under test runs.
"""
from __future__ import annotations

import importlib
import operator
from dataclasses import dataclass
from typing import Any

import torch
from hypothesis import strategies as st

from contiglint.layout.model import indexing, op_transfers
from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.indexing import Index
from contiglint.layout.model.sizes import literal
from contiglint.layout.model.transfer import Call
from contiglint.layout.model.values import Const, IntVal, Kind, Origin, Ref, Seq, Tensor

ORIGIN = Origin("<op under test>", 1, 1)


@dataclass
class Twin:
    real: torch.Tensor
    model: Tensor
    recipe: str = "contiguous"  # how it was made, for failure messages


class Disagreement(AssertionError):
    pass


def abstract(value: Any):
    """The abstract value the analyzer computes for a literal argument."""
    if isinstance(value, Twin):
        return value.model
    if isinstance(value, bool) or value is None or isinstance(value, (float, str)):
        return Const(value)
    if isinstance(value, int):
        return IntVal(literal(value))
    if isinstance(value, (tuple, list)):
        return Seq(tuple(abstract(v) for v in value))
    if isinstance(value, (torch.memory_format, torch.dtype)):
        return Ref("torch." + str(value).rsplit(".", 1)[-1])
    if isinstance(value, torch.Tensor):
        raise TypeError("pass tensors as Twins")
    return Const(value)


def concrete(value: Any):
    if isinstance(value, Twin):
        return value.real
    if isinstance(value, list):
        return [concrete(v) for v in value]
    if isinstance(value, tuple):
        return tuple(concrete(v) for v in value)
    return value


def torch_function(qualname: str):
    """The function a qualified name names: in torch, or in the library that owns it
    (`einops.rearrange`)."""
    if not qualname.startswith("torch."):
        owner, _, name = qualname.rpartition(".")
        return getattr(importlib.import_module(owner), name)
    return operator.attrgetter(qualname.removeprefix("torch."))(torch)


# --- what torch actually made -----------------------------------------------------------------
@dataclass(frozen=True)
class Observed:
    contiguous: bool
    overlapping: bool
    dense: bool  # non-overlapping and covering one unbroken range of memory


def observe(t: torch.Tensor) -> Observed:
    if t.numel() <= 1:
        return Observed(t.is_contiguous(), False, True)
    span = t.storage_offset() + sum((s - 1) * st for s, st in zip(t.shape, t.stride())) + 1
    offsets = torch.arange(span).as_strided(tuple(t.shape), t.stride(), t.storage_offset())
    distinct = offsets.unique().numel()
    overlapping = distinct < t.numel()
    dense = not overlapping and int(offsets.max() - offsets.min()) + 1 == t.numel()
    return Observed(t.is_contiguous(), overlapping, dense)


def problems(predicted: Tensor, real: torch.Tensor) -> list[str]:
    """Where the abstract tensor contradicts torch (empty when it tells the truth)."""
    if predicted.kind is Kind.UNKNOWN or predicted.maybe:
        return []
    seen = observe(real)
    wrong = []
    if predicted.kind is Kind.CONTIGUOUS and not seen.contiguous:
        wrong.append("predicted CONTIGUOUS, torch says non-contiguous")
    if predicted.noncontiguous and seen.contiguous:
        wrong.append(f"predicted {predicted.kind.name}, torch says contiguous")
    if predicted.kind is Kind.BROADCAST and not seen.overlapping:
        wrong.append("predicted BROADCAST, torch's result does not overlap")
    if predicted.kind in (Kind.PERMUTED, Kind.STRIDED) and seen.overlapping:
        wrong.append(f"predicted {predicted.kind.name}, torch's result overlaps")
    if predicted.kind is Kind.PERMUTED and not seen.contiguous and not seen.dense:
        wrong.append("predicted PERMUTED (dense), torch's result is not dense")
    if predicted.kind is Kind.STRIDED and not seen.contiguous and seen.dense:
        wrong.append("predicted STRIDED (non-dense), torch's result is dense")
    geometry = predicted.geometry
    if geometry is not None:
        if geometry.rank != real.dim():
            wrong.append(f"geometry rank {geometry.rank}, torch rank {real.dim()}")
        else:
            for axis, size in zip(geometry.axes, real.shape):
                if axis.size is not None and not axis.size[1] and axis.size[0] != size:
                    wrong.append(f"geometry sizes {geometry.sizes}, "
                                 f"torch shape {tuple(real.shape)}")
                    break
    return wrong


def describe(real: torch.Tensor) -> str:
    return f"shape {tuple(real.shape)} stride {real.stride()} dtype {real.dtype}"


# --- preparing inputs in both worlds ----------------------------------------------------------
def method_step(twin: Twin, name: str, *args, **kwargs) -> Twin:
    """Apply a Tensor method in torch and through the table; check the step agrees."""
    real = getattr(twin.real, name)(*concrete(args), **concrete(kwargs))
    call = Call(name, twin.model, [abstract(a) for a in args],
                {k: abstract(v) for k, v in kwargs.items()}, ORIGIN)
    model = op_transfers.method(name).transfer(call)
    shown = ", ".join([repr(a) for a in args] + [f"{k}={v}" for k, v in kwargs.items()])
    return checked(Twin(real, model, f"{twin.recipe}.{name}({shown})"))


def index_step(twin: Twin, dim: int, item: slice | int) -> Twin:
    """`x[:, ..., item]` with `item` at `dim`, in torch and through indexing.index."""
    full = Index("slice", None, None, 1, False, None)
    if isinstance(item, int):
        last = Index("int")
    else:
        bounded = item.start is not None or item.stop is not None
        length = literal(item.stop - (item.start or 0)) if item.stop is not None else None
        last = Index("slice", item.start, item.stop, item.step or 1, bounded, length)
    real = twin.real[(slice(None),) * dim + (item,)]
    model = indexing.index(twin.model, [full] * dim + [last], ORIGIN)
    text = ":, " * dim + (str(item) if isinstance(item, int) else
                          f"{item.start or ''}:{item.stop or ''}:{item.step or ''}")
    return checked(Twin(real, model, f"{twin.recipe}[{text}]"))


def checked(twin: Twin) -> Twin:
    wrong = problems(twin.model, twin.real)
    if wrong:
        raise Disagreement(f"preparing {twin.recipe}: {describe(twin.real)}; model "
                           f"{twin.model.kind.name} {twin.model.geometry}: {'; '.join(wrong)}")
    return twin


LAYOUTS = ("contiguous", "transposed", "permuted", "stepped", "narrowed", "expanded",
           "selected", "leading_slice", "channels_last")


def draw_dtype_known(shape) -> bool:
    """Half the known-rank twins know their dtype (as code that built them visibly would)."""
    return sum(shape) % 2 == 0


def _base(shape, dtype, known_rank: bool, unknown_start: bool) -> Twin:
    if dtype.is_floating_point or dtype.is_complex:
        real = torch.randn(shape, dtype=dtype)
    elif dtype == torch.bool:
        real = torch.randn(shape) > 0
    else:
        real = torch.randint(0, 5, shape, dtype=dtype)
    named = str(dtype).rsplit(".", 1)[-1]
    if known_rank:
        model = Tensor(Kind.CONTIGUOUS, Geometry.contiguous([literal(s) for s in shape]),
                       dtype=named if draw_dtype_known(shape) else None)
        return Twin(real, model, f"contiguous{tuple(shape)}")
    model = Tensor(Kind.UNKNOWN) if unknown_start else Tensor(Kind.CONTIGUOUS)
    label = "unknown" if unknown_start else "contiguous-rank-unknown"
    return Twin(real, model, f"{label}{tuple(shape)}")


@st.composite
def twins(draw, shape=None, rank=(1, 4), dtype=torch.float32, layouts=LAYOUTS,
          known=None, min_size=1, max_size=4):
    """A twin of exactly `shape` (drawn when None) in a drawn layout. Rank-unknown twins use
    sizes >= 2 and rank >= 2: without a rank the model assumes code that cuts or moves a dim
    does so on a real (size > 1) dim of a tensor that has it."""
    known_rank = draw(st.booleans()) if known is None else known
    if (shape is not None and (len(shape) < 2 or 1 in shape)) or rank[1] < 2:
        known_rank = True
    if shape is None:
        low = max(rank[0], 1 if known_rank else 2)
        r = draw(st.integers(low, max(low, rank[1])))
        lo = min_size if known_rank else max(min_size, 2)
        shape = tuple(draw(st.lists(st.integers(lo, max(lo, max_size)), min_size=r, max_size=r)))
    shape = tuple(shape)
    r = len(shape)
    usable = [name for name in layouts if _fits(name, shape)]
    layout = draw(st.sampled_from(usable))
    unknown_start = not known_rank and draw(st.booleans())
    if layout == "contiguous":
        return _base(shape, dtype, known_rank, unknown_start)
    if layout == "transposed":
        i, j = draw(st.integers(0, r - 1)), draw(st.integers(0, r - 1))
        base = list(shape)
        base[i], base[j] = base[j], base[i]
        return method_step(_base(base, dtype, known_rank, unknown_start), "transpose", i, j)
    if layout == "permuted":
        perm = draw(st.permutations(range(r)))
        base = [0] * r
        for position, dim in enumerate(perm):
            base[dim] = shape[position]
        return method_step(_base(base, dtype, known_rank, unknown_start), "permute", *perm)
    if layout == "stepped":
        d = draw(st.integers(0, r - 1))
        base = list(shape)
        base[d] = 2 * shape[d] - draw(st.integers(0, 1))
        return index_step(_base(base, dtype, known_rank, unknown_start), d, slice(None, None, 2))
    if layout == "narrowed":
        base = list(shape)
        base[-1] += draw(st.integers(1, 2))
        start = draw(st.integers(0, base[-1] - shape[-1]))
        return method_step(_base(base, dtype, known_rank, unknown_start), "narrow", r - 1,
                           start, shape[-1])
    if layout == "leading_slice":
        base = list(shape)
        base[0] += 1
        return index_step(_base(base, dtype, known_rank, unknown_start), 0, slice(1, None))
    if layout == "selected":
        d = draw(st.integers(0, r))
        base = list(shape[:d]) + [draw(st.integers(2, 3))] + list(shape[d:])
        return method_step(_base(base, dtype, known_rank, unknown_start), "select", d,
                           draw(st.integers(0, 1)))
    if layout == "expanded":
        d = draw(st.sampled_from([i for i, s in enumerate(shape) if s > 1] or [0]))
        base = list(shape)
        base[d] = 1
        return method_step(_base(base, dtype, known_rank, unknown_start), "expand", *shape)
    assert layout == "channels_last"
    return method_step(_base(shape, dtype, known_rank, unknown_start), "contiguous",
                       memory_format=torch.channels_last)


def _fits(layout: str, shape) -> bool:
    if layout in ("transposed", "permuted"):
        return len(shape) >= 2
    if layout == "channels_last":
        return len(shape) == 4
    return True
