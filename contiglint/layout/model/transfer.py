"""Building blocks of the op table: how an op's result layout follows from its inputs.

Each function takes a `Call` (the abstract receiver, arguments and the op's origin) and returns
the abstract result. They are composed declaratively in `ops.py`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.geometry import Axis, Geometry
from contiglint.layout.model.sizes import ONE, Size, literal
from contiglint.layout.model.values import (
    CONTIGUOUS,
    NOT_TENSOR,
    OPAQUE,
    UNKNOWN_TENSOR,
    Const,
    Dims,
    IntVal,
    Kind,
    Origin,
    Ref,
    Seq,
    Tensor,
    Value,
)


@dataclass
class Call:
    name: str
    this: Value  # the tensor the op applies to: the receiver, or the first argument
    args: list[Value] = field(default_factory=list)  # the other positional arguments
    kwargs: dict[str, Value] = field(default_factory=dict)
    origin: Origin = Origin("?", 0, 0)
    config: dict = field(default_factory=dict)  # an nn module's literal constructor arguments

    @property
    def tensor(self) -> Tensor:
        return self.this if isinstance(self.this, Tensor) else UNKNOWN_TENSOR

    def arg(self, index: int, name: str = "") -> Optional[Value]:
        if name and name in self.kwargs:
            return self.kwargs[name]
        return self.args[index] if index < len(self.args) else None

    def int_arg(self, index: int, name: str = "", default: Optional[int] = None) -> Optional[int]:
        value = self.arg(index, name)
        if value is None:
            return default
        if isinstance(value, IntVal) and value.size is not None and not value.size[1]:
            return value.size[0]
        return None

    def dim_arg(self, index: int, name: str = "dim", default: Optional[int] = None,
                rank: Optional[int] = None) -> Optional[int]:
        """A dimension argument, made non-negative when the rank is known."""
        dim = self.int_arg(index, name, default)
        rank = self.tensor.rank if rank is None else rank
        if dim is not None and dim < 0:
            return dim + rank if rank is not None and dim + rank >= 0 else None
        return dim

    def int_list(self, start: int = 0, name: str = "") -> Optional[list[Optional[int]]]:
        """Integers as varargs (`permute(0, 2, 1)`) or one sequence (`permute((0, 2, 1))`)."""
        values = self.sizes(start, name)
        if values is None:
            return None
        return [size[0] if size is not None and not size[1] and size != "-1" else
                (-1 if size == "-1" else None) for size in values]

    def sizes(self, start: int = 0, name: str = "") -> Optional[list]:
        """Sizes given as varargs or one sequence; `-1` becomes the string "-1"."""
        given = [self.kwargs[name]] if name and name in self.kwargs else self.args[start:]
        if len(given) == 1 and isinstance(given[0], (Seq, Dims)):
            given = list(given[0].items or ()) if isinstance(given[0], Seq) \
                else [IntVal(s) for s in (given[0].sizes or ())]
            if isinstance(self.arg(start, name), Dims) and self.arg(start, name).sizes is None:
                return None
            if isinstance(self.arg(start, name), Seq) and self.arg(start, name).items is None:
                return None
        if len(given) == 1 and not isinstance(given[0], (IntVal, Dims, Seq)):
            return None  # one unknown argument may be a whole shape
        out: list = []
        for value in given:
            if isinstance(value, IntVal):
                out.append("-1" if value.size == literal(-1) else value.size)
            elif isinstance(value, Dims):
                if value.sizes is None:
                    return None
                out.extend(value.sizes)
            elif isinstance(value, Seq):
                return None
            else:
                out.append(None)
        return out

    def memory_format(self) -> Optional[str]:
        value = self.kwargs.get("memory_format")
        return value.qualname.rsplit(".", 1)[-1] if isinstance(value, Ref) else None


Transfer = Callable[[Call], Value]


# --- results that do not depend on the input layout -----------------------------------------
def fresh(call: Call, sizes: Optional[Sequence[Size]] = None) -> Tensor:
    if sizes is None:
        return CONTIGUOUS
    return Tensor(Kind.CONTIGUOUS, Geometry.contiguous(list(sizes)))


def fresh_same_rank(call: Call) -> Tensor:
    rank = call.tensor.rank
    return fresh(call, [None] * rank) if rank is not None else CONTIGUOUS


def fresh_same_shape(call: Call) -> Tensor:
    """A fresh contiguous tensor of the input's shape (softmax, layer_norm, cumsum, ...)."""
    geometry = call.tensor.geometry
    return fresh(call, list(geometry.sizes)) if geometry is not None else fresh_same_rank(call)


def factory(call: Call) -> Tensor:
    """`torch.zeros(2, 3)`, `torch.randn((b, n))`, `x.new_zeros(...)`: fresh, sizes from args."""
    sizes = call.sizes(0, "size")
    if sizes is None or any(s == "-1" for s in sizes):
        return CONTIGUOUS
    tensor = fresh(call, sizes)
    return with_memory_format(call, tensor)


def function_factory(call: Call) -> Tensor:
    """Factories whose first argument is a size too (`torch.zeros(2, 3)` -> this == 2)."""
    return factory(evolve(call, args=[call.this] + call.args))


def sized_factory(call: Call) -> Tensor:
    """`torch.full(size, value)`, `torch.randint(low, high, size)`: the size is the one tuple
    argument (or `size=`); the other arguments are values."""
    size = call.kwargs.get("size")
    if size is None:
        size = next((a for a in [call.this] + call.args if isinstance(a, (Seq, Dims))), None)
    if size is None:
        return CONTIGUOUS
    return factory(evolve(call, args=[size], kwargs={k: v for k, v in call.kwargs.items()
                                                      if k != "size"}))


def vector_factory(call: Call) -> Tensor:
    """arange/linspace/logspace/randperm: one dim whatever the arguments."""
    return fresh(call, [None])


def matrix_factory(call: Call) -> Tensor:
    """eye/tril_indices/triu_indices: two dims whatever the arguments."""
    return fresh(call, [None, None])


def unknown_tensor(call: Call) -> Value:
    return UNKNOWN_TENSOR


def not_tensor(call: Call) -> Value:
    return NOT_TENSOR


# --- results that follow the input ----------------------------------------------------------
def identity(call: Call) -> Value:
    """Same strides exactly (`detach`, `requires_grad_`, no-op conversions)."""
    return call.this if isinstance(call.this, Tensor) else UNKNOWN_TENSOR


def densify(tensor: Tensor) -> Tensor:
    """preserve_format allocation: dense layouts kept, others made dense in the same dim order."""
    if tensor.kind is Kind.UNKNOWN:
        return evolve(tensor, partial=None)
    if tensor.geometry is None:
        if tensor.kind is Kind.PERMUTED:
            return evolve(tensor, partial=None)
        if tensor.kind is Kind.BROADCAST:
            return Tensor(Kind.CONTIGUOUS, min_rank=tensor.min_rank)
        return Tensor(Kind.UNKNOWN, min_rank=tensor.min_rank)  # strided: order unknown
    geometry = tensor.geometry.densified()
    result = Tensor.of(geometry, tensor.origin)
    return evolve(result, maybe=tensor.maybe and result.noncontiguous)


def preserve(call: Call) -> Value:
    """Elementwise ops, clone, .to(), *_like: a new tensor in the input's (dense) layout."""
    return with_memory_format(call, densify(call.tensor))


def with_memory_format(call: Call, tensor: Tensor) -> Tensor:
    fmt = call.memory_format()
    if fmt == "contiguous_format":
        return Tensor(Kind.CONTIGUOUS, Geometry.contiguous(tensor.geometry.sizes)
                      if tensor.geometry is not None else None, min_rank=tensor.min_rank)
    if fmt in ("channels_last", "channels_last_3d"):
        return channels_last(tensor, call.origin, 5 if fmt.endswith("3d") else 4)
    return tensor


def channels_last(tensor: Tensor, origin: Origin, rank: int = 4) -> Tensor:
    """channels_last (4-D) or channels_last_3d (5-D): channels innermost in memory."""
    rank = tensor.rank or rank
    if rank not in (4, 5):
        return Tensor(Kind.PERMUTED, origin=origin, min_rank=4)
    sizes = tensor.geometry.sizes if tensor.geometry is not None else [None] * rank
    order = [0] + list(range(2, rank)) + [1]  # logical dims outermost-first in memory
    base = Geometry.contiguous([sizes[i] for i in order])
    axes = [None] * rank
    for position, dim in enumerate(order):
        axes[dim] = base.axes[position]
    return Tensor.of(Geometry(tuple(axes), base.memory), origin)


def first_operand(operands: Sequence[Value]) -> Tensor:
    """TensorIterator: the result follows the first operand of the highest rank."""
    tensors = [v for v in operands if isinstance(v, Tensor)]
    if not tensors:
        unknown_operands = [v for v in operands if v is OPAQUE]
        return UNKNOWN_TENSOR if unknown_operands else CONTIGUOUS
    ranks = [t.rank for t in tensors]
    if all(r is not None for r in ranks):
        best = max(ranks)
        return next(t for t in tensors if t.rank == best)
    if any(v is OPAQUE for v in operands[: operands.index(tensors[0])]):
        return UNKNOWN_TENSOR
    first = tensors[0]
    rank = max(t.min_rank for t in tensors)  # an operand of unknown rank may have more dims
    if all(t.kind is Kind.CONTIGUOUS for t in tensors):
        return Tensor(Kind.CONTIGUOUS, min_rank=rank)
    if first.kind is Kind.CONTIGUOUS or first.kind is Kind.UNKNOWN:
        return Tensor(Kind.UNKNOWN, min_rank=rank)  # which the other operands may order
    return Tensor(first.kind, None, first.origin, first.maybe, first.partial, rank,
                  first.assumed if first.geometry is None else None)


def iterator_layout(tensors: Sequence[Tensor], origin: Origin) -> Optional[Tensor]:
    """TensorIterator's output for operands of known geometry: dims are ordered innermost
    first by comparing, for each pair of dims, the strides of the first operand in which
    neither dim is broadcast (stride 0 or a size-1 dim that grows); a pair no operand
    decides keeps its logical order. The output is allocated dense in that order. None when
    the broadcast shape is not known well enough to tell which dims grow."""
    rank = max(t.geometry.rank for t in tensors)
    shape: list = []
    for position in range(rank):
        sizes = [t.geometry.sizes[position - rank + t.geometry.rank] for t in tensors
                 if position - rank + t.geometry.rank >= 0]
        live = {s for s in sizes if s != ONE}
        if len(live - {None}) > 1:
            return None
        # an operand's unknown size is the known one or 1: where that matters, it is "?"
        shape.append(next(iter(live - {None}), None) if live else ONE)

    def rank_in_memory(t: Tensor, dim: int):
        """Where the operand's dim lives (bigger is more inner); None when broadcast."""
        g = t.geometry
        local = dim - rank + g.rank
        if local < 0:
            return None
        axis = g.axes[local]
        if axis.span == "broadcast" or (axis.size == ONE and shape[dim] != ONE) or \
                not axis.base:
            return None
        if axis.size is None and shape[dim] is not None:
            return "?"  # may be a size-1 dim that grows
        return g.memory.index(axis.base[0])

    def should_swap(first: int, second: int) -> Optional[int]:
        for t in tensors:
            a, b = rank_in_memory(t, first), rank_in_memory(t, second)
            if a is None or b is None:
                continue
            if "?" in (a, b):
                return None
            return 1 if a < b else -1  # the first is further out in memory: swap
        return 0

    perm = list(reversed(range(rank)))  # innermost first
    for i in range(1, rank):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[dim0], perm[dim1])
            if comparison is None:
                return None
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    order = list(reversed(perm))  # outermost first
    axes = [None] * rank
    for position, dim in enumerate(order):
        axes[dim] = Axis(shape[dim], (position,))
    result = Tensor.of(Geometry(tuple(axes), tuple(range(rank))), None)
    if result.noncontiguous:
        source = next((t for t in tensors if t.noncontiguous and t.origin), None)
        result = evolve(result, origin=source.origin if source else origin,
                         maybe=any(t.maybe for t in tensors))
    return result


def elementwise(call: Call) -> Value:
    operands = [call.this] + [a for a in call.args if isinstance(a, Tensor) or a is OPAQUE]
    if call.name.endswith("rsub") and len(operands) > 1:
        operands[0], operands[1] = operands[1], operands[0]  # rsub(x, y) is y - x
    tensors = [o for o in operands if isinstance(o, Tensor)]
    if tensors and OPAQUE not in operands and all(
            t.geometry is not None and t.kind is not Kind.UNKNOWN for t in tensors):
        exact = iterator_layout(tensors, call.origin)
        if exact is not None:
            return exact
    if operands and (operands[0] is OPAQUE or (isinstance(operands[0], Tensor) and operands[0]
                                               .kind is Kind.UNKNOWN)) and \
            any(t.kind is not Kind.UNKNOWN for t in tensors):
        return Tensor(Kind.UNKNOWN, min_rank=max(t.min_rank for t in tensors))  # the first
        # operand may decide the layout, and its layout is unknown
    first = first_operand(operands)
    if first.kind is Kind.BROADCAST and any(o is not first and not (
            isinstance(o, Tensor) and o.kind is Kind.CONTIGUOUS) for o in operands):
        # measured: expanded + x.t() follows x.t() (the stride-0 dims defer to the next operand)
        return Tensor(Kind.UNKNOWN, min_rank=first.min_rank)
    return broadcast(densify(first), [o for o in operands if isinstance(o, Tensor)])


def broadcast(result: Tensor, operands: Sequence[Tensor]) -> Tensor:
    """`(1, n) * (n, 1)` is (n, n): where the followed operand has a size-1 dim that another
    operand of the same rank does not, the output is a fresh allocation of the broadcast shape
    (contiguous when the followed operand was), not a view of that operand's geometry."""
    geometry = result.geometry
    if geometry is None:
        return result
    others = [o.geometry for o in operands if o.geometry is not None and o.geometry is not
              geometry and o.geometry.rank == geometry.rank]
    grown = [i for i, axis in enumerate(geometry.axes) if axis.size == (1, ())
             and any(other.axes[i].size != (1, ()) for other in others)]
    if not grown:
        return result
    sizes = [None if i in grown else axis.size for i, axis in enumerate(geometry.axes)]
    if any(o.noncontiguous for o in operands if o.geometry is not geometry):
        # in the grown dims another operand decides the order (a (b, t, 1) mask times
        # x.transpose(1, 2) follows x there)
        return Tensor(Kind.UNKNOWN, min_rank=geometry.rank)
    if result.kind is Kind.CONTIGUOUS:
        return Tensor(Kind.CONTIGUOUS, Geometry.contiguous(sizes))
    return evolve(result, geometry=None, min_rank=geometry.rank)


def kept_origin(tensor: Tensor, call: Call) -> Origin:
    """The origin of a channels_last result made from a channels_last `tensor` (pooling, conv,
    cat): where that layout was made, as for any op that keeps its input's layout (a slice, an
    elementwise op), not the op that kept it. A layout made on purpose
    (`.to(memory_format=torch.channels_last)`) and one made by a reorder (`x.permute(0, 3, 1,
    2)` of NHWC data) stay told apart through the ops that keep it (CTG110)."""
    return tensor.origin or call.origin


def keep_channels_last(call: Call) -> Value:
    """Ops that return contiguous output unless the input is channels_last (pad, interpolate,
    pooling, conv), which they keep."""
    tensor = call.tensor
    if tensor.channels_last:
        # the op changes spatial sizes (conv and pixel (un)shuffle the channels too): the
        # batch size stays, and the channels where the op keeps them (one channel left makes
        # the result contiguous)
        sizes = [tensor.geometry.sizes[0], _channels(call, tensor.geometry.sizes[1]), None, None]
        if sizes[1] is None and call.name.lower().endswith(("pixel_shuffle", "pixelshuffle")):
            return Tensor(Kind.UNKNOWN, min_rank=4)  # c / r**2 channels: one is contiguous
        return channels_last(Tensor(Kind.CONTIGUOUS, Geometry.contiguous(sizes)),
                             kept_origin(tensor, call))
    if tensor.kind is Kind.UNKNOWN or (tensor.noncontiguous and tensor.rank in (3, 5, None)):
        # measured: AvgPool1d on a transposed (n, c, l) input keeps its strides, MaxPool3d
        # keeps channels_last_3d (so a non-contiguous input of unknown rank may be either)
        return evolve(UNKNOWN_TENSOR, min_rank=tensor.min_rank)
    return fresh(call, [None] * tensor.rank) if tensor.rank else CONTIGUOUS


def _channels(call: Call, given: Optional[Size]) -> Optional[Size]:
    """The output's channel count of a channels_last-keeping op: the input's, divided by r*r
    for pixel_shuffle and multiplied for pixel_unshuffle when literal; unknown for conv."""
    name = call.name.rsplit(".", 1)[-1].lower()
    if "conv" in name:
        return None
    if name == "pad":  # F.pad pads the channels too when given more than the spatial pairs
        pad = call.arg(0, "pad")
        return given if isinstance(pad, Seq) and pad.items is not None and \
            len(pad.items) <= 4 else None
    if "pixel" not in name:
        return given
    factor = call.config.get("upscale_factor", call.config.get("downscale_factor"))
    r = _literal_dim(factor) if factor is not None else call.int_arg(0)
    if r is None or given is None or given[1]:
        return None
    if "unshuffle" in name:
        return literal(given[0] * r * r)
    return literal(given[0] // (r * r)) if given[0] % (r * r) == 0 else None


def adaptive_pool(call: Call) -> Value:
    """Adaptive pooling (avg and max, 1d/2d/3d, functions and modules): an `output_size` of
    all ones gives a fresh contiguous `(..., 1, 1)` whatever the input's layout (measured on
    permuted, channels_last, sliced, stepped and expanded inputs); the input's leading sizes
    carry through. The input is N+1 or N+2 dims for N spatial dims, so a tensor the code shows
    to have N+2 dims or more has N+2. Other output sizes keep channels_last (2d)."""
    if call.config.get("return_indices") is True or _truthy(call.kwargs.get("return_indices")):
        plain = Call(call.name, call.this, call.args[:1],
                     {k: v for k, v in call.kwargs.items() if k == "output_size"}, call.origin,
                     {k: v for k, v in call.config.items() if k == "output_size"})
        return Seq((adaptive_pool(plain), UNKNOWN_TENSOR))  # (values, indices)
    output = call.config.get("output_size", call.arg(0, "output_size"))
    items = output.items if isinstance(output, Seq) else (output,)
    spatial = int(call.name[-2])
    tensor = call.tensor
    if not items or any(item != IntVal(ONE) for item in items) or \
            len(items) not in (1, spatial):
        if tensor.channels_last and not all(_literal_dim(i) is not None or i == Const(None)
                                            for i in items):
            return Tensor(Kind.UNKNOWN, min_rank=4)  # (n, c, 1, 1) is contiguous, larger
            # outputs stay channels_last
        return keep_channels_last(call)
    rank = tensor.rank if tensor.rank is not None else \
        spatial + 2 if tensor.min_rank >= spatial + 2 else None
    if rank is None:
        return CONTIGUOUS
    given = tensor.geometry.sizes if tensor.geometry is not None else (None,) * rank
    return fresh(call, list(given[:rank - spatial]) + [ONE] * spatial)


def convolution(call: Call) -> Value:
    """conv/conv_transpose: channels_last when the input or the weight is."""
    weight = call.arg(0, "weight")
    if isinstance(weight, Tensor) and weight.channels_last:
        return channels_last(fresh_same_rank(call), kept_origin(weight, call))
    return keep_channels_last(call)


def reduction(call: Call) -> Value:
    """Reductions over a dim return fresh contiguous tensors (measured: sum, mean, amax,
    norm, argmax, max over permuted and channels_last inputs). Keepdim keeps channels_last."""
    if call.tensor.channels_last and _truthy(call.kwargs.get("keepdim")):
        return _kept_dims(call)
    sizes = _reduced_sizes(call)
    return fresh(call, sizes) if sizes is not None else CONTIGUOUS


_SHAPED_REDUCTIONS = frozenset({"sum", "mean", "amax", "amin", "prod", "logsumexp", "nansum",
                                "nanmean"})  # one tensor out (max/min/median(dim) give pairs)


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


def _kept_or_dropped(geometry: Geometry, given, keep: bool) -> Optional[list]:
    items = given.items if isinstance(given, Seq) else (given,)
    dims = [_literal_dim(item) for item in items or ()] if given is not None else []
    if not dims or None in dims:
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


def _literal_dim(value: Value) -> Optional[int]:
    size = value.size if isinstance(value, IntVal) else None
    return size[0] if size is not None and not size[1] else None


def _truthy(value: Optional[Value]) -> bool:
    return isinstance(value, Const) and bool(value.value)


def tuple_of(transfer: Transfer, count: int = 2) -> Transfer:
    def apply(call: Call) -> Value:
        result = transfer(call)
        return Seq(tuple([result] + [CONTIGUOUS] * (count - 1)))
    return apply


def recurrent(call: Call) -> Value:
    """nn.RNN/LSTM/GRU: `(output, hidden)`; with batch_first=True the output is the internal
    (T, B, H) buffer transposed to (B, T, H), so it is non-contiguous (measured on 2.13)."""
    given = call.tensor.geometry
    outer = list(given.sizes[:2]) if given is not None and given.rank == 3 else [None, None]
    if call.config.get("batch_first") is True:
        memory = Geometry.contiguous([outer[1], outer[0], None])  # (T, B, H) in memory
        axes = (memory.axes[1], memory.axes[0], memory.axes[2])
        output = Tensor.of(Geometry(axes, memory.memory), call.origin)
    else:
        output = Tensor(Kind.CONTIGUOUS, Geometry.contiguous(outer + [None]))
    return Seq((output, OPAQUE))


def multihead_attention(call: Call) -> Value:
    """nn.MultiheadAttention: `(output, weights)`; batch_first=True returns a transposed output."""
    output = recurrent(call).items[0]
    return Seq((output, CONTIGUOUS))


def reduction_pair(call: Call) -> Value:
    """max/min/median/mode: over a dim, a `(values, indices)` pair; over everything, a 0-d
    tensor. Both contiguous (measured)."""
    if call.arg(0, "dim") is None:
        return CONTIGUOUS
    return Seq((reduction(call), CONTIGUOUS))
