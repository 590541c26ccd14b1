"""Facts about single spellings of torch ops (short names: a method, or a function's last
component), beside the op table of ops.py, which checks each names a spelling it knows:
what copies only where needed, whose arguments are sizes, what keeps the rank or the shape,
what joins tensors."""
from __future__ import annotations

NN = "torch.nn."

# a view when the layout allows one (or the tensor itself when nothing changes), else a copy
COPIES_IF_NEEDED = frozenset({"contiguous", "reshape", "flatten", "to", "float", "half",
                              "double", "bfloat16", "type", "cuda", "cpu", "reshape_as",
                              "ravel"})
# ... of those, the ones whose copy depends on the layout only (not on a dtype or device)
LAYOUT_COPIES = frozenset({"contiguous", "reshape", "reshape_as", "flatten", "ravel"})
# ... and those that may change the shape (a result written back needs `.reshape(x.shape)`)
SHAPE_CHANGING = frozenset({"reshape", "reshape_as", "flatten", "ravel"})
# ... and their spellings as torch functions
LAYOUT_COPY_FUNCTIONS = frozenset({"torch.reshape", "torch.flatten", "torch.ravel"})
DEVICE_MOVES = frozenset({"to", "cuda", "cpu"})
# ops whose arguments are sizes (symbols in them name the receiver's dims)
SHAPE_ARGUMENTS = frozenset({"view", "reshape", "expand", "flatten", "unflatten", "view_as",
                             "reshape_as", "expand_as"})
# methods whose positional arguments are sizes, each of which a name may give (`x.view(B, N, C)`,
# `m.expand(-1, G, E // G)`, `x.new_zeros(B, N)`): the name stands for the size it names
SIZES_BY_NAME = frozenset({"view", "reshape", "expand", "new_zeros", "new_ones", "new_empty"})
# the fields of the `(values, indices)` pairs that max, min, median, mode, kthvalue, topk, sort,
# cummax and cummin return (torch.return_types): `x.max(1).values`
PAIR_FIELDS = {"values": 0, "indices": 1}
# ops with a list of piece sizes (or split indices) among their arguments: `[1, B - 1]`
SIZE_LISTS = frozenset({"split", "split_with_sizes", "tensor_split"})
# nn modules whose first constructor argument the layout model reads, by the name it goes by
# (an adaptive pool's `output_size` is its output's spatial sizes, a pixel shuffle's factor
# divides its channels)
CONSTRUCTOR_SIZES = {
    **{NN + name: "output_size" for name in (
        "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
        "AdaptiveMaxPool2d", "AdaptiveMaxPool3d")},
    NN + "PixelShuffle": "upscale_factor", NN + "PixelUnshuffle": "downscale_factor"}
# fresh results with the input's rank ...
KEEPS_RANK = frozenset({
    "roll", "index_select", "gather", "take_along_dim", "masked_fill", "masked_scatter",
    "index_fill", "index_add", "index_copy", "scatter", "scatter_add", "tril", "triu", "cumsum",
    "cumprod", "softmax", "log_softmax", "softmin", "gumbel_softmax", "layer_norm", "rms_norm",
    "linear", "bilinear", "Linear", "Bilinear", "LazyLinear", "Softmax", "LogSoftmax",
    "LayerNorm", "topk", "cross", "rrelu", "logsigmoid", "LogSigmoid", "instance_norm",
    "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
})
# ... and of those, the ones whose result has the input's very shape (sizes carry through, so a
# size-1 head count or batch still hides a later transpose)
KEEPS_SHAPE = frozenset({
    "roll", "masked_fill", "masked_scatter", "index_fill", "index_add", "index_copy", "scatter",
    "scatter_add", "tril", "triu", "cumsum", "cumprod", "softmax", "log_softmax", "softmin",
    "gumbel_softmax", "layer_norm", "rms_norm", "Softmax", "LogSoftmax", "LayerNorm", "rrelu",
    "logsigmoid", "LogSigmoid", "instance_norm", "InstanceNorm1d", "InstanceNorm2d",
    "InstanceNorm3d",
})
# losses whose `reduction='none'` result follows the target's layout, not the input's
# (measured: the target is the first operand of their elementwise formula)
TARGET_LEADS = frozenset({"binary_cross_entropy_with_logits", "kl_div"})
# functions that join a list of tensors into a fresh one
JOINS = frozenset({"cat", "stack", "concat", "concatenate", "hstack", "vstack", "dstack",
                   "column_stack", "row_stack", "pad_sequence"})
PAD_SEQUENCE = "torch.nn.utils.rnn.pad_sequence"  # a join the layout model does not evaluate
