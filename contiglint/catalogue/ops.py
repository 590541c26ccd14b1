"""THE table of torch ops: every spelling the project knows, and what each op does to layout.

One `Entry` per op (or family of ops that behave the same): its spellings as a Tensor method
or attribute (`transpose`, `.T`), as a function (`torch.transpose`, `torch.nn.functional.gelu`)
or as an `nn` module class called on a tensor (`torch.nn.GELU`); `effect` says in one word what
it does to contiguity, `transfer` names the function of the static model that computes it
exactly (`contiglint/layout/model/op_transfers.py` maps the name to the function in
`views.py`/`transfer.py`),
`view` whether the result always shares the input's memory. Facts that belong to single
spellings are the sets of spellings.py (copies-if-needed, keeps rank or shape, joins, moves).

Checked when imported: no spelling appears twice (the first row would silently win), every
spelling named by a per-spelling fact is a spelling of an entry. The table test
(tests/test_op_table.py) runs every entry under torch; `tests/test_catalogue.py` checks the
catalogue against torch's own list of ops (docs/layout-facts.md says what was measured).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Optional

from contiglint.catalogue.spellings import (  # noqa: F401 (read as ops.X)
    COPIES_IF_NEEDED,
    LAYOUT_COPIES,
    SHAPE_CHANGING,
    LAYOUT_COPY_FUNCTIONS,
    DEVICE_MOVES,
    SHAPE_ARGUMENTS,
    SIZES_BY_NAME,
    PAIR_FIELDS,
    SIZE_LISTS,
    CONSTRUCTOR_SIZES,
    KEEPS_RANK,
    KEEPS_SHAPE,
    TARGET_LEADS,
    JOINS,
    PAD_SEQUENCE,
)

Effect = Literal["breaks", "restores", "preserves", "depends", "unknown", "not-a-tensor"]


@dataclass(frozen=True)
class Entry:
    methods: tuple[str, ...]  # Tensor methods, and the attributes named in ATTRIBUTES
    functions: tuple[str, ...]  # qualified functions
    effect: Effect
    transfer: str  # the layout model's function for it (layout/model/op_transfers.py TRANSFERS)
    modules: tuple[str, ...] = ()  # nn.Module classes whose call applies this op
    untested: str = ""  # why the table test cannot execute this entry, if it cannot
    view: bool = False  # the result is always a view of the input (or the input itself)

    @property
    def spellings(self) -> tuple[str, ...]:
        return self.methods + self.functions + self.modules


T, F, NN = "torch.", "torch.nn.functional.", "torch.nn."


def _fn(*names: str) -> tuple[str, ...]:
    return tuple(T + n for n in names)


def _f(*names: str) -> tuple[str, ...]:
    return tuple(F + n for n in names)


def _nn(*names: str) -> tuple[str, ...]:
    return tuple(NN + n for n in names)


TABLE: tuple[Entry, ...] = (
    # --- permutations: dense, non-contiguous views ------------------------------------------
    Entry(("transpose", "swapaxes", "swapdims"), _fn("transpose", "swapaxes", "swapdims"),
          "breaks", "transpose", view=True),
    Entry(("t",), _fn("t"), "breaks", "t", view=True),
    Entry(("T",), (), "breaks", "t", view=True),
    Entry(("mT", "mH", "adjoint"), _fn("adjoint"), "breaks", "matrix_transpose", view=True),
    Entry(("H",), (), "breaks", "t", view=True),  # 2-D only: the conjugate transpose (conj bit)
    Entry(("permute",), _fn("permute"), "breaks", "permute", view=True),
    Entry(("movedim", "moveaxis"), _fn("movedim", "moveaxis"), "breaks", "movedim", view=True),
    # --- slicing views ------------------------------------------------------------------------
    Entry(("narrow",), _fn("narrow"), "breaks", "narrow", view=True),
    Entry(("select",), _fn("select"), "breaks", "select", view=True),
    Entry(("unbind",), _fn("unbind"), "breaks", "unbind", view=True),
    Entry(("split", "chunk", "tensor_split", "split_with_sizes", "hsplit", "vsplit", "dsplit"),
          _fn("split", "chunk", "tensor_split", "split_with_sizes", "hsplit", "vsplit", "dsplit"),
          "breaks", "split", view=True),
    Entry(("diagonal",), _fn("diagonal"), "breaks", "diagonal", view=True),
    Entry(("real", "imag"), _fn("real", "imag"), "breaks", "real_part",
          view=True),  # complex inputs
    Entry((), _fn("view_as_real"), "preserves", "view_as_real", view=True),
    Entry((), _fn("view_as_complex"), "preserves", "view_as_complex", view=True),
    Entry(("indices", "values", "crow_indices", "col_indices"), (), "restores", "sparse_part"),
    # --- overlapping views -------------------------------------------------------------------
    Entry(("expand",), (), "breaks", "expand", view=True),
    Entry(("expand_as",), (), "breaks", "expand_as", view=True),
    Entry((), _fn("broadcast_to"), "breaks", "expand", view=True),
    Entry((), _fn("broadcast_tensors", "meshgrid"), "breaks", "expand_tensors", view=True),
    Entry(("unfold",), (), "breaks", "unfold", view=True),
    Entry(("as_strided",), _fn("as_strided"), "depends", "as_strided", view=True),
    # --- views that follow their input ---------------------------------------------------------
    Entry(("unsqueeze",), _fn("unsqueeze"), "preserves", "unsqueeze", view=True),
    Entry(("squeeze",), _fn("squeeze"), "preserves", "squeeze", view=True),
    Entry(("view",), (), "depends", "view", view=True),
    Entry(("view_as",), (), "depends", "view_as", view=True),
    Entry(("reshape",), _fn("reshape"), "depends", "reshape"),
    Entry(("reshape_as",), (), "depends", "reshape_as"),
    Entry(("flatten",), _fn("flatten"), "depends", "flatten", modules=_nn("Flatten")),
    Entry(("unflatten",), _fn("unflatten"), "depends", "unflatten", view=True),
    Entry(("detach", "requires_grad_", "data", "detach_", "positive", "conj"),
          _fn("detach", "positive", "conj"), "preserves", "identity",
          view=True),  # measured: x.conj() is x
    Entry((), _fn("fft.fft", "fft.ifft", "fft.rfft", "fft.irfft", "fft.hfft", "fft.ihfft"),
          "unknown", "fft"),
    Entry(("resolve_conj", "resolve_neg"), _fn("resolve_conj", "resolve_neg"), "preserves",
          "resolve"),
    # --- new tensors in the input's layout (preserve_format) ----------------------------------
    Entry(("clone",), _fn("clone"), "preserves", "clone"),
    Entry(("to", "cuda", "cpu", "float", "double", "half", "bfloat16", "int", "long", "short",
           "bool", "byte", "char", "type", "type_as", "pin_memory", "xpu", "conj_physical"),
          (), "preserves", "convert"),
    Entry(("flip", "fliplr", "flipud", "msort", "argsort"),
          _fn("flip", "fliplr", "flipud", "argsort"),
          "preserves", "preserve"),
    Entry((), _fn("sort"), "preserves", "sort"),
    Entry(("abs", "neg", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
           "sigmoid", "tanh", "relu", "sin", "cos", "tan", "sign", "sgn", "round", "floor", "ceil",
           "trunc", "frac", "reciprocal", "square", "clamp", "clip", "clamp_min", "clamp_max",
           "nan_to_num", "erf", "erfinv", "logit", "isnan", "isinf", "isfinite", "logical_not",
           "bitwise_not", "angle", "digamma", "lgamma",
           "sinh", "cosh", "asin", "acos", "atan"),
          _fn("abs", "neg", "exp", "log", "sqrt", "rsqrt", "sigmoid", "tanh", "relu", "sin", "cos",
              "sign", "round", "floor", "ceil", "reciprocal", "square", "clamp", "clip",
              "nan_to_num", "erf", "isnan", "logical_not"),
          "preserves", "pointwise"),
    Entry(("add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow",
           "maximum", "minimum", "fmax", "fmin", "atan2", "lerp", "addcmul", "addcdiv", "eq", "ne",
           "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "bitwise_and",
           "bitwise_or", "bitwise_xor", "hypot", "copysign", "xlogy", "subtract",
           "multiply", "divide"),
          _fn("add", "sub", "mul", "div", "true_divide", "pow", "maximum", "minimum", "atan2",
              "lerp", "addcmul", "addcdiv", "eq", "ne", "lt", "le", "gt", "ge", "logical_and",
              "logical_or", "remainder", "fmod", "subtract", "multiply", "divide", "rsub"),
          "preserves", "elementwise"),
    Entry((), _fn("where"), "preserves", "elementwise"),
    Entry(("where",), (), "preserves", "where_method"),
    Entry((), _f("relu", "relu6", "gelu", "silu", "mish", "elu", "selu", "celu", "leaky_relu",
                 "hardtanh", "hardswish", "hardsigmoid", "sigmoid", "tanh", "softplus",
                 "softsign", "tanhshrink", "normalize", "threshold"),
          "preserves", "preserve",
          modules=_nn("ReLU", "ReLU6", "GELU", "SiLU", "Mish", "ELU", "SELU", "CELU", "LeakyReLU",
                      "Hardtanh", "Hardswish", "Hardsigmoid", "Sigmoid", "Tanh", "Softplus",
                      "Softsign", "Tanhshrink", "Threshold")),
    Entry((), _f("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
                 "feature_alpha_dropout"), "preserves", "dropout",
          modules=_nn("Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout")),
    Entry((), (), "preserves", "identity", modules=_nn("Identity")),
    Entry((), _f("glu"), "preserves",  # halves a dim: the input's layout, other sizes
          "glu"),
    Entry((), _fn("zeros_like", "ones_like", "empty_like", "rand_like", "randn_like", "full_like",
                  "randint_like"), "preserves", "preserve"),
    Entry((), _f("scaled_dot_product_attention"), "depends", "attention"),  # shapes.py
    # einops: a reshape, a permute and a reshape, as its torch backend runs them
    Entry((), ("einops.rearrange",), "depends", "rearrange"),  # einops_transfers.py
    Entry((), _fn("einsum"), "depends", "einsum"),
    # --- always contiguous: copies and fresh allocations -------------------------------------
    Entry(("contiguous",), (), "restores", "contiguous"),
    Entry(("roll", "repeat", "tile", "repeat_interleave", "index_select", "gather", "masked_select",
           "take", "take_along_dim", "masked_fill", "masked_scatter", "index_add", "index_copy",
           "scatter", "scatter_add", "tril", "triu", "cumsum",
           "cumprod", "softmax", "log_softmax", "new_tensor",
           "outer", "cross", "kron"),
          _fn("roll", "tile", "repeat_interleave", "index_select", "gather", "masked_select",
              "take",
              "take_along_dim", "tril", "triu", "cumsum", "cumprod", "softmax",
              "log_softmax", "outer", "kron", "masked_fill", "cdist"),
          "restores", "fresh_copy"),
    # clone() then index_fill_: the input's dense layout (measured on transposed and
    # channels_last inputs; index_add/index_copy/scatter/masked_fill return contiguous)
    Entry(("index_fill",), _fn("index_fill"), "preserves", "preserve"),
    Entry(("nonzero",), _fn("nonzero"), "breaks", "nonzero"),
    Entry(("matmul", "mm", "bmm", "mv", "dot", "baddbmm", "addmm", "addbmm", "inner"),
          _fn("matmul", "mm", "bmm", "mv", "dot", "baddbmm", "addmm", "inner", "tensordot"),
          "restores", "matmul"),  # shapes: catalogue/shapes.py MATMUL
    Entry((), _f("linear", "bilinear", "softmax", "log_softmax", "softmin", "layer_norm",
                 "rrelu", "one_hot", "fold", "cross_entropy",
                 "mse_loss",
                 "l1_loss", "nll_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
                 "cosine_similarity", "pairwise_distance", "kl_div", "smooth_l1_loss",
                 "huber_loss", "gumbel_softmax", "grid_sample", "affine_grid", "instance_norm"),
          "restores", "fresh_copy",  # measured: instance_norm is contiguous on any input,
          # channels_last included
          modules=_nn("Linear", "Bilinear", "LazyLinear", "Softmax", "LogSoftmax", "LayerNorm",
                      "Fold", "CrossEntropyLoss", "MSELoss",
                      "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d")),
    # contiguous on the CPU, the input's dense layout on CUDA (shapes.DEVICE_LAYOUTS)
    Entry((), _f("logsigmoid"), "depends", "device_layout", modules=_nn("LogSigmoid")),
    Entry((), _f("embedding"), "restores", "embedding", modules=_nn("Embedding")),
    Entry((), _f("unfold"), "restores", "im2col", modules=_nn("Unfold")),
    Entry((), _f("interpolate", "upsample"), "depends", "interpolate", modules=_nn("Upsample")),
    Entry((), ("torch.nn.utils.rnn.pad_packed_sequence",), "depends", "pad_packed",
          untested="a PackedSequence input: tests/test_shape_sources.py runs it"),
    Entry((), _f("rms_norm", "local_response_norm"), "depends", "composite_norm",
          modules=_nn("RMSNorm", "LocalResponseNorm")),
    Entry((), _fn("cat", "concat", "concatenate"), "restores", "cat"),
    Entry((), _fn("stack", "hstack", "vstack", "dstack", "column_stack", "row_stack"), "restores",
          "stack"),
    Entry(("sum", "mean", "prod", "amax", "amin", "norm", "argmax", "argmin", "std",
           "var", "logsumexp", "all", "any", "nansum", "nanmean", "count_nonzero"),
          _fn("sum", "mean", "prod", "amax", "amin", "norm", "argmax", "argmin",
              "std", "var", "logsumexp", "all", "any", "count_nonzero"),
          "restores", "reduction"),
    Entry(("new_zeros", "new_ones", "new_empty", "new_full"), (), "restores", "factory"),
    Entry((), _fn("zeros", "ones", "empty", "rand", "randn"), "restores",
          "function_factory",
          untested="factories: sizes from literal arguments; executed by the factory cases"),
    Entry((), _fn("full", "randint"), "restores", "sized_factory",
          untested="factories: the size is the tuple argument; executed by the factory cases"),
    Entry((), _fn("arange", "linspace", "logspace", "randperm"), "restores", "vector_factory",
          untested="1-D factories whose arguments are values, not sizes"),
    Entry((), _fn("eye", "tril_indices", "triu_indices"), "restores", "matrix_factory",
          untested="2-D factories whose arguments are values, not sizes"),
    Entry((), _fn("Tensor", "FloatTensor", "LongTensor", "IntTensor", "BoolTensor",
                  "scalar_tensor"), "restores", "fresh",
          untested="legacy constructors copy their data into a new contiguous tensor"),
    Entry((), _fn("polar", "complex"), "preserves", "elementwise"),
    Entry((), _fn("bernoulli", "multinomial", "normal", "poisson"), "unknown", "sampling",
          untested="sampling ops; layout follows arguments the model does not track"),
    Entry((), _fn("tensor", "as_tensor", "asarray", "from_numpy", "empty_strided"), "depends",
          "from_data", untested="numpy inputs; measured: torch.tensor/as_tensor/from_numpy(a.T) "
                                "keep the array's strides, empty_strided takes them as given"),
    # --- channels_last-aware: contiguous unless the input (or weight) is channels_last -------
    Entry((), _f("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                 "conv_transpose3d"), "depends", "convolution",
          modules=_nn("Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
                      "ConvTranspose3d", "LazyConv2d")),
    Entry((), _f("adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
                 "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d"),
          "depends", "adaptive_pool",
          modules=_nn("AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d",
                      "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d")),
    Entry((), _f("max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
                 "lp_pool2d", "pad",
                 "pixel_shuffle", "pixel_unshuffle", "batch_norm", "group_norm"),
          "depends", "keep_channels_last",
          modules=_nn("MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
                      "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm",
                      "PixelShuffle", "PixelUnshuffle",
                      "ZeroPad2d", "ReflectionPad2d", "ReplicationPad2d", "ConstantPad2d",
                      "SyncBatchNorm")),
    Entry((), (), "depends", "recurrent", modules=_nn("LSTM", "GRU", "RNN"),
          untested="module outputs; measured: batch_first=True gives strides (H, B*H, 1)"),
    Entry((), (), "depends", "encoder", modules=_nn("TransformerEncoderLayer",
                                                    "TransformerEncoder")),
    Entry((), (), "depends", "multihead_attention", modules=_nn("MultiheadAttention"),
          untested="module outputs; measured: batch_first=True gives a transposed output"),
    Entry(("topk", "kthvalue"), _fn("topk", "kthvalue"), "restores",
          "topk"),
    Entry((), _fn("max", "min", "median", "mode"), "restores", "reduction_pair"),
    Entry(("max", "min", "median", "mode"), (), "restores", "reduction_pair"),
    Entry(("sort",), (), "preserves", "sort"),
    Entry((), _fn("stft"), "breaks", "stft",
          untested="signal op; measured: (freq, frames) with strides (1, freq)"),
    # --- not tensors ---------------------------------------------------------------------------
    Entry(("numpy", "tolist", "item", "dim", "ndimension", "numel", "nelement", "element_size",
           "stride", "storage_offset", "is_contiguous", "data_ptr", "get_device", "retain_grad",
           "untyped_storage"),
          (), "not-a-tensor", "not_tensor",
          untested="returns no tensor"),
)


# Tensor attributes among the methods above (`x.T`, `x.real`): read without a call
ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag", "data"})

# Tensor attributes that are not tensors
NOT_TENSOR_ATTRIBUTES = frozenset({
    "device", "dtype", "ndim", "is_cuda", "requires_grad", "is_leaf", "layout", "names",
    "itemsize", "nbytes", "is_sparse", "is_quantized", "is_meta", "name", "grad_fn",
    "grad_dtype", "is_cpu", "is_ipu", "is_maia", "is_mkldnn", "is_mps", "is_mtia", "is_nested",
    "is_sparse_csr", "is_vulkan", "is_xla", "is_xpu", "output_nr", "retains_grad", "volatile"})
GRADIENT = "grad"  # `x.grad`: another tensor, of unknown layout

# torch functions (by short name) that return no tensor, besides the `is_...` predicates
NOT_TENSOR_FUNCTIONS = frozenset({"numel", "get_rank", "get_world_size"})
# nn.Module methods that return the module itself (`model.to(device)`, `model.eval()`)
MODULE_RETURNS_SELF = frozenset({"to", "cuda", "cpu", "train", "eval", "float", "half",
                                 "requires_grad_"})
# Tensor methods that no other common type has (`str.split` exists, so `split` is not one)
TENSOR_ONLY_METHODS = ("narrow", "select", "chunk", "unbind", "tensor_split", "diagonal")
# the sizes: `x.shape`, `x.size()` (the model evaluates them to the tensor's sizes)
SHAPE_QUERIES = frozenset({"shape", "size"})



def runtime_names(names: frozenset[str]) -> frozenset[str]:
    """The runtime tracer's names for ops given by short name: `Tensor.<name>`, and the torch
    function of the same name where it is a layout copy (`torch.reshape`)."""
    return frozenset(f"Tensor.{n}" for n in names) | frozenset(
        f for f in LAYOUT_COPY_FUNCTIONS if short(f) in names)


class CatalogueError(ValueError):
    """The catalogue contradicts itself (raised when it is imported)."""


def _index(entries: tuple[Entry, ...], field: str) -> dict[str, Entry]:
    found: dict[str, Entry] = {}
    for entry in entries:
        for name in getattr(entry, field):
            if name in found:
                raise CatalogueError(f"the {field[:-1]} spelling {name!r} appears twice in the "
                                     f"op catalogue")
            found[name] = entry
    return found


def short(name: str) -> str:
    """`torch.nn.functional.gelu` -> `gelu`; a method name is returned as it is."""
    return name.rsplit(".", 1)[-1]


Index = dict[str, Entry]


def check(entries: tuple[Entry, ...]) -> tuple[Index, Index, Index]:
    """The method, function and module indexes; raises CatalogueError on a spelling listed
    twice, an attribute that is not a method spelling, or a per-spelling fact about an op the
    table does not have."""
    methods, functions, modules = (_index(entries, f)
                                   for f in ("methods", "functions", "modules"))
    if not ATTRIBUTES <= methods.keys():
        raise CatalogueError(f"attributes without an entry: {sorted(ATTRIBUTES - methods.keys())}")
    names = set(methods) | {short(n) for n in functions} | {short(n) for n in modules}
    for fact in ("COPIES_IF_NEEDED", "SHAPE_ARGUMENTS", "KEEPS_RANK", "KEEPS_SHAPE", "JOINS",
                 "TARGET_LEADS", "SIZES_BY_NAME"):
        unknown = globals()[fact] - names - {"ravel", "pad_sequence"}
        if unknown:
            raise CatalogueError(f"{fact} names ops the catalogue lacks: {sorted(unknown)}")
    if not KEEPS_SHAPE <= KEEPS_RANK:
        raise CatalogueError("an op that keeps the shape keeps the rank")
    return methods, functions, modules


METHODS, FUNCTIONS, MODULES = check(TABLE)


def method(name: str) -> Optional[Entry]:
    return METHODS.get(name)


def function(qualname: str) -> Optional[Entry]:
    return FUNCTIONS.get(qualname)


def module(qualname: str) -> Optional[Entry]:
    return MODULES.get(qualname)


# Tensor methods and attributes whose result is always a view of the receiver
VIEW_METHODS = frozenset(name for name, entry in METHODS.items() if entry.view) - ATTRIBUTES
VIEW_ATTRIBUTES = frozenset(name for name, entry in METHODS.items() if entry.view) & ATTRIBUTES
# methods whose result keeps a permuted input's layout: the tensor itself, or a copy in the
# input's dense layout (conversions, clone)
KEEPS_LAYOUT = frozenset(name for name, entry in METHODS.items()
                         if entry.transfer in ("identity", "convert", "clone")) - ATTRIBUTES
