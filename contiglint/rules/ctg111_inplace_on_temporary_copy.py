"""CTG111: an in-place write into a temporary `.contiguous()` / `.reshape()` / `.to()` copy."""
from __future__ import annotations

import ast
from typing import Iterable, Optional, Union

from contiglint.findings import Fix
from contiglint.catalogue import collectives
from contiglint.catalogue import ops as catalogue
from contiglint.catalogue.inplace import is_inplace as is_inplace_method
from contiglint.layout.syntax.index import ModuleIndex
from contiglint.layout.syntax.text import Text
from contiglint.layout.syntax.text_spines import may_write_into_copy
from contiglint.layout.sinks.records import CollectiveSink, InplaceSink, Sink
from contiglint.layout.model.values import Tensor
from contiglint.rules.base import Report, Rule, RuleContext
from contiglint.rules.messages import called_from, made_by, related
from contiglint.rules.statements import (
    enclosing_statement, fresh_name, innermost_statement, one_line, operand, statement_fix,
)
from contiglint.settings import Settings

# a copy exactly when the layout does not allow a view
LAYOUT_COPIES = catalogue.LAYOUT_COPIES
# a copy exactly when the dtype or device changes (the layout plays no part)
CONVERSION_COPIES = catalogue.COPIES_IF_NEEDED - catalogue.LAYOUT_COPIES
SHAPE_CHANGING = catalogue.SHAPE_CHANGING
VIEW_METHODS = catalogue.VIEW_METHODS
VIEW_ATTRIBUTES = catalogue.VIEW_ATTRIBUTES
# collectives that write their result into the tensor at this position
WRITTEN = collectives.written_tensors()


class InplaceOnTemporaryCopy(Rule):
    """Flags in-place writes whose target is a temporary copy, so the update may be lost.

    **What it flags.** An in-place op (`add_`, `mul_`, `copy_`, `zero_`, `x[...] = v`, an
    `out=` argument) or an in-place collective (`dist.all_reduce`, `broadcast`, `recv`, ...)
    applied directly to `x.contiguous()`, `x.reshape(...)`, `x.flatten()` or `x.to(...)`
    with its result thrown away, when `x` is shown non-contiguous (in `--strict` mode also
    when its layout is unknown: a function's parameter, a module's attribute).

    **Why.** These calls return `x` itself (or a view of it) when no copy is needed, and a new
    tensor otherwise. The write then reaches `x` only for some layouts (or dtypes, devices):
    `dist.all_reduce(grad.contiguous())` reduces `grad` when it is contiguous and a temporary
    when it is not, so that `grad` is silently never reduced (Megatron-LM #5337). Not flagged
    when `x` is known to be contiguous: then `.contiguous()`, `.reshape()` and `.flatten()`
    return `x` or a view of it and the write lands.

    **Example.**

        import torch.distributed as dist

        grad = param.grad.t()
        dist.all_reduce(grad.contiguous())  # CTG111: grad is never reduced

    **Fix.** Bind the copy, apply the op to it, and copy the result back:
    `grad_contig = grad.contiguous(); dist.all_reduce(grad_contig); grad.copy_(grad_contig)`
    (unsafe: it always writes `grad`, which is what the code meant; `reshape`/`flatten` copies
    are copied back with `.reshape(x.shape)`).

    **When to ignore.** When the write was meant for the temporary only (then drop the
    in-place op and use the result), or when `x` is always contiguous at run time.
    """

    code = "CTG111"
    name = "inplace-on-temporary-copy"
    summary = "in-place write into a `.contiguous()`/`.reshape()`/`.to()` temporary is lost"
    sinks = frozenset({"inplace", "collective"})
    # a write into a temporary needs a copy-if-needed call; in-place writes are everywhere
    tokens = frozenset("." + name + "(" for name in catalogue.COPIES_IF_NEEDED)
    fix_safety = "unsafe"

    @classmethod
    def may_fire(cls, index: ModuleIndex, settings: Settings) -> bool:
        # a finding's sink has the copy on its target's receiver spine (`sink.copy`)
        return index.may_write_into_copy

    @classmethod
    def may_fire_text(cls, text: Text, settings: Settings) -> bool:
        return may_write_into_copy(text)

    def check(self, sink: Union[CollectiveSink, InplaceSink], ctx: RuleContext) -> Iterable[Report]:
        if sink.copy is None or not isinstance(sink.copy.call.func, ast.Attribute):
            return
        copy_call, source = sink.copy.call, sink.copy.source
        method = copy_call.func.attr
        if not self.reaches_through_views(sink.target, copy_call) or not (
                aliases_named_tensor(copy_call.func.value)
                or returned_view(copy_call.func.value, source)):
            return
        if method in LAYOUT_COPIES:
            # a copy for sure when `x` is shown non-contiguous or another memory format is
            # asked for; for `x` of unknown layout only maybe, which strict mode reports
            if not isinstance(source, Tensor) or not (
                    ctx.reportable(source) or self.other_memory_format(copy_call)):
                return
        elif method not in CONVERSION_COPIES:
            return
        statement = innermost_statement(sink.node, sink.function, ctx)
        if isinstance(sink, CollectiveSink):
            positions = WRITTEN.get(sink.op.rsplit(".", 1)[-1], ())
            if sink.position not in positions:
                return
        elif not self.discarded(sink, statement):
            return
        inner = ctx.source.shorten(copy_call.func.value, 30)
        yield Report(sink.node if not isinstance(sink, CollectiveSink) else sink.target,
                     self.message(sink, method, inner, source),
                     self.fix(sink, ctx, copy_call, method), self.related(sink, source))

    @staticmethod
    def reaches_through_views(target: ast.expr, copy_call: ast.Call) -> bool:
        node = target
        while node is not copy_call:
            if isinstance(node, ast.Subscript):
                node = node.value
            elif isinstance(node, ast.Attribute) and node.attr in VIEW_ATTRIBUTES:
                node = node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    (node.func.attr in VIEW_METHODS or is_inplace_method(node.func.attr)):
                node = node.func.value  # in-place methods return their receiver
            else:
                return False
        return True

    @staticmethod
    def other_memory_format(call: ast.Call) -> bool:
        return any(k.arg == "memory_format" and "contiguous_format" not in ast.unparse(k.value)
                   for k in call.keywords)

    @staticmethod
    def discarded(sink: Sink, statement: Optional[ast.stmt]) -> bool:
        """The write is the whole statement: its result (the temporary) is not kept."""
        if isinstance(statement, ast.Expr):
            return statement.value is sink.node
        if isinstance(statement, ast.Assign):
            return any(target is sink.node for target in statement.targets)
        return isinstance(statement, ast.AugAssign) and statement is sink.node

    @staticmethod
    def message(sink: Sink, method: str, inner: str, source) -> str:
        write = sink.op if isinstance(sink, InplaceSink) else f"dist.{sink.op.rsplit('.', 1)[-1]}()"
        if method in CONVERSION_COPIES:
            when = "copies whenever the dtype or device changes"
        elif isinstance(source, Tensor) and source.noncontiguous:
            when = f"copies: `{inner}` is {made_by(source)}"
        else:
            when = f"copies whenever `{inner}` is not contiguous"
        return (f"{write} writes into a temporary: `.{method}()` {when}{called_from(sink)}, so "
                f"`{inner}` is never updated")

    @staticmethod
    def related(sink: Sink, source) -> tuple:
        if isinstance(source, Tensor) and source.noncontiguous:
            return related(sink, source)
        return ()

    @staticmethod
    def fix(sink: Sink, ctx: RuleContext, copy_call: ast.Call, method: str) -> Optional[Fix]:
        """`tmp = x.contiguous()`, the write on `tmp`, then `x.copy_(tmp)`."""
        statement = enclosing_statement(sink.node, sink.function, ctx)
        if statement is None or isinstance(statement, ast.Return):
            return None
        node = sink.node
        if isinstance(sink, CollectiveSink) and (
                not isinstance(statement, ast.Expr) or statement.value is not node or any(
                    k.arg == "async_op" for k in node.keywords) or sink.op.endswith(".irecv")):
            return None  # an async result exists only after work.wait()
        inner = operand(ctx, copy_call.func.value)
        name = fresh_name(ctx, copy_call.func.value,
                          "contig" if method == "contiguous" else "copy")
        back = f"{name}.reshape({inner}.shape)" if method in SHAPE_CHANGING else name
        return statement_fix(ctx, f"bind `{name}`, write it, copy it back into "
                             f"`{one_line(inner)}`",
                             statement, before=(f"{name} = {operand(ctx, copy_call)}",),
                             after=(f"{inner}.copy_({back})",), replace=((copy_call, name),),
                             lock=sink.function)


def returned_view(expression: ast.expr, source) -> bool:
    """`cache.heads_first()`, `in_out(layer)`: a call whose result the analysis knows is
    non-contiguous, hence a view of some other tensor's storage (helpers return `self.k.t()`),
    so a write into its copy is lost too."""
    return isinstance(expression, ast.Call) and isinstance(source, Tensor) and \
        source.noncontiguous and not source.maybe


def aliases_named_tensor(expression: ast.expr) -> bool:
    """`x`, `self.buf`, `p.grad`, `x[0]`, `x.t()`: a write into it is visible afterwards
    (unlike a write into `(a + b)`, which nobody can see either way)."""
    node = expression
    while True:
        if isinstance(node, ast.Name):
            return True
        if isinstance(node, ast.Attribute):
            if node.attr in VIEW_ATTRIBUTES or isinstance(node.value, (ast.Name, ast.Attribute)):
                node = node.value
                continue
            return False
        if isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in VIEW_METHODS:
            node = node.func.value
        else:
            return False
