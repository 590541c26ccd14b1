"""The transfers of ops that join or broadcast several tensors: cat, stack, einsum,
broadcast_tensors and meshgrid, and the first of a query's tensors."""
from __future__ import annotations

from typing import Optional

from contiglint.layout.model import part_views as pv
from contiglint.layout.model import transfer as tr
from contiglint.layout.model import views as vw
from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.geometry import Axis, Geometry
from contiglint.layout.model.shape_transfers import least_shape
from contiglint.layout.model.sizes import ONE, literal, size_name, symbol
from contiglint.layout.model.transfer import Call
from contiglint.layout.model.values import (
    CONTIGUOUS,
    OPAQUE,
    UNKNOWN_TENSOR,
    Const,
    IntVal,
    Kind,
    Seq,
    Tensor,
    Value,
    classify,
)


def cat(call: Call) -> Value:
    """cat keeps channels_last when its inputs are; otherwise returns contiguous."""
    items = call.this.items if isinstance(call.this, Seq) else None
    first = items[0] if items else None
    if isinstance(first, Tensor) and first.channels_last:
        if not all(isinstance(t, Tensor) and t.channels_last for t in items):
            return UNKNOWN_TENSOR  # measured: cat([cl, contiguous]) is contiguous
        dim = call.dim_arg(0, "dim", 0, rank=4)
        sizes = _joined_sizes([t.geometry for t in items], dim, len(items)) \
            if dim is not None else [None] * 4
        return tr.channels_last(Tensor(Kind.CONTIGUOUS, Geometry.contiguous(sizes)),
                                tr.kept_origin(first, call))
    lost = _lost_join(items, 0)
    return lost if lost is not None else _concatenated(items or (), call)


def _lost_join(items, added: int) -> Optional[Tensor]:
    """The join of tensors whose layouts an op lost, each at a rank where it may be
    channels_last (its 4 or 5 dims, or dims not known): cat and stack keep that layout where
    every input has it (measured: `torch.stack` of two `.to(memory_format=torch.channels_last)`
    copies of a broadcast tensor is not contiguous), so the result's layout is lost too, with
    `added` dims more than its inputs. None where any input is otherwise: a caller's tensor is
    taken as it is passed, contiguous."""
    def may_be_channels_last(tensor: Value) -> bool:
        if not isinstance(tensor, Tensor) or tensor.kind is not Kind.UNKNOWN or not tensor.lost:
            return False
        return tensor.rank in (4, 5) if tensor.rank is not None else tensor.min_rank <= 5

    if not items or not all(may_be_channels_last(t) for t in items):
        return None
    return Tensor(Kind.UNKNOWN, min_rank=max(t.min_rank for t in items) + added, lost=True)


def _concatenated(items, call: Call) -> Tensor:
    """A fresh contiguous tensor whose dims other than `dim` are the inputs' (torch requires
    them equal), so size-1 dims survive: `cat([bias, extra], dim=1)` of (1, n) tensors is
    (1, ?) and a later `[:, :k]` of it is still contiguous."""
    known = [t.geometry for t in items if isinstance(t, Tensor) and t.geometry is not None
             and t.geometry.rank > 0]
    if not known:
        return _assumed_concatenation(items, call)
    rank = known[0].rank
    dim = call.dim_arg(0, "dim", 0, rank=rank)
    if any(g.rank != rank for g in known):
        return CONTIGUOUS  # torch.cat also accepts empty 1-D tensors among n-D ones
    if dim is None:
        return Tensor(Kind.CONTIGUOUS, Geometry.contiguous([None] * rank))
    return Tensor(Kind.CONTIGUOUS, Geometry.contiguous(_joined_sizes(known, dim, len(items))))


def _joined_sizes(geometries: list[Geometry], dim: int, count: int) -> list:
    """The sizes of the concatenation: each dim's from an input that knows it, the joined
    dim's the sum of all `count` inputs' (`_joined`), where every input's is known."""
    sizes = [next((g.sizes[i] for g in geometries if g.sizes[i] is not None), None)
             if i != dim else None for i in range(geometries[0].rank)]
    if len(geometries) == count:
        sizes[dim] = _joined([g.sizes[dim] for g in geometries])
    return sizes


def _assumed_concatenation(items, call: Call) -> Tensor:
    """Inputs of unknown rank whose sizes the code named at their least rank (`x.size(0)`):
    joined on a dim counted from the front, the result keeps those sizes at that rank, so a
    later op that fixes the rank (`.permute(1, 0)`) has them (`cat([x, x])` has 2*B rows)."""
    tensors = [t for t in items if isinstance(t, Tensor)]
    assumed = [t.assumed for t in tensors if t.geometry is None and t.assumed is not None]
    dim = call.int_arg(0, "dim", 0)
    if not assumed or len(assumed) != len(items) or dim is None or dim < 0 or \
            any(g.rank != assumed[0].rank for g in assumed) or dim >= assumed[0].rank:
        # the sizes follow the inputs' in ways the model does not know (a joined dim is
        # a sum): contiguous, but no free sizes once a later op fixes the rank
        return Tensor(Kind.CONTIGUOUS, min_rank=max((t.min_rank for t in tensors), default=0),
                      lost=True)
    rank = max(t.min_rank for t in tensors)
    sizes = _joined_sizes(assumed, dim, len(items))
    return Tensor(Kind.CONTIGUOUS, min_rank=max(rank, len(sizes)),
                  assumed=Geometry.contiguous(sizes))


def _joined(parts: list) -> Optional[tuple]:
    """The size of the joined dim: the sum of the parts' where it is one term (`cat([x, x])`
    of B rows has 2*B, of 2 and 3 rows 5); None where the parts differ in their names."""
    if not parts or any(p is None for p in parts) or len({p[1] for p in parts}) != 1:
        return None
    return (sum(p[0] for p in parts), parts[0][1])


def stack(call: Call) -> Value:
    """stack of channels_last inputs is non-contiguous (measured); otherwise contiguous."""
    items = call.this.items if isinstance(call.this, Seq) else None
    first = items[0] if items else None
    if isinstance(first, Tensor) and first.channels_last:
        if not all(isinstance(t, Tensor) and t.channels_last for t in items):
            return UNKNOWN_TENSOR  # measured: stack([cl, contiguous]) is contiguous
        if call.name.rsplit(".", 1)[-1] != "stack":  # hstack/vstack/...: a cat of 4-D inputs
            return tr.channels_last(Tensor(Kind.CONTIGUOUS, Geometry.contiguous([None] * 4)),
                                    tr.kept_origin(first, call))
        return Tensor(Kind.PERMUTED, None, call.origin, min_rank=5)
    lost = _lost_join(items, 1)
    if lost is not None:
        return lost
    return _stacked(items or (), call) if call.name.rsplit(".", 1)[-1] == "stack" \
        else CONTIGUOUS


def _stacked(items, call: Call) -> Tensor:
    """torch.stack: the inputs' shape (torch requires them equal) with a new dim of one entry
    per input at `dim`, where the list and a shape are known. Where the inputs' rank is
    unknown, the shape at their least rank, as `assumed` (see shape_transfers.least_shape)."""
    shapes = [least_shape(t) for t in items]
    tensors = [t for t in items if isinstance(t, Tensor)]
    # the inputs' shapes unknown: the result's sizes are not free either (one of them is the
    # number of inputs), so an op that later fixes its rank gives it none
    unknown = evolve(CONTIGUOUS, min_rank=1 + max((t.min_rank for t in tensors), default=0),
                     lost=True) if tensors else CONTIGUOUS
    if not shapes or None in shapes or len({len(s) for s in shapes}) != 1:
        return unknown
    known = all(t.geometry is not None for t in items)  # a shape: a Tensor
    if not known and not shapes[0]:
        return unknown
    rank = len(shapes[0]) + 1
    dim = call.dim_arg(0, "dim", 0, rank=rank)
    if dim is None:
        return Tensor(Kind.CONTIGUOUS, Geometry.contiguous([None] * rank)) if known \
            else CONTIGUOUS
    sizes = [next((s[i] for s in shapes if s[i] is not None), None) for i in range(rank - 1)]
    stacked = Geometry.contiguous(sizes[:dim] + [literal(len(items))] + sizes[dim:])
    return Tensor(Kind.CONTIGUOUS, stacked) if known else \
        Tensor(Kind.CONTIGUOUS, min_rank=rank, assumed=stacked)


def einsum(call: Call) -> Value:
    """einsum returns its contraction in (batch, lhs-only, rhs-only) order, permuted to the
    requested output: non-contiguous whenever that order differs (measured on 2.13)."""

    spec = call.this.value if isinstance(call.this, Const) else None
    if not isinstance(spec, str) or "->" not in spec or "." in spec:
        return UNKNOWN_TENSOR
    inputs, output = spec.replace(" ", "").split("->")
    operands = inputs.split(",")
    sizes = _einsum_sizes(operands, call.args, call.owner if len(operands) == 1 else None)
    if len(operands) == 1:
        natural = [c for c in operands[0] if c in output]
        if sorted(natural) != sorted(output) or len(set(operands[0])) != len(operands[0]):
            return UNKNOWN_TENSOR
        operand = call.args[0] if call.args else None
        if natural == list(operands[0]) and isinstance(operand, Tensor):
            # a pure permutation is a view of the operand (einsum('ij->ij', x.t()) is x.t())
            return vw.permute(Call("permute", operand, [Seq(tuple(
                IntVal(literal(operands[0].index(c))) for c in output))], {}, call.origin,
                owner=call.owner))
    elif len(operands) == 2:
        lhs, rhs = operands
        if any(c in rhs and c not in output for c in lhs):
            natural = contraction_order(lhs, rhs, output, sizes)
            if natural is None:
                return Tensor(Kind.UNKNOWN, min_rank=len(output))
        elif any(c not in output for c in lhs + rhs):
            return Tensor(Kind.UNKNOWN, min_rank=len(output))  # a letter summed in one operand
            # first: the product's layout follows that reduction's output
        else:  # no contraction: a broadcast product of the two
            if not all(isinstance(a, Tensor) and a.kind is Kind.CONTIGUOUS and not a.maybe
                       for a in call.args[:2]):
                # CUDA multiplies in a non-contiguous operand's layout, the CPU into a fresh
                # tensor (facts.DEVICE_LAYOUTS)
                return Tensor(Kind.UNKNOWN, min_rank=len(output))
            batch = [c for c in lhs if c in rhs and c in output]
            natural = batch + [c for c in lhs if c in output and c not in batch] + \
                [c for c in rhs if c in output and c not in lhs]
            swapped = batch + [c for c in rhs if c in output and c not in lhs] + \
                [c for c in lhs if c in output and c not in batch]
            if swapped == list(output):
                natural = swapped
    else:
        return UNKNOWN_TENSOR
    memory = Geometry.contiguous([sizes.get(c) for c in natural])
    geometry = Geometry(tuple(memory.axes[natural.index(c)] for c in output), memory.memory)
    return Tensor.of(geometry, call.origin)


def contraction_order(lhs: str, rhs: str, output: str, sizes: dict) -> Optional[list[str]]:
    """The memory order (outermost first) of a two-operand einsum that contracts, as torch's
    `sumproduct_pair` lays out its bmm: output letters in both operands, then those only in
    the left, then the others, each group in output order. The two last groups swap when
    every one of the others comes before every left-only letter in the output, unless some
    input letter is neither kept nor contracted by both (summed in one operand only, or of
    size 1): it sits after the output as one of the others, and nothing swaps.

    A letter of size 1 counts as in neither operand, so its size can flip the swap. When a
    size that may be 1 (unknown or symbolic) changes the order of the letters of size > 1,
    the layout depends on runtime sizes and None is returned (`'bildsk,biokl->bolsd'` with
    `d` of size 1 or not). Contracted letters are taken to be > 1 unless literally 1 (a
    contraction over size 1 is a broadcast product, laid out otherwise: None too)."""
    letters = set(lhs) | set(rhs)

    def order(ones: frozenset) -> Optional[list[str]]:
        summed = [c for c in lhs if c in rhs and c not in output and c not in ones]
        if not summed:
            return None
        trailing = any(c not in output and c not in summed for c in letters)
        both = [c for c in output if c in lhs and c in rhs and c not in ones]
        left = [c for c in output if c in lhs and c not in rhs and c not in ones]
        right = [c for c in output if c not in both and c not in left]
        if left and right and not trailing and \
                output.index(right[-1]) < output.index(left[0]):
            left, right = right, left
        return both + left + right

    def maybe_one(size) -> bool:
        return size is None or (size[0] == 1 and bool(size[1]))

    ones = frozenset(c for c in letters if sizes.get(c) == ONE)
    unsure = [c for c in output if c not in ones and maybe_one(sizes.get(c))]
    base = order(ones)
    if base is None or len(unsure) > 10:
        return None
    for chosen in range(1, 1 << len(unsure)):
        extra = frozenset(c for i, c in enumerate(unsure) if chosen >> i & 1)
        other = order(ones | extra)
        if other is None or [c for c in other if c not in extra] != \
                [c for c in base if c not in extra]:
            return None
    return base


def _einsum_sizes(operands: list[str], tensors: list[Value], owner: Optional[str] = None) \
        -> dict:
    """Each subscript letter's size, from operands of known geometry (size-1 dims matter).
    `owner`: the text of the one operand where it is a caller's tensor of a rank the code
    did not show: the subscripts fix it, and its sizes are the ones code reads as
    `owner.size(i)`."""
    sizes: dict = {}
    for letters, tensor in zip(operands, tensors):
        if isinstance(tensor, Tensor) and tensor.geometry is not None \
                and tensor.geometry.rank == len(letters):
            for letter, size in zip(letters, tensor.geometry.sizes):
                sizes.setdefault(letter, size)
        elif owner and (tensor is OPAQUE or isinstance(tensor, Tensor) and
                        tensor.kind is Kind.UNKNOWN and tensor.assumed is None and
                        not tensor.made_sizes and tensor.partial is None):
            for index, letter in enumerate(letters):
                sizes.setdefault(letter, symbol(size_name(owner, index)))
    return sizes


def expand_tensors(call: Call) -> Value:
    """broadcast_tensors: each operand expanded to the common shape (so an operand that has
    that shape already comes back unexpanded); with shapes unknown, only maybe broadcast.
    meshgrid: each 1-D input expanded along the other dims."""
    operands = [call.this] + list(call.args)
    if isinstance(call.this, Seq) and call.this.items is not None and not call.args:
        operands = list(call.this.items)
    geometries = [t.geometry if isinstance(t, Tensor) else None for t in operands]
    if call.name.endswith("broadcast_tensors") and operands and None not in geometries:
        rank = max(g.rank for g in geometries)
        shape: list = []
        for position in range(rank):
            sizes = {g.sizes[g.rank - rank + position] for g in geometries
                     if g.rank - rank + position >= 0} - {ONE}
            shape.append(sizes.pop() if len(sizes) == 1 else ONE if not sizes else None)
        if None not in shape:
            return Seq(tuple(pv.expand(Call("expand", t, [], {}, call.origin), list(shape))
                             for t in operands))
    if call.name.endswith("meshgrid") and None not in geometries and len(operands) > 1 and \
            all(g.rank == 1 for g in geometries):
        grids = _meshgrid(geometries, call)
        if grids is not None:
            return grids
    return Seq(each=Tensor(Kind.BROADCAST, None, call.origin, maybe=True))


def _meshgrid(geometries: list[Geometry], call: Call) -> Optional[Seq]:
    """meshgrid of 1-D tensors: output k is input k along its own dim, expanded (stride 0)
    along the others. With `indexing="xy"` the first two dims trade places (output 0 runs
    along dim 1); "ij" is torch's default. None where the indexing is not a literal."""
    order = list(range(len(geometries)))
    indexing = call.kwargs.get("indexing")
    if indexing is not None:
        if not isinstance(indexing, Const) or indexing.value not in ("ij", "xy"):
            return None
        if indexing.value == "xy":
            order[0], order[1] = 1, 0
    shape = [geometries[k].sizes[0] for k in order]
    grids = []
    for k, geometry in enumerate(geometries):
        place = order.index(k)
        lifted = Geometry(tuple(geometry.axes[0] if j == place else Axis(ONE, (), "new")
                                for j in range(len(order))), geometry.memory)
        grids.append(pv.expand(Call("expand", Tensor(classify(lifted), lifted), [], {},
                                    call.origin), list(shape)))
    return Seq(tuple(grids))
