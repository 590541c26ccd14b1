"""Transfers that compute a result's shape from its operands' shapes: matrix products,
attention, embeddings, `F.unfold`, `pad_packed_sequence` and the outputs of
`nn.MultiheadAttention` (pools, pads, interpolation and convolution: window_transfers.py).
The facts (measured on torch 2.13, CPU) are in `contiglint/catalogue/shapes.py` and
docs/layout-facts.md; tests/test_shape_sources.py runs each against torch on generated sizes."""
from __future__ import annotations

from typing import Optional, Sequence

from contiglint.catalogue import shapes as facts
from contiglint.layout.model import transfer as tr
from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.sizes import ONE, Size
from contiglint.layout.model.values import (
    CONTIGUOUS,
    OPAQUE,
    Const,
    IntVal,
    Kind,
    Seq,
    Tensor,
    Value,
)
from contiglint.layout.model.transfer import Call


def sizes_of(value: Optional[Value]) -> Optional[tuple[Size, ...]]:
    return value.geometry.sizes if isinstance(value, Tensor) and value.geometry is not None \
        else None


def broadcast(a: Sequence[Size], b: Sequence[Size]) -> list[Size]:
    """torch's broadcast of two shapes (right-aligned); a pair of sizes that may differ (two
    symbols, one of which may be 1) gives an unknown size."""
    rank = max(len(a), len(b))
    a = [ONE] * (rank - len(a)) + list(a)
    b = [ONE] * (rank - len(b)) + list(b)
    return [x if x == y or y == ONE else y if x == ONE else None for x, y in zip(a, b)]


def _fresh(sizes: Optional[Sequence[Size]]) -> Value:
    if sizes is None or not sizes:
        return CONTIGUOUS  # unknown rank, or a 0-dim result
    return Tensor(Kind.CONTIGUOUS, Geometry.contiguous(list(sizes)))


def matmul_shape(a: Sequence[Size], b: Sequence[Size]) -> Optional[list[Size]]:
    """The shape of `torch.matmul(a, b)` (facts.MATMUL): None for 0-d operands."""
    if not a or not b:
        return None
    if len(a) == 1 and len(b) == 1:
        return []
    if len(b) == 1:
        return list(a[:-1])
    if len(a) == 1:
        return list(b[:-2]) + [b[-1]]
    return broadcast(a[:-2], b[:-2]) + [a[-2], b[-1]]


def matmul(call: Call) -> Value:
    """matmul/mm/bmm/mv/dot and `@`: a fresh contiguous tensor (measured for transposed,
    broadcast and 1-D operands) whose shape follows the operands' (facts.MATMUL); other
    products of the family (addmm, baddbmm, inner, tensordot): contiguous, shape unknown.
    Two operands after one lead (`*batch, n, d = x.shape`; `x @ x.mT`) keep it
    (`_led_product`)."""
    name = call.name.rsplit(".", 1)[-1]
    if name not in facts.MATMUL:
        return CONTIGUOUS
    left, right = call.this, call.arg(0, facts.MATMUL[name])
    if name == "matmul":
        led = _led_product(left, right)
        if led is not None:
            return led
    a, b = sizes_of(left), sizes_of(right)
    exact = EXACT_RANKS.get(name)
    if exact and (a is None or b is None):
        # bmm takes 3 dims and mm 2: operands known to have at least that many have that many
        shapes = [sizes_of(v) or (least_shape(v) if not v.lost else None)
                  if isinstance(v, Tensor) else None for v in (left, right)]
        if all(shape is not None and len(shape) == exact for shape in shapes):
            a, b = shapes
    if a is None or b is None:
        return _assumed_product(left, right)
    return _fresh(matmul_shape(a, b))


def _led_product(left: Optional[Value], right: Optional[Value]) -> Optional[Tensor]:
    """`torch.matmul` of two tensors after the same `Tensor.lead` with as many dims after it,
    at least two (`x @ x.mT`, `x @ torch.ones(*batch, d, k)`): their leading dims are the same
    sizes, so the product has them too, followed by the product of the dims after the lead;
    contiguous (at no leading dims a 2-D product, an mm; at some, a batched one of equal
    ranks, a bmm: both fresh). None for other operands (one of unknown rank may broadcast
    leading dims of its own)."""
    if not (isinstance(left, Tensor) and isinstance(right, Tensor)) or left.lead is None or \
            left.lead is not right.lead:
        return None
    a, b = left.assumed, right.assumed
    if left.geometry is not None or right.geometry is not None or a is None or b is None or \
            not left.min_rank == right.min_rank == a.rank == b.rank >= 2 or \
            left.made_sizes or right.made_sizes:
        return None
    shape = matmul_shape(a.sizes, b.sizes)
    if shape is None:
        return None
    return Tensor(Kind.CONTIGUOUS, None, min_rank=len(shape), assumed=Geometry.contiguous(shape),
                  lead=left.lead)


EXACT_RANKS = {"bmm": 3, "mm": 2}  # the rank each operand of these products must have


def least_shape(value: Optional[Value]) -> Optional[tuple[Size, ...]]:
    """A tensor's shape, or where its rank is unknown its shape at the least rank the code
    shows (`Tensor.assumed`); None where neither is known."""
    if not isinstance(value, Tensor):
        return None
    if value.geometry is not None:
        return value.geometry.sizes
    assumed = value.assumed
    return assumed.sizes if assumed is not None and assumed.rank == value.min_rank else None


def _assumed_product(left: Optional[Value], right: Optional[Value]) -> Value:
    """A product of tensors of unknown rank: contiguous, with the shape it has where each
    operand has its least rank, as `assumed`, which an op that later fixes the rank to that
    one reads (`(x @ x.mT).permute(1, 0)` of x read as (B, N) is (B, B) there: a 2-D product
    has 2-D operands). Without those shapes, its sizes are `lost`."""
    shapes = [least_shape(left), least_shape(right)]
    if None in shapes or min(map(len, shapes)) < 2:
        # its sizes follow from the operands', which may be tied (`v @ v.mT` is square): an
        # op that later fixes its rank does not give it free sizes
        return evolve(CONTIGUOUS, lost=True)
    shape = matmul_shape(*shapes)
    return Tensor(Kind.CONTIGUOUS, min_rank=len(shape), assumed=Geometry.contiguous(shape))


def attention(call: Call) -> Value:
    """F.scaled_dot_product_attention: q's leading dims and v's last (facts.ATTENTION). A
    contiguous query gives a contiguous result, as does one whose last dim is not innermost
    (the fused kernels need stride 1 there). Otherwise the layout is the kernel's: the fused
    CPU kernel (4-D inputs, equal head dims, no dropout) returns the query's dense layout, the
    math path (a literal dropout > 0, literal unequal head dims, another rank) a contiguous
    tensor, measured on CPU; CUDA returned a contiguous tensor where the CPU kept the query's
    layout, so that layout is only possible (`maybe`)."""
    query = call.tensor
    q, v = sizes_of(query), sizes_of(call.arg(1, "value"))
    shape = list(q[:-1]) + [v[-1] if v else None] if q else None
    geometry = query.geometry
    if query.kind is Kind.CONTIGUOUS or geometry is not None and geometry.rank and \
            geometry.memory_order()[-1] != geometry.rank - 1:
        return _fresh(shape)
    dropout = call.arg(3, "dropout_p")
    rate = dropout.value if isinstance(dropout, Const) else \
        dropout.size[0] if isinstance(dropout, IntVal) and dropout.size is not None and \
        not dropout.size[1] else None
    widths = {q[-1] if q else None, v[-1] if v else None}
    math = (geometry is not None and geometry.rank != 4) or \
        (isinstance(rate, (int, float)) and rate > 0) or \
        (None not in widths and len(widths) == 2 and all(not w[1] for w in widths))
    if math:
        return _fresh(shape)
    fused = tr.densify(query)
    if fused.geometry is not None and shape is not None:
        fused = evolve(fused, geometry=fused.geometry.with_axis(len(shape) - 1, size=shape[-1]))
    # the query's layout on the CPU, contiguous on CUDA (facts.DEVICE_LAYOUTS)
    return evolve(fused, maybe=fused.noncontiguous or fused.maybe)


def embedding(call: Call) -> Value:
    """F.embedding(input, weight) / nn.Embedding: the index shape with the embedding dim
    appended, contiguous for any index layout (facts.EMBEDDING)."""
    index = sizes_of(call.this)
    if call.name.endswith("functional.embedding"):
        weight = sizes_of(call.arg(0, "weight"))
        width = weight[-1] if weight and len(weight) == 2 else None
    else:
        width = call.config.get("width")
    return _fresh(list(index) + [width] if index is not None else None)


def unfold(call: Call) -> Value:
    """F.unfold / nn.Unfold: (N, C * prod(kernel), L), contiguous for any input layout
    (facts.UNFOLD); unbatched (C, H, W) gives (C * prod(kernel), L)."""
    given = sizes_of(call.this)
    if given is None:
        return CONTIGUOUS
    if len(given) == 4:
        return _fresh([given[0], None, None])
    return _fresh([None, None]) if len(given) == 3 else CONTIGUOUS


def at_assumed_rank(transfer):
    """A shape transfer applied to a tensor of unknown rank whose sizes are assumed at its
    least rank (`B, C, H, W = x.shape`): the sizes of the result at that rank are the
    transfer's for those sizes, kept as an assumption (a later op that fixes the rank at it
    takes them). Without them, a later permute would give the result free sizes that no
    input gives (`F.interpolate(x, scale_factor=2)` has even spatial sizes, and its batch is
    x's, which the code may name `B`)."""
    def shaped(call: Call) -> Value:
        result = transfer(call)
        tensor = call.tensor
        if not isinstance(result, Tensor) or result.geometry is not None or \
                tensor.geometry is not None:
            return result
        assumed = tensor.assumed
        if assumed is not None and not tensor.lost and assumed.rank == tensor.min_rank and \
                tensor.partial is None and tensor.kind in (Kind.UNKNOWN, Kind.CONTIGUOUS):
            sized = transfer(evolve(call, this=Tensor(Kind.CONTIGUOUS, assumed,
                                                      min_rank=assumed.rank)))
            if isinstance(sized, Tensor) and sized.geometry is not None and \
                    sized.kind is Kind.CONTIGUOUS:
                return evolve(result, min_rank=max(result.min_rank, sized.rank),
                              assumed=Geometry.contiguous(sized.geometry.sizes))
        # the op made the sizes and the model does not know them (a conv's channels are its
        # weight's, a pool's spatial sizes its input's): not free for a later op that fixes
        # the rank
        return evolve(result, lost=True)
    shaped.__doc__ = transfer.__doc__
    return shaped


def pad_packed(call: Call) -> Value:
    """pad_packed_sequence(sequence, batch_first=...): `(padded, lengths)`. The padded
    tensor is a fresh (T, B, *) buffer, returned as it is (contiguous) or, with
    batch_first=True, transposed to (B, T, *) (facts.PAD_PACKED); the rank follows the packed
    data, which the model does not track, so only its layout is known: a transpose of the
    two outer dims, contiguous again when B or T is 1."""
    first = call.kwargs.get("batch_first", call.args[0] if call.args else Const(False))
    lengths = Tensor(Kind.CONTIGUOUS, Geometry.contiguous([None]))
    if not isinstance(first, Const):
        return Seq((Tensor(Kind.UNKNOWN, min_rank=2), lengths))
    if first.value is True:
        return Seq((Tensor(Kind.PERMUTED, None, call.origin, maybe=True, min_rank=2), lengths))
    return Seq((Tensor(Kind.CONTIGUOUS, min_rank=2), lengths))


def multihead_attention(call: Call) -> Value:
    """nn.MultiheadAttention: `(output, weights)` (facts.MULTIHEAD). The output is (L, N, E),
    contiguous, or with batch_first=True (N, L, E) transposed from an (L, N, E) buffer; the
    eval-mode fast path of self-attention (`m(x, x, x)` without grad) returns it contiguous,
    so for self-attention it is transposed on some paths only. The weights are a contiguous
    (N, L, S), (N, H, L, S) with average_attn_weights=False, or None with
    need_weights=False."""
    output = tr.recurrent(call).items[0]
    query, key = sizes_of(call.this), sizes_of(call.arg(0, "key"))
    first = call.config.get("batch_first") is True
    width = call.config.get("width")
    if query is not None and len(query) == 2:
        output = _fresh([query[0], width])
    elif query is not None and len(query) == 3 and isinstance(output, Tensor):
        output = evolve(output, geometry=output.geometry.with_axis(2, size=width))
    if first and call.config.get("self_attention") and isinstance(output, Tensor) and \
            output.noncontiguous:
        output = evolve(output, maybe=True)  # the fast path: contiguous
    need = call.kwargs.get("need_weights")
    if isinstance(need, Const) and need.value is False:
        return Seq((output, Const(None)))
    average = call.kwargs.get("average_attn_weights")
    if query is None or key is None or len(query) != len(key) or len(query) not in (2, 3):
        return Seq((output, CONTIGUOUS if not isinstance(average, Const) else OPAQUE))
    batch, target, source = (None, query[0], key[0]) if len(query) == 2 else \
        (query[0], query[1], key[1]) if first else (query[1], query[0], key[0])
    heads = [call.config.get("heads")] if isinstance(average, Const) and \
        average.value is False else []
    leading = [batch] if batch is not None or len(query) == 3 else []
    if not isinstance(average, Const) and average is not None:
        return Seq((output, CONTIGUOUS))
    return Seq((output, _fresh(leading + heads + [target, source])))
