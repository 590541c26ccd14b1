"""CTG104: a device move of a permuted tensor, expected to come out contiguous, keeps the
permuted strides."""
from __future__ import annotations

import ast
from dataclasses import replace
from typing import Iterable, Optional

from contiglint.catalogue import ops as catalogue
from contiglint.catalogue import sinks
from contiglint.findings import Edit, Fix, Position, Related
from contiglint.layout.sinks.records import DeviceMoveSink, Sink, tokens_for
from contiglint.layout.model.values import Kind, Tensor
from contiglint.layout.syntax.index import ModuleIndex
from contiglint.layout.syntax.text import Text, may_launch
from contiglint.rules.base import Option, Report, Rule, RuleContext
from contiglint.rules.messages import called_from, made_by, related
from contiglint.rules.statements import innermost_statement, parent_of
from contiglint.settings import Settings

MOVES = catalogue.DEVICE_MOVES
# the sinks that need row-major memory, by the rule that proves their failure
CONSUMERS = {"view": "CTG101", "raw_memory": "CTG106", "kernel_launch": "CTG106",
             "collective": "CTG107"}
# the names a view or a raw read is spelled with (catalogue/sinks.py)
CONSUMER_NAMES = frozenset(sinks.BY_KIND["view"].methods + sinks.BY_KIND["raw_memory"].methods
                           + sinks.BUFFER_VIEWS)
NEEDS = {"view": "the .view() here cannot merge its dims",
         "raw_memory": "the raw memory read here is not in row-major order",
         "kernel_launch": "the kernel here reads it in row-major order",
         "collective": "the collective here needs contiguous memory"}
# methods that keep a permuted layout: a chain of them carries the moved tensor on unchanged
CARRIERS = catalogue.KEEPS_LAYOUT


class DeviceMoveKeepsStrides(Rule):
    """Flags code that needs row-major memory (`.view` that merges dims, a raw pointer or a
    strideless kernel, a collective) reached by a `.to(device)`, `.cuda()` or `.cpu()` copy of
    a tensor in a permuted layout.

    **What it flags.** A device copy of a tensor that a `transpose`, `permute`, `movedim` or
    `.mT` left dense but with its dims out of memory order, e.g.
    `img.permute(0, 2, 3, 1).cuda()`, where the copy then reaches code that fails on that
    layout: the finding is at that code, with the copy among its related locations.

    **Why.** A device copy is not a fresh contiguous tensor. torch's `_to_copy` (the same code
    for every device) allocates a dense input's copy with `empty_strided` and *the same
    strides*: `x.t().to("cpu", copy=True).stride()` is `(1, 4)`, as is
    `x.t().to(torch.float64)`. The moved tensor is exactly as non-contiguous as before, so
    code on the device that assumes row-major memory (a `.view` that merges dims, a CUDA or
    Triton kernel reading `data_ptr()`, NCCL) breaks or reads the wrong order far from the
    line that caused it. Sliced and expanded tensors are not affected: `_to_copy` densifies
    them, so their copies come out contiguous (or in the dim order of a permutation).
    channels_last tensors are not flagged either: keeping that layout on the device is what
    they are for.

    **Example.**

        def to_tokens(images, device):
            b, c, h, w = images.shape
            x = images.permute(0, 2, 3, 1).to(device)   # still permuted on the device
            return x.view(b, -1)                        # CTG104

    **Fix.** Pass `memory_format=torch.contiguous_format` to the copy:
    `images.permute(0, 2, 3, 1).to(device, memory_format=torch.contiguous_format)`; `.cuda()`
    and `.cpu()` take the same keyword (safe: when the move copies, the copy has the same
    values in row-major order; when the tensor is already on the device the call still
    returns the tensor itself, exactly as before, so aliasing is unchanged). Where the module
    does not import `torch` the rule offers no fix; `.contiguous()` after the move would also
    copy on the no-move path.

    **Where it reports.** Only where the copy reaches code that needs row-major memory, and
    only where that code's own rule proves the failure (CTG101 for a view, CTG106 for raw
    memory and kernels, CTG107 for collectives; by default with the same witness, concrete
    sizes under which torch fails). That rule reports the same line; this one points at the
    copy, where the fix goes. On real model code almost every moved tensor feeds
    stride-agnostic ops (`cat`, `reshape`, convolutions, NumPy/PIL conversions), so a report
    at every move would be an audit, not a bug finder: `[tool.contiglint.CTG104] report =
    "every-move"` adds it (every kept copy of a permuted tensor whose result is bound, stored,
    returned or turned into a NumPy array, and not chained into `.contiguous()`).

    **When to ignore.** When the failure the consumer's rule reports is intended to be caught,
    or the layout is fixed later on a path the analysis does not see. Suppress with
    `# noqa: CTG104`.
    """

    code = "CTG104"
    name = "device-move-keeps-strides"
    summary = ("a device copy of a permuted tensor keeps its strides, and code after it needs "
               "row-major memory")
    sinks = frozenset({"device_move"}) | frozenset(CONSUMERS)
    tokens = tokens_for(("device_move",))  # a kept copy needs a move in the module
    fix_safety = "safe"
    severity = "warning"
    options = {"report": Option(
        "consumers", ("consumers", "every-move"),
        "consumers: where a kept copy reaches code that needs row-major memory; every-move: "
        "also every kept copy of a permuted tensor (an audit)")}

    @classmethod
    def may_fire(cls, index: ModuleIndex, settings: Settings) -> bool:
        """A finding needs a move the module names and, but for the audit of every move,
        code that needs row-major memory: a view or a raw read it names (their methods, or
        the attributes of an exported array), a call of a subscripted kernel
        (`kernel[grid](x)`), or a collective (CTG107's check)."""
        from contiglint.rules import rule_by_code  # the rules' registry imports this module

        names = index.dotted_names
        if MOVES.isdisjoint(names):
            return False
        if settings.option(cls.code, "report", "consumers") == "every-move":
            return True
        return not CONSUMER_NAMES.isdisjoint(names) or \
            any(type(call.func) is ast.Subscript for call in index.calls) or \
            rule_by_code("CTG107").may_fire(index, settings)

    @classmethod
    def may_fire_text(cls, text: Text, settings: Settings) -> bool:
        """`may_fire` from the text: a move's name and, but for the audit of every move, a
        consumer's name, a `](` that may be a kernel's launch, or CTG107's text."""
        from contiglint.rules import rule_by_code

        if not text.names_any(MOVES):
            return False
        if settings.option(cls.code, "report", "consumers") == "every-move":
            return True
        return text.names_any(CONSUMER_NAMES) or may_launch(text) or \
            rule_by_code("CTG107").may_fire_text(text, settings)

    def check(self, sink: Sink, ctx: RuleContext) -> Iterable[Report]:
        if sink.kind == "device_move":
            if ctx.option("report") == "every-move":
                yield from self.check_move(sink, ctx)
            return
        tensor = sink.tensor
        kept = tensor.kept_by if tensor is not None else None
        if kept is None or keeps_channels_last(tensor):
            return
        move = ctx.module.call_at(kept.line, kept.column, ctx.source)
        # the flow pass's own reading of the call (a dtype, `.to(torch.float16)`, is no move)
        if move is None or not any(m.device is not False
                                   for m in ctx.sinks_at(move, "device_move")):
            return
        from contiglint.rules import rule_by_code  # the rules' registry imports this module

        consumer = rule_by_code(CONSUMERS[sink.kind])
        # the consumer's rule reads its own options
        found = next(iter(consumer().check(sink, replace(ctx, code=consumer.code))), None)
        if found is None:
            return  # the consumer's rule shows no failure (with a witness, in default mode)
        message = (f"the copy `{kept.op}` (line {kept.line}) kept its input's permuted "
                   f"strides, and {NEEDS[sink.kind]}: pass "
                   f"memory_format=torch.contiguous_format to the copy")
        place = Related(kept.line, kept.column, f"the copy made here by `{kept.op}`")
        yield Report(found.node, message, self.fix(move, ctx),
                     (place,) + tuple(r for r in found.related if (r.line, r.column) !=
                                      (kept.line, kept.column)), found.witness)

    def check_move(self, sink: DeviceMoveSink, ctx: RuleContext) -> Iterable[Report]:
        """`report = "every-move"`: every kept device copy of a permuted tensor."""
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

    def fix(self, call: Optional[ast.Call], ctx: RuleContext) -> Optional[Fix]:
        if call is None or any(keyword.arg is None for keyword in call.keywords):
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
