"""Case recipes for the view entries of the op table (permutations, slicing, expanding,
view/reshape, size-1 dims). A recipe draws one valid call of one spelling: `recipe(draw, form,
name) -> Case`, with an input twin of a drawn shape and layout."""
from __future__ import annotations

import torch
from hypothesis import strategies as st

from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.sizes import literal
from contiglint.layout.model.values import Kind, Tensor
from tests.op_cases import Case
from tests.op_world import Twin, twins


def plain(real: torch.Tensor, label: str = "fresh") -> Twin:
    """A freshly allocated contiguous tensor of known shape (an index, a weight, an operand)."""
    model = Tensor(Kind.CONTIGUOUS, Geometry.contiguous([literal(s) for s in real.shape]))
    return Twin(real, model, f"{label}{tuple(real.shape)}")


def dim(draw, x: Twin) -> int:
    rank = x.real.dim()
    return draw(st.integers(-rank, rank - 1))


def simple(rank=(1, 4), args=None, **twin_options):
    """A recipe whose input is one drawn twin and whose arguments come from `args(draw, x)`."""
    def recipe(draw, form, name):
        x = draw(twins(rank=rank, **twin_options))
        positional, keywords = args(draw, x, form) if args else ((), {})
        if form == "attribute":
            return Case(form, name, x)
        return Case(form, name, x, tuple(positional), dict(keywords))
    return recipe


def _two_dims(draw, x, form):
    return (dim(draw, x), dim(draw, x)), {}


def _permutation(draw, x, form):
    perm = tuple(draw(st.permutations(range(x.real.dim()))))
    if form == "function" or draw(st.booleans()):
        return (perm,), {}
    return perm, {}


def _narrow(draw, x, form):
    d = dim(draw, x)
    size = x.real.shape[d]
    start = draw(st.integers(0, size - 1))
    return (d, start, draw(st.integers(1, size - start))), {}


def _select(draw, x, form):
    d = dim(draw, x)
    return (d, draw(st.integers(0, x.real.shape[d] - 1))), {}


def _optional_dim(draw, x, form):
    return ((dim(draw, x),), {}) if draw(st.booleans()) else ((), {})


SPLIT_DIM = {"hsplit": 1, "vsplit": 0, "dsplit": 2}


def split(draw, form, name):
    short = name.rsplit(".", 1)[-1]
    if short in SPLIT_DIM:  # the dim is the function's: 1 (0 for 1-D), 0, 2
        x = draw(twins(rank=({"hsplit": 1, "vsplit": 2, "dsplit": 3}[short], 4)))
        d = SPLIT_DIM[short] if x.real.dim() > 1 or short != "hsplit" else 0
        size = x.real.shape[d]
        if draw(st.booleans()):  # sections must divide the dim
            return Case(form, name, x, (draw(st.sampled_from(
                [k for k in range(1, size + 1) if size % k == 0])),))
        cuts = sorted(draw(st.lists(st.integers(0, size + 1), min_size=1, max_size=3)))
        return Case(form, name, x, (cuts,))
    x = draw(twins())
    d = dim(draw, x)
    size = x.real.shape[d]
    if short == "split_with_sizes":
        first = draw(st.integers(0, size))
        return Case(form, name, x, ([first, size - first], d))
    if short == "split":
        first = draw(st.integers(1, size)) if draw(st.booleans()) else None
        pieces = [first, size - first] if first is not None and first < size else None
        count = pieces if pieces else draw(st.integers(1, size + 1))
    elif short == "tensor_split" and draw(st.booleans()):
        count = sorted(draw(st.lists(st.integers(0, size + 1), min_size=1, max_size=3)))
    else:
        count = draw(st.integers(1, size + 1))
    keyword = draw(st.booleans())
    return Case(form, name, x, (count,) if keyword else (count, d), {"dim": d} if keyword else {})


def _diagonal(draw, x, form):
    rank = x.real.dim()
    a, b = draw(st.lists(st.integers(-rank, rank - 1), min_size=2, max_size=2,
                         unique_by=lambda d: d % rank))
    offset = draw(st.integers(-2, 2))
    if draw(st.booleans()):
        return (), {"offset": offset, "dim1": a, "dim2": b}
    return (offset, a, b), {}


def _expand_sizes(draw, x):
    sizes = [draw(st.integers(1, 3)) if s == 1 else (s if draw(st.booleans()) else -1)
             for s in x.real.shape]
    lead = [draw(st.integers(1, 3)) for _ in range(draw(st.integers(0, 1)))]
    return lead + sizes


def expand(draw, form, name):
    x = draw(twins())
    sizes = _expand_sizes(draw, x)
    if name == "expand_as":
        target = plain(torch.empty([s if s != -1 else x.real.shape[i - len(sizes)]
                                    for i, s in enumerate(sizes)]))
        return Case(form, name, x, (target,))
    if form == "function":
        return Case(form, name, x, (tuple(sizes),))
    return Case(form, name, x, tuple(sizes) if draw(st.booleans()) else (tuple(sizes),))


def broadcast(draw, form, name):
    if name.endswith("meshgrid"):
        a, b = draw(twins(rank=(1, 1))), draw(twins(rank=(1, 1)))
        return Case(form, name, a, (b,), {"indexing": draw(st.sampled_from(["ij", "xy"]))})
    x = draw(twins())
    shape = [s if draw(st.booleans()) else 1 for s in x.real.shape]
    shape = [draw(st.integers(1, 2)) for _ in range(draw(st.integers(0, 1)))] + shape
    other = plain(torch.randn(shape))
    return Case(form, name, x, (other,)) if draw(st.booleans()) else Case(form, name, other, (x,))


def unfold(draw, form, name):
    x = draw(twins(max_size=6))
    d = dim(draw, x)
    size = draw(st.integers(1, x.real.shape[d]))
    return Case(form, name, x, (d, size, draw(st.integers(1, 4))))


def as_strided(draw, form, name):
    rank = draw(st.integers(1, 3))
    sizes = tuple(draw(st.integers(1, 4)) for _ in range(rank))
    if draw(st.booleans()):  # a permutation of contiguous strides, perhaps with holes
        order = draw(st.permutations(range(rank)))
        strides, running = [0] * rank, 1
        for position in reversed(order):
            strides[position] = running
            running *= sizes[position] * draw(st.sampled_from([1, 1, 2]))
        strides = tuple(strides)
    else:
        strides = tuple(draw(st.integers(0, 6)) for _ in range(rank))
    x = draw(twins(shape=(256,), layouts=("contiguous",)))
    return Case(form, name, x, (sizes, strides))


def complex_part(draw, form, name):
    """real/imag/view_as_real of complex inputs, view_as_complex of (..., 2) real ones."""
    short = name.rsplit(".", 1)[-1]
    if short == "view_as_complex":
        x = draw(twins(dtype=torch.float32, layouts=("contiguous", "transposed", "permuted",
                                                     "leading_slice", "selected")))
        shape = tuple(x.real.shape)
        if shape[-1] != 2 or x.real.stride(-1) != 1:
            x = draw(twins(shape=shape[:-1] + (2,), layouts=("contiguous", "leading_slice",
                                                            "selected")))
        return Case(form, name, x, may_raise=True)  # torch wants even strides too
    x = draw(twins(dtype=torch.complex64))
    return Case(form, name, x)


def sparse_part(draw, form, name):
    """indices()/values() of a coalesced COO tensor, crow/col_indices() of a CSR one."""
    from contiglint.layout.model.values import Tensor as Abstract
    dense = torch.randn(draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    dense[dense < 0] = 0
    real = dense.to_sparse_csr() if name in ("crow_indices", "col_indices") else \
        dense.to_sparse()
    return Case(form, name, Twin(real, Abstract(), "sparse"))


def _unsqueeze(draw, x, form):
    rank = x.real.dim()
    return (draw(st.integers(-rank - 1, rank)),), {}


def _view_target(draw, shape):
    """A target for view/reshape: a random regrouping (merges and splits) of `shape`."""
    groups, current = [], []
    for size in shape:
        current.append(size)
        if draw(st.booleans()):
            groups.append(current)
            current = []
    if current:
        groups.append(current)
    target = []
    for group in groups:
        total = 1
        for size in group:
            total *= size
        factors = [f for f in range(2, total) if total % f == 0]
        if factors and draw(st.booleans()):
            f = draw(st.sampled_from(factors))
            target += [f, total // f]
        else:
            target.append(total)
        if draw(st.integers(0, 5)) == 0:
            target.append(1)
    if draw(st.integers(0, 4)) == 0:
        target[draw(st.integers(0, len(target) - 1))] = -1
    return target


def view(draw, form, name):
    x = draw(twins())
    target = _view_target(draw, tuple(x.real.shape))
    if name.endswith("_as"):
        known = _prod(s for s in target if s != -1)
        other = plain(torch.empty([x.real.numel() // known if s == -1 else s for s in target]))
        return Case(form, name, x, (other,), may_raise=True)
    if form == "function":
        return Case(form, name, x, (tuple(target),), may_raise=True)
    args = tuple(target) if draw(st.booleans()) else (tuple(target),)
    return Case(form, name, x, args, may_raise=True)


def _prod(values):
    total = 1
    for v in values:
        total *= v
    return total


def flatten(draw, form, name):
    x = draw(twins())
    rank = x.real.dim()
    start = draw(st.integers(-rank, rank - 1))
    end = draw(st.integers((start + rank) % rank, rank - 1))
    if form == "module":
        return Case(form, name, x, ctor=(start, end))
    if draw(st.booleans()):
        return Case(form, name, x, (start, end))
    return Case(form, name, x, (), {"start_dim": start} if draw(st.booleans()) else {})


def unflatten(draw, form, name):
    x = draw(twins())
    d = dim(draw, x)
    size = x.real.shape[d]
    factors = [f for f in range(1, size + 1) if size % f == 0]
    f = draw(st.sampled_from(factors))
    return Case(form, name, x, (d, (f, size // f)))


def detach(draw, form, name):
    if name == "detach_":  # views cannot be detached in place
        x = draw(twins(layouts=("contiguous", "channels_last")))
    else:
        x = draw(twins())
    if name in ("requires_grad_", "retain_grad"):
        x.real.requires_grad_(True)
    return Case(form, name, x)


def resolve(draw, form, name):
    """The input's conjugate/negative bit set or not: the model cannot tell them apart."""
    x = draw(twins(dtype=torch.complex64))
    if draw(st.booleans()):
        flipped = x.real.conj() if name.endswith("resolve_conj") else torch._neg_view(x.real)
        x = Twin(flipped, x.model, f"{x.recipe} with its {name.rsplit('_', 1)[-1]} bit set")
    return Case(form, name, x)


def rearrange(draw, form, name):
    """A random `einops.rearrange` pattern for the input's rank: some dims split into two
    axes (`(a0 a1)`, the first given as a length), the axes permuted, neighbours grouped on
    the output side, a new size-1 dim, and leading dims spelt as an ellipsis."""
    x = draw(twins(rank=(1, 4), max_size=6))
    shape = tuple(x.real.shape)
    left, lengths, axes = [], {}, []
    for i, n in enumerate(shape):
        factors = [f for f in range(2, n) if n % f == 0]
        if factors and draw(st.booleans()):
            lengths[f"d{i}a"] = draw(st.sampled_from(factors))
            left.append(f"(d{i}a d{i}b)")
            axes += [f"d{i}a", f"d{i}b"]
        else:
            left.append(f"d{i}")
            axes.append(f"d{i}")
    order = draw(st.permutations(axes))
    right, at = [], 0
    while at < len(order):
        k = draw(st.integers(1, min(3, len(order) - at)))
        part = order[at:at + k]
        right.append(part[0] if k == 1 else "(" + " ".join(part) + ")")
        at += k
    if draw(st.booleans()):
        right.insert(draw(st.integers(0, len(right))), "1")
    lead = 0  # leading dims kept in place on both sides may be spelt `...`
    while lead < min(len(left), len(right)) and left[lead] == right[lead] == f"d{lead}":
        lead += 1
    if lead and draw(st.booleans()):
        left, right = ["..."] + left[lead:], ["..."] + right[lead:]
    return Case(form, name, x, (" ".join(left) + " -> " + " ".join(right),), lengths)


RECIPES = {
    "einops.rearrange": rearrange,
    "transpose": simple(args=_two_dims),
    "t": simple(rank=(1, 2)),
    "T": simple(),
    "mT": simple(rank=(2, 4)),
    "permute": simple(args=_permutation),
    "movedim": simple(args=_two_dims),
    "narrow": simple(args=_narrow),
    "select": simple(args=_select),
    "unbind": simple(args=_optional_dim),
    "split": split,
    "diagonal": simple(rank=(2, 4), args=_diagonal),
    "expand": expand,
    "expand_as": expand,
    "torch.broadcast_to": expand,
    "torch.broadcast_tensors": broadcast,
    "unfold": unfold,
    "as_strided": as_strided,
    "real": complex_part,
    "torch.view_as_real": complex_part,
    "torch.view_as_complex": complex_part,
    "indices": sparse_part,
    "H": simple(rank=(2, 2)),
    "unsqueeze": simple(args=_unsqueeze),
    "squeeze": simple(args=_optional_dim),
    "view": view,
    "view_as": view,
    "reshape": view,
    "reshape_as": view,
    "flatten": flatten,
    "unflatten": unflatten,
    "detach": detach,
    "resolve_conj": resolve,
}
