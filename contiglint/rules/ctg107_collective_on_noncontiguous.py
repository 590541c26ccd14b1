"""CTG107: torch.distributed collectives and point-to-point ops on non-contiguous tensors."""
from __future__ import annotations

import ast
from typing import Iterable, Optional

from contiglint.catalogue import collectives
from contiglint.catalogue.sinks import function_names
from contiglint.findings import Fix
from contiglint.layout.syntax.index import ModuleIndex
from contiglint.layout.syntax.text import Text
from contiglint.layout.syntax.text_spines import may_call_collective
from contiglint.layout.sinks.records import CollectiveSink, Sink
from contiglint.layout.model.values import Seq, Tensor
from contiglint.rules.base import Option, Report, Rule, RuleContext
from contiglint.rules.messages import called_from, made_by, related
from contiglint.rules.statements import (
    enclosing_statement, fresh_name, one_line, operand, statement_fix,
)
from contiglint.settings import Settings

ASYNC = collectives.ASYNC


class CollectiveOnNonContiguous(Rule):
    """Flags torch.distributed ops that get a non-contiguous tensor where a backend needs a
    dense one.

    **What it flags.** A tensor made non-contiguous by a transpose, permute, slice or expand,
    passed to a collective or point-to-point op at an argument where the chosen backend fails
    or corrupts (the per-op, per-backend table in `contiglint/catalogue/collectives.py`, read
    from ProcessGroupNCCL.cpp and ProcessGroupGloo.cpp). With the default `backend = "any"`
    that is every argument that fails on NCCL *or* gloo: `all_reduce`, `broadcast`, `reduce`;
    the input of `all_gather` (NCCL checks it; the output list is gathered through a flat
    buffer and copied back, so any layout works there); both tensors of
    `all_gather_into_tensor`, `reduce_scatter_tensor`, `all_to_all_single`; the output of
    `reduce_scatter` and both sides of `scatter` and `gather`, `all_to_all`; `send`, `recv`,
    `isend`, `irecv`. Option `backend = "nccl"` or `"gloo"` reports only what that backend
    gets wrong.

    **Why.** NCCL calls `check_gpu_single_tensor`, which raises `ValueError: Tensors must be
    contiguous`; for point-to-point ops and all-to-all it only warns and then moves `numel()`
    elements from `data_ptr()` in memory order. gloo reduces and broadcasts `numel()`
    elements from `data_ptr()`: `all_reduce(x[:, ::2])` silently reduces the wrong elements *and
    overwrites the columns outside the view*; an expanded tensor makes it write past the end of
    its storage; `all_to_all_single` raises for its input and misplaces values in a
    non-contiguous output; point-to-point ops raise `input tensor has to be contiguous`. A
    single process (world_size=1), or a CPU test run on gloo for an NCCL-only failure, shows
    none of this, so tests pass.

    **Example.**

        import torch.distributed as dist

        grad = weight.grad.t()
        dist.all_reduce(grad)  # CTG107
        dist.all_gather(outputs, hidden[:, :half])  # CTG107 (NCCL rejects the input)

    **Fix.** Run the op on a contiguous copy and copy the result back:
    `grad_contig = grad.contiguous(); dist.all_reduce(grad_contig); grad.copy_(grad_contig)`
    (unsafe: it adds a copy; applied only to a call that is its own statement and not async).
    Note that `dist.all_reduce(grad.contiguous())` is *not* a fix: the result goes to a
    temporary (CTG111).

    **When to ignore.** Never for gloo or NCCL; a custom backend that honours strides may
    accept such tensors (choose the `backend` you run on).
    """

    code = "CTG107"
    name = "collective-on-noncontiguous"
    summary = "torch.distributed op on a non-contiguous tensor: wrong values, corruption, raise"
    sinks = frozenset({"collective"})
    names = function_names("collective")
    fix_safety = "unsafe"
    options = {"backend": Option(
        "any", collectives.BACKENDS,
        "any: report what fails or corrupts on NCCL or on gloo; nccl or gloo: that backend only")}

    @classmethod
    def may_fire(cls, index: ModuleIndex, settings: Settings) -> bool:
        return index.may_call_collective

    @classmethod
    def may_fire_text(cls, text: Text, settings: Settings) -> bool:
        return may_call_collective(text)

    def check(self, sink: CollectiveSink, ctx: RuleContext) -> Iterable[Report]:
        op = sink.op.rsplit(".", 1)[-1]
        hazard = collectives.hazard(op, sink.position, str(ctx.option("backend")))
        if hazard is None:
            return
        effect, writes = hazard
        value = sink.value
        if isinstance(value, Seq):
            path = sink.path
            broken, witness = next(((v, proof[1]) for v in ((value.items or ()) + (value.each,))
                                    if isinstance(v, Tensor)
                                    for proof in [ctx.proven(v, path=path)] if proof[0]),
                                   (None, None))
            if broken is not None:
                condition = "" if broken.noncontiguous else " if it is not contiguous"
                message = (f"dist.{op}() gets a list holding a tensor {self.describe(broken)}"
                           f"{called_from(sink)}: it {effect}{condition}; pass .contiguous() "
                           f"tensors")
                yield Report(sink.target, message, None, related(sink, broken), witness)
            return
        if not isinstance(value, Tensor):
            return
        proven, witness = ctx.proven(value, path=sink.path)
        if not proven:
            return
        condition = "" if value.noncontiguous else " if it is not contiguous"
        message = (f"dist.{op}() on a tensor {self.describe(value)}{called_from(sink)} {effect}"
                   f"{condition}; "
                   f"pass a .contiguous() copy" + (" and copy it back" if writes else ""))
        yield Report(sink.target, message, self.fix(sink, ctx, writes), related(sink, value),
                     witness)

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
        text = operand(ctx, target)
        name = fresh_name(ctx, target, "contig")
        after = (f"{text}.copy_({name})",) if writes else ()
        return statement_fix(ctx, f"run the op on `{name} = {one_line(text)}.contiguous()`"
                             + (" and copy it back" if writes else ""), statement,
                             before=(f"{name} = {text}.contiguous()",), after=after,
                             replace=((target, name),), lock=sink.function)
