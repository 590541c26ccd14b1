"""Sinks: the ops where a tensor's layout matters, and which argument is the tensor there.

One row per sink kind. `methods` are Tensor methods (the receiver is the tensor), `functions`
qualified functions (`argument`/`keyword` is the tensor), `runtime` the names under which the
runtime tracer reports the same ops (by default `Tensor.<method>` and the functions), so that
the static pass (layout/sinks/records.py), the verifier (verify/op_kinds.py) and the runtime watcher
(runtime/hazards.py) read one list. `tokens` are substrings a file holding such a sink
contains (a cheap pre-filter for rules).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from contiglint.catalogue import ops
from contiglint.catalogue.collectives import COLLECTIVES

DISTRIBUTED = "torch.distributed."
LAYOUT_QUERIES = ("is_contiguous", "stride")  # Tensor methods a layout branch tests
REGISTRATIONS = ("register_buffer", "register_parameter")  # nn.Module methods that keep state
# methods that hand the tensor's memory to another library: raw memory where the result is read
# as a buffer (the flow pass tells those uses apart)
BUFFER_EXPORTS = ("numpy",)
# attributes of an exported array that hand out its raw memory: `x.numpy().ctypes` is a
# raw_memory sink (`x.numpy()` alone is not: its array keeps the strides)
BUFFER_VIEWS = ("ctypes", "__array_interface__")


@dataclass(frozen=True)
class SinkSpec:
    """Which operations are sinks of a kind, and which argument is the tensor that matters."""

    kind: str
    methods: tuple[str, ...] = ()  # Tensor methods: the receiver is the tensor
    functions: tuple[str, ...] = ()  # qualified functions: `argument` is the tensor
    argument: int = 0
    keyword: str = ""
    tokens: tuple[str, ...] = field(default=())  # substrings that a file holding one contains
    runtime_names: tuple[str, ...] = ()  # the runtime tracer's names, where not the default

    @property
    def runtime(self) -> frozenset[str]:
        """The op names the runtime tracer reports for this sink's ops."""
        return frozenset(self.runtime_names or (
            tuple(f"Tensor.{m}" for m in self.methods) + self.functions))


SPECS: tuple[SinkSpec, ...] = (
    SinkSpec("view", methods=("view", "view_as"), tokens=(".view",)),
    SinkSpec("raw_memory", methods=("data_ptr", "untyped_storage", "storage", "_storage"),
             tokens=("data_ptr", "storage") + BUFFER_VIEWS),
    SinkSpec("kernel_launch", tokens=("triton", "[grid]", "](")),
    SinkSpec("buffer", methods=REGISTRATIONS[:1], argument=1, keyword="tensor",
             tokens=("register_buffer",), runtime_names=("nn.Module.register_buffer",)),
    SinkSpec("parameter", functions=("torch.nn.Parameter", "torch.nn.parameter.Parameter",
                                     "torch.nn.Buffer", "torch.nn.parameter.Buffer"),
             keyword="data", tokens=("Parameter", "Buffer"), runtime_names=("nn.Parameter",)),
    SinkSpec("device_move", methods=tuple(sorted(ops.DEVICE_MOVES)),
             tokens=(".to(", ".cuda(", ".cpu(")),
    SinkSpec("trace", functions=("torch.jit.trace", "torch.jit.trace_module", "torch.onnx.export",
                                 "torch.export.export", "torch.jit._trace.trace"),
             argument=1, keyword="example_inputs", tokens=("trace", "export")),
    SinkSpec("layout_branch", tokens=("is_contiguous", "stride("),
             runtime_names=tuple(f"Tensor.{m}" for m in LAYOUT_QUERIES)),
    # a collective's qualified name goes through `torch.distributed`, which the code spells
    # (`import torch.distributed as dist`, `from torch.distributed import all_reduce`)
    SinkSpec("collective", functions=tuple(DISTRIBUTED + n for n in COLLECTIVES),
             tokens=("distributed",)),
    SinkSpec("inplace", tokens=("_(", "=")),
    SinkSpec("contiguous_call", methods=("contiguous",), tokens=(".contiguous(",)),
    SinkSpec("save", functions=("torch.save",), tokens=("save",)),
    SinkSpec("escape", tokens=("return", "self.", "append", "yield")),
    SinkSpec("from_numpy", functions=("torch.from_numpy",), tokens=("from_numpy",)),
    SinkSpec("contract", tokens=("import",)),  # calls with a contract (contract_sinks.py)
)
BY_KIND = {spec.kind: spec for spec in SPECS}


def runtime(kind: str) -> frozenset[str]:
    return BY_KIND[kind].runtime


def function_names(kind: str) -> frozenset[str]:
    """The last parts of the qualified names of a sink kind's functions (`all_reduce`), which
    any call of one names."""
    return frozenset(name.rsplit(".", 1)[-1] for name in BY_KIND[kind].functions)


TRACERS = frozenset(BY_KIND["trace"].functions)
JIT_TRACERS = frozenset(n for n in TRACERS if n.startswith("torch.jit."))  # take a module too
# Tensor methods that need the NCHW (default contiguous) layout to mean what the code expects
NEEDS_NCHW = frozenset(BY_KIND["view"].methods + BY_KIND["raw_memory"].methods + BUFFER_EXPORTS)
