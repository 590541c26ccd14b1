"""The lead: leading dims of a tensor whose number the code never counts.

`*batch, C, D = x.shape` (or `batch = x.shape[:-2]`) names x's last dims and leaves the
others, any number of them, none included, to a `Lead` (values.py). The tensor keeps the lead
(`Tensor.lead`) with the geometry of its dims after it (`Tensor.assumed`), and so do the ops
on those dims alone (`x.mT`, `x.expand(*batch, C, D, 3)`, `r.view(*batch, D // 2, 2)`): what
they do to the dims after the lead does not depend on how many leading dims there are. An op
that does not say which dims it changed drops the lead.

In every case the lead survives, the geometry after it lies over a base that is the leading
dims' block of memory: a caller's x (its block is its dims after the lead), a fresh result of
an op (its own), a view of either (the leading dims keep their strides). So the whole tensor
at one leading dim is that geometry with one more base axis, outermost, and a dim of size L
over it (`at_one_leading_dim`): a view that folds the lead (`x.mT.view(-1, C)`) is decided
there, and fails for some L where the dims after the lead cannot merge with it, though it
succeeds where there are none.
"""
from __future__ import annotations

from typing import Callable, Optional

from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.geometry import Axis, Geometry
from contiglint.layout.model.sizes import symbol
from contiglint.layout.model.transfer import Call
from contiglint.layout.model.values import OPAQUE, Kind, Tensor, Value, classify


def lead_kept(tensor: Tensor, result: Tensor, dims: tuple) -> Tensor:
    """`result` of an op that moved only `dims` of `tensor`: where they are counted from the
    back and lie after its `lead` (in the geometry assumed after it), the result keeps that
    lead; else none."""
    assumed = tensor.assumed
    kept = tensor.lead is not None and result.geometry is None and assumed is not None and \
        result.assumed is not None and result.assumed.rank == assumed.rank == \
        tensor.min_rank == result.min_rank and \
        all(d is not None and -assumed.rank <= d < 0 for d in dims)
    return evolve(result, lead=tensor.lead if kept else None) if kept or result.lead else result


def after_lead(call: Call, transfer: Callable[[Call], Value], lead: object) -> Optional[Tensor]:
    """`transfer` applied to the dims of `call.tensor` after its `lead` alone, where `lead`
    (the one an op's sizes start with: `x.expand(*batch, d, 3)`, `r.view(*batch, d // 2, 2,
    c)`) is that lead: those dims are the geometry assumed after it, and the leading dims,
    outermost and untouched, do not change what the op does to them at any number of leading
    dims. The result keeps the lead. None where the tensor has another lead or none, or the
    op's result on those dims has no geometry."""
    tensor = call.tensor
    if lead is not tensor.lead or _after(tensor) is None:
        return None
    return _led(transfer(evolve(call, this=_inner(tensor))), [tensor])


def operands_after_lead(call: Call, transfer: Callable[[Call], Value]) -> Optional[Tensor]:
    """`transfer` (an elementwise op's layout) applied to the dims after the lead alone of
    operands that all have the same one, with as many dims after it (`x * x`, `x + x.mT`): the
    leading dims are the same sizes in each, outermost in memory in each, so TensorIterator
    keeps them outermost in the result, and the dims after them broadcast among themselves.
    The result keeps the lead. None where an operand has another lead, none, or another
    number of dims after it (it would broadcast against the leading dims), or is not known."""
    tensors = [call.tensor] + [a for a in call.args if isinstance(a, Tensor)]
    lead, rank = call.tensor.lead, call.tensor.min_rank
    if len(tensors) < 2 or any(a is OPAQUE for a in call.args) or any(
            t.lead is not lead or _after(t) is None or t.min_rank != rank for t in tensors):
        return None
    args = [_inner(a) if isinstance(a, Tensor) else a for a in call.args]
    return _led(transfer(evolve(call, this=_inner(call.tensor), args=args)), tensors)


def _inner(tensor: Tensor) -> Tensor:
    """`tensor`'s dims after its lead, as a tensor of their own."""
    return evolve(tensor, geometry=tensor.assumed, assumed=None, lead=None)


def _led(result: Value, operands: list[Tensor]) -> Optional[Tensor]:
    """`result`, an op's on the dims after the lead of `operands`, as the tensor with that
    lead; None where it has no geometry of known sizes."""
    if not isinstance(result, Tensor) or result.geometry is None or \
            None in result.geometry.sizes:
        return None
    # a layout the op left unknown of a tensor an op broke is the op's, not a caller's: no
    # witness may take it for a fresh tensor of those sizes
    lost = result.lost or any(t.noncontiguous for t in operands) and \
        result.kind is Kind.UNKNOWN
    return evolve(result, geometry=None, assumed=result.geometry,
                  min_rank=result.geometry.rank, lead=operands[0].lead, lost=lost)


def at_one_leading_dim(tensor: Tensor) -> Optional[Tensor]:
    """The tensor at one leading dim, of the size `x.size(0)` names (x: the tensor whose
    shape gave the lead): its dims after the lead as assumed, below one more base axis,
    outermost. None where it has no lead, its dims after the lead are not known, or another
    layout on other paths (`elsewhere`) would need one of its own. A cut of the dims after the
    lead (`partial`) is below the leading dim as its geometry shows it: its base whole."""
    assumed = _known_after(tensor)
    if assumed is None or tensor.lead.owner is None or tensor.elsewhere is not None:
        return None
    name = f"{tensor.lead.owner}.size(0)"
    if any(size is None or name in size[1] for size in assumed.sizes):
        return None  # a size of its own the lead's would be tied to
    outer = next(assumed.fresh_ids())
    whole = Geometry((Axis(symbol(name), (outer,)), *assumed.axes), (outer, *assumed.memory),
                     assumed.extents)
    kind = classify(whole) if tensor.kind is not Kind.UNKNOWN else Kind.UNKNOWN
    return evolve(tensor, kind=kind, geometry=whole, assumed=None, min_rank=whole.rank,
                  lead=None)


def _after(tensor: Tensor) -> Optional[Geometry]:
    """`_known_after`, where the dims after the lead are not a part of a larger storage: a
    transfer of them alone would not keep the holes a cut leaves between the leading dims'
    blocks."""
    return _known_after(tensor) if tensor.partial is None else None


def _known_after(tensor: Tensor) -> Optional[Geometry]:
    """The geometry of `tensor`'s dims after its lead, where it has a lead and they are known
    (at the least rank, and not sizes an op lost)."""
    assumed = tensor.assumed
    if tensor.lead is None or tensor.geometry is not None or assumed is None or \
            assumed.rank != tensor.min_rank or tensor.lost:
        return None
    return assumed
