"""CTG106: raw memory of a non-contiguous tensor read as if it were in logical order."""
from __future__ import annotations

import ast
from dataclasses import replace
from typing import Iterable, Optional, Union

from contiglint.catalogue import contracts
from contiglint.findings import Fix
from contiglint.layout.sinks.records import KernelLaunchSink, RawMemorySink, Sink
from contiglint.layout.model.sizes import is_one
from contiglint.layout.model.stride_checks import unit_last
from contiglint.layout.model.values import Kind, Tensor
from contiglint.rules import rule_by_code, status
from contiglint.rules.base import Report, Rule, RuleContext
from contiglint.rules.messages import called_from, made_by, related
from contiglint.rules.statements import (
    enclosing_statement, escapes, fresh_name, innermost_statement, one_line, operand,
    parent_of, statement_fix,
)

# uses of a pointer or a storage that never read its elements: identity, alignment, size
IDENTITY_ATTRIBUTES = contracts.IDENTITY_ATTRIBUTES
CONSEQUENCE = {
    Kind.PERMUTED: "its memory order is not its logical order",
    Kind.STRIDED: "a read of numel() elements picks up elements outside the view",
    Kind.BROADCAST: "a read of numel() elements runs past the end of the storage",
}


class RawMemoryOfNonContiguous(Rule):
    """Flags raw-memory access to a non-contiguous tensor, and Triton kernels that get one.

    **What it flags.** `t.data_ptr()`, `t.untyped_storage()`, `t.storage()` and
    `t.numpy().ctypes` on a tensor made non-contiguous by a transpose, permute, slice or
    expand, and such a tensor passed to a `@triton.jit` kernel of the same module that receives
    no strides (no parameter named like `stride`, no `x.stride(...)` in the launch). Also the
    pointer of a temporary copy, `t.contiguous().data_ptr()` on a non-contiguous `t`: the copy
    is freed as soon as `.data_ptr()` returns, so the pointer dangles.

    **Why.** A pointer or a storage knows nothing of strides. Code that reads `numel()`
    elements from `data_ptr()` reads them in memory order: for `t = x.t()` with
    `x = arange(6.).reshape(2, 3)`, ctypes reads `[0, 1, 2, 3, 4, 5]` while `t.flatten()` is
    `[0, 3, 1, 4, 2, 5]`; for a slice it reads elements outside the view, for an expanded tensor
    it reads past the end of the storage. `untyped_storage()` also ignores the storage offset and
    spans the whole base tensor. All of it is silent: no error, wrong numbers.

    **Example.**

        k = key.transpose(-2, -1)
        buf = (ctypes.c_float * k.numel()).from_address(k.data_ptr())  # CTG106

    **Fix.** Bind `k_contig = k.contiguous()` in its own statement and take the pointer of
    that name, which keeps the copy alive while the pointer is used (unsafe: if the pointer is
    used to *write*, the writes go to the copy; for a kernel argument that the kernel stores
    into, the fix also copies the result back with `k.copy_(k_contig)`). Alternatively pass
    the strides to the kernel. The copy lives as long as that name: a local name until the
    function returns (or a loop rebinds it), a global at module level. So no fix is offered
    where the pointer, storage or buffer, or a value made from it, leaves the function:
    `return k.data_ptr()`, a name bound to it that is returned or yielded, stored in an
    attribute, a subscript, a global or a container (`append`, `add`, `update`, ...),
    captured by a nested function or lambda, or accumulated across loop iterations. The fix
    would hand out the pointer of a freed copy; keep the copy alive yourself as long as the
    pointer is used (return or store it with the pointer). Passing the pointer to a call is a
    use, not an escape (a callee that keeps it is beyond what the analysis sees; another
    reason the fix is unsafe).

    **When to ignore.** When the pointer is only used as an identity (aliasing checks, cache
    keys) or the consumer honours strides (DLPack, `__cuda_array_interface__`). Comparisons,
    alignment checks and storage size/identity queries are not flagged.
    """

    code = "CTG106"
    name = "raw-memory-of-noncontiguous"
    summary = "raw pointer, storage or strideless kernel on a non-contiguous tensor"
    sinks = frozenset({"raw_memory", "kernel_launch"})
    fix_safety = "unsafe"

    def check(self, sink: Union[KernelLaunchSink, RawMemorySink],
              ctx: RuleContext) -> Iterable[Report]:
        tensor = sink.tensor
        if sink.guarded_parameter and ctx.settings.is_enabled(
                "CTG114", status(rule_by_code("CTG114"))):
            return  # the function raised before on this layout: CTG114 reports the caller
        if isinstance(sink, KernelLaunchSink):
            if not sink.kernel.triton:
                return
            if passes_strides(sink):
                if own_strides(sink.node, sink.target) == 1 and tensor is not None and \
                        tensor.noncontiguous and rows_mergeable(tensor) is False:
                    yield self.report_partial(sink, tensor, ctx)
                return
            proven, witness = ctx.proven(tensor, path=sink.path)
            if proven:
                yield replace(self.report_kernel(sink, tensor, ctx), witness=witness)
            return
        statement = innermost_statement(sink.node, sink.function, ctx)
        if self.identity_use(sink, statement, ctx):
            return
        proven, witness = ctx.proven(tensor, path=sink.path)
        if proven:
            yield replace(self.report_memory(sink, tensor, ctx), witness=witness)
            return
        if ctx.reportable(tensor):
            return  # no concrete sizes the code shows make it non-contiguous: strict mode
        source = sink.copy.source if sink.copy is not None else None
        if sink.op == "data_ptr" and sink.copy is not None and sink.copy.call is sink.target \
                and isinstance(source, Tensor) and source.noncontiguous:
            message = (f".data_ptr() of a temporary .contiguous() copy of a tensor "
                       f"{made_by(source)}{called_from(sink)}: the copy is freed when "
                       f".data_ptr() returns, so the pointer dangles; keep the copy in a name")
            yield Report(sink.node, message, self.bind_fix(sink, ctx, copy=False),
                         related(sink, source))

    @staticmethod
    def identity_use(sink: Sink, statement: Optional[ast.stmt], ctx: RuleContext) -> bool:
        """`a.data_ptr() == b.data_ptr()`, `t.data_ptr() % 16`, `seen[t.data_ptr()]`,
        `t.untyped_storage().nbytes()`: no element is read."""
        parent = parent_of(sink.node, statement, ctx)
        if isinstance(parent, ast.Compare) or isinstance(parent, ast.BinOp) and \
                isinstance(parent.op, ast.Mod):
            return True
        if isinstance(parent, ast.Subscript) and parent.slice is sink.node:
            return True
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and \
                parent.func.id in ("len", "id", "hash", "hex"):
            return True
        return isinstance(parent, ast.Attribute) and parent.attr in IDENTITY_ATTRIBUTES

    def report_memory(self, sink: Sink, tensor: Tensor, ctx: RuleContext) -> Report:
        extra = "; the storage spans the whole base tensor" if "storage" in sink.op else ""
        message = (f"`{sink.op}` of a tensor {self.describe(tensor)}{called_from(sink)}: "
                   f"{self.consequence(tensor)}{extra}; use a .contiguous() copy kept in a name")
        return Report(sink.node, message, self.bind_fix(sink, ctx, copy=True),
                      related(sink, tensor))

    @staticmethod
    def consequence(tensor: Tensor) -> str:
        return CONSEQUENCE.get(tensor.kind, "if it is not contiguous, its elements are not "
                                            "stored in logical order")

    def report_kernel(self, sink: KernelLaunchSink, tensor: Tensor, ctx: RuleContext) -> Report:
        consequence = self.consequence(tensor)
        parameter = sink.parameter
        message = (f"Triton kernel `{sink.op}` takes no strides, but its argument "
                   f"{f'`{parameter}` ' if parameter else ''}is a tensor "
                   f"{self.describe(tensor)}{called_from(sink)}: {consequence}")
        return Report(sink.target, message, self.bind_fix(sink, ctx, copy=True,
                                                          back=parameter in sink.kernel.written),
                      related(sink, tensor))

    def report_partial(self, sink: KernelLaunchSink, tensor: Tensor, ctx: RuleContext) -> Report:
        parameter = sink.parameter
        message = (f"Triton kernel `{sink.op}` gets one stride of "
                   f"{f'`{parameter}`' if parameter else 'its argument'}, so it walks the tensor "
                   f"as evenly spaced dense rows, but the tensor is {made_by(tensor)}"
                   f"{called_from(sink)}: its rows are not evenly spaced (or its last dim is not "
                   f"unit-stride); pass .contiguous() kept in a name, or all its strides")
        return Report(sink.target, message, self.bind_fix(sink, ctx, copy=True,
                                                          back=parameter in sink.kernel.written),
                      related(sink, tensor))

    @staticmethod
    def describe(tensor: Tensor) -> str:
        return made_by(tensor) if tensor.noncontiguous else "of unknown layout"

    @staticmethod
    def bind_fix(sink: Sink, ctx: RuleContext, copy: bool, back: bool = False) -> Optional[Fix]:
        """`k_contig = k.contiguous()` before the statement; the sink reads `k_contig`."""
        target = sink.target
        if target is None:
            return None
        statement = enclosing_statement(sink.node, sink.function, ctx, simple=back)
        if statement is None or back and not isinstance(statement, ast.Expr):
            return None
        if isinstance(sink, RawMemorySink) and escapes(sink.node, sink.function, ctx):
            return None  # the copy would be freed on return while the pointer is in use
        text = operand(ctx, target) + (".contiguous()" if copy else "")
        name = fresh_name(ctx, target, "contig")
        after = (f"{operand(ctx, target)}.copy_({name})",) if back else ()
        return statement_fix(ctx, f"take the memory of `{name} = {one_line(text)}`", statement,
                             before=(f"{name} = {text}",), after=after,
                             replace=((target, name),), lock=sink.function)


def rows_mergeable(tensor: Tensor) -> "bool | None":
    """Whether the tensor is a stack of evenly spaced dense rows (what a kernel given one row
    stride assumes): unit-stride last dim, and all leading dims mergeable into one, as
    `x.view(-1, x.shape[-1])` needs. None when the geometry is unknown."""
    geometry = tensor.geometry
    if geometry is None:
        return None
    axes = [a for a in geometry.axes if not is_one(a.size)]
    if unit_last(tensor) is not True:
        return unit_last(tensor)
    for outer, inner in zip(axes[:-2], axes[1:-1]):
        joined = geometry.joinable(outer, inner)
        if joined is not True:
            return joined
    return True


def passes_strides(sink: KernelLaunchSink) -> bool:
    """The kernel takes strides (a parameter is named like one), or the launch passes some."""
    return sink.kernel.takes_strides or any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and
        n.func.attr == "stride" for a in sink.node.args for n in ast.walk(a))


def own_strides(launch: ast.Call, argument: ast.expr) -> int:
    """How many of `argument`'s strides a kernel launch passes (`x.stride(0)`: 1; `*x.stride()`
    counts as all of them, returned as a large number)."""
    if not isinstance(argument, ast.Name):
        return 0
    count = 0
    for item in list(launch.args) + [k.value for k in launch.keywords]:
        for node in ast.walk(item):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr == "stride" and isinstance(node.func.value, ast.Name) and \
                    node.func.value.id == argument.id:
                count += 1 if node.args else 99
    return count
