"""CTG109: `.contiguous()` inside a loop on a tensor the loop does not change."""
from __future__ import annotations

import ast
from typing import Iterable, Optional

from contiglint.findings import Fix, Related
from contiglint.layout.syntax.index import ModuleIndex
from contiglint.layout.syntax.loops import is_invariant
from contiglint.layout.syntax.text import Text
from contiglint.layout.model.op_transfers import ATTRIBUTES
from contiglint.layout.sinks.records import ContiguousCallSink, Sink
from contiglint.rules.base import Report, Rule, RuleContext
from contiglint.rules.messages import called_from, made_by, related
from contiglint.rules.statements import operand, statement_fix
from contiglint.settings import Settings


class ContiguousInLoop(Rule):
    """Flags `.contiguous()` inside a loop, on a non-contiguous tensor that is the same on every
    iteration.

    **What it flags.** `for layer in self.layers: y = layer(x, self.w.t().contiguous())`: the
    receiver reads nothing the loop rebinds or writes in place, and it is (possibly)
    non-contiguous, so every iteration makes the same full copy.

    **Why.** `.contiguous()` on a non-contiguous tensor allocates and copies every element
    (measured: as slow as a `clone()`, about 0.5 ms per MB on a CPU), on every iteration. On a
    contiguous tensor it is free (`x.contiguous() is x`), so those are not flagged.

    **Example.**

        w = self.proj.weight.t()
        for block in self.blocks:
            x = block(x) @ w.contiguous()   # CTG109: the same copy on every iteration

    **Fix.** Hoist the copy above the loop (unsafe): `w_contiguous = w.contiguous()` on the line
    before the loop, at the loop's indentation, and `w_contiguous` in the loop. Unsafe because
    the copy then happens even when the loop body (or the branch holding the call) never runs,
    and because the analysis cannot see writes through aliases or by other functions (an
    optimizer step is treated as writing everything, so training loops are not flagged).

    **Strict mode** also flags receivers of unknown layout (a function parameter, an
    `nn.Module` weight): they are copied on every iteration whenever they are not contiguous.

    **When to ignore.** When the loop runs once, or the tensor is small. Suppress with
    `# noqa: CTG109`.
    """

    code = "CTG109"
    name = "contiguous-in-loop"
    summary = "`.contiguous()` copies the same loop-invariant tensor on every iteration"
    sinks = frozenset({"contiguous_call"})
    fix_safety = "unsafe"
    severity = "warning"

    @classmethod
    def may_fire(cls, index: ModuleIndex, settings: Settings) -> bool:
        # a finding's call is inside a loop of its own function (`Sink.loop`)
        return index.contiguous_in_loop

    @classmethod
    def may_fire_text(cls, text: Text, settings: Settings) -> bool:
        # a `for` or `while` statement spells its keyword
        return text.names_any(("for", "while"))

    def check(self, sink: ContiguousCallSink, ctx: RuleContext) -> Iterable[Report]:
        tensor = sink.tensor
        if tensor is None or sink.loop is None or not sink.loop_invariant:
            return
        if sink.memory_format not in (None, "contiguous_format"):
            return
        if not ctx.reportable(tensor):
            return
        receiver = ctx.source.shorten(sink.target, 30)
        loop = outermost_invariant_loop(sink)
        layout = made_by(tensor) if tensor.noncontiguous else "of unknown layout"
        message = (f".contiguous() copies `{receiver}` ({layout}){called_from(sink)} on every "
                   f"iteration, though the loop does not change it; hoist the copy above the "
                   f"loop")
        places = (Related(loop.lineno, loop.col_offset + 1, "the loop"),) + related(sink, tensor)
        yield Report(sink.node, message, self.fix(sink, loop, ctx), places)

    def fix(self, sink: Sink, loop: ast.AST, ctx: RuleContext) -> Optional[Fix]:
        """Bind the copy to a fresh name on the line above the loop, and use the name."""
        call = sink.node
        if loop.lineno == call.lineno:
            return None  # a one-line loop: leave it to a human
        name = fresh_name(base_name(sink.target), sink.function or loop)
        return statement_fix(ctx, f"hoist the copy above the loop as `{name}`", loop,
                             before=(f"{name} = {operand(ctx, call)}",),
                             replace=((call, name),), locked=False)


def outermost_invariant_loop(sink: Sink) -> ast.AST:
    """The outermost of the loops around the call, inside out, that all leave the receiver
    unchanged: hoisting above it copies once, not once per outer iteration."""
    scope = sink.function
    if scope is None:
        return sink.loop
    kinds = (ast.For, ast.AsyncFor, ast.While)
    around = [node for node in ast.walk(scope) if isinstance(node, kinds)
              and node is not sink.loop and any(child is sink.loop for child in ast.walk(node))]
    best = sink.loop
    for loop in sorted(around, key=lambda node: node.lineno, reverse=True):
        if not is_invariant(sink.target, loop) or \
                any(sink.node is child for child in ast.walk(loop.iter if isinstance(
                    loop, (ast.For, ast.AsyncFor)) else loop.test)):
            break
        best = loop
    return best


def base_name(receiver: ast.expr) -> str:
    """`w` for `self.w.t()`, `x` for `x.transpose(1, 2)[0]`: the tensor the receiver reads."""
    node = receiver
    while True:
        if isinstance(node, ast.Call):
            node = node.func.value if isinstance(node.func, ast.Attribute) else node.func
        elif isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Attribute):
            if node.attr not in ATTRIBUTES and not isinstance(node.value, (ast.Call,
                                                                           ast.Subscript)):
                return node.attr.lstrip("_") or "tensor"
            node = node.value
        elif isinstance(node, ast.Name):
            return node.id.lstrip("_") or "tensor"
        else:
            return "tensor"


def fresh_name(base: str, scope: ast.AST) -> str:
    """`{base}_contiguous`, numbered when the scope already uses that name."""
    taken = {n.id for n in ast.walk(scope) if isinstance(n, ast.Name)} | \
        {a.arg for a in ast.walk(scope) if isinstance(a, ast.arg)}
    name, number = f"{base}_contiguous", 2
    while name in taken:
        name, number = f"{base}_contiguous_{number}", number + 1
    return name
