"""In-place ops: which Tensor methods write into their tensor, and how.

`inplace_kind(op)` is the one answer, for a static method name (`add_`), a runtime op name
(`Tensor.add_`) or a qualified function (`torch.relu_`, `torch.nn.init.normal_`):

* "data": the op writes the tensor's elements (`add_`, `copy_`, `x[i] = v`, `x += y`);
* "metadata": it changes the tensor's sizes or strides in place and writes no element
  (`transpose_`, `unsqueeze_`, `as_strided_`);
* None: not an in-place op, or one that changes neither elements nor layout (`requires_grad_`,
  `share_memory_`, `set_`, `resize_`: flags, storage swaps).
"""
from __future__ import annotations

from typing import Optional

# `_`-methods of torch.Tensor that are not writes of the tensor's elements or layout
NOT_WRITES = frozenset({"requires_grad_", "retain_grad", "share_memory_", "detach_",
                        "record_stream", "set_", "resize_", "grad_", "register_hook",
                        "pin_memory_", "rename_", "refine_names_"})
METADATA_ONLY = frozenset({"unsqueeze_", "squeeze_", "transpose_", "t_", "swapaxes_",
                           "swapdims_", "as_strided_"})
# in-place methods after which the tensor has other sizes, or its sizes in another order
SIZE_CHANGING = METADATA_ONLY | {"resize_", "resize_as_", "set_"}
FILLS = frozenset({"fill_", "zero_"})  # write a value into every element, with no error
DEPRECATED_WRITES = frozenset({"masked_fill_", "index_put_", "index_fill_"})  # warn, then write
DUNDERS = frozenset({
    "__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__",
    "__imod__", "__ipow__", "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__",
    "__imatmul__"})

# The in-place methods of torch.Tensor (torch 2.13 `dir(torch.Tensor)`, less NOT_WRITES):
# other objects have methods ending in `_` too (`TensorDict.lock_()`, `.rename_key_()`), and a
# method call on an object of unknown type is an in-place tensor write only by one of these.
TENSOR_METHODS = frozenset({
    "abs_", "absolute_", "acos_", "acosh_", "add_", "addbmm_", "addcdiv_", "addcmul_", "addmm_",
    "addmv_", "addr_", "apply_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan2_",
    "arctan_", "arctanh_", "as_strided_", "asin_", "asinh_", "atan2_", "atan_", "atanh_",
    "baddbmm_", "bernoulli_", "bitwise_and_", "bitwise_left_shift_", "bitwise_not_",
    "bitwise_or_", "bitwise_right_shift_", "bitwise_xor_", "cauchy_", "ceil_", "clamp_",
    "clamp_max_", "clamp_min_", "clip_", "conj_physical_", "copy_", "copysign_", "cos_",
    "cosh_", "cumprod_", "cumsum_", "deg2rad_", "digamma_", "div_", "divide_", "eq_", "erf_",
    "erfc_", "erfinv_", "exp2_", "exp_", "expm1_", "exponential_", "fill_", "fill_diagonal_",
    "fix_", "float_power_", "floor_", "floor_divide_", "fmod_", "frac_", "gcd_", "ge_",
    "geometric_", "greater_", "greater_equal_", "gt_", "heaviside_", "hypot_", "i0_", "igamma_",
    "igammac_", "index_add_", "index_copy_", "index_fill_", "index_put_", "index_reduce_",
    "lcm_", "ldexp_", "le_", "lerp_", "less_", "less_equal_", "lgamma_", "log10_", "log1p_",
    "log2_", "log_", "log_normal_", "logical_and_", "logical_not_", "logical_or_",
    "logical_xor_", "logit_", "lt_", "map2_", "map_", "masked_fill_", "masked_scatter_", "mul_",
    "multiply_", "mvlgamma_", "nan_to_num_", "ne_", "neg_", "negative_", "nextafter_",
    "normal_", "not_equal_", "polygamma_", "pow_", "put_", "rad2deg_", "random_", "reciprocal_",
    "relu_", "remainder_", "renorm_", "resize_as_", "resize_as_sparse_", "round_", "rsqrt_",
    "scatter_", "scatter_add_", "scatter_reduce_", "sgn_", "sigmoid_", "sign_", "sin_", "sinc_",
    "sinh_", "sparse_resize_", "sparse_resize_and_clear_", "sqrt_", "square_", "squeeze_",
    "sub_", "subtract_", "swapaxes_", "swapdims_", "t_", "tan_", "tanh_", "transpose_", "tril_",
    "triu_", "true_divide_", "trunc_", "uniform_", "unsqueeze_", "xlogy_", "zero_"
})

# nn activations (module classes and their torch.nn.functional names) that write into their
# input when built or called with `inplace=True`, in training and eval mode alike (measured:
# each raises on an expanded input). Dropouts write only in training mode; Threshold and
# AlphaDropout did not raise there: not listed.
INPLACE_ACTIVATIONS = frozenset({
    "CELU", "ELU", "Hardsigmoid", "Hardswish", "Hardtanh", "LeakyReLU", "Mish", "RReLU",
    "ReLU", "ReLU6", "SELU", "SiLU", "celu", "elu", "hardsigmoid", "hardswish", "hardtanh",
    "leaky_relu", "mish", "rrelu", "relu", "relu6", "selu", "silu"})


def inplace_kind(op: str) -> Optional[str]:
    """"data", "metadata" or None (see the module docstring). A bare name or `Tensor.name` is
    a Tensor method; any other dotted name is a function, which writes its first argument
    when its name ends in `_` (`torch.relu_`, `nn.init.normal_`)."""
    owner, _, name = op.rpartition(".")
    if owner in ("", "Tensor"):
        if name in DUNDERS:
            return "data"
        if name not in TENSOR_METHODS:
            return None
    elif not named_inplace(name):
        return None
    return "metadata" if name in METADATA_ONLY else "data"


def named_inplace(name: str) -> bool:
    """A function named like an in-place op (`relu_`, `kaiming_normal_`): torch's convention
    for functions that write their first argument."""
    return name.endswith("_") and not name.startswith("_") and name not in NOT_WRITES


def is_inplace(op: str) -> bool:
    """The op changes its tensor in place (its elements or its layout)."""
    return inplace_kind(op) is not None


def writes_data(op: str) -> bool:
    """The op writes its tensor's elements in place."""
    return inplace_kind(op) == "data"
