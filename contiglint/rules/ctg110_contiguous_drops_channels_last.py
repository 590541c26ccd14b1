"""CTG110: `.contiguous()` on a channels_last tensor converts it back to NCHW."""
from __future__ import annotations

import ast
from typing import Iterable, Optional

from contiglint.catalogue import sinks
from contiglint.findings import Edit, Fix, Position
from contiglint.layout.syntax.index import ModuleIndex
from contiglint.layout.syntax.text import Text
from contiglint.layout.sinks.records import ContiguousCallSink
from contiglint.layout.model.values import Kind
from contiglint.rules.base import Report, Rule, RuleContext
from contiglint.rules.messages import called_from, related
from contiglint.settings import Settings

# the result feeds an op that needs NCHW memory order: the conversion is the point
NEEDS_NCHW = sinks.NEEDS_NCHW
NCHW_SINKS = frozenset({"view", "raw_memory", "kernel_launch", "trace", "collective",
                        "parameter", "buffer"})


class ContiguousDropsChannelsLast(Rule):
    """Flags `.contiguous()` (default memory format) on a tensor known to be channels_last.

    **What it flags.** A 4-D tensor is channels_last after
    `.to(memory_format=torch.channels_last)` or `.contiguous(memory_format=torch.channels_last)`,
    and stays so through conv, pooling, batch norm, interpolate, pad and elementwise ops, and
    `torch.cat` (measured: a conv's output is channels_last when its input *or its weight*
    is). Calling `.contiguous()` on it is not the no-op it looks like. Only a layout the code
    asked for is flagged: one whose origin is a call with a `memory_format=` argument. A tensor
    that is channels_last in memory by accident is not, whatever ops kept it so: after an
    explicit reorder (`x.permute(0, 3, 1, 2)` of NHWC tokens, then a conv or a pooling),
    making it NCHW is what that `.contiguous()` is for; an einsum or `as_strided` output in
    that order was never chosen either.

    **Why.** A channels_last tensor is not `is_contiguous()`, so `.contiguous()` copies every
    element back to NCHW order (measured: `cl.contiguous() is cl` is False; about as costly as a
    clone), and everything after it runs in NCHW again: the speed-up channels_last was chosen
    for is silently lost, often in the middle of a network that converts back later.

    **Example.**

        x = images.contiguous(memory_format=torch.channels_last)
        y = F.max_pool2d(F.relu(x), 2)   # still channels_last
        y = y.contiguous()               # CTG110: copies back to NCHW

    **Fix.** `.contiguous(memory_format=torch.channels_last)` (unsafe). The values are identical
    and on a channels_last tensor the call returns the tensor itself, but the strides differ
    from what the code had: a later `.view()` that merges C with H and W (`y.view(n, -1)`)
    raises on the channels_last result, and raw-memory readers (`data_ptr()`, custom kernels)
    see NHWC order. Not flagged when the result goes straight into such an op
    (`y.contiguous().view(n, -1)`, `data_ptr()`, a kernel launch, `torch.jit.trace`, a
    collective, `nn.Parameter`, `register_buffer`): there the NCHW copy is what the code needs.

    **Strict mode** also flags `.contiguous()` on 4-D tensors of unknown layout, e.g. the output
    of a conv whose input layout is not known: it may be channels_last.

    **When to ignore.** When NCHW order is required further on (a kernel, an export, a
    `.view()` in another function). Suppress with `# noqa: CTG110`.
    """

    code = "CTG110"
    name = "contiguous-drops-channels-last"
    summary = "`.contiguous()` copies a channels_last tensor back to NCHW"
    sinks = frozenset({"contiguous_call"})
    reads = NCHW_SINKS
    fix_safety = "unsafe"
    severity = "warning"

    @classmethod
    def may_fire(cls, index: ModuleIndex, settings: Settings) -> bool:
        # a layout asked for is made by a call with a `memory_format=` keyword (`asked_for`);
        # strict mode also reports 4-D tensors of unknown layout
        return settings.strict or "memory_format" in index.keywords

    @classmethod
    def may_fire_text(cls, text: Text, settings: Settings) -> bool:
        return settings.strict or text.has_word("memory_format")

    def check(self, sink: ContiguousCallSink, ctx: RuleContext) -> Iterable[Report]:
        tensor = sink.tensor
        if tensor is None or sink.memory_format not in (None, "contiguous_format"):
            return
        unknown_4d = tensor.kind is Kind.UNKNOWN and tensor.rank == 4
        if not tensor.channels_last and not (ctx.strict and unknown_4d):
            return
        if tensor.channels_last and not asked_for(tensor, ctx):
            return
        if feeds_nchw_consumer(sink.node, sink.function) or \
                ctx.is_target(sink.node, NCHW_SINKS):
            return
        if tensor.channels_last:
            what = f"a channels_last tensor{' (on some paths)' if tensor.maybe else ''}"
            effect = "copies it back to NCHW"
        else:
            what = "a 4-D tensor of unknown layout"
            effect = "copies it back to NCHW if it is channels_last"
        message = (f".contiguous() on {what}{called_from(sink)} {effect}, defeating "
                   f"channels_last; use .contiguous(memory_format=torch.channels_last)")
        yield Report(sink.node, message, self.fix(sink.node, ctx), related(sink, tensor))

    def fix(self, call: ast.Call, ctx: RuleContext) -> Optional[Fix]:
        torch_name = ctx_torch_name(ctx)
        if torch_name is None or call.args:
            return None
        argument = f"memory_format={torch_name}.channels_last"
        source = ctx.source
        if call.keywords:  # memory_format=torch.contiguous_format
            keyword = call.keywords[0]
            if keyword.arg != "memory_format" or len(call.keywords) != 1:
                return None
            edit = source.replace(keyword, argument)
        else:
            end = source.end(call)
            before_paren = Position(end.line, end.column - 1)
            edit = Edit(before_paren, before_paren, argument)
        return Fix("unsafe", (edit,), "keep channels_last: "
                                      f".contiguous(memory_format={torch_name}.channels_last)")


def asked_for(tensor, ctx: RuleContext) -> bool:
    """Was the tensor's channels_last layout asked for? Its origin, where the layout was made
    (kept through conv, pooling, cat and elementwise ops), is a call with a `memory_format=`
    argument: `.to(memory_format=torch.channels_last)`, `.contiguous(memory_format=...)`,
    `torch.empty(..., memory_format=...)`."""
    origin = tensor.origin
    call = ctx.module.call_at(origin.line, origin.column, ctx.source) \
        if origin is not None else None
    return call is not None and any(k.arg == "memory_format" for k in call.keywords)


def feeds_nchw_consumer(call: ast.AST, scope: Optional[ast.AST]) -> bool:
    """`y.contiguous().view(n, -1)`, or `y_c = y.contiguous(); y_c.data_ptr()`: the result
    (directly or through the name it is bound to) is the receiver of a layout-dependent op,
    so NCHW order is what the code needs."""
    if scope is None:
        return False
    nodes = list(ast.walk(scope))
    names = {target.id for node in nodes if isinstance(node, ast.Assign) and node.value is call
             for target in node.targets if isinstance(target, ast.Name)}
    for node in nodes:
        if isinstance(node, ast.Attribute) and node.attr in NEEDS_NCHW and (
                node.value is call or (isinstance(node.value, ast.Name)
                                       and node.value.id in names)):
            return True
    return False


def ctx_torch_name(ctx: RuleContext) -> Optional[str]:
    """The name the file imports torch as (`torch`, or `th` after `import torch as th`)."""
    for line in ctx.source.lines:
        stripped = line.strip()
        if stripped == "import torch":
            return "torch"
        if stripped.startswith("import torch as "):
            return stripped.split()[-1]
    return None
