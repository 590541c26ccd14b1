"""Where the code states shapes: the constructor arguments of nn modules that size their
outputs, the shape annotations of jaxtyping and torchtyping, and the result shapes of library
functions (matrix products, attention, embeddings, unfold, pad_packed_sequence).

Every fact here was measured on torch 2.13 (CPU) and is run against torch on generated sizes by
tests/test_shape_sources.py; the layout model's transfers that apply them are in
`contiglint/layout/model/shape_transfers.py`, `contiglint/layout/model/window_transfers.py` and
`contiglint/layout/flow/nn_modules.py`.
"""
from __future__ import annotations

from typing import Optional

# --- nn module constructors --------------------------------------------------------------------
# the constructor arguments (position, keyword) that size a module's output, by class name:
# `width` is the output's last dim (Linear: out_features; Embedding: embedding_dim;
# MultiheadAttention: embed_dim) or its channels (Conv: out_channels); `heads` is
# MultiheadAttention's num_heads (its per-head weights are (N, heads, L, S)); a Conv's kernel,
# stride, padding and dilation give each spatial output size (CONV_SIZE)
_CONV = ("Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")
MODULE_SIZES: dict[str, dict[str, tuple[int, str]]] = {
    "Linear": {"width": (1, "out_features")},
    "LazyLinear": {"width": (0, "out_features")},
    "Embedding": {"width": (1, "embedding_dim")},
    "MultiheadAttention": {"width": (0, "embed_dim"), "heads": (1, "num_heads")},
    **{name: {"width": (1, "out_channels"), "kernel": (2, "kernel_size"), "stride": (3, "stride"),
              "padding": (4, "padding"), "dilation": (5, "dilation")} for name in _CONV},
    **{"Lazy" + name: {"width": (0, "out_channels")} for name in _CONV},
    **{f"MaxPool{d}d": {"kernel": (0, "kernel_size"), "stride": (1, "stride"),
                        "padding": (2, "padding"), "dilation": (3, "dilation")} for d in "123"},
    **{f"AvgPool{d}d": {"kernel": (0, "kernel_size"), "stride": (1, "stride"),
                        "padding": (2, "padding")} for d in "123"},
}
# max and average pools (functions and modules, by lower-case name without underscores) and
# their spatial dims: the output size is conv_size's (floor mode; ceil_mode=True rounds up), the
# stride the kernel's when not given, the batch and channel dims kept
POOLS = {f"{kind}pool{d}d": int(d) for kind in ("max", "avg") for d in "123"}
# F.pad(x, (left, right, top, bottom, ...)): the pairs pad the last dims, innermost first; each
# grows by its two pads (negative ones cut), in every mode
PAD = "torch.nn.functional.pad"
# the rank a Conv module's batched input and output have (the unbatched input one less)
CONV_RANK = {"1d": 3, "2d": 4, "3d": 5}
CONV_DEFAULTS = {"stride": 1, "padding": 0, "dilation": 1}


def conv_size(size: int, kernel: int, stride: int, padding: int, dilation: int) -> int:
    """A Conv's spatial output size (torch.nn.Conv2d's documented formula)."""
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def conv_keeps_size(kernel: int, stride: int, padding: int, dilation: int) -> bool:
    """Whether every input size gives the same output size (`Conv2d(c, d, 3, padding=1)`)."""
    return stride == 1 and 2 * padding == dilation * (kernel - 1)


def module_argument(name: str, role: str, args: list, kwargs: dict):
    """The constructor argument of module class `name` (its last component) that plays
    `role` ("width", "heads"), or None."""
    where = MODULE_SIZES.get(name, {}).get(role)
    if where is None:
        return None
    position, keyword = where
    return kwargs.get(keyword, args[position] if position < len(args) else None)


# --- torch.matmul and its family: the argument that is the second operand, by name ------------
# shapes (torch.matmul's documented rule, measured): 1-D . 1-D -> (); 2-D . 2-D (n, k)(k, m) ->
# (n, m); 1-D . 2-D -> (m,); 2-D . 1-D -> (n,); with a batch, the batch dims broadcast and
# (..., n, m) follows, a 1-D operand dropping its dim; the result is contiguous.
MATMUL = {"matmul": "other", "mm": "mat2", "bmm": "mat2", "mv": "vec", "dot": "tensor",
          "__matmul__": "other"}

# --- library functions -------------------------------------------------------------------------
# F.scaled_dot_product_attention(q, k, v): q.shape[:-1] + v.shape[-1:]. Contiguous for a
# contiguous q, and for a q whose last dim is not innermost; otherwise backend-dependent (the
# fused kernels return q's dense layout: measured on CPU for 4-D inputs with equal head dims and
# no dropout; the math path returns contiguous).
ATTENTION = "torch.nn.functional.scaled_dot_product_attention"
# Layouts that depend on the device (the op table run with its tensors on CUDA,
# `tests/test_op_table.py --torch-device cuda`, torch 2.11 on an H200, against the CPU): the
# model cannot see the device, so the layout the CPU gives is only possible (`maybe`) there.
#   * F.scaled_dot_product_attention of a permuted float32 query, fused path: the query's dense
#     layout on the CPU, contiguous on CUDA;
#   * nn.ReplicationPad2d (F.pad mode="replicate") and F.pixel_unshuffle (pixel_shuffle, its
#     inverse, taken alike) of a channels_last input: channels_last on the CPU, contiguous on
#     CUDA;
#   * F.logsigmoid / nn.LogSigmoid of a permuted input, and the indices of `sort`: contiguous
#     on the CPU, the input's dense layout on CUDA;
#   * einsum of a product that sums no letter ('ij,ij->ij') of a permuted operand: contiguous
#     on the CPU, the permuted operand's layout on CUDA;
#   * F.batch_norm (nn.BatchNorm*d) of a permuted input that is not channels_last: contiguous
#     on the CPU, the input's dense layout on CUDA.
DEVICE_LAYOUTS = (ATTENTION, "torch.nn.ReplicationPad2d", "torch.nn.functional.pixel_unshuffle",
                  "torch.nn.functional.logsigmoid", "sort", "torch.einsum",
                  "torch.nn.functional.batch_norm")
# F.embedding / nn.Embedding: index.shape + (embedding_dim,), contiguous for any index layout.
EMBEDDING = ("torch.nn.functional.embedding", "torch.nn.Embedding")
# F.unfold / nn.Unfold: (N, C * prod(kernel), L) contiguous for contiguous, channels_last and
# transposed inputs.
UNFOLD = ("torch.nn.functional.unfold", "torch.nn.Unfold")
# pad_packed_sequence: the (T, B, *) buffer, contiguous; batch_first=True: its transpose (B, T, *)
# with strides (H, B * H, 1) for (B, T, H).
PAD_PACKED = "torch.nn.utils.rnn.pad_packed_sequence"
# nn.MultiheadAttention: (L, N, E) contiguous, or batch_first (N, L, E) transposed from (L, N, E)
# except on the eval-mode fast path of self-attention (contiguous); weights (N, L, S), per head
# (N, H, L, S), None with need_weights=False; unbatched (L, E) and (L, S).
MULTIHEAD = "torch.nn.MultiheadAttention"

# --- jaxtyping / torchtyping annotations --------------------------------------------------------
# jaxtyping's dtype wrappers `Float[Tensor, "b n c"]`, and the dtype the exact ones state
JAXTYPING_DTYPES: dict[str, Optional[str]] = {
    **dict.fromkeys(("Shaped", "Float", "Int", "Integer", "UInt", "Num", "Real", "Inexact",
                     "Complex", "Key"), None),
    "Bool": "bool", "Float16": "float16", "BFloat16": "bfloat16", "Float32": "float32",
    "Float64": "float64",
    "Int8": "int8", "Int16": "int16", "Int32": "int32", "Int64": "int64", "UInt8": "uint8",
    "Complex64": "complex64", "Complex128": "complex128",
}
JAXTYPING = "jaxtyping"
TORCHTYPING = "torchtyping.TensorType"
# the array types jaxtyping's wrappers take that are torch tensors
TENSOR_TYPES = frozenset({"torch.Tensor", "torch.nn.Parameter"})
