"""THE table: how each PyTorch op transforms layout.

One entry per op (or family of ops that behave the same), listing its spellings as a Tensor
method (`transpose`), as a function (`torch.transpose`, `torch.nn.functional.gelu`) or as an
`nn` module class called on a tensor (`torch.nn.GELU`). `effect` says in one word what the entry
does to contiguity; `transfer` computes it exactly (see views.py / transfer.py). The table test
(tests/test_op_table.py) runs every entry under torch on generated shapes and fails when an
entry lies; an entry it cannot run says why in `untested`.

Every claim here was measured on torch 2.13 (see ../shared/torch-layout-facts.md and the
table test); several intuitions are wrong: clone() keeps a transposed layout, softmax and
layer_norm return contiguous tensors, sort keeps the input's order, einsum can permute.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Literal, Optional

from contiglint.layout import indexing, transfer as tr, views as vw
from contiglint.layout.geometry import Geometry
from contiglint.layout.transfer import Call, Transfer
from contiglint.layout.values import CONTIGUOUS, Kind, Seq, Tensor, UNKNOWN_TENSOR, Value

Effect = Literal["breaks", "restores", "preserves", "depends", "unknown", "not-a-tensor"]


@dataclass(frozen=True)
class Op:
    methods: tuple[str, ...]
    functions: tuple[str, ...]
    effect: Effect
    transfer: Transfer
    modules: tuple[str, ...] = ()  # nn.Module classes whose call applies this op
    untested: str = ""  # why the table test cannot execute this entry, if it cannot


T, F, NN = "torch.", "torch.nn.functional.", "torch.nn."


def _fn(*names: str) -> tuple[str, ...]:
    return tuple(T + n for n in names)


def _f(*names: str) -> tuple[str, ...]:
    return tuple(F + n for n in names)


def _nn(*names: str) -> tuple[str, ...]:
    return tuple(NN + n for n in names)


def _contiguous(call: Call) -> Value:
    fmt = call.memory_format()
    if fmt in ("channels_last", "channels_last_3d"):
        return tr.channels_last(tr.fresh_same_rank(call), call.origin, 5 if fmt.endswith("3d")
                                else 4)
    tensor = call.tensor
    sizes = tensor.geometry.sizes if tensor.geometry is not None else None
    geometry = None if sizes is None else Geometry.contiguous(list(sizes))
    kept = tensor.partial if tensor.kind in (Kind.CONTIGUOUS, Kind.UNKNOWN) else None
    return Tensor(Kind.CONTIGUOUS, geometry, partial=kept, min_rank=tensor.min_rank)  # may be self


def _clone(call: Call) -> Value:
    return tr.preserve(call)


def _cat(call: Call) -> Value:
    """cat keeps channels_last when its inputs are; otherwise returns contiguous."""
    items = call.this.items if isinstance(call.this, Seq) else None
    first = items[0] if items else None
    if isinstance(first, Tensor) and first.channels_last:
        return tr.densify(first)
    return CONTIGUOUS


def _stack(call: Call) -> Value:
    """stack of channels_last inputs is non-contiguous (measured); otherwise contiguous."""
    items = call.this.items if isinstance(call.this, Seq) else None
    first = items[0] if items else None
    if isinstance(first, Tensor) and first.channels_last:
        return Tensor(Kind.PERMUTED, None, call.origin, min_rank=5)
    return CONTIGUOUS


def _einsum(call: Call) -> Value:
    """einsum returns its contraction in (batch, lhs-only, rhs-only) order, permuted to the
    requested output: non-contiguous whenever that order differs (measured on 2.13)."""
    from contiglint.layout.values import Const

    spec = call.this.value if isinstance(call.this, Const) else None
    if not isinstance(spec, str) or "->" not in spec or "." in spec:
        return UNKNOWN_TENSOR
    inputs, output = spec.replace(" ", "").split("->")
    operands = inputs.split(",")
    if len(operands) == 1:
        natural = [c for c in operands[0] if c in output]
        if sorted(natural) != sorted(output) or len(set(operands[0])) != len(operands[0]):
            return UNKNOWN_TENSOR
    elif len(operands) == 2:
        lhs, rhs = operands
        batch = [c for c in lhs if c in rhs and c in output]
        natural = batch + [c for c in lhs if c in output and c not in batch] + \
            [c for c in rhs if c in output and c not in lhs]
    else:
        return UNKNOWN_TENSOR
    memory = Geometry.contiguous([None] * len(natural))
    geometry = Geometry(tuple(memory.axes[natural.index(c)] for c in output), memory.memory)
    return Tensor.of(geometry, call.origin)


def _first_query(call: Call) -> Value:
    """scaled_dot_product_attention: the output keeps the query's (dense) layout."""
    return tr.densify(call.tensor)


def _expand_tensors(call: Call) -> Value:
    return Seq(each=Tensor(Kind.BROADCAST, None, call.origin))


def _as_strided(call: Call) -> Value:
    sizes, strides = (_literal_ints(call.arg(i, name)) for i, name in ((0, "size"),
                                                                        (1, "stride")))
    if not sizes or not strides or None in sizes or None in strides or len(sizes) != len(strides):
        return Tensor(Kind.UNKNOWN)
    expected, running = [], 1
    for size in reversed(sizes):
        expected.insert(0, running)
        running *= size
    live = [(st, ex) for size, st, ex in zip(sizes, strides, expected) if size != 1]
    if all(st == ex for st, ex in live):
        return tr.fresh(call, [(s, ()) for s in sizes])
    overlapping = any(st == 0 for st, _ in live) or len({st for st, _ in live}) < len(live)
    return Tensor(Kind.BROADCAST if overlapping else Kind.STRIDED, None, call.origin,
                  min_rank=len(sizes))


def _literal_ints(value) -> Optional[list[int]]:
    """`(2, 2)` given as one argument: its integers when every one is a literal."""
    from contiglint.layout.values import IntVal

    items = value.items if isinstance(value, Seq) else None
    if items is None or not all(isinstance(v, IntVal) and v.size is not None and not v.size[1]
                                for v in items):
        return None
    return [v.size[0] for v in items]


def _from_data(call: Call) -> Value:
    """`torch.tensor([[1, 2]])` is contiguous; from an array or a tensor, `tensor`/`as_tensor`/
    `from_numpy` keep its strides (measured: `torch.tensor(a.T)` is non-contiguous), and
    `empty_strided` takes the strides it is given: unknown."""
    if call.name.endswith("tensor") and isinstance(call.this, Seq):
        return CONTIGUOUS
    return UNKNOWN_TENSOR


def _real(call: Call) -> Value:
    return Tensor(Kind.STRIDED, None, call.origin, partial=call.origin)


def _squeeze_like(call: Call) -> Value:
    return vw.squeeze(call)


TABLE: tuple[Op, ...] = (
    # --- permutations: dense, non-contiguous views ------------------------------------------
    Op(("transpose", "swapaxes", "swapdims"), _fn("transpose", "swapaxes", "swapdims"),
       "breaks", vw.transpose),
    Op(("t",), _fn("t"), "breaks", vw.t),
    Op(("T",), (), "breaks", vw.t),
    Op(("mT", "mH", "adjoint"), _fn("adjoint"), "breaks", vw.matrix_transpose),
    Op(("H",), (), "breaks", vw.t, untested="needs a 2-D input; covered by the t() entry"),
    Op(("permute",), _fn("permute"), "breaks", vw.permute),
    Op(("movedim", "moveaxis"), _fn("movedim", "moveaxis"), "breaks", vw.movedim),
    # --- slicing views ------------------------------------------------------------------------
    Op(("narrow",), _fn("narrow"), "breaks", vw.narrow),
    Op(("select",), _fn("select"), "breaks", vw.select),
    Op(("unbind",), _fn("unbind"), "breaks", vw.unbind),
    Op(("split", "chunk", "tensor_split"), _fn("split", "chunk", "tensor_split"), "breaks",
       vw.split),
    Op(("diagonal",), _fn("diagonal"), "breaks", vw.diagonal),
    Op(("real", "imag"), _fn("real", "imag"), "breaks", _real,
       untested="complex inputs only; measured: stride 2 in the last dim"),
    # --- overlapping views -------------------------------------------------------------------
    Op(("expand",), (), "breaks", vw.expand),
    Op(("expand_as",), (), "breaks", vw.expand_as),
    Op((), _fn("broadcast_to"), "breaks", vw.expand),
    Op((), _fn("broadcast_tensors", "meshgrid"), "breaks", _expand_tensors),
    Op(("unfold",), (), "breaks", vw.unfold),
    Op(("as_strided",), _fn("as_strided"), "depends", _as_strided),
    # --- views that follow their input ---------------------------------------------------------
    Op(("unsqueeze",), _fn("unsqueeze"), "preserves", vw.unsqueeze),
    Op(("squeeze",), _fn("squeeze"), "preserves", _squeeze_like),
    Op(("view",), (), "depends", vw.view),
    Op(("view_as",), (), "depends", vw.view_as),
    Op(("reshape",), _fn("reshape"), "depends", vw.reshape),
    Op(("reshape_as",), (), "depends", partial(vw.view_as, copy_if_needed=True)),
    Op(("flatten",), _fn("flatten"), "depends", vw.flatten, modules=_nn("Flatten")),
    Op(("unflatten",), _fn("unflatten"), "depends", vw.unflatten),
    Op(("detach", "requires_grad_", "data", "detach_", "retain_grad"), _fn("detach"),
       "preserves", tr.identity),
    # --- new tensors in the input's layout (preserve_format) ----------------------------------
    Op(("clone",), _fn("clone"), "preserves", _clone),
    Op(("to", "cuda", "cpu", "float", "double", "half", "bfloat16", "int", "long", "short",
        "bool", "byte", "char", "type", "type_as", "pin_memory", "xpu", "mps"),
       (), "preserves", tr.preserve),
    Op(("flip", "fliplr", "flipud", "msort"), _fn("flip", "fliplr", "flipud"),
       "preserves", tr.preserve),
    Op((), _fn("sort"), "preserves", tr.tuple_of(tr.preserve)),
    Op(("abs", "neg", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
        "sigmoid", "tanh", "relu", "sin", "cos", "tan", "sign", "sgn", "round", "floor", "ceil",
        "trunc", "frac", "reciprocal", "square", "clamp", "clip", "clamp_min", "clamp_max",
        "nan_to_num", "erf", "erfinv", "logit", "isnan", "isinf", "isfinite", "logical_not",
        "bitwise_not", "positive", "conj", "conj_physical", "angle", "digamma", "lgamma",
        "sinh", "cosh", "asin", "acos", "atan", "neg"),
       _fn("abs", "neg", "exp", "log", "sqrt", "rsqrt", "sigmoid", "tanh", "relu", "sin", "cos",
           "sign", "round", "floor", "ceil", "reciprocal", "square", "clamp", "clip",
           "nan_to_num", "erf", "isnan", "logical_not", "conj"),
       "preserves", tr.preserve),
    Op(("add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow",
        "maximum", "minimum", "fmax", "fmin", "atan2", "lerp", "addcmul", "addcdiv", "eq", "ne",
        "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "bitwise_and",
        "bitwise_or", "bitwise_xor", "hypot", "copysign", "xlogy", "rsub", "subtract",
        "multiply", "divide"),
       _fn("add", "sub", "mul", "div", "true_divide", "pow", "maximum", "minimum", "atan2",
           "lerp", "addcmul", "addcdiv", "eq", "ne", "lt", "le", "gt", "ge", "logical_and",
           "logical_or", "remainder", "fmod", "subtract", "multiply", "divide", "rsub"),
       "preserves", tr.elementwise),
    Op((), _fn("where"), "preserves", tr.elementwise),
    Op(("where",), (), "preserves", tr.elementwise),
    Op((), _f("relu", "relu6", "gelu", "silu", "mish", "elu", "selu", "celu", "leaky_relu",
              "hardtanh", "hardswish", "hardsigmoid", "sigmoid", "tanh", "softplus",
              "softsign", "tanhshrink", "dropout", "dropout1d", "dropout2d", "dropout3d",
              "alpha_dropout", "feature_alpha_dropout", "normalize", "threshold",
              "logsigmoid", "rrelu", "glu"),
       "preserves", tr.preserve,
       modules=_nn("ReLU", "ReLU6", "GELU", "SiLU", "Mish", "ELU", "SELU", "CELU", "LeakyReLU",
                   "Hardtanh", "Hardswish", "Hardsigmoid", "Sigmoid", "Tanh", "Softplus",
                   "Softsign", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
                   "Identity", "Tanhshrink", "LogSigmoid", "Threshold")),
    Op((), _fn("zeros_like", "ones_like", "empty_like", "rand_like", "randn_like", "full_like",
               "randint_like", "zeros_like"), "preserves", tr.preserve),
    Op((), _f("scaled_dot_product_attention"), "preserves", _first_query),
    Op((), _fn("einsum"), "depends", _einsum),
    # --- always contiguous: copies and fresh allocations -------------------------------------
    Op(("contiguous",), (), "restores", _contiguous),
    Op(("roll", "repeat", "tile", "repeat_interleave", "index_select", "gather", "masked_select",
        "take", "take_along_dim", "nonzero", "masked_fill", "masked_scatter", "index_fill",
        "index_add", "index_copy", "scatter", "scatter_add", "tril", "triu", "cumsum",
        "cumprod", "softmax", "log_softmax", "argsort", "new_tensor",
        "outer", "cross", "kron"),
       _fn("roll", "tile", "repeat_interleave", "index_select", "gather", "masked_select", "take",
           "take_along_dim", "nonzero", "tril", "triu", "cumsum", "cumprod", "softmax",
           "log_softmax", "argsort", "outer", "kron", "masked_fill", "cdist"),
       "restores", tr.fresh_same_rank),
    Op(("matmul", "mm", "bmm", "mv", "dot", "baddbmm", "addmm", "addbmm", "inner"),
       _fn("matmul", "mm", "bmm", "mv", "dot", "baddbmm", "addmm", "inner", "tensordot"),
       "restores", tr.fresh_same_rank),
    Op((), _f("linear", "bilinear", "softmax", "log_softmax", "softmin", "layer_norm",
              "rms_norm", "embedding", "one_hot", "unfold", "fold", "cross_entropy", "mse_loss",
              "l1_loss", "nll_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
              "cosine_similarity", "pairwise_distance", "kl_div", "smooth_l1_loss",
              "huber_loss", "gumbel_softmax", "grid_sample", "affine_grid"),
       "restores", tr.fresh_same_rank,
       modules=_nn("Linear", "Bilinear", "LazyLinear", "Softmax", "LogSoftmax", "LayerNorm",
                   "RMSNorm", "Embedding", "Unfold", "Fold", "CrossEntropyLoss", "MSELoss")),
    Op((), _fn("cat", "concat", "concatenate"), "restores", _cat),
    Op((), _fn("stack", "hstack", "vstack", "dstack", "column_stack", "row_stack"), "restores",
       _stack),
    Op(("sum", "mean", "prod", "amax", "amin", "norm", "argmax", "argmin", "std",
        "var", "logsumexp", "all", "any", "nansum", "nanmean", "count_nonzero"),
       _fn("sum", "mean", "prod", "amax", "amin", "norm", "argmax", "argmin",
           "std", "var", "logsumexp", "all", "any", "count_nonzero"),
       "restores", tr.reduction),
    Op(("new_zeros", "new_ones", "new_empty", "new_full"), (), "restores", tr.factory),
    Op((), _fn("zeros", "ones", "empty", "rand", "randn"), "restores", tr.function_factory,
       untested="factories: sizes from literal arguments; executed by the factory cases"),
    Op((), _fn("full", "randint"), "restores", tr.sized_factory,
       untested="factories: the size is the tuple argument; executed by the factory cases"),
    Op((), _fn("arange", "linspace", "logspace", "randperm"), "restores", tr.vector_factory,
       untested="1-D factories whose arguments are values, not sizes"),
    Op((), _fn("eye", "tril_indices", "triu_indices"), "restores", tr.matrix_factory,
       untested="2-D factories whose arguments are values, not sizes"),
    Op((), _fn("Tensor", "FloatTensor", "LongTensor", "IntTensor", "BoolTensor",
               "scalar_tensor"), "restores", tr.fresh,
       untested="legacy constructors copy their data into a new contiguous tensor"),
    Op((), _fn("polar", "complex"), "preserves", tr.elementwise),
    Op((), _fn("bernoulli", "multinomial", "normal", "poisson"), "unknown", tr.unknown_tensor,
       untested="sampling ops; layout follows arguments the model does not track"),
    Op((), _fn("tensor", "as_tensor", "asarray", "from_numpy", "empty_strided"), "depends",
       _from_data, untested="numpy inputs; measured: torch.tensor/as_tensor/from_numpy(a.T) "
                            "keep the array's strides, empty_strided takes them as given"),
    # --- channels_last-aware: contiguous unless the input (or weight) is channels_last -------
    Op((), _f("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d"), "depends", tr.convolution,
       modules=_nn("Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
                   "ConvTranspose3d", "LazyConv2d")),
    Op((), _f("max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
              "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
              "adaptive_max_pool2d", "lp_pool2d", "pad", "interpolate", "upsample",
              "pixel_shuffle", "pixel_unshuffle", "batch_norm", "group_norm", "instance_norm",
              "local_response_norm"),
       "depends", tr.keep_channels_last,
       modules=_nn("MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
                   "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d",
                   "AdaptiveMaxPool2d", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm",
                   "InstanceNorm2d", "Upsample", "PixelShuffle", "PixelUnshuffle",
                   "ZeroPad2d", "ReflectionPad2d", "ReplicationPad2d", "ConstantPad2d",
                   "SyncBatchNorm")),
    Op((), (), "depends", tr.recurrent, modules=_nn("LSTM", "GRU", "RNN"),
       untested="module outputs; measured: batch_first=True gives strides (H, B*H, 1)"),
    Op((), (), "depends", tr.multihead_attention, modules=_nn("MultiheadAttention"),
       untested="module outputs; measured: batch_first=True gives a transposed output"),
    Op(("topk", "kthvalue"), _fn("topk", "kthvalue"), "restores",
       tr.tuple_of(tr.fresh_same_rank)),
    Op((), _fn("max", "min", "median", "mode"), "restores", tr.reduction_pair),
    Op(("max", "min", "median", "mode"), (), "restores", tr.reduction_pair),
    Op(("sort",), (), "preserves", tr.tuple_of(tr.preserve)),
    Op((), _fn("stft"), "breaks",
       lambda call: Tensor(Kind.PERMUTED, None, call.origin, min_rank=2),
       untested="signal op; measured: (freq, frames) with strides (1, freq)"),
    # --- not tensors ---------------------------------------------------------------------------
    Op(("numpy", "tolist", "item", "dim", "ndimension", "numel", "nelement", "element_size",
        "stride", "storage_offset", "is_contiguous", "data_ptr", "get_device",
        "untyped_storage"),
       (), "not-a-tensor", tr.not_tensor,
       untested="returns no tensor"),
)

_METHODS: dict[str, Op] = {}
_FUNCTIONS: dict[str, Op] = {}
_MODULES: dict[str, Op] = {}
for _op in TABLE:
    for _name in _op.methods:
        _METHODS.setdefault(_name, _op)
    for _name in _op.functions:
        _FUNCTIONS.setdefault(_name, _op)
    for _name in _op.modules:
        _MODULES.setdefault(_name, _op)

ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag", "data"})


def method(name: str) -> Optional[Op]:
    return _METHODS.get(name)


def function(qualname: str) -> Optional[Op]:
    return _FUNCTIONS.get(qualname)


def module(qualname: str) -> Optional[Op]:
    return _MODULES.get(qualname)


def index(tensor: Tensor, items, origin) -> Tensor:
    return indexing.index(tensor, items, origin)
