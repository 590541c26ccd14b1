"""CTG105: tracing/export with a non-contiguous example, or traced code that branches on layout."""
from __future__ import annotations

import ast
from typing import Iterable, Optional, Union

from contiglint.catalogue.sinks import function_names
from contiglint.findings import Fix
from contiglint.layout.sinks.records import LayoutBranchSink, TraceSink
from contiglint.layout.model.values import Seq, Tensor, Value
from contiglint.rules.base import Report, Rule, RuleContext
from contiglint.rules.messages import called_from, made_by, related
from contiglint.rules.statements import needs_parentheses


class TraceWithNonContiguousInput(Rule):
    """Flags tracing with a non-contiguous example input, and layout branches in traced code.

    **What it flags.** `torch.jit.trace`, `torch.jit.trace_module`, `torch.onnx.export` and
    `torch.export.export` called with an example input (or an element of the example tuple)
    made non-contiguous by a transpose, permute, slice or expand; and, in a function or module
    of the same file that is passed to `torch.jit.trace`, an `if`/`while` whose test calls
    `.is_contiguous()` or `.stride()`.

    **Why.** A trace records the strides of its example inputs in the graph
    (`Float(3, 4, strides=[1, 3])`) and specialises to them: a `.view` that happened to work on
    the example layout raises inside the TorchScript interpreter ("The following operation
    failed in the TorchScript interpreter ... view size is not compatible") when the deployed
    model gets the ordinary layout, or the other way round. A branch on `is_contiguous()` or
    `stride()` is evaluated once, while tracing, and frozen, with **no TracerWarning**:
    `if x.is_contiguous(): x + 1 else: x - 1` traced on a contiguous example returns `x + 1`
    for every input (measured).

    **Example.**

        example = torch.randn(1, 3, 224, 224).permute(0, 2, 3, 1)
        traced = torch.jit.trace(model, example)  # CTG105

    **Fix.** Trace with `example.contiguous()` (safe: the values are the same, and the graph
    is traced on the layout the model is normally called with). A layout branch in traced code
    has no automatic fix: make the input contiguous unconditionally, or use `torch.jit.script`
    or `torch.compile`, which keep the branch.

    **When to ignore.** When the traced model is always called with exactly the example's
    layout.
    """

    code = "CTG105"
    name = "trace-with-noncontiguous-input"
    summary = "trace/export with a non-contiguous example, or a layout branch in traced code"
    sinks = frozenset({"trace", "layout_branch"})
    # a layout branch is reported only in code the module traces: both need a tracer call
    names = function_names("trace")
    fix_safety = "safe"

    def check(self, sink: Union[LayoutBranchSink, TraceSink], ctx: RuleContext) -> Iterable[Report]:
        if isinstance(sink, LayoutBranchSink):
            traced = sink.traced
            if traced:
                check = "is_contiguous()" if "is_contiguous" in ast.unparse(sink.node) \
                    else "stride()"
                yield Report(sink.node, f"branch on `{check}` in code traced by "
                             f"torch.jit.trace (`{traced}`) is frozen to the example's layout, "
                             f"with no TracerWarning")
            return
        api = sink.op.replace("torch.jit._trace.trace", "torch.jit.trace")
        for expression, tensor, whole in self.noncontiguous_examples(sink.target, sink.value):
            message = (f"{api}() with an example input {made_by(tensor)}{called_from(sink)} "
                       f"records its strides in the graph; trace with .contiguous() inputs")
            fix = self.fix(expression, ctx) if whole else None
            yield Report(expression, message, fix, related(sink, tensor))

    def noncontiguous_examples(self, expression: ast.expr, value: Value):
        """(expression, tensor, whether the expression is that tensor) for each non-contiguous
        example, looking into literal tuples."""
        if isinstance(value, Tensor):
            if value.noncontiguous:
                yield expression, value, True
            return
        if not isinstance(value, Seq):
            return
        if isinstance(expression, (ast.Tuple, ast.List)) and value.items is not None and \
                len(expression.elts) == len(value.items) and \
                not any(isinstance(e, ast.Starred) for e in expression.elts):
            for element, item in zip(expression.elts, value.items):
                yield from self.noncontiguous_examples(element, item)
            return
        items = value.items if value.items is not None else (value.each,)
        broken = next((v for v in items if isinstance(v, Tensor) and v.noncontiguous), None)
        if broken is not None:
            yield expression, broken, False

    @staticmethod
    def fix(expression: ast.expr, ctx: RuleContext) -> Optional[Fix]:
        if needs_parentheses(expression):
            edits = (ctx.source.insert_before(expression, "("),
                     ctx.source.insert_after(expression, ").contiguous()"))
        else:
            edits = (ctx.source.insert_after(expression, ".contiguous()"),)
        return Fix("safe", edits, "trace with a .contiguous() example")
