"""Sinks: the places where a tensor's layout matters, as the flow pass reports them.

The flow pass records a sink whenever it evaluates one of the operations the catalogue's sink
table lists (contiglint/catalogue/sinks.py), with the abstract value of the tensor that reaches
it and the call chain that brought it there. Each sink kind is a record type: the fields every
sink has are on `Sink`, what one kind carries beyond them is a named field of its own class (a
`DeviceMoveSink` says whether the call moves the tensor to another device, a `ContractSink`
which parameter requires what). Rules read the kinds they name; adding a rule never means
touching the flow pass, and adding a sink kind means adding a row to the catalogue and a record
type here.
"""
from __future__ import annotations

import ast
from typing import ClassVar, Iterable, Optional, Union

from contiglint.catalogue.sinks import BY_KIND, SPECS, SinkSpec
from contiglint.layout.syntax.compiled import Kernel
from contiglint.layout.model.frozen import record
from contiglint.layout.model.path_conditions import NO_CONDITIONS, PathConditions
from contiglint.layout.model.values import Tensor, Value
from contiglint.layout.contracts.records import Requirement


@record
class CallSite:
    """A call through which a value entered the function holding the sink."""

    line: int
    column: int
    callee: str
    # the first and last line of the function that makes the call; None at module level
    caller: Optional[tuple[int, int]] = None


@record
class Copy:
    """A copy-if-needed call (`x.contiguous()`, `x.reshape(..)`, `x.to(..)`) on the receiver
    spine of a sink's target, with the value of its receiver `x`: a write into such a temporary
    reaches `x` only when no copy happened, which depends on `x`'s layout."""

    call: ast.Call
    source: Value


@record
class Sink:
    """What every sink carries. `kind` is the catalogue's name of the sink kind."""

    kind: ClassVar[str]
    node: ast.AST  # the call, subscript or statement where the layout matters
    target: Optional[ast.expr]  # the tensor expression at the sink
    value: Value  # its abstract value
    op: str  # the method or qualified function name
    chain: tuple[CallSite, ...] = ()
    loop: Optional[ast.AST] = None  # innermost enclosing loop, in the same function
    loop_invariant: bool = False  # `loop` neither rebinds nor writes into the target (loops.py)
    function: Optional[ast.AST] = None  # enclosing function definition
    copy: Optional[Copy] = None  # the target is (a view of) a copy-if-needed call's result
    # the target is a parameter that the function, analysed in its caller's context, guards
    # (asserts or raises on its layout) before: past the guard it is contiguous (CTG114's)
    guarded_parameter: bool = False
    # the sizes the path rules out (a size a test shows is not 1, a view it ran that would
    # raise): a witness keeps to the others
    path: PathConditions = NO_CONDITIONS

    @property
    def tensor(self) -> Optional[Tensor]:
        return self.value if isinstance(self.value, Tensor) else None


@record(kw_only=True)
class ViewSink(Sink):
    """`x.view(*sizes)`, `x.view_as(y)`, `x.view(dtype)`."""

    kind: ClassVar[str] = "view"
    dtype: Optional[str] = None  # `.view(dtype)`: the dtype the memory is read as
    # `.view(*sizes)`, `.view_as(other)`: the sizes asked for, as `Call.sizes` gives them
    # (size expressions, "-1" for the wildcard); None when they are not known
    sizes: Optional[tuple] = None
    # the text that names the viewed tensor's sizes (`x` of `v.view(...)` where v = x.float():
    # flow/size_aliases.py); None: the target's own
    owner: Optional[str] = None
    # the sizes are those after the tensor's lead, which the view keeps (`x.view(*batch, d)`
    # of a tensor with that lead: reshape_views.with_lead)
    led: bool = False


@record
class RawMemorySink(Sink):
    """`x.data_ptr()`, `x.untyped_storage()`, `x.numpy().ctypes`: the raw memory is read."""

    kind: ClassVar[str] = "raw_memory"


@record(kw_only=True)
class KernelLaunchSink(Sink):
    """A tensor argument of `kernel[grid](...)`, a `@jit` kernel of the module."""

    kind: ClassVar[str] = "kernel_launch"
    kernel: Kernel  # what the kernel's definition shows (parameters, stores, strides)
    parameter: Optional[str]  # the kernel's parameter it binds (None: more arguments)


@record
class BufferSink(Sink):
    """`self.register_buffer(name, tensor)`."""

    kind: ClassVar[str] = "buffer"


@record
class ParameterSink(Sink):
    """`nn.Parameter(tensor)`, `nn.Buffer(tensor)`."""

    kind: ClassVar[str] = "parameter"


@record(kw_only=True)
class DeviceMoveSink(Sink):
    """`x.to(..)`, `x.cuda()`, `x.cpu()` and the other device moves."""

    kind: ClassVar[str] = "device_move"
    device: Optional[bool]  # the call moves to a device (None: cannot tell from the code)
    memory_format: Optional[str]  # the `memory_format=` it asks for, if any


@record
class TraceSink(Sink):
    """The example inputs of `torch.jit.trace`, `torch.onnx.export`, `torch.export.export`."""

    kind: ClassVar[str] = "trace"


@record(kw_only=True)
class LayoutBranchSink(Sink):
    """An `if`/`while` test that queries a layout (`x.is_contiguous()`, `x.stride()`)."""

    kind: ClassVar[str] = "layout_branch"
    traced: Optional[str]  # what `torch.jit.trace` of the enclosing function receives, if it is


@record(kw_only=True)
class CollectiveSink(Sink):
    """An argument of a `torch.distributed` collective."""

    kind: ClassVar[str] = "collective"
    position: Union[int, str]  # the argument's position, or its keyword


@record
class InplaceSink(Sink):
    """An in-place write: `x.add_(..)`, `x[i] = v`, `x += v`, `out=x`."""

    kind: ClassVar[str] = "inplace"


@record(kw_only=True)
class ContiguousCallSink(Sink):
    """`x.contiguous(..)`."""

    kind: ClassVar[str] = "contiguous_call"
    memory_format: Optional[str]  # the `memory_format=` it asks for, if any


@record
class SaveSink(Sink):
    """What `torch.save` writes (and each item of a literal dict, list or tuple it gets)."""

    kind: ClassVar[str] = "save"


@record
class EscapeSink(Sink):
    """A tensor that leaves the function: returned, yielded, stored on `self`, appended."""

    kind: ClassVar[str] = "escape"


@record
class FromNumpySink(Sink):
    """`torch.from_numpy(array)`."""

    kind: ClassVar[str] = "from_numpy"


@record(kw_only=True)
class ContractSink(Sink):
    """A tensor passed to a parameter that a function, custom op or library requires to be
    contiguous (contract_calls.py)."""

    kind: ClassVar[str] = "contract"
    param: str  # the callee's parameter ("" for an extension's unnamed argument)
    requirement: Requirement
    item: bool = False  # the tensor is an item of the container argument


RECORDS: dict[str, type[Sink]] = {cls.kind: cls for cls in (
    ViewSink, RawMemorySink, KernelLaunchSink, BufferSink, ParameterSink, DeviceMoveSink,
    TraceSink, LayoutBranchSink, CollectiveSink, InplaceSink, ContiguousCallSink, SaveSink,
    EscapeSink, FromNumpySink, ContractSink)}
if set(RECORDS) != set(BY_KIND):  # checked when built: one record type per catalogue kind
    raise AssertionError(f"sink kinds without a record type: {sorted(set(BY_KIND) - set(RECORDS))}"
                         f"; record types without a catalogue row: "
                         f"{sorted(set(RECORDS) - set(BY_KIND))}")

METHOD_SINKS: dict[str, list[SinkSpec]] = {}
FUNCTION_SINKS: dict[str, list[SinkSpec]] = {}
for _spec in SPECS:
    for _name in _spec.methods:
        METHOD_SINKS.setdefault(_name, []).append(_spec)
    for _name in _spec.functions:
        FUNCTION_SINKS.setdefault(_name, []).append(_spec)


def tokens_for(kinds: Iterable[str]) -> frozenset[str]:
    return frozenset(token for kind in kinds for token in BY_KIND[kind].tokens)
