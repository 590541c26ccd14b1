"""CTG104: a device move of a permuted tensor, expected to come out contiguous, keeps the
permuted strides."""
from __future__ import annotations

import ast
from typing import Iterable, Optional

from contiglint.catalogue import ops as catalogue
from contiglint.findings import Edit, Fix, Position
from contiglint.layout.sinks.records import DeviceMoveSink, Sink
from contiglint.layout.model.values import Kind, Tensor
from contiglint.rules.base import Report, Rule, RuleContext
from contiglint.rules.messages import called_from, made_by, related
from contiglint.rules.statements import innermost_statement, parent_of

MOVES = catalogue.DEVICE_MOVES
# methods that keep a permuted layout: a chain of them carries the moved tensor on unchanged
CARRIERS = catalogue.KEEPS_LAYOUT


class DeviceMoveKeepsStrides(Rule):
    """Flags `.to(device)`, `.cuda()` and `.cpu()` of a tensor in a permuted layout.

    **What it flags.** A move to another device of a tensor that a `transpose`, `permute`,
    `movedim` or `.mT` left dense but with its dims out of memory order, e.g.
    `img.permute(0, 2, 3, 1).cuda()` or `attn.transpose(1, 2).to(device)`.

    **Why.** A device copy is not a fresh contiguous tensor. torch's `_to_copy` (the same code
    for every device) allocates a dense input's copy with `empty_strided` and *the same
    strides*: `x.t().to("cpu", copy=True).stride()` is `(1, 4)`, as is
    `x.t().to(torch.float64)`. The moved tensor is exactly as non-contiguous as before, so
    code on the device that assumes row-major memory (a `.view` that merges dims, a CUDA or
    Triton kernel reading `data_ptr()`, `.numpy()` handed to OpenCV, NCCL) breaks or reads the
    wrong order far from the line that caused it. Sliced and expanded tensors are *not*
    flagged: `_to_copy` densifies them, so their copies come out contiguous (or in the dim
    order of a permutation, which is what this rule reports). channels_last tensors are not
    flagged either: keeping that layout on the device is what they are for.

    **Example.**

        def to_tokens(images, device):
            b, c, h, w = images.shape
            x = images.permute(0, 2, 3, 1).to(device)   # CTG104: still permuted on the device
            return x.view(b, -1)                        # raises on the device tensor

    **Fix.** Pass `memory_format=torch.contiguous_format` to the same call:
    `patches.to(device, memory_format=torch.contiguous_format)`; `.cuda()` and `.cpu()` take
    the same keyword (safe: when the move copies, the copy has the same values in row-major
    order; when the tensor is already on the device the call still returns the tensor itself,
    exactly as before, so aliasing is unchanged). Where the module does not import `torch` the
    rule offers no fix; `.contiguous()` after the move would also copy on the no-move path.

    **When to ignore.** When everything after the move honours strides (most torch ops do) and
    the move is not expected to produce a contiguous tensor. A `.to(dtype)` alone is not a
    device move and is not flagged, nor is a move whose result goes straight into another op
    (`a @ b.t().to(a.device)`): only moves whose result is kept (bound, stored, returned, or
    turned into a NumPy array) are reported.

    **Where it matters, a default run says so anyway.** On real model code almost every moved
    tensor feeds stride-agnostic ops (`cat`, `reshape`, convolutions, NumPy/PIL conversions),
    so this rule is an audit of every kept copy, not a bug finder. When a kept copy reaches a
    layout-sensitive sink (a `.view` that must merge dims, `data_ptr()`, a collective), that
    sink's own rule reports it and names the copy among its related locations ("the copy made
    here by `.to(device)` kept those strides"). A `.to(device).contiguous()` chain is not
    flagged: it copies twice (the device copy, then a contiguous copy on the device), which
    costs a transient second buffer but lets the device do the permuting copy, often the
    faster order.
    """

    code = "CTG104"
    name = "device-move-keeps-strides"
    summary = "`.to(device)`/`.cuda()`/`.cpu()` copy of a permuted tensor keeps its strides"
    sinks = frozenset({"device_move"})
    fix_safety = "safe"
    severity = "warning"

    def check(self, sink: DeviceMoveSink, ctx: RuleContext) -> Iterable[Report]:
        tensor = sink.tensor
        if sink.op not in MOVES or sink.device is not True:
            return
        if tensor is None or tensor.kind is not Kind.PERMUTED or keeps_channels_last(tensor):
            return
        if sink.memory_format is not None:
            return  # the call already chooses the layout of the copy
        call = sink.node
        if dtype_only(call) or consumed_in_place(call, sink, ctx):
            return
        message = (f".{sink.op}() of a tensor {made_by(tensor)}{called_from(sink)} keeps its "
                   f"permuted strides in the copy; pass memory_format=torch.contiguous_format "
                   f"if code after the move needs row-major memory")
        yield Report(call, message, self.fix(call, ctx), related(sink, tensor))

    def fix(self, call: ast.Call, ctx: RuleContext) -> Optional[Fix]:
        if any(keyword.arg is None for keyword in call.keywords):
            return None  # `**options` may already hold a memory_format
        alias = ctx.module.torch_alias
        if alias is None:
            return None
        keyword = f"memory_format={alias}.contiguous_format"
        arguments = list(call.args) + [k.value for k in call.keywords]
        if arguments:
            last = max(arguments, key=lambda node: (node.end_lineno, node.end_col_offset))
            end = ctx.source.end(last)
            edit = Edit(end, end, f", {keyword}")
        else:
            opening = open_parenthesis(call, ctx)
            if opening is None:
                return None
            edit = Edit(opening, opening, keyword)
        return Fix("safe", (edit,), f"pass {keyword} to .{call.func.attr}()")


def dtype_only(call: ast.Call) -> bool:
    """`.to(x.dtype)`, `.to(target_dtype)`, `.to(dtype=...)`: a conversion, not a move."""
    texts = [ast.unparse(a) for a in call.args] + [k.arg or "" for k in call.keywords
                                                   if k.arg not in ("non_blocking", "copy")]
    return bool(texts) and all("dtype" in text for text in texts)


def consumed_in_place(call: ast.Call, sink: Sink, ctx: RuleContext) -> bool:
    """The moved tensor is an operand or argument of another torch op in the same expression
    (`a @ b.t().to(a.device)`, `f(x.mT.cuda())`): that op takes it as it is, and nothing else
    ever sees the layout. Only moves whose result is kept (bound, stored, returned, turned
    into a NumPy array) are reported."""
    statement = innermost_statement(call, sink.function, ctx)
    node = call
    while True:
        parent = parent_of(node, statement, ctx)
        if isinstance(parent, ast.Attribute) and parent.value is node:
            grand = parent_of(parent, statement, ctx)
            if parent.attr == "numpy":
                return False
            if parent.attr in CARRIERS and isinstance(grand, ast.Call) and grand.func is parent:
                node = grand
                continue
            return True
        if parent is None or isinstance(parent, (ast.stmt, ast.Tuple, ast.List, ast.IfExp)):
            return False
        return True


def keeps_channels_last(tensor: Tensor) -> bool:
    """A channels_last layout is deliberate; moving it keeps it, which is the point."""
    if tensor.channels_last:
        return True
    return tensor.origin is not None and "channels_last" in tensor.origin.op


def open_parenthesis(call: ast.Call, ctx: RuleContext) -> Optional[Position]:
    """The position just after the `(` of a call without arguments."""
    start, end = ctx.source.end(call.func), ctx.source.end(call)
    text = ctx.source.text[ctx.source.offset(start):ctx.source.offset(end)]
    index = text.find("(")
    if index < 0 or "\n" in text[:index]:
        return None
    return Position(start.line, start.column + index + 1)
