"""How each PyTorch op transforms layout: the catalogue's op table with its transfers.

The facts about each op (its spellings, `effect`, whether it is a view, what it keeps) live in
`contiglint/catalogue/ops.py`; this module maps each entry's `transfer` name to the function
that computes the result exactly (here, in views.py, part_views.py, join_transfers.py,
literal_transfers.py, spectral_transfers.py, conversions.py, dtype_views.py or transfer.py).
The table test (tests/test_op_table.py) runs every entry under torch on generated shapes and
fails when an entry lies; an entry it cannot run says why in `untested`.

Every claim here was measured on torch 2.13 (see docs/layout-facts.md and the table test);
several intuitions are wrong: clone() keeps a transposed layout, softmax and layer_norm
return contiguous tensors, sort keeps the input's order, einsum can permute.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Literal, Optional

from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.leads import after_lead, at_one_leading_dim
from contiglint.layout.model.witness import noncontiguous_witness
from contiglint.catalogue import dtypes
from contiglint.catalogue import ops as catalogue
from contiglint.layout.model import einops_transfers
from contiglint.layout.model import factories
from contiglint.layout.model import conversions as cv
from contiglint.layout.model import elementwise as ew
from contiglint.layout.model import indexing
from contiglint.layout.model import join_transfers as jt
from contiglint.layout.model import literal_transfers as lt
from contiglint.layout.model import reduction_transfers as reductions
from contiglint.layout.model import shape_transfers as shapes
from contiglint.layout.model import spectral_transfers as st
from contiglint.layout.model import transfer as tr
from contiglint.layout.model import memory_views as mv
from contiglint.layout.model import part_views as pv
from contiglint.layout.model import reshape_views as rv
from contiglint.layout.model import views as vw
from contiglint.layout.model import window_transfers as windows
from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.sizes import literal, multiply
from contiglint.layout.model.transfer import Call, Transfer
from contiglint.layout.model.values import (
    CONTIGUOUS,
    UNKNOWN_TENSOR,
    Const,
    IntVal,
    Kind,
    Tensor,
    Value,
    classify,
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
    keeps_lead: bool = False  # the transfer decides whether its result keeps a `Tensor.lead`
    same_shape: bool = False  # a unary op whose result has its input's shape (SAME_SHAPE)

    def __post_init__(self) -> None:
        if self.effect in ("breaks", "preserves", "depends") and \
                self.transfer not in cv.DTYPE_SETTERS:
            object.__setattr__(self, "transfer", cv.keeping_dtype(self.transfer))
        object.__setattr__(self, "transfer", _settled(self.transfer, self.keeps_lead,
                                                      self.same_shape))


def _stays_made(this, result: Value) -> Value:
    """`result`, lost where `this`'s sizes are lost and some of the result's come from them."""
    if not isinstance(result, Tensor) or result.lost or not isinstance(this, Tensor) or \
            result.assumed is not None or not this.lost:
        return result
    if result.geometry is None or None in result.geometry.sizes:
        return evolve(result, lost=True)
    return result


def _settled(transfer: Transfer, keeps_lead: bool, same_shape: bool = False) -> Transfer:
    """What every op's result gets. Sizes an op made from lost sizes stay lost: where the
    input's sizes are lost and the result's come from them (`.mT` of a repeat of unknown
    sizes), the result's are lost too, not free sizes for a witness, nor for an op that fixes
    the rank later. And an op that does not say which dims it changed (not `keeps_lead`)
    drops its input's `Tensor.lead`: the leading dims may be what it changed (`x[0]`,
    `x.flatten(0, 1)`, a broadcast), unless it is a unary op that keeps the shape
    (`same_shape`: `torch.relu(x)`, `x.float()`) and the result's dims after the lead are the
    input's."""
    def apply(call: Call) -> Value:
        result = _stays_made(call.this, transfer(call))
        if keeps_lead or not isinstance(result, Tensor) or result.lead is None or \
                result is call.this or not isinstance(call.this, Tensor) or \
                result.lead is not call.this.lead:
            return result  # a factory's own lead (`torch.ones(*batch, n, d)`) stays
        if same_shape:  # the lead stays where its dims after the lead are the input's
            return ew.with_first_lead(result, [call.this])
        return evolve(result, lead=None)
    apply.__name__ = getattr(transfer, "__name__", "transfer")
    apply.__doc__ = getattr(transfer, "__doc__", None)
    return apply


# the transfers that keep a `Tensor.lead` where they change only the dims after it (and make
# one: a view or a reshape into `(*lead, ...)`); every other drops it
LEAD_KEEPING = frozenset({"transpose", "matrix_transpose", "view", "reshape", "elementwise",
                          "unsqueeze", "expand", "contiguous", "matmul", "reduction"})
# unary transfers whose result has the input's shape, its dims in the input's dense order:
# where the result's dims after a lead are the input's, the lead stays (`_settled`)
SAME_SHAPE = frozenset({"pointwise", "preserve", "convert", "clone"})


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
    if name == "repeat" and call.this is not None:
        return _repeated(call)
    if name == "repeat_interleave" and call.this is not None:
        return _interleaved(call)
    reduction = call.kwargs.get("reduction")
    if isinstance(reduction, Const) and reduction.value == "none":
        if name in catalogue.TARGET_LEADS and call.args:
            return ew.elementwise(evolve(call, this=call.args[0],
                                                      args=[call.this] + call.args[1:]))
        return ew.elementwise(call)  # measured: mse/huber loss with reduction='none' keep x.t()
    return CONTIGUOUS


def _interleaved(call: Call) -> Value:
    """`x.repeat_interleave(repeats, dim)`: x's sizes, dim's times the repeats (a tensor of
    counts makes that size one the code does not choose); flat where no dim is given."""
    dim = call.arg(1, "dim")
    if dim is None or isinstance(dim, Const) and dim.value is None:
        return tr.fresh(call, [None])
    geometry, at = call.tensor.geometry, call.dim_arg(1, "dim")
    if geometry is None or at is None or not 0 <= at < geometry.rank:
        return tr.fresh_same_rank(call)
    repeats = call.arg(0, "repeats")
    size = multiply(repeats.size, geometry.sizes[at]) if isinstance(repeats, IntVal) and \
        repeats.size is not None and geometry.sizes[at] is not None else None
    result = tr.fresh(call, [size if i == at else s for i, s in enumerate(geometry.sizes)])
    return result if size is not None else evolve(result, lost=True)


def _repeated(call: Call) -> Value:
    """`x.repeat(*counts)`: one dim per count, each the count times x's size (x's dims
    aligned to the right, a missing one of size 1)."""
    counts = call.sizes(0, "repeats")
    if counts is None:
        return CONTIGUOUS
    counts = [None if c == "-1" else c for c in counts]
    tensor = call.tensor
    given = tensor.geometry.sizes if tensor.geometry is not None else \
        tensor.assumed.sizes if tensor.assumed is not None and \
        tensor.assumed.rank == tensor.min_rank == len(counts) else None  # the rank is fixed
    if given is None and tensor.made_by_op:
        # an op made the tensor and the model lost its sizes: they are not free
        return Tensor(Kind.CONTIGUOUS, min_rank=len(counts), lost=True)
    if given is None or len(given) > len(counts):
        # count times sizes the model does not know: made, not free
        return evolve(tr.fresh(call, [None] * len(counts)), lost=True)
    given = [literal(1)] * (len(counts) - len(given)) + list(given)
    return tr.fresh(call, [multiply(c, g) if c is not None and g is not None else None
                           for c, g in zip(counts, given)])


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


def _resolve(call: Call) -> Value:
    """resolve_conj/resolve_neg: the tensor itself when its conjugate/negative bit is clear, a
    preserve_format copy when it is set (measured); the bit is not tracked, so the layout is
    known where the two agree (dense layouts), else unknown."""
    tensor = call.tensor
    copy = tr.densify(tensor)
    if copy.kind is tensor.kind and copy.geometry == tensor.geometry:
        return tensor
    return Tensor(Kind.UNKNOWN, min_rank=tensor.rank or tensor.min_rank)


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
    return ew.elementwise(Call(call.name, call.arg(0, "condition") or UNKNOWN_TENSOR,
                               [call.this] + call.args[1:], {}, call.origin))


def _glu(call: Call) -> Value:
    """glu halves a dim: the input's layout, other sizes."""
    return evolve(tr.preserve(call), geometry=None)


def _function_factory(call: Call) -> Value:
    return with_factory_dtype(call.name, call, factories.function_factory(call))


TRANSFERS: dict[str, Transfer] = {
    "transpose": vw.transpose, "t": vw.t, "matrix_transpose": vw.matrix_transpose,
    "permute": vw.permute, "movedim": vw.movedim, "narrow": pv.narrow, "select": pv.select,
    "unbind": pv.unbind, "split": pv.split, "diagonal": mv.diagonal, "real_part": mv.real_part,
    "view_as_real": mv.view_as_real, "view_as_complex": mv.view_as_complex,
    "sparse_part": _sparse_part, "expand": pv.expand, "expand_as": pv.expand_as,
    "expand_tensors": jt.expand_tensors, "unfold": mv.unfold, "as_strided": lt.as_strided,
    "unsqueeze": vw.unsqueeze, "squeeze": _squeeze_like, "view": cv.view,
    "view_as": rv.view_as, "reshape": rv.reshape,
    "reshape_as": partial(rv.view_as, copy_if_needed=True), "flatten": rv.flatten,
    "unflatten": rv.unflatten, "identity": tr.identity, "clone": _clone, "convert": cv.convert,
    "preserve": tr.preserve, "pointwise": ew.pointwise, "sort": ew.sort,
    "elementwise": ew.elementwise,
    "where_method": _where_method, "dropout": _dropout, "glu": _glu,
    "attention": shapes.attention, "einsum": jt.einsum, "contiguous": cv.contiguous,
    "fresh_copy": _fresh_copy, "device_layout": ew.device_layout, "nonzero": _nonzero,
    "matmul": shapes.matmul,
    "embedding": shapes.embedding, "im2col": shapes.unfold, "interpolate": windows.interpolate,
    "pad_packed": shapes.pad_packed, "fresh": tr.fresh,
    "composite_norm": _composite_norm, "cat": jt.cat, "stack": jt.stack,
    "reduction": reductions.reduction, "reduction_pair": reductions.reduction_pair,
    "factory": factories.factory,
    "function_factory": _function_factory, "sized_factory": factories.sized_factory,
    "vector_factory": factories.vector_factory, "matrix_factory": factories.matrix_factory,
    "sampling": tr.unknown_tensor, "from_data": lt.from_data, "convolution": windows.convolution,
    "keep_channels_last": windows.keep_channels_last, "adaptive_pool": tr.adaptive_pool,
    "recurrent": tr.recurrent,
    "encoder": _encoder, "multihead_attention": shapes.multihead_attention,
    "topk": reductions.top_values, "stft": st.stft, "not_tensor": tr.not_tensor,
    "fft": st.fft, "resolve": _resolve, "rearrange": einops_transfers.rearrange,
}


def _op(entry: catalogue.Entry) -> Op:
    if entry.transfer not in TRANSFERS:
        raise catalogue.CatalogueError(f"no layout transfer named {entry.transfer!r} (the "
                                       f"catalogue entry of {entry.spellings[0]!r})")
    return Op(entry.methods, entry.functions, entry.effect, TRANSFERS[entry.transfer],
              entry.modules, entry.untested, entry.transfer in LEAD_KEEPING,
              entry.transfer in SAME_SHAPE)


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


def index(tensor: Tensor, items, origin, owner: Optional[str] = None) -> Tensor:
    """`tensor[items]`: indexing.py's result, with the dtype kept and lost sizes kept lost
    (`v[v > 0][::2]` has a length no input chooses)."""
    result = _index_after_lead(tensor, items, origin)
    if result is None:
        result = _stays_made(tensor, indexing.index(tensor, items, origin, owner))
        if result.lead is not None and result is not tensor:
            result = evolve(result, lead=None)  # an index may take the leading dims (`x[0]`)
    return evolve(result, dtype=tensor.dtype) if tensor.dtype and \
        result.dtype is None else result


def _index_after_lead(tensor: Tensor, items, origin) -> Optional[Tensor]:
    """`x[..., ::2]`, `x[..., 0]`: basic indexing after an ellipsis, of no more dims than
    those after the tensor's lead, indexes those dims alone and keeps the lead
    (`leads.after_lead`) where it leaves them non-contiguous: then the whole tensor is not
    contiguous either, and a view into `(*batch, ...)` is decided by them. Where it leaves
    them contiguous with holes between the leading dims' blocks (`x[..., 1:, :]`), the whole
    is not contiguous where there are leading dims (`leads.at_one_leading_dim`) and is where
    there are none (`maybe`): a view that folds the lead is decided at one. None where the
    index is not of that form, or leaves no holes."""
    if tensor.lead is None or tensor.assumed is None or not items or \
            items[0].kind != "ellipsis" or \
            any(item.kind not in ("slice", "int", "none") for item in items[1:]) or \
            sum(item.kind in ("slice", "int") for item in items) > tensor.assumed.rank:
        return None
    result = after_lead(Call("index", tensor, origin=origin),
                        lambda call: indexing.index(call.tensor, items, origin), tensor.lead)
    if result is None or result.noncontiguous:
        return result
    whole = at_one_leading_dim(result)
    if whole is None or noncontiguous_witness(whole.geometry) is None:
        return None  # no sizes leave holes (`x[..., :1]`: size-1 dims have no stride)
    return evolve(result, kind=classify(whole.geometry), maybe=True, origin=origin)


FLOAT_FACTORIES = dtypes.FLOAT_FACTORIES


def with_factory_dtype(name: str, call: Call, result: Value) -> Value:
    """Factories give `dtype=` or, for the floating ones, torch's default float32."""
    if not isinstance(result, Tensor) or result.dtype is not None:
        return result
    given = cv.dtype_of(call.kwargs.get("dtype"))
    if given is None and name in FLOAT_FACTORIES and "dtype" not in call.kwargs and not (
            name == "torch.full"):
        given = "float32"
    return evolve(result, dtype=given) if given else result
