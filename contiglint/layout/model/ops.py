"""How each PyTorch op transforms layout: the catalogue's op table with its transfers.

The facts about each op (its spellings, `effect`, whether it is a view, what it keeps) live in
`contiglint/catalogue/ops.py`; this module maps each entry's `transfer` name to the function
that computes the result exactly (here, in views.py or in transfer.py). The table test
(tests/test_op_table.py) runs every entry under torch on generated shapes and fails when an
entry lies; an entry it cannot run says why in `untested`.

Every claim here was measured on torch 2.13 (see docs/layout-facts.md and the table test);
several intuitions are wrong: clone() keeps a transposed layout, softmax and layer_norm
return contiguous tensors, sort keeps the input's order, einsum can permute.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Literal, Optional

from contiglint.layout.model.frozen import evolve
from contiglint.catalogue import dtypes
from contiglint.catalogue import ops as catalogue
from contiglint.layout.model import dtype_views, indexing
from contiglint.layout.model import transfer as tr
from contiglint.layout.model import views as vw
from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.sizes import ONE, literal
from contiglint.layout.model.transfer import Call, Transfer
from contiglint.layout.model.values import (
    CONTIGUOUS,
    UNKNOWN_TENSOR,
    Const,
    IntVal,
    Kind,
    Ref,
    Seq,
    Tensor,
    Value,
)

Effect = Literal["breaks", "restores", "preserves", "depends", "unknown", "not-a-tensor"]


@dataclass(frozen=True)
class Op:
    methods: tuple[str, ...]
    functions: tuple[str, ...]
    effect: Effect
    transfer: Transfer
    modules: tuple[str, ...] = ()  # nn.Module classes whose call applies this op
    untested: str = ""  # why the table test cannot execute this entry, if it cannot

    def __post_init__(self) -> None:
        if self.effect in ("breaks", "preserves", "depends") and \
                self.transfer not in DTYPE_SETTERS:
            object.__setattr__(self, "transfer", _keeping_dtype(self.transfer))


CONVERSION_DTYPES = dtypes.CONVERSIONS
DTYPE_NAMES = dtypes.ALIASES


def dtype_of(value) -> Optional[str]:
    """`torch.float16` (a Ref) as "float16"; None for anything else."""
    if isinstance(value, Ref) and value.qualname.startswith("torch."):
        name = value.qualname[len("torch."):]
        return DTYPE_NAMES.get(name, name) if name.replace("_", "").isalnum() and (
            name in DTYPE_NAMES or name.startswith(("float", "int", "uint", "bfloat",
                                                    "complex", "bool"))) else None
    return None


def _keeping_dtype(transfer: Transfer) -> Transfer:
    """Views and layout-preserving ops keep their input's dtype (elementwise ops only when
    every tensor operand has that dtype; `.view(dtype)` and `dtype=` change it)."""
    def apply(call: Call) -> Value:
        result = transfer(call)
        source = call.tensor.dtype
        if source is None or not isinstance(result, Tensor) or result.dtype is not None:
            return result
        if any(dtype_of(v) for v in list(call.args) + list(call.kwargs.values())):
            return result
        if any(isinstance(a, Tensor) and a.dtype != source for a in call.args):
            return result
        return evolve(result, dtype=source)
    apply.__name__ = getattr(transfer, "__name__", "transfer")
    apply.__doc__ = getattr(transfer, "__doc__", None)
    return apply


def _contiguous(call: Call) -> Value:
    fmt = call.memory_format()
    if fmt in ("channels_last", "channels_last_3d"):
        return tr.channels_last(call.tensor, call.origin, 5 if fmt.endswith("3d")
                                else 4)
    tensor = call.tensor
    sizes = tensor.geometry.sizes if tensor.geometry is not None else None
    geometry = None if sizes is None else Geometry.contiguous(list(sizes))
    kept = tensor.partial if tensor.kind in (Kind.CONTIGUOUS, Kind.UNKNOWN) else None
    return Tensor(Kind.CONTIGUOUS, geometry, partial=kept, min_rank=tensor.min_rank)  # may be self


def _convert(call: Call) -> Value:
    """`.to()`, `.float()`, `.cpu()`: a dtype/device that is already the tensor's returns the
    tensor itself (measured: `x[:, ::2].float() is x[:, ::2]`), a real conversion densifies it.
    Where both dtypes are known, which one happens is known; otherwise a non-dense input
    gives an unknown layout."""
    target = _target_dtype(call)
    tensor = call.tensor
    copies = isinstance(call.kwargs.get("copy"), Const) and call.kwargs["copy"].value is True
    device = any(isinstance(v, Const) and isinstance(v.value, str) for v in call.args) or \
        "device" in call.kwargs or call.name in ("cuda", "xpu")
    if target is not None and tensor.dtype is not None and not device and \
            call.memory_format() is None and not copies:
        if target == tensor.dtype:
            return tensor  # no conversion: the tensor itself
        return evolve(tr.densify(tensor), dtype=target)
    result = _convert_layout(call)
    if isinstance(result, Tensor) and result is not tensor and result.kind is Kind.PERMUTED \
            and call.name in ("to", "cuda", "cpu"):
        result = evolve(result, kept_by=call.origin)  # a copy keeps the strides
    return evolve(result, dtype=target) if isinstance(result, Tensor) and \
        target is not None else result


def _target_dtype(call: Call) -> Optional[str]:
    if call.name in CONVERSION_DTYPES:
        return CONVERSION_DTYPES[call.name]
    if call.name in ("to", "type"):
        given = [dtype_of(v) for v in list(call.args) + [call.kwargs.get("dtype")]]
        return next((d for d in given if d), None)
    if call.name == "type_as" and call.args and isinstance(call.args[0], Tensor):
        return call.args[0].dtype
    return None


def _convert_layout(call: Call) -> Value:
    result = tr.preserve(call)
    copies = isinstance(call.kwargs.get("copy"), Const) and call.kwargs["copy"].value is True
    tensor = call.tensor
    if call.memory_format() == "contiguous_format" and not copies and not tensor.channels_last:
        # measured: x.t().to(memory_format=torch.contiguous_format) is x.t() itself (torch
        # aliases when the tensor's suggested format matches); with a dtype it may copy
        if not call.args:
            return tensor
        if tensor.kind is Kind.CONTIGUOUS:
            return tensor
        return Tensor(Kind.UNKNOWN, min_rank=tensor.min_rank)
    if call.tensor.kind is Kind.BROADCAST or (call.tensor.kind is Kind.STRIDED and not copies
                                              and call.memory_format() is None):
        return Tensor(Kind.UNKNOWN, min_rank=call.tensor.min_rank)
    return result


_shape_view = _keeping_dtype(vw.view)


def _view(call: Call) -> Value:
    """`.view(shape)`, or `.view(dtype)` by position or by keyword (`dtype_views`)."""
    if "dtype" in call.kwargs:
        return dtype_views.dtype_view(call, dtype_of(call.kwargs["dtype"]))
    if len(call.args) == 1 and dtype_of(call.args[0]) is not None:
        return dtype_views.dtype_view(call, dtype_of(call.args[0]))
    return _shape_view(call)


# transfers that decide the result's dtype themselves
DTYPE_SETTERS = frozenset({_convert, _view})


def _dropout(call: Call) -> Value:
    """Dropout returns its input itself when not training (eval mode; F.alpha_dropout's default
    training=False) and a new tensor in the input's dense layout when training: the same for
    dense inputs, unknown for non-dense ones (the mode is invisible here)."""
    if call.tensor.kind in (Kind.STRIDED, Kind.BROADCAST):
        return Tensor(Kind.UNKNOWN, min_rank=call.tensor.min_rank)
    return tr.preserve(call)


RANK_KEEPING = catalogue.KEEPS_RANK
SHAPE_KEEPING = catalogue.KEEPS_SHAPE  # (sizes carry through: size-1 dims stay visible)


def _fresh_copy(call: Call) -> Value:
    """A fresh contiguous result; its rank is the input's only for ops that keep it (not for
    masked_select, take, repeat, kron, embedding, losses, kthvalue, ...)."""
    name = call.name.rsplit(".", 1)[-1]
    if name == "outer":
        return tr.fresh(call, [None, None])
    if name in SHAPE_KEEPING:
        return tr.fresh_same_shape(call)
    if name in RANK_KEEPING:
        return tr.fresh_same_rank(call)
    reduction = call.kwargs.get("reduction")
    if isinstance(reduction, Const) and reduction.value == "none":
        if name in catalogue.TARGET_LEADS and call.args:
            return tr.elementwise(evolve(call, this=call.args[0],
                                                      args=[call.this] + call.args[1:]))
        return tr.elementwise(call)  # measured: mse/huber loss with reduction='none' keep x.t()
    return CONTIGUOUS


def _composite_norm(call: Call) -> Value:
    """rms_norm / local_response_norm: x times a scale computed from x. Measured on 2.13: they
    keep channels_last and a transposed 4-D input, yet return a contiguous tensor for
    `permute(0, 1, 3, 2)`; so only a contiguous input has a known result."""
    if call.tensor.kind is Kind.CONTIGUOUS:
        return tr.fresh_same_rank(call)
    return Tensor(Kind.UNKNOWN, min_rank=call.tensor.min_rank)


def _nonzero(call: Call) -> Value:
    """nonzero returns (n, rank) indices with strides (1, n) (measured on CPU, 2.13): a
    transposed layout for inputs of rank >= 2, unless n <= 1, which depends on the data."""
    rank = call.tensor.rank
    if rank is None:
        return UNKNOWN_TENSOR
    memory = Geometry.contiguous([literal(rank), None])
    geometry = Geometry((memory.axes[1], memory.axes[0]), memory.memory)
    return Tensor.of(geometry, call.origin, kind=None) if rank <= 1 else \
        Tensor(Kind.PERMUTED, geometry, call.origin, maybe=True, min_rank=2)


def _clone(call: Call) -> Value:
    return tr.preserve(call)


FFT_COMPLEX = {"float32": "complex64", "float64": "complex128"}
FFT_REAL = {v: k for k, v in FFT_COMPLEX.items()}


def _fft(call: Call) -> Value:
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


def _resolve(call: Call) -> Value:
    """resolve_conj/resolve_neg: the tensor itself when its conjugate/negative bit is clear, a
    preserve_format copy when it is set (measured); the bit is not tracked, so the layout is
    known where the two agree (dense layouts), else unknown."""
    tensor = call.tensor
    copy = tr.densify(tensor)
    if copy.kind is tensor.kind and copy.geometry == tensor.geometry:
        return tensor
    return Tensor(Kind.UNKNOWN, min_rank=tensor.rank or tensor.min_rank)


def _cat(call: Call) -> Value:
    """cat keeps channels_last when its inputs are; otherwise returns contiguous."""
    items = call.this.items if isinstance(call.this, Seq) else None
    first = items[0] if items else None
    if isinstance(first, Tensor) and first.channels_last:
        if not all(isinstance(t, Tensor) and t.channels_last for t in items):
            return UNKNOWN_TENSOR  # measured: cat([cl, contiguous]) is contiguous
        dim = call.dim_arg(0, "dim", 0, rank=4)
        sizes = [None if i == dim else s for i, s in enumerate(first.geometry.sizes)]
        return tr.channels_last(Tensor(Kind.CONTIGUOUS, Geometry.contiguous(sizes)),
                                tr.kept_origin(first, call))
    return _concatenated(items or (), call)


def _concatenated(items, call: Call) -> Tensor:
    """A fresh contiguous tensor whose dims other than `dim` are the inputs' (torch requires
    them equal), so size-1 dims survive: `cat([bias, extra], dim=1)` of (1, n) tensors is
    (1, ?) and a later `[:, :k]` of it is still contiguous."""
    known = [t.geometry for t in items if isinstance(t, Tensor) and t.geometry is not None
             and t.geometry.rank > 0]
    if not known:
        return CONTIGUOUS
    rank = known[0].rank
    dim = call.dim_arg(0, "dim", 0, rank=rank)
    if any(g.rank != rank for g in known):
        return CONTIGUOUS  # torch.cat also accepts empty 1-D tensors among n-D ones
    if dim is None:
        return Tensor(Kind.CONTIGUOUS, Geometry.contiguous([None] * rank))
    sizes = [next((g.sizes[i] for g in known if g.sizes[i] is not None), None)
             if i != dim else None for i in range(rank)]
    return Tensor(Kind.CONTIGUOUS, Geometry.contiguous(sizes))


def _stack(call: Call) -> Value:
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
    return CONTIGUOUS


def _einsum(call: Call) -> Value:
    """einsum returns its contraction in (batch, lhs-only, rhs-only) order, permuted to the
    requested output: non-contiguous whenever that order differs (measured on 2.13)."""

    spec = call.this.value if isinstance(call.this, Const) else None
    if not isinstance(spec, str) or "->" not in spec or "." in spec:
        return UNKNOWN_TENSOR
    inputs, output = spec.replace(" ", "").split("->")
    operands = inputs.split(",")
    sizes = _einsum_sizes(operands, call.args)
    if len(operands) == 1:
        natural = [c for c in operands[0] if c in output]
        if sorted(natural) != sorted(output) or len(set(operands[0])) != len(operands[0]):
            return UNKNOWN_TENSOR
        operand = call.args[0] if call.args else None
        if natural == list(operands[0]) and isinstance(operand, Tensor):
            # a pure permutation is a view of the operand (einsum('ij->ij', x.t()) is x.t())
            return vw.permute(Call("permute", operand, [Seq(tuple(
                IntVal(literal(operands[0].index(c))) for c in output))], {}, call.origin))
    elif len(operands) == 2:
        lhs, rhs = operands
        if any(c in rhs and c not in output for c in lhs):
            natural = _contraction_order(lhs, rhs, output, sizes)
            if natural is None:
                return Tensor(Kind.UNKNOWN, min_rank=len(output))
        elif any(c not in output for c in lhs + rhs):
            return Tensor(Kind.UNKNOWN, min_rank=len(output))  # a letter summed in one operand
            # first: the product's layout follows that reduction's output
        else:  # no contraction: a broadcast product of the two
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


def _contraction_order(lhs: str, rhs: str, output: str, sizes: dict) -> Optional[list[str]]:
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


def _einsum_sizes(operands: list[str], tensors: list[Value]) -> dict:
    """Each subscript letter's size, from operands of known geometry (size-1 dims matter)."""
    sizes: dict = {}
    for letters, tensor in zip(operands, tensors):
        if isinstance(tensor, Tensor) and tensor.geometry is not None \
                and tensor.geometry.rank == len(letters):
            for letter, size in zip(letters, tensor.geometry.sizes):
                sizes.setdefault(letter, size)
    return sizes


def _first_query(call: Call) -> Value:
    """scaled_dot_product_attention keeps the query's dense layout when the query's last dim is
    innermost in memory (heads/tokens swapped: kept); otherwise (channels_last, last two dims
    swapped) the output is contiguous (measured on CPU, torch 2.13)."""
    query = call.tensor
    geometry = query.geometry
    if geometry is None:
        return query if query.kind is Kind.CONTIGUOUS else UNKNOWN_TENSOR
    if geometry.rank and geometry.memory_order()[-1] == geometry.rank - 1:
        return tr.densify(query)
    return Tensor(Kind.CONTIGUOUS, Geometry.contiguous(list(geometry.sizes)))


def _expand_tensors(call: Call) -> Value:
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
            return Seq(tuple(vw.expand(Call("expand", t, [], {}, call.origin), list(shape))
                             for t in operands))
    if call.name.endswith("meshgrid") and None not in geometries and all(
            g.rank == 1 and g.sizes[0] is not None and not g.sizes[0][1] and g.sizes[0][0] > 1
            for g in geometries) and len(operands) > 1:
        return Seq(each=Tensor(Kind.BROADCAST, None, call.origin))
    return Seq(each=Tensor(Kind.BROADCAST, None, call.origin, maybe=True))


def _as_strided(call: Call) -> Value:
    """Literal sizes and strides: the exact layout they make (contiguous, dense, holes,
    overlaps; the geometry when it can be expressed). Otherwise nothing is known."""
    sizes, strides = (_literal_ints(call.arg(i, name)) for i, name in ((0, "size"),
                                                                        (1, "stride")))
    if strides and not sizes and _repeats(call.arg(0, "size"), strides):
        return Tensor(Kind.BROADCAST, None, call.origin, partial=call.origin,
                      min_rank=len(strides))
    if not sizes or not strides or None in sizes or None in strides or len(sizes) != len(strides):
        return Tensor(Kind.UNKNOWN, min_rank=len(sizes or ()))
    geometry = vw.strided(sizes, strides)
    if geometry is not None:
        return Tensor.of(geometry, call.origin, partial=call.origin)
    kind = vw._stride_facts(sizes, strides)
    if kind is None:
        return Tensor(Kind.UNKNOWN, min_rank=len(sizes))
    if kind[0] is Kind.CONTIGUOUS:
        return tr.fresh(call, [literal(s) for s in sizes])
    return Tensor(kind[0], None, call.origin, partial=call.origin, min_rank=len(sizes))


def _repeats(sizes, strides: list[int]) -> bool:
    """Sizes not all literal, strides literal: two dims of the same non-zero stride, or a
    stride-0 dim, overlap (`as_strided((n, n), (1, 1))`, a Toeplitz or sliding window view)
    unless their sizes are 1; as for any unknown size, they are taken to be larger."""
    items = sizes.items if isinstance(sizes, Seq) else None
    if items is None or len(items) != len(strides):
        return False
    live = [st for st, n in zip(strides, items)
            if not (isinstance(n, IntVal) and n.size is not None and not n.size[1] and
                    n.size[0] <= 1)]
    return 0 in live or len(set(live)) < len(live)


def _literal_ints(value) -> Optional[list[int]]:
    """`(2, 2)` given as one argument: its integers when every one is a literal."""

    items = value.items if isinstance(value, Seq) else None
    if items is None or not all(isinstance(v, IntVal) and v.size is not None and not v.size[1]
                                for v in items):
        return None
    return [v.size[0] for v in items]


def _nested_shape(value: Value) -> Optional[list]:
    """The shape of a nested list of numbers (`[[1, 2], [3, 4]]` is (2, 2)); None unless every
    item at one depth is a list of the same length, down to numbers."""
    if not isinstance(value, Seq):
        return [] if isinstance(value, IntVal) or (isinstance(value, Const) and isinstance(
            value.value, (int, float, bool))) else None
    if not value.items:
        return None
    inner = [_nested_shape(item) for item in value.items]
    if inner[0] is None or any(shape != inner[0] for shape in inner):
        return None
    return [literal(len(value.items))] + inner[0]


def _from_data(call: Call) -> Value:
    """`torch.tensor([[1, 2]])` is contiguous; from an array or a tensor, `tensor`/`as_tensor`/
    `from_numpy` keep its strides (measured: `torch.tensor(a.T)` is non-contiguous), and
    `empty_strided` takes the strides it is given: unknown."""
    if call.name.endswith("tensor") and isinstance(call.this, Seq):
        shape = _nested_shape(call.this)
        return tr.fresh(call, shape) if shape is not None else CONTIGUOUS
    if isinstance(call.this, Tensor) and call.this.kind is Kind.PERMUTED and \
            call.name != "torch.empty_strided":
        return tr.densify(call.this)  # a transposed numpy array keeps its strides
    return UNKNOWN_TENSOR


def _stft(call: Call) -> Value:
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


def _sparse_part(call: Call) -> Value:
    """A sparse tensor's `indices()` (ndim, nnz), `values()`, `crow_indices()`,
    `col_indices()`: dense tensors of their own, contiguous (measured on coalesced COO and
    CSR tensors)."""
    return tr.fresh(call, [None, None]) if call.name == "indices" else \
        tr.fresh(call, [None]) if call.name != "values" else CONTIGUOUS


def _encoder(call: Call) -> Value:
    """nn.TransformerEncoder(Layer)/Decoder(Layer): a post-norm layer ends in layer_norm (a
    fresh tensor of the input's shape); a pre-norm one ends in a residual add that follows
    the input's layout. So a contiguous input gives a contiguous output, others unknown."""
    if call.tensor.kind is Kind.CONTIGUOUS:
        return tr.fresh_same_shape(call)
    return Tensor(Kind.UNKNOWN, min_rank=call.tensor.min_rank)


def _squeeze_like(call: Call) -> Value:
    return vw.squeeze(call)


def _where_method(call: Call) -> Value:
    """`x.where(c, y)` is `torch.where(c, x, y)`: the condition leads (measured)."""
    return tr.elementwise(Call(call.name, call.arg(0, "condition") or UNKNOWN_TENSOR,
                               [call.this] + call.args[1:], {}, call.origin))


def _glu(call: Call) -> Value:
    """glu halves a dim: the input's layout, other sizes."""
    return evolve(tr.preserve(call), geometry=None)


def _function_factory(call: Call) -> Value:
    return with_factory_dtype(call.name, call, tr.function_factory(call))


TRANSFERS: dict[str, Transfer] = {
    "transpose": vw.transpose, "t": vw.t, "matrix_transpose": vw.matrix_transpose,
    "permute": vw.permute, "movedim": vw.movedim, "narrow": vw.narrow, "select": vw.select,
    "unbind": vw.unbind, "split": vw.split, "diagonal": vw.diagonal, "real_part": vw.real_part,
    "view_as_real": vw.view_as_real, "view_as_complex": vw.view_as_complex,
    "sparse_part": _sparse_part, "expand": vw.expand, "expand_as": vw.expand_as,
    "expand_tensors": _expand_tensors, "unfold": vw.unfold, "as_strided": _as_strided,
    "unsqueeze": vw.unsqueeze, "squeeze": _squeeze_like, "view": _view,
    "view_as": vw.view_as, "reshape": vw.reshape,
    "reshape_as": partial(vw.view_as, copy_if_needed=True), "flatten": vw.flatten,
    "unflatten": vw.unflatten, "identity": tr.identity, "clone": _clone, "convert": _convert,
    "preserve": tr.preserve, "sort": tr.tuple_of(tr.preserve), "elementwise": tr.elementwise,
    "where_method": _where_method, "dropout": _dropout, "glu": _glu,
    "first_query": _first_query, "einsum": _einsum, "contiguous": _contiguous,
    "fresh_copy": _fresh_copy, "nonzero": _nonzero, "fresh": tr.fresh,
    "composite_norm": _composite_norm, "cat": _cat, "stack": _stack,
    "reduction": tr.reduction, "reduction_pair": tr.reduction_pair, "factory": tr.factory,
    "function_factory": _function_factory, "sized_factory": tr.sized_factory,
    "vector_factory": tr.vector_factory, "matrix_factory": tr.matrix_factory,
    "sampling": tr.unknown_tensor, "from_data": _from_data, "convolution": tr.convolution,
    "keep_channels_last": tr.keep_channels_last, "adaptive_pool": tr.adaptive_pool,
    "recurrent": tr.recurrent,
    "encoder": _encoder, "multihead_attention": tr.multihead_attention,
    "topk": tr.tuple_of(_fresh_copy), "stft": _stft, "not_tensor": tr.not_tensor,
    "fft": _fft, "resolve": _resolve,
}


def _op(entry: catalogue.Entry) -> Op:
    if entry.transfer not in TRANSFERS:
        raise catalogue.CatalogueError(f"no layout transfer named {entry.transfer!r} (the "
                                       f"catalogue entry of {entry.spellings[0]!r})")
    return Op(entry.methods, entry.functions, entry.effect, TRANSFERS[entry.transfer],
              entry.modules, entry.untested)


TABLE: tuple[Op, ...] = tuple(_op(entry) for entry in catalogue.TABLE)
_METHODS: dict[str, Op] = {}
_FUNCTIONS: dict[str, Op] = {}
_MODULES: dict[str, Op] = {}
for _entry, _op_ in zip(catalogue.TABLE, TABLE):
    _METHODS.update(dict.fromkeys(_entry.methods, _op_))
    _FUNCTIONS.update(dict.fromkeys(_entry.functions, _op_))
    _MODULES.update(dict.fromkeys(_entry.modules, _op_))

ATTRIBUTES = catalogue.ATTRIBUTES


def method(name: str) -> Optional[Op]:
    return _METHODS.get(name)


def function(qualname: str) -> Optional[Op]:
    return _FUNCTIONS.get(qualname)


def module(qualname: str) -> Optional[Op]:
    return _MODULES.get(qualname)


def index(tensor: Tensor, items, origin) -> Tensor:
    result = indexing.index(tensor, items, origin)
    return evolve(result, dtype=tensor.dtype) if tensor.dtype and \
        result.dtype is None else result


FLOAT_FACTORIES = dtypes.FLOAT_FACTORIES


def with_factory_dtype(name: str, call: Call, result: Value) -> Value:
    """Factories give `dtype=` or, for the floating ones, torch's default float32."""
    if not isinstance(result, Tensor) or result.dtype is not None:
        return result
    given = dtype_of(call.kwargs.get("dtype"))
    if given is None and name in FLOAT_FACTORIES and "dtype" not in call.kwargs and not (
            name == "torch.full"):
        given = "float32"
    return evolve(result, dtype=given) if given else result
