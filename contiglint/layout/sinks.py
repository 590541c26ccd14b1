"""Sinks: the places where a tensor's layout matters, as the flow pass reports them.

The flow pass emits a `Sink` whenever it evaluates one of the operations in `SPECS`, with the
abstract value of the tensor that reaches it and the call chain that brought it there. Rules
filter sinks by kind; adding a rule never means touching the flow pass, and adding a sink kind
means adding a row here.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterable, Optional

from contiglint.catalogue.collectives import COLLECTIVES
from contiglint.layout.values import Tensor, Value


@dataclass(frozen=True)
class CallSite:
    """A call through which a value entered the function holding the sink."""

    line: int
    column: int
    callee: str


@dataclass(frozen=True)
class Sink:
    kind: str
    node: ast.AST  # the call, subscript or statement where the layout matters
    target: Optional[ast.expr]  # the tensor expression at the sink
    value: Value  # its abstract value
    op: str  # the method or qualified function name
    detail: tuple[tuple[str, object], ...] = ()
    chain: tuple[CallSite, ...] = ()
    loop: Optional[ast.AST] = None  # innermost enclosing loop, in the same function
    loop_invariant: bool = False  # `loop` neither rebinds nor writes into the target (loops.py)
    function: Optional[ast.AST] = None  # enclosing function definition

    @property
    def tensor(self) -> Optional[Tensor]:
        return self.value if isinstance(self.value, Tensor) else None

    def get(self, key: str, default: object = None) -> object:
        return dict(self.detail).get(key, default)


@dataclass(frozen=True)
class SinkSpec:
    """Which operations are sinks of a kind, and which argument is the tensor that matters."""

    kind: str
    methods: tuple[str, ...] = ()  # Tensor methods: the receiver is the tensor
    functions: tuple[str, ...] = ()  # qualified functions: `argument` is the tensor
    argument: int = 0
    keyword: str = ""
    tokens: tuple[str, ...] = field(default=())  # substrings that a file holding one contains


_DIST = "torch.distributed."
_COLLECTIVES = tuple(COLLECTIVES)  # catalogue/collectives.py

SPECS: tuple[SinkSpec, ...] = (
    SinkSpec("view", methods=("view", "view_as"), tokens=(".view",)),
    SinkSpec("raw_memory", methods=("data_ptr", "untyped_storage", "storage", "_storage"),
             tokens=("data_ptr", "storage")),
    SinkSpec("kernel_launch", tokens=("triton", "[grid]", "](")),
    SinkSpec("buffer", methods=("register_buffer",), argument=1, keyword="tensor",
             tokens=("register_buffer",)),
    SinkSpec("parameter", functions=("torch.nn.Parameter", "torch.nn.parameter.Parameter",
                                     "torch.nn.Buffer", "torch.nn.parameter.Buffer"),
             keyword="data", tokens=("Parameter", "Buffer")),
    SinkSpec("device_move", methods=("to", "cuda", "cpu"), tokens=(".to(", ".cuda(", ".cpu(")),
    SinkSpec("trace", functions=("torch.jit.trace", "torch.jit.trace_module", "torch.onnx.export",
                                 "torch.export.export", "torch.jit._trace.trace"),
             argument=1, keyword="example_inputs", tokens=("trace", "export")),
    SinkSpec("layout_branch", tokens=("is_contiguous", "stride(")),
    SinkSpec("collective", functions=tuple(_DIST + n for n in _COLLECTIVES),
             tokens=("distributed", "dist.", "all_reduce", "broadcast", "send", "recv",
                     "scatter", "gather")),
    SinkSpec("inplace", tokens=("_(", "=")),
    SinkSpec("contiguous_call", methods=("contiguous",), tokens=(".contiguous(",)),
    SinkSpec("save", functions=("torch.save",), tokens=("save",)),
    SinkSpec("escape", tokens=("return", "self.", "append", "yield")),
    SinkSpec("from_numpy", functions=("torch.from_numpy",), tokens=("from_numpy",)),
    SinkSpec("contract", tokens=("import",)),  # calls with a contract (contract_sinks.py)
)

BY_KIND = {spec.kind: spec for spec in SPECS}
METHOD_SINKS: dict[str, list[SinkSpec]] = {}
FUNCTION_SINKS: dict[str, list[SinkSpec]] = {}
for _spec in SPECS:
    for _name in _spec.methods:
        METHOD_SINKS.setdefault(_name, []).append(_spec)
    for _name in _spec.functions:
        FUNCTION_SINKS.setdefault(_name, []).append(_spec)

INPLACE_EXEMPT = frozenset({"requires_grad_", "retain_grad", "share_memory_", "detach_",
                            "record_stream", "set_", "resize_", "grad_", "register_hook",
                            "pin_memory_", "rename_", "refine_names_"})


# The in-place methods of torch.Tensor (torch 2.13 `dir(torch.Tensor)`, less INPLACE_EXEMPT):
# other objects have methods ending in `_` too (`TensorDict.lock_()`, `.rename_key_()`), and a
# method call on an object of unknown type is an in-place tensor write only by one of these.
TENSOR_INPLACE_METHODS = frozenset({
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


def is_inplace_method(name: str) -> bool:
    """`x.name()` writes into the tensor `x`."""
    return name in TENSOR_INPLACE_METHODS


def is_inplace_function(name: str) -> bool:
    """`f.name(x, ...)` writes into its first argument (`torch.relu_`, `nn.init.normal_`)."""
    return name.endswith("_") and not name.startswith("_") and name not in INPLACE_EXEMPT


def tokens_for(kinds: Iterable[str]) -> frozenset[str]:
    return frozenset(token for kind in kinds for token in BY_KIND[kind].tokens)
