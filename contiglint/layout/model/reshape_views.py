"""`.view(shape)`, `reshape`, `view_as`, `flatten` and `unflatten`: the geometry regrouped
(whether the view can succeed is view_verdict.py's). A reshape copies where its view would
raise: a fresh contiguous tensor, contiguous for every size only where no size lets the view
keep holes (witness.reshape_proven_contiguous)."""
from __future__ import annotations

from typing import Optional

from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.path_conditions import ElementCount
from contiglint.layout.model.path_joins import odd_unit_strides
from contiglint.layout.model.sizes import ONE, WILDCARD, align, literal, product, quotient
from contiglint.layout.model.transfer import CONTIGUOUS, Call, fresh
from contiglint.layout.model.view_verdict import (
    resolve_wildcard, verdict_without_grouping, view_verdict,
)
from contiglint.layout.model.leads import after_lead, at_one_leading_dim
from contiglint.layout.model.views import _norm, _result, apply_view
from contiglint.layout.model.witness import reshape_proven_contiguous
from contiglint.layout.model.witness_sizes import is_atom
from contiglint.layout.model.values import (UNKNOWN_TENSOR, IntVal, Kind, Lead, Spread, Tensor,
                                            Value)


def view(call: Call, target: Optional[list] = None, copy_if_needed: bool = False) -> Value:
    """`.view(shape)` (and `.reshape` with `copy_if_needed`): regroup the geometry."""
    tensor = call.tensor
    target = call.sizes(0, "shape") if target is None else target
    led = led_sizes(call.args, wildcard=True) \
        if target is None and "shape" not in call.kwargs else None
    if led is not None and WILDCARD not in led[1] and tensor.geometry is None and \
            not tensor.noncontiguous and not tensor.lost and not tensor.made_sizes and \
            tensor.partial is None:
        # `x.view(*batch, d // 2, 2)`: `batch`'s dims lead, of any number, none included
        return Tensor(tensor.kind, None, min_rank=len(led[1]),
                      assumed=Geometry.contiguous(led[1]), lead=led[0],
                      maybe=tensor.maybe and tensor.kind is Kind.CONTIGUOUS)
    kept = after_lead(call, lambda inner: view(inner, list(led[1]), copy_if_needed),
                      led[0]) if led is not None else None
    if kept is not None:  # `r.view(*batch, d, c // 2, 2)` of `r = x.mT`: r's dims after its
        return kept  # own lead regrouped, the lead kept
    if target is None:
        return _unshaped(tensor)
    folded = _folded_lead(call, at_one_leading_dim(tensor), target)
    if folded is not None:
        return folded
    target = resolve_wildcard(tensor, target)
    sizes = [None if s == "-1" else s for s in target]
    geometry = tensor.geometry
    if geometry is None:
        if tensor.kind is Kind.CONTIGUOUS:
            return _sized_by_rest(tensor, fresh(call, sizes))
        if tensor.noncontiguous and copy_if_needed and view_verdict(tensor, target) == "raises":
            return _copied(call, sizes, tensor.assumed, target)
        # of a non-contiguous tensor, a layout the op lost: the geometry holds its sizes
        return Tensor(tensor.kind if not tensor.noncontiguous else Kind.UNKNOWN,
                      Geometry.contiguous(sizes), min_rank=len(sizes),
                      lost=tensor.noncontiguous or None in sizes and _numel_made(tensor))
    if geometry.rank == 0:  # one element: any view of it that torch allows is contiguous
        return fresh(call, [ONE if s is None else s for s in sizes])
    groups = align(list(geometry.sizes), [WILDCARD if s == "-1" else s for s in target])
    regrouped = geometry.regrouped(groups, sizes) if groups is not None else None
    if regrouped is not None:
        return _result(tensor, regrouped, call, None)
    unaligned = groups is None  # the sizes leave the grouping open: reshape may still view
    copies = copy_if_needed and tensor.noncontiguous and (
        not unaligned or verdict_without_grouping(geometry, target) == "raises")
    if tensor.kind is Kind.CONTIGUOUS:
        return fresh(call, sizes)
    if copies:
        return _copied(call, sizes, geometry, target)
    return Tensor(Kind.UNKNOWN, Geometry.contiguous(sizes), min_rank=len(sizes))


def _folded_lead(call: Call, whole: Optional[Tensor], target: list) -> Optional[Tensor]:
    """A view or a reshape that folds the leading dims of a tensor with a lead (leads.py) into
    sizes after none (`x.unsqueeze(-1).expand(*batch, d, 3).reshape(-1, 3)`, `x.view(-1, D)`):
    where the tensor at one leading dim views so, it does at any number of them (the leading
    dims' block is row-major: they merge with one another, and with the dims after them where
    one does), and the result is that view, the size `x.size(0)` of the one leading dim
    standing for the product of them all (`whole`: the tensor at one, `at_one_leading_dim`).
    None elsewhere: a reshape that copies with leading dims and views without has a layout of
    each."""
    if whole is None:
        return None
    geometry, target = whole.geometry, resolve_wildcard(whole, target)
    groups = align(list(geometry.sizes), [WILDCARD if s == "-1" else s for s in target])
    regrouped = geometry.regrouped(groups, [None if s == "-1" else s for s in target]) \
        if groups is not None else None
    return _result(whole, regrouped, call, None) if regrouped is not None else None


def element_count(call: Call) -> Optional[ElementCount]:
    """What a view or reshape shows of the sizes where it runs without raising: its input's
    sizes and its shape have the same number of elements (`x.reshape(*batch, d // 2, 2)`: d
    is even). Where the sizes are known, or the lead of both is the same `Lead`."""
    tensor = call.tensor
    target = call.sizes(0, "shape" if "shape" in call.kwargs else "size")
    if target is None:
        target = with_lead(tensor, None, call.args)
        source = tensor.assumed if target is not None else None
    else:
        source = tensor.geometry
    return ElementCount.of(source.sizes, target) if source is not None else None


def _sized_by_rest(tensor: Tensor, result: Tensor) -> Tensor:
    """`result`, a view of `tensor` of unknown rank with a `-1`, whose size there is no free
    name where the sizes assumed at the least rank name some: it is their product over the
    other sizes times the leading dims' (`x.reshape(-1, D)` of `*batch, C, D = x.shape` is a
    multiple of C), which a witness of its own would not keep."""
    assumed = tensor.assumed
    if result.geometry is None or result.geometry.rank < 2 or None not in result.geometry.sizes \
            or assumed is None or all(size is None for size in assumed.sizes):
        return result  # (a flattening's one size is every element: any size an op made)
    return evolve(result, lost=True)


def _unshaped(tensor: Tensor) -> Tensor:
    """A view or reshape into sizes the code does not show. Of a contiguous tensor, or one a
    caller passed, unknown (as contiguous as its input); of any other, lost: a view of a
    non-contiguous tensor or of a cut keeps its order or its holes where it succeeds, and a
    reshape copies only where that view would raise (`x[..., 1:, :].reshape(*batch, -1)` is
    a view)."""
    if tensor.kind is Kind.CONTIGUOUS or (tensor.kind is Kind.UNKNOWN and not tensor.lost and
                                          tensor.partial is None):
        return UNKNOWN_TENSOR
    return Tensor(Kind.UNKNOWN, lost=True)


def led_sizes(args: list, wildcard: bool = False) -> Optional[tuple[Lead, list]]:
    """The `Lead` a view's or a reshape's shape starts with and the known sizes after it
    (`x.view(*batch, d // 2, 2)`), or None. With `wildcard`, one `-1` among them is kept
    as "-1" (a view of a tensor whose dims after the same lead are known: `x.mT.view(*batch,
    -1)`); else a `-1` gives None (the dims it stands for are not known)."""
    if len(args) < 2 or not isinstance(args[0], Spread) or args[0].of is None:
        return None
    sizes = [arg.size if isinstance(arg, IntVal) else None for arg in args[1:]]
    if None in sizes or sizes.count(literal(-1)) > (1 if wildcard else 0):
        return None
    return args[0].of, [WILDCARD if size == literal(-1) else size for size in sizes]


def with_lead(tensor: Tensor, target: Optional[list], args: list) -> Optional[list]:
    """`target`, or where a view's shape starts with the `Lead` that leads `tensor` too
    (`r.view(*batch, d)` of `r = x.view(*batch, d // 2, 2).mT`), the sizes after it: the
    view keeps those leading dims and is decided by the dims after them (`tensor.assumed`),
    for every number of leading dims."""
    led = led_sizes(args, wildcard=True) if target is None else None
    if led is None or led[0] is not tensor.lead or tensor.geometry is not None or \
            tensor.assumed is None or tensor.assumed.rank != tensor.min_rank:
        return target
    return led[1]


def _numel_made(tensor: Tensor) -> bool:
    """Whether the number of elements of a tensor of unknown rank is one an op made, not one a
    caller chooses: its sizes are lost, or the geometry assumed at its least rank holds a size
    derived from others (`F.pad(x, (1, 1))` has at least 3 elements). A `-1` of its view is
    then no free name: a witness would give it a value no input gives."""
    if tensor.made_sizes:
        return True
    assumed = tensor.assumed
    return assumed is not None and any(
        size is not None and not (size[0] == 1 and len(size[1]) == 1 and is_atom(size[1][0]))
        for size in assumed.sizes)


def _copied(call: Call, sizes: list, geometry: Optional[Geometry], target: list) -> Tensor:
    """A reshape that copies for generic sizes: contiguous, but only *maybe* for every size
    where some sizes (a dim of 1) let it view a tensor that is not contiguous (the view keeps
    its holes or its order)."""
    result = fresh(call, sizes)
    if geometry is None or not reshape_proven_contiguous(geometry, target):
        return evolve(result, maybe=True)
    return result


def reshape(call: Call) -> Value:
    """reshape views when it can (the result may be non-contiguous) and copies when it must."""
    return view(call, copy_if_needed=True)


def view_as(call: Call, copy_if_needed: bool = False) -> Value:
    other = call.arg(0, "other")
    target = list(other.geometry.sizes) if isinstance(other, Tensor) and other.geometry else None
    return view(call, target, copy_if_needed)


def flatten(call: Call) -> Value:
    if call.name.endswith("Flatten"):  # nn.Flatten(start, end): dims given to the constructor
        kind = Kind.CONTIGUOUS if call.tensor.kind is Kind.CONTIGUOUS else Kind.UNKNOWN
        return Tensor(kind, min_rank=1)
    start, end = call.int_arg(0, "start_dim", 0), call.int_arg(1, "end_dim", -1)
    geometry = call.tensor.geometry
    rank = geometry.rank if geometry is not None else call.tensor.min_rank
    if start is not None and start == end and rank >= 1:
        return call.this  # one dim flattened: the tensor itself (torch returns it)
    if geometry is None and start is not None and end is not None:
        kept = _flattened_assumption(call.tensor, start, end) or \
            _flattened_lead(call, start, end)
        if kept is not None:
            return kept
    if geometry is None and start == 0 and end == -1:
        # every dim into one: one dim at every rank (a cat of such is never channels_last)
        made = _flattened_unplaced(call.tensor, 0, -1)
        return evolve(made, geometry=Geometry.contiguous([None]), min_rank=1)
    return _flattened_unplaced(call.tensor, start, end) \
        if geometry is None or start is None or end is None else \
        _flattened_known(call, geometry, start, end)


def _flattened_lead(call: Call, start: int, end: int) -> Optional[Tensor]:
    """`flatten(0, end)` of a tensor with a lead (leads.py), `end` counted from the back among
    the dims after it: the leading dims folded into the first of them, as a view that folds
    the lead (`_folded_lead`). At no leading dims `x.flatten(0, -2)` of (C, D) is (C, D): the
    size of the one leading dim is 1 there. None elsewhere (from dim 1 on, the dims flattened
    differ with the number of leading dims)."""
    whole = at_one_leading_dim(call.tensor) if start == 0 else None
    if whole is None or not -whole.geometry.rank < end < 0:
        return None
    sizes = list(whole.geometry.sizes)
    last = len(sizes) + end
    return _folded_lead(call, whole, [product(sizes[:last + 1])] + sizes[last + 1:])


def _flattened_unplaced(tensor: Tensor, start: Optional[int], end: Optional[int]) -> Tensor:
    """flatten of a tensor of unknown rank, or of dims not known."""
    least = max(1, tensor.min_rank - (end - start)) \
        if start is not None and end is not None and 0 <= start <= end else 1
    if tensor.noncontiguous and tensor.min_rank > (start or 0) + 1:
        # its sizes are the input's merged, which an op made: not free either
        return Tensor(Kind.UNKNOWN, min_rank=least, lost=True)
    if tensor.kind is Kind.UNKNOWN:
        return evolve(UNKNOWN_TENSOR, min_rank=least, lost=tensor.lost)
    # a copy, or a view where sizes let the dims merge: as contiguous as the input then, and
    # a size-1 dim it keeps keeps its stride (`ones(*b, 1, d).mT.flatten(0, -2)` is (n, 1)
    # with the last stride d)
    return evolve(CONTIGUOUS, maybe=tensor.noncontiguous, min_rank=least,
                  lost=tensor.made_sizes, stale_unit_strides=tensor.stale_unit_strides or
                  odd_unit_strides(tensor.assumed))


def _flattened_known(call: Call, geometry: Geometry, start: int, end: int) -> Value:
    s, e = _norm(start, geometry.rank), _norm(end, geometry.rank)
    if geometry.rank == 0:
        return view(call, [ONE], copy_if_needed=True)
    if s is None or e is None:
        return UNKNOWN_TENSOR
    sizes = list(geometry.sizes)
    merged = None
    if all(size is not None for size in sizes[s:e + 1]):
        merged = product(sizes[s:e + 1])
    target = sizes[:s] + [merged if merged is not None else "-1"] + sizes[e + 1:]
    if sum(1 for x in target if x is None or x == "-1") > 1:
        target = None
    return view(call, target, copy_if_needed=True)


def _flattened_assumption(tensor: Tensor, start: int, end: int) -> Optional[Tensor]:
    """flatten(start, end) of dims counted from the front of a tensor that came in, known only
    at its least rank: those dims merged at every rank, so its sizes there are the assumed ones
    with the merged product (`x.unsqueeze(0).flatten(2, 3)` of x named (B, N, C) is
    (1, B, N * C) where x has 3 dims); a later op that fixes the rank reads them."""
    assumed = tensor.witness_geometry
    if assumed is None or tensor.geometry is not None or tensor.noncontiguous or \
            tensor.kind not in (Kind.CONTIGUOUS, Kind.UNKNOWN) or tensor.partial is not None or \
            assumed.rank != tensor.min_rank or not 0 <= start < end < assumed.rank:
        return None
    sizes = list(assumed.sizes)
    merged = product(sizes[start:end + 1]) if None not in sizes[start:end + 1] else None
    sizes[start:end + 1] = [merged]
    return Tensor(tensor.kind, min_rank=len(sizes), assumed=Geometry.contiguous(sizes))


def unflatten(call: Call) -> Value:
    dim = call.int_arg(0, "dim")
    geometry = call.tensor.geometry
    parts = call.sizes(1, "sizes")
    if geometry is None and dim is not None and parts is not None and parts.count("-1") <= 1:
        # rank unknown: split dim `dim` of the geometry assumed at the least rank it needs
        return apply_view(call, lambda g: _split(g, dim, parts), None,
                          min_rank=dim + 1 if dim >= 0 else -dim)
    if geometry is None or dim is None or parts is None:
        return UNKNOWN_TENSOR if not call.tensor.noncontiguous else call.tensor
    d = _norm(dim, geometry.rank)
    if d is None:
        return UNKNOWN_TENSOR
    sizes = list(geometry.sizes)
    return view(call, sizes[:d] + parts + sizes[d + 1:])


def _split(geometry: Geometry, dim: int, parts: list) -> Optional[Geometry]:
    """`geometry` with dim `dim` split into `parts` (sizes, one "-1" at most)."""
    d = _norm(dim, geometry.rank)
    if d is None:
        return None
    whole = geometry.axes[d].size
    known = [p for p in parts if p != "-1"]
    rest = quotient(whole, product(known)) if whole is not None and None not in known else None
    sizes = [rest if p == "-1" else p for p in parts]
    n = len(parts)
    groups = [(range(i, i + 1), range(i, i + 1)) for i in range(d)] + \
        [(range(d, d + 1), range(d, d + n))] + \
        [(range(i, i + 1), range(i + n - 1, i + n)) for i in range(d + 1, geometry.rank)]
    all_sizes = list(geometry.sizes[:d]) + sizes + list(geometry.sizes[d + 1:])
    return geometry.regrouped(groups, all_sizes)
