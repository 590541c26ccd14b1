"""Building blocks of the op table: how an op's result layout follows from its inputs.

Each function takes a `Call` (the abstract receiver, arguments and the op's origin) and returns
the abstract result. They are composed declaratively in `op_transfers.py`; the elementwise
ops' result is elementwise.py's.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.geometry import Geometry
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
    # the receiver as the code spells it (`x`), where short: an op that fixes the rank of a
    # tensor whose sizes a caller chose names them `x.size(i)`, as code that reads them does
    owner: Optional[str] = None

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
    if tensor.kind is Kind.UNKNOWN and tensor.geometry is None and tensor.assumed is not None \
            and not tensor.assumed.is_dense():
        # cut or stepped where the inputs are as assumed: the copy is dense there
        return evolve(tensor, partial=None, assumed=tensor.assumed.densified())
    if tensor.kind is Kind.UNKNOWN and tensor.geometry is None and tensor.assumed is None \
            and tensor.partial is not None:
        # a cut of unknown extent: its sizes are the cut's (`x.narrow(-4, 0, 1)` has a dim of
        # one element, which a later op that fixes the rank places): not a caller's to choose
        return evolve(tensor, partial=None, lost=True)
    if tensor.kind is Kind.UNKNOWN or (tensor.kind is Kind.CONTIGUOUS and tensor.geometry is None):
        return evolve(tensor, partial=None)  # a contiguous input keeps its layout
    if tensor.geometry is None:
        if tensor.kind is Kind.PERMUTED:
            return evolve(tensor, partial=None)
        # the sizes stay the input's: those assumed at its least rank, made dense there, else
        # sizes an op made (`made_sizes`), which a later op that fixes the rank must not free
        assumed = tensor.assumed if tensor.assumed is not None and \
            tensor.assumed.rank == tensor.min_rank and not tensor.lost else None
        kind = Kind.CONTIGUOUS if tensor.kind is Kind.BROADCAST else Kind.UNKNOWN  # strided:
        # order unknown
        if assumed is not None:
            assumed = Geometry.contiguous(list(assumed.sizes)) if kind is Kind.CONTIGUOUS \
                else assumed.densified()
        return Tensor(kind, min_rank=tensor.min_rank, assumed=assumed,
                      lost=assumed is None and tensor.made_sizes)
    geometry = tensor.geometry.densified()
    result = Tensor.of(geometry, tensor.origin)
    # a layout that is not dense is ordered by its strides, which the geometry orders for
    # literal sizes; a size that may be 1, or a diagonal's stride (a sum), can reorder them,
    # and a size-1 dim's stride is then open. So is a permuted one's: where a size is 1 it
    # may be contiguous, and an elementwise op gives it contiguous strides (measured:
    # `x.T * x.T` of x of (4, 1) has strides (4, 1), where the permuted layout says (1, 1))
    return evolve(result, maybe=tensor.maybe and result.noncontiguous,
                  stale_unit_strides=tensor.stale_unit_strides or
                  copies_unit_strides_open(tensor.geometry))


def copies_unit_strides_open(source: Geometry) -> bool:
    """Does a copy of a tensor of this geometry (`densify`, an elementwise op) leave a size-1
    dim's stride open? Where the geometry is not contiguous and a size may be 1 (or a
    diagonal's summed stride may reorder its dims), the source may be contiguous, or ordered
    otherwise, at some sizes, and the copy's strides follow."""
    return not source.is_contiguous() and any(
        a.size is None or a.size[1] or len(a.base) > 1 for a in source.axes)


def preserve(call: Call) -> Value:
    """Elementwise ops, clone, .to(), *_like: a new tensor in the input's (dense) layout."""
    return with_memory_format(call, densify(call.tensor))


def with_memory_format(call: Call, tensor: Tensor) -> Tensor:
    fmt = call.memory_format()
    if fmt == "contiguous_format":
        return Tensor(Kind.CONTIGUOUS, Geometry.contiguous(tensor.geometry.sizes)
                      if tensor.geometry is not None else None, min_rank=tensor.min_rank)
    if fmt in ("channels_last", "channels_last_3d"):
        return channels_last(tensor, call.origin, 5 if fmt.endswith("3d") else 4, call.owner)
    return tensor


def channels_last(tensor: Tensor, origin: Origin, rank: int = 4,
                  owner: Optional[str] = None) -> Tensor:
    """channels_last (4-D) or channels_last_3d (5-D): channels innermost in memory. `owner`:
    the converted tensor's source text, which names the sizes of a caller's tensor of
    unknown rank (`x.size(i)`, as code that reads them spells them)."""
    rank = tensor.rank or rank
    if rank not in (4, 5):
        return Tensor(Kind.PERMUTED, origin=origin, min_rank=4)
    sizes = tensor.geometry.sizes if tensor.geometry is not None else \
        tensor.assumed.sizes if tensor.assumed is not None and tensor.assumed.rank == rank \
        else None  # the memory format fixes the rank: the assumed sizes are x's
    order = [0] + list(range(2, rank)) + [1]  # logical dims outermost-first in memory
    base = Geometry.contiguous([sizes[i] if sizes else None for i in order])
    axes = [None] * rank
    for position, dim in enumerate(order):
        axes[dim] = base.axes[position]
    geometry = Geometry(tuple(axes), base.memory)
    named = tensor.assumed is not None and \
        tensor.assumed != Geometry.contiguous([None] * tensor.assumed.rank)
    cut = tensor.kind is Kind.UNKNOWN and tensor.partial is not None
    if sizes is None and (tensor.made_by_op or named or cut):
        # an op made the tensor and the model lost its sizes, the geometry assumed at another
        # rank names one (`x.amax(-3, keepdim=True)`'s 1, which this rank does not place), or
        # a cut of unknown extent has them (`x.narrow(-4, 0, 1)`'s 1): they are not free, and
        # where the channels are one the result is contiguous
        return Tensor(Kind.UNKNOWN, None, None, min_rank=rank, assumed=geometry, lost=True)
    if sizes is None and tensor.assumed is None:
        geometry = geometry.named_after(owner)  # a caller's tensor: its sizes are free
    return Tensor.of(geometry, origin)


def kept_origin(tensor: Tensor, call: Call) -> Origin:
    """The origin of a channels_last result made from a channels_last `tensor` (pooling, conv,
    cat): where that layout was made, as for any op that keeps its input's layout (a slice, an
    elementwise op), not the op that kept it. A layout made on purpose
    (`.to(memory_format=torch.channels_last)`) and one made by a reorder (`x.permute(0, 3, 1,
    2)` of NHWC data) stay told apart through the ops that keep it (CTG110)."""
    return tensor.origin or call.origin


def keep_channels_last(call: Call, input_sizes: bool = True) -> Value:
    """Ops that return contiguous output unless the input is channels_last (pad, interpolate,
    pooling, conv), which they keep. `input_sizes`: whether the result's sizes are made of the
    input's (a pad's, a pool's), so that they are lost where an op made the input and its
    layout is not known; a convolution's have the weight's channels (`convolution`)."""
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
    if tensor.kind is Kind.UNKNOWN and tensor.geometry is not None:
        # the layout follows the input's, which is not known; the rank is (the shape
        # transfers give the sizes), so a later permute of it moves known dims
        return Tensor(Kind.UNKNOWN, Geometry.contiguous([None] * tensor.rank),
                      min_rank=tensor.rank)
    if tensor.kind is Kind.UNKNOWN or (tensor.noncontiguous and tensor.rank in (3, 5, None)):
        # measured: AvgPool1d on a transposed (n, c, l) input keeps its strides, MaxPool3d
        # keeps channels_last_3d (so a non-contiguous input of unknown rank may be either);
        # a pad or pool of a tensor an op made: its layout and sizes are lost, not a caller's
        # free choice (a convolution's output has the weight's channels and a fresh layout)
        return evolve(UNKNOWN_TENSOR, min_rank=tensor.min_rank,
                      lost=tensor.made_by_op and input_sizes)
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
    given = tensor.geometry.sizes if tensor.geometry is not None else \
        tensor.assumed.sizes if tensor.assumed is not None and tensor.assumed.rank == rank \
        and not tensor.lost else None  # the pool fixes the rank: the assumed sizes are x's
    if given is None and tensor.made_by_op:
        # an op made the tensor and the model lost its sizes: they are not free
        return Tensor(Kind.CONTIGUOUS, min_rank=rank, lost=True)
    given = given or (None,) * rank
    return fresh(call, list(given[:rank - spatial]) + [ONE] * spatial)


def convolution(call: Call) -> Value:
    """conv/conv_transpose: channels_last when the input or the weight is."""
    weight = call.arg(0, "weight")
    if isinstance(weight, Tensor) and weight.channels_last:
        return channels_last(fresh_same_rank(call), kept_origin(weight, call))
    tensor = call.tensor
    if tensor.geometry is not None and tensor.kind is not Kind.UNKNOWN and \
            not tensor.channels_last and tensor.rank in (2, 3) + (4,) * (weight is None):
        # measured: a conv1d input of any layout, and a conv2d module's input that is not
        # channels_last (transposed, permuted, sliced), give a contiguous result
        return fresh_same_rank(call)
    return keep_channels_last(call, input_sizes=False)


def _literal_dim(value: Value) -> Optional[int]:
    size = value.size if isinstance(value, IntVal) else None
    return size[0] if size is not None and not size[1] else None


def _truthy(value: Optional[Value]) -> bool:
    return isinstance(value, Const) and bool(value.value)


def recurrent(call: Call) -> Value:
    """nn.RNN/LSTM/GRU: `(output, hidden)`; with batch_first=True the output is the internal
    (T, B, H) buffer transposed to (B, T, H), so it is non-contiguous (measured on 2.13). For a
    batched (3-d) input the hidden state is a contiguous (layers * directions, B, H) tensor
    whatever batch_first says, an `(h, c)` pair of them for LSTM (measured on 2.13)."""
    given = call.tensor.geometry
    outer = list(given.sizes[:2]) if given is not None and given.rank == 3 else [None, None]
    first = call.config.get("batch_first") is True
    if first:
        memory = Geometry.contiguous([outer[1], outer[0], None])  # (T, B, H) in memory
        axes = (memory.axes[1], memory.axes[0], memory.axes[2])
        output = Tensor.of(Geometry(axes, memory.memory), call.origin)
    else:
        output = Tensor(Kind.CONTIGUOUS, Geometry.contiguous(outer + [None]))
    if given is None or given.rank != 3:
        return Seq((output, OPAQUE))  # unbatched input: a 2-d state; unknown: either
    state = Tensor(Kind.CONTIGUOUS, Geometry.contiguous([None, outer[0 if first else 1], None]))
    lstm = call.name.rsplit(".", 1)[-1] == "LSTM"
    return Seq((output, Seq((state, state)) if lstm else state))
