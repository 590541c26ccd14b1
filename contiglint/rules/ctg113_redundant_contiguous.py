"""CTG113 (opt-in): `.contiguous()` on a tensor that is contiguous on every path."""
from __future__ import annotations

import ast
from typing import Iterable, Optional

from contiglint.findings import Edit, Fix, Position
from contiglint.layout.model import op_transfers
from contiglint.layout.sinks.records import ContiguousCallSink
from contiglint.layout.model.values import Kind, Tensor
from contiglint.rules.base import Report, Rule, RuleContext

ASSIGNING = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)
# a `.contiguous()` whose result goes straight into one of these states a requirement
REQUIRING_SINKS = frozenset({"view", "raw_memory", "kernel_launch", "collective", "inplace",
                             "trace", "parameter", "buffer", "device_move", "from_numpy"})


class RedundantContiguous(Rule):
    """Flags `.contiguous()` on a tensor the code itself makes contiguous. Opt-in: select
    `CTG113` by its full code.

    **What it flags.** `.contiguous()` (default format) on the result of a fresh factory
    (`torch.zeros`, `torch.randn`, ...), a matmul/linear/softmax/reduction output, `torch.cat`
    of plain tensors, an advanced-indexing copy, or another `.contiguous()`, on every path and
    in every calling context the analysis sees.

    **Why.** It costs nothing at run time (measured: `x.contiguous() is x`, 47 ns), so this is
    not a performance finding: it is noise. Every needless `.contiguous()` makes the ones that
    matter (before a `.view`, a `data_ptr()`, a kernel) harder to tell apart, and teaches
    readers that the tensor might not be contiguous.

    **Example.**

        attn = (q @ k.transpose(-2, -1)).softmax(-1)
        out = (attn @ v).contiguous()   # CTG113: a matmul output is already contiguous

    **Fix.** Remove `.contiguous()` (safe: on a contiguous tensor it returns the tensor itself).

    Deliberately strict: never on a tensor of unknown layout (a parameter, an unmodelled call),
    never on channels_last tensors (`.contiguous()` copies those to NCHW, see CTG110), never
    on `torch.tensor`/`from_numpy` of arrays (they keep the array's strides), and never when
    the tensor comes from the function's parameters even if every call in the module passes a
    contiguous one (other callers may not). Not flagged either when the result goes straight
    into an op that needs contiguous memory (`.view()`, `data_ptr()`, a kernel, a collective,
    an in-place write, a device move, `nn.Parameter`): there the call states a requirement
    that protects the code against a later change of the producer.

    **When to ignore.** When the `.contiguous()` documents a requirement for code that may
    change. Suppress with `# noqa: CTG113`.
    """

    code = "CTG113"
    name = "redundant-contiguous"
    summary = "`.contiguous()` on a tensor that is always contiguous is a no-op"
    sinks = frozenset({"contiguous_call"})
    reads = REQUIRING_SINKS
    fix_safety = "safe"
    severity = "warning"
    opt_in = True

    def check(self, sink: ContiguousCallSink, ctx: RuleContext) -> Iterable[Report]:
        if sink.memory_format not in (None, "contiguous_format"):
            return
        sites = ctx.same_site(sink)
        if sink is not sites[0] or not all(always_contiguous(s.value) for s in sites):
            return  # report once per call, and only when every context and loop round agrees
        if any(s.chain for s in sites) and reads_parameters(sink.target, sink.function):
            return
        if ctx.is_target(sink.node, REQUIRING_SINKS):
            return  # `dist.all_reduce(flat.contiguous())`: documents what the op needs
        call = sink.node
        message = (f".contiguous() on `{ctx.source.shorten(sink.target, 30)}`, which is "
                   f"always contiguous here, returns the tensor itself; remove it")
        yield Report(call, message, self.fix(call, ctx))

    def fix(self, call: ast.Call, ctx: RuleContext) -> Optional[Fix]:
        if not isinstance(call.func, ast.Attribute):
            return None
        name, _ = ctx.source.attribute_name(call.func)
        start, end = Position(name.line, name.column - 1), ctx.source.end(call)
        removed = ctx.source.text[ctx.source.offset(start):ctx.source.offset(end)]
        if not removed.startswith(".") or "#" in removed:
            return None  # `x . contiguous()`, or a comment that would be deleted with it
        return Fix("safe", (Edit(start, end, ""),), "remove the redundant .contiguous()")


def always_contiguous(value) -> bool:
    return isinstance(value, Tensor) and value.kind is Kind.CONTIGUOUS and not value.maybe \
        and value.partial is None \
        and not value.channels_last


def reads_parameters(target: ast.expr, function: Optional[ast.AST]) -> bool:
    """Whether the receiver's layout can depend on the function's parameters (see `depends`),
    directly or through the locals it is built from (transitively)."""
    if function is None or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    spec = function.args
    tainted = {a.arg for a in spec.posonlyargs + spec.args + spec.kwonlyargs}
    tainted |= {a.arg for a in (spec.vararg, spec.kwarg) if a is not None}
    tainted.discard("self")
    for _ in range(3):  # locals bound from parameters, then locals bound from those
        for node in ast.walk(function):
            value = getattr(node, "value", None) if isinstance(node, ASSIGNING) else \
                node.iter if isinstance(node, (ast.For, ast.AsyncFor)) else None
            if value is None or not depends(value, tainted):
                continue
            bound = node.targets if isinstance(node, ast.Assign) else [node.target]
            tainted |= set().union(*map(_names, bound))
    return depends(target, tainted)


def depends(node: ast.expr, tainted: set[str]) -> bool:
    """Whether the layout of an expression can depend on one of the `tainted` names: as its
    memory, through the root name (`x` in `x.t().float()[0]`), or as the sizes, dims or indices
    of the ops between that root and the result that can break contiguity (`hi.expand(B, S)`
    is contiguous when B is 1 and broadcast otherwise; a view or reshape of a contiguous tensor
    is contiguous whatever its sizes). Not through a function call (`torch.zeros(...)`), an
    operator, or a method that always returns a fresh contiguous tensor (`x.t().contiguous()`,
    `x.softmax(-1)`, `x.index_select(0, i)`): their result is contiguous whatever goes in."""
    while True:
        if isinstance(node, ast.Name):
            return node.id in tainted
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            op = op_transfers.method(node.func.attr)
            if op is not None and op.effect == "restores" and not any(
                    k.arg in ("memory_format", "keepdim") for k in node.keywords):
                return False
            if op is not None and op.effect in ("breaks", "unknown") and any(
                    _names(a) & tainted for a in [*node.args, *(k.value for k in node.keywords)]):
                return True  # the sizes or dims of an op that can break contiguity
            node = node.func.value
        elif isinstance(node, ast.Subscript):
            if _names(node.slice) & tainted:
                return True
            node = node.value
        elif isinstance(node, (ast.Attribute, ast.Starred)):
            node = node.value
        else:
            return False


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
