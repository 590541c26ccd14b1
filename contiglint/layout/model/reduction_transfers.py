"""Reductions: the layout and sizes of what `sum`, `mean`, `amax`, `max(dim)`... return.
Transfers of the op table (op_transfers.py), like those of transfer.py."""
from __future__ import annotations

from typing import Optional

from contiglint.layout.model.elementwise import elementwise
from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.sizes import ONE, literal
from contiglint.layout.model.transfer import (Call, _literal_dim, _truthy, channels_last, fresh,
                                              fresh_same_rank, kept_origin)
from contiglint.layout.model.values import CONTIGUOUS, Const, IntVal, Kind, Seq, Tensor, Value
from contiglint.layout.model.leads import after_lead
from contiglint.layout.model.views import least_rank


def reduction(call: Call) -> Value:
    """Reductions over a dim return fresh contiguous tensors (measured: sum, mean, amax,
    norm, argmax, max over permuted and channels_last inputs). Keepdim keeps channels_last.
    Over dims counted from the back within those after a `Tensor.lead`, the lead stays."""
    led = _after_lead(call)
    if led is not None:
        return led
    if call.tensor.channels_last and _truthy(call.kwargs.get("keepdim")):
        return _kept_dims(call)
    sizes = _reduced_sizes(call)
    if sizes is not None:
        return fresh(call, sizes)
    assumed = _reduced_assumed(call)
    if assumed is not None:
        # as many dims fewer than the input at every rank: where the input's geometry was
        # assumed above its least rank, so is the result's (no witness is built on it)
        return Tensor(Kind.CONTIGUOUS, min_rank=max(call.tensor.min_rank - (
            len(call.tensor.assumed.sizes) - len(assumed)), 0),
            assumed=Geometry.contiguous(assumed))
    if _truthy(call.arg(1, "keepdim")):
        kept = _kept_at_least_rank(call)
        if kept is not None:
            return kept
        # kept dims of size 1 where the model does not know which: sizes a caller does not
        # choose, so a later op that fixes the rank gives them no free sizes
        return Tensor(Kind.CONTIGUOUS, min_rank=call.tensor.min_rank, lost=True)
    return _dropped_unplaced(call)


def _after_lead(call: Call) -> Optional[Tensor]:
    """A reduction over dims counted from the back, each among the dims after the tensor's
    lead (`*batch, c, d = x.shape`; `x.sum(-1)`): those dims reduced as a tensor of their own
    would be, the leading dims, outermost and untouched, kept (`views.after_lead`)."""
    tensor = call.tensor
    if tensor.lead is None or tensor.assumed is None or \
            call.name.rsplit(".", 1)[-1] not in _SHAPED_REDUCTIONS:
        return None
    dims = _literal_dims(call.arg(0, "dim"))
    if dims is None or not all(-tensor.assumed.rank <= d < 0 for d in dims):
        return None
    return after_lead(call, reduction, tensor.lead)


def _dropped_unplaced(call: Call) -> Tensor:
    """Dims dropped where the model cannot place them in the geometry assumed for the input:
    a caller's sizes less those dims, free; of an input whose assumed sizes are named or of
    size 1 (`x.mean(1, keepdim=True).sum(3)` keeps the 1), or that an op made, sizes no
    caller chose, which a later op that fixes the rank may not name freely."""
    tensor = call.tensor
    assumed = tensor.assumed
    if not tensor.made_by_op and (assumed is None or assumed.unsized):
        return CONTIGUOUS
    dims = _literal_dims(call.arg(0, "dim"))
    if dims is None:
        return Tensor(Kind.CONTIGUOUS, min_rank=max(tensor.min_rank - 1, 0), lost=True)
    least = max([tensor.min_rank] + [least_rank(d) for d in dims])
    return Tensor(Kind.CONTIGUOUS, min_rank=max(least - len(set(dims)), 0), lost=True)


# reductions whose first argument is the dim and second keepdim: one tensor out, or values and
# indices (`x.max(-1)`, `x.median(1, True)`: the values are what `reduction` describes)
_SHAPED_REDUCTIONS = frozenset({"sum", "mean", "amax", "amin", "prod", "logsumexp", "nansum",
                                "nanmean", "max", "min", "median", "nanmedian", "mode"})


def _reduced_sizes(call: Call) -> Optional[list]:
    """The result's sizes when the input's and the reduced dims are known: a reduced dim is
    dropped, or kept as a size-1 dim with keepdim (`x.sum(-1, keepdim=True).mT` is
    contiguous: the moved dim has size 1)."""
    geometry = call.tensor.geometry
    if geometry is None or call.name.rsplit(".", 1)[-1] not in _SHAPED_REDUCTIONS:
        return None
    given = call.arg(0, "dim")
    keepdim = call.arg(1, "keepdim")
    if not isinstance(keepdim, Const) or not isinstance(keepdim.value, bool):
        return None if "keepdim" in call.kwargs or len(call.args) > 1 else \
            _kept_or_dropped(geometry, given, False)
    return _kept_or_dropped(geometry, given, keepdim.value)


def _reduced_assumed(call: Call) -> Optional[list]:
    """Rank unknown: the sizes at the least rank, where the code named them (`x.size(0)`).
    Reduced dims counted from the front are the same dims at any rank (`x.sum(0,
    keepdim=True)` keeps x's other sizes, with 1 first); dims counted from the back are
    known only where the assumed geometry is at the least rank, so the result's is too (an
    op that later fixes the rank at it takes those sizes)."""
    tensor = call.tensor
    given = call.arg(0, "dim")
    items = given.items if isinstance(given, Seq) else (given,)
    if tensor.geometry is not None or tensor.assumed is None or given is None or (
            tensor.assumed.rank != tensor.min_rank and
            any((_literal_dim(item) or 0) < 0 for item in items or ())):
        return None
    return _reduced_sizes(Call(call.name, Tensor(Kind.CONTIGUOUS, tensor.assumed), call.args,
                               call.kwargs, call.origin))


def _kept_at_least_rank(call: Call) -> Optional[Tensor]:
    """keepdim over literal dims of a tensor of unknown rank: the result at the least rank the
    dims need, each reduced dim of size 1 (`x.amax(-2, keepdim=True)` is (?, 1) there, and
    has a size-1 dim -2 at every rank, so `.movedim(-1, -2)` of it is contiguous). The other
    sizes are free where a caller chose the input's, and lost where an op made them or a
    geometry assumed for the input names them; None where a dim is not a literal."""
    tensor, given = call.tensor, call.arg(0, "dim")
    if tensor.geometry is not None:
        return None
    dims = _literal_dims(given)
    if dims is None or call.name.rsplit(".", 1)[-1] not in _SHAPED_REDUCTIONS:
        return None
    rank = max([tensor.min_rank, 1] + [least_rank(d) for d in dims])
    sizes = _kept_or_dropped(Geometry.contiguous([None] * rank), given, True)
    if sizes is None:
        return None
    free = tensor.assumed is None and not tensor.made_by_op
    return Tensor(Kind.CONTIGUOUS, min_rank=rank, assumed=Geometry.contiguous(sizes),
                  lost=not free)


def _literal_dims(given) -> Optional[list[int]]:
    """The dims a reduction's `dim` argument names, each a literal int (one, or a list or
    tuple of them); None where it names none or any is not a literal."""
    items = given.items if isinstance(given, Seq) else (given,)
    dims = [_literal_dim(item) for item in items or ()] if given is not None else []
    return None if not dims or None in dims else dims


def _kept_or_dropped(geometry: Geometry, given, keep: bool) -> Optional[list]:
    dims = _literal_dims(given)
    if dims is None:
        return None
    rank = geometry.rank
    dims = {d + rank if d < 0 else d for d in dims}
    if any(not 0 <= d < rank for d in dims):
        return None
    if keep:
        return [ONE if i in dims else s for i, s in enumerate(geometry.sizes)]
    return [s for i, s in enumerate(geometry.sizes) if i not in dims]


def _kept_dims(call: Call) -> Tensor:
    """keepdim on a channels_last input: the reduced dims become size 1 in the channels_last
    layout (measured: `cl.sum(1, keepdim=True)` is contiguous, `cl.sum(2, keepdim=True)` not)."""
    given = call.arg(1, "dim") if call.name.endswith("norm") else call.arg(0, "dim")
    if given is None:
        return fresh(call, [ONE] * 4)  # every dim reduced
    items = given.items if isinstance(given, Seq) else (given,)
    dims = [_literal_dim(item) for item in items or ()]
    if not dims or None in dims:
        return Tensor(Kind.UNKNOWN, min_rank=4)
    sizes = [ONE if i in dims or i - 4 in dims else s
             for i, s in enumerate(call.tensor.geometry.sizes)]
    kept = channels_last(Tensor(Kind.CONTIGUOUS, Geometry.contiguous(sizes)),
                         kept_origin(call.tensor, call))
    # measured: std(cl, 2, keepdim=True) is contiguous, not channels_last
    return kept if kept.kind is Kind.CONTIGUOUS else Tensor(Kind.UNKNOWN, min_rank=4)


def reduction_pair(call: Call) -> Value:
    """max/min/median/mode: over a dim, a `(values, indices)` pair of the same sizes; over
    everything, a 0-d tensor. Both contiguous (measured). `x.max(y)` of two tensors is
    `torch.maximum`, elementwise."""
    if isinstance(call.arg(0, "other"), Tensor):
        return elementwise(call)
    if call.arg(0, "dim") is None:
        return CONTIGUOUS
    return _with_indices(reduction(call), call)


def top_values(call: Call) -> Value:
    """`x.topk(k, dim=-1)`: values and indices of x's sizes with k at dim; `x.kthvalue(k,
    dim=-1, keepdim=False)`: those of a reduction over dim. Both fresh and contiguous, whatever
    x's layout and dim (measured on 2.13)."""
    dim = call.arg(1, "dim") or IntVal(literal(-1))
    if call.name.rsplit(".", 1)[-1] == "kthvalue":
        keepdim = call.arg(2, "keepdim") or Const(False)
        return reduction_pair(evolve(call, name="max", args=[dim, keepdim], kwargs={}))
    geometry, dims, k = call.tensor.geometry, _literal_dims(dim), call.arg(0, "k")
    if geometry is None and dims is not None and isinstance(k, IntVal) and k.size is not None:
        # rank unknown: k elements at dim in the geometry assumed at the least rank, as keepdim
        # places its size-1 dim there (`x.topk(1, -1)` has a size-1 last dim at every rank)
        kept = _kept_at_least_rank(evolve(call, name="amax", args=[dim, Const(True)], kwargs={}))
        if kept is not None:
            at = dims[0] % kept.assumed.rank
            return _with_indices(evolve(kept, assumed=kept.assumed.with_axis(at, size=k.size)),
                                 call)
    if geometry is None or dims is None or not -geometry.rank <= dims[0] < geometry.rank:
        # k elements at a dim the model cannot place: sizes an op made, not a caller's
        values = fresh_same_rank(call) if geometry is not None else Tensor(
            Kind.CONTIGUOUS, min_rank=max([call.tensor.min_rank] + [least_rank(d)
                                                                    for d in dims or ()]))
        return _with_indices(evolve(values, lost=True), call)
    at = dims[0] % geometry.rank
    return _with_indices(fresh(call, [size if i != at else k.size if isinstance(k, IntVal)
                                      else None for i, size in enumerate(geometry.sizes)]), call)


def _with_indices(values: Value, call: Call) -> Seq:
    """`(values, indices)`: the indices have the values' sizes and layout, and dtype int64."""
    if not isinstance(values, Tensor):
        return Seq((values, values))
    return Seq((evolve(values, dtype=call.tensor.dtype), evolve(values, dtype="int64")))
