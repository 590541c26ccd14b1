"""CTG107: torch.distributed collectives and point-to-point ops on non-contiguous tensors."""
from __future__ import annotations

import ast
from typing import Iterable, Optional

from contiglint.findings import Fix
from contiglint.layout.sinks import Sink
from contiglint.layout.values import Seq, Tensor
from contiglint.rules.base import Report, Rule, RuleContext
from contiglint.rules.messages import called_from, made_by, related
from contiglint.rules.statements import enclosing_statement, fresh_name, statement_fix

WRONG = "computes wrong values on gloo and can overwrite memory outside the view"
RAISES_P2P = "raises 'input tensor has to be contiguous'"
# op -> {argument position or keyword: (what happens, whether the op writes the tensor)}.
# Measured with gloo, 2 ranks (see torch-layout-facts.md F); all_gather, all_gather_into_tensor,
# gather, all_to_all and reduce_scatter_tensor handle non-contiguous tensors correctly.
HAZARDS: dict[str, dict[object, tuple[str, bool]]] = {
    "all_reduce": {0: (WRONG, True), "tensor": (WRONG, True)},
    "broadcast": {0: (WRONG, True), "tensor": (WRONG, True)},
    "reduce": {0: (WRONG, True), "tensor": (WRONG, True)},
    "reduce_scatter": {0: (WRONG, True), "output": (WRONG, True), 1: (WRONG, False),
                       "input_list": (WRONG, False)},
    "scatter": {0: (WRONG, True), "tensor": (WRONG, True), 1: (WRONG, False),
                "scatter_list": (WRONG, False)},
    "all_to_all_single": {0: ("silently scatters the received values in memory order", True),
                          "output": ("silently scatters the received values in memory order",
                                     True),
                          1: ("raises 'ValueError: Tensors must be contiguous'", False),
                          "input": ("raises 'ValueError: Tensors must be contiguous'", False)},
    "send": {0: (RAISES_P2P, False), "tensor": (RAISES_P2P, False)},
    "isend": {0: (RAISES_P2P, False), "tensor": (RAISES_P2P, False)},
    "recv": {0: (RAISES_P2P, True), "tensor": (RAISES_P2P, True)},
    "irecv": {0: (RAISES_P2P, True), "tensor": (RAISES_P2P, True)},
}
ASYNC = ("isend", "irecv")


class CollectiveOnNonContiguous(Rule):
    """Flags torch.distributed ops that get a non-contiguous tensor where they need a dense one.

    **What it flags.** `all_reduce`, `broadcast`, `reduce`, `reduce_scatter` and `scatter`
    (output tensor or input list), `all_to_all_single`, and `send`/`recv`/`isend`/`irecv` on a
    tensor made non-contiguous by a transpose, permute, slice or expand. `all_gather`,
    `all_gather_into_tensor`, `gather`, `all_to_all` and `reduce_scatter_tensor` handle such
    tensors correctly (measured) and are not flagged.

    **Why.** These backends move `numel()` elements starting at `data_ptr()`. On gloo,
    `all_reduce(x[:, ::2])` silently reduces the wrong elements *and overwrites the columns
    outside the view*; an expanded tensor makes it write past the end of its storage (heap
    corruption); `broadcast`, `reduce`, `reduce_scatter` and `scatter` deliver values in the
    wrong order; `all_to_all_single` raises `ValueError: Tensors must be contiguous` for its
    input and misplaces values in a non-contiguous output; point-to-point ops raise
    `RuntimeError: input tensor has to be contiguous`; NCCL rejects such tensors. A single
    process (world_size=1) shows none of this, so tests pass.

    **Example.**

        import torch.distributed as dist

        grad = weight.grad.t()
        dist.all_reduce(grad)  # CTG107

    **Fix.** Reduce a contiguous copy and copy the result back:
    `grad_contig = grad.contiguous(); dist.all_reduce(grad_contig); grad.copy_(grad_contig)`
    (unsafe: it adds a copy; applied only to a call that is its own statement and not async).
    Note that `dist.all_reduce(grad.contiguous())` is *not* a fix: the result goes to a
    temporary (CTG111).

    **When to ignore.** Never for gloo or NCCL; a custom backend that honours strides may
    accept such tensors.
    """

    code = "CTG107"
    name = "collective-on-noncontiguous"
    summary = "torch.distributed op on a non-contiguous tensor: wrong values, corruption, raise"
    sinks = frozenset({"collective"})
    fix_safety = "unsafe"

    def check(self, sink: Sink, ctx: RuleContext) -> Iterable[Report]:
        op = sink.op.rsplit(".", 1)[-1]
        hazard = HAZARDS.get(op, {}).get(sink.get("position"))
        if hazard is None:
            return
        effect, writes = hazard
        value = sink.value
        if isinstance(value, Seq):
            broken = next((v for v in ((value.items or ()) + (value.each,))
                           if isinstance(v, Tensor) and ctx.reportable(v)), None)
            if broken is not None:
                condition = "" if broken.noncontiguous else " if it is not contiguous"
                message = (f"dist.{op}() gets a list holding a tensor {self.describe(broken)}"
                           f"{called_from(sink)}: it {effect}{condition}; pass .contiguous() "
                           f"tensors")
                yield Report(sink.target, message, None, related(sink, broken))
            return
        if not isinstance(value, Tensor) or not ctx.reportable(value):
            return
        condition = "" if value.noncontiguous else " if it is not contiguous"
        message = (f"dist.{op}() on a tensor {self.describe(value)}{called_from(sink)} {effect}"
                   f"{condition}; "
                   f"pass a .contiguous() copy" + (" and copy the result back" if writes else ""))
        yield Report(sink.target, message, self.fix(sink, ctx, writes), related(sink, value))

    @staticmethod
    def describe(tensor: Tensor) -> str:
        return made_by(tensor) if tensor.noncontiguous else "of unknown layout"

    @staticmethod
    def fix(sink: Sink, ctx: RuleContext, writes: bool) -> Optional[Fix]:
        """`x_contig = x.contiguous()`, the op on `x_contig`, then `x.copy_(x_contig)`."""
        call, target = sink.node, sink.target
        statement = enclosing_statement(call, sink.function, ctx)
        if statement is None or not isinstance(statement, (ast.Expr, ast.Assign)) or \
                statement.value is not call:
            return None
        asynchronous = sink.op.rsplit(".", 1)[-1] in ASYNC or any(
            k.arg == "async_op" and not (isinstance(k.value, ast.Constant) and not k.value.value)
            for k in call.keywords)
        if writes and (asynchronous or isinstance(statement, ast.Assign)):
            return None  # the result exists only after work.wait(): no safe place to copy back
        text = ctx.source.segment(target)
        if not isinstance(target, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
            text = f"({text})"
        name = fresh_name(ctx, target, "contig")
        after = (f"{ctx.source.segment(target)}.copy_({name})",) if writes else ()
        return statement_fix(ctx, f"run the op on `{name} = {text}.contiguous()`"
                             + (" and copy it back" if writes else ""), statement,
                             before=(f"{name} = {text}.contiguous()",), after=after,
                             replace=((target, name),), lock=sink.function)
