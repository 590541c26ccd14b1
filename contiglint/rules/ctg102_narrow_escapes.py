"""CTG102: a strided partial view (narrow, inner slice, inner chunk) that outlives the call."""
from __future__ import annotations

import ast
from typing import Iterable, Optional

from contiglint.catalogue import ops as catalogue, sinks
from contiglint.findings import Fix
from contiglint.layout.sinks.records import Sink
from contiglint.layout.model.values import Kind, Origin
from contiglint.rules.base import Report, Rule, RuleContext
from contiglint.rules.messages import called_from, made_by, related
from contiglint.rules.statements import needs_parentheses
from contiglint.rules.tensor_evidence import surely_tensor

CONSUMERS = catalogue.JOINS
# nn.Parameter, nn.Buffer: CTG103 reports those
STATE_CONSTRUCTORS = frozenset(f.rsplit(".", 1)[-1] for f in sinks.BY_KIND["parameter"].functions)


class NarrowEscapes(Rule):
    """Flags a strided partial view that outlives the call: stored on `self`, appended to a
    container that outlives the call, or returned as a slice of the object's own state.

    **What it flags.** A view that skips memory of its base (`x.narrow(1, 0, k)`,
    `x[:, :k]`, `x[..., 1:]`, `x[:, 0]`, `x.chunk(2, dim=1)[0]`, a `[::2]` step) that is kept
    beyond the function that made it:

    - stored on an attribute (`self.k_cache = k[:, :, -window:]`);
    - appended to `self.<list>`, to a list the caller passed in, or to a local list that the
      function returns or stores, unless that list goes to `torch.cat`/`torch.stack` in the
      function (which copies);
    - returned, when it is a slice of the object's own state (`return self.cache[:, :n]`,
      the usual KV-cache read).

    **Why.** Two costs travel with the view. Its strides: every later consumer gets a
    non-contiguous tensor (a `.view()` that merges the cut dim raises, kernels that assume
    row-major memory read wrong elements, `torch.save` writes the whole base). And its base:
    a view keeps the *entire* storage alive, so `self.k_cache = full[:, :, -w:]` pins all of
    `full`, and a list of `feat[:, 0]` rows pins every feature map they came from. The base
    can also change under it: a slice of a preallocated cache sees the next in-place update.

    Returned slices of fresh tensors are *not* flagged: `return x[:, :k]` from a helper is
    usually consumed at once by its caller (a reshape, a matmul, a cat), and what the caller
    does with it is reported at the caller by the rule for that use (CTG101 for a `.view`,
    CTG112 for `torch.save`...). Local lists that are concatenated are not flagged either.

    **Example.**

        class SlidingWindowCache:
            def update(self, k):
                full = torch.cat([self.keys, k], dim=-2)
                self.keys = full[:, :, -self.window:]   # CTG102: pins `full`, non-contiguous

    **Fix.** Append `.contiguous()` to the kept view (unsafe: the kept tensor becomes a copy,
    so in-place writes to it or to the base no longer reach the other).

    **When to ignore.** When the view aliases its base on purpose (a ring buffer written
    through the view) or the base is small and short-lived. Suppress with `# noqa: CTG102`.

    **Why it is a preview rule.** On the real-code corpus none of its findings was a realised
    hazard: the kept views were KV-cache windows and image crops read at once by ops that do
    not care about strides, small columns of tensors that lived as long anyway, and slices of
    the object's own state (nothing extra is pinned). The costs it names are real only when
    the kept view is much smaller than a base that would otherwise be freed, or when a later
    use needs row-major memory (which CTG101, CTG106 and CTG112 report where it happens). Real
    code rarely shows the sizes that would prove the first, so the rule stays opt-in.
    """

    code = "CTG102"
    name = "narrow-escapes"
    summary = "strided slice/narrow kept beyond the call: odd strides travel, base stays pinned"
    sinks = frozenset({"escape"})
    # an escaping strided view needs an op that makes one; returns and stores are everywhere
    tokens = frozenset({"narrow", "chunk", "split", "unbind", "select", "diagonal", "[:",
                        ":]", ":,", ", :", "::", "..."})
    fix_safety = "unsafe"
    severity = "warning"

    def check(self, sink: Sink, ctx: RuleContext) -> Iterable[Report]:
        tensor = sink.tensor
        if tensor is None or tensor.kind is not Kind.STRIDED or sink.target is None:
            return
        if not surely_tensor(tensor, tensor.origin) or is_state_constructor(sink.target):
            return
        how = sink.op
        if how == "returned":
            state = viewed_state(tensor.origin, sink.function, ctx)
            if state is None or not written_in_place(state, sink.function):
                return
            where = f"returned as a view of `{state}`, which this method writes in place"
        elif how.startswith("appended to "):
            if not container_outlives_call(how[len("appended to "):], sink.function):
                return
            where = how
        else:
            where = how
        message = (f"a tensor {made_by(tensor)}{called_from(sink)} is {where}: it keeps "
                   f"its strides and pins the whole base storage")
        yield Report(sink.target, message, self.fix(sink.target, ctx), related(sink, tensor))

    @staticmethod
    def fix(target: ast.expr, ctx: RuleContext) -> Optional[Fix]:
        if needs_parentheses(target):
            edit = ctx.source.replace(target, f"({ctx.source.segment(target)}).contiguous()")
        else:
            edit = ctx.source.insert_after(target, ".contiguous()")
        return Fix("unsafe", (edit,), "keep a .contiguous() copy of the view")


def is_state_constructor(target: ast.expr) -> bool:
    func = target.func if isinstance(target, ast.Call) else None
    name = func.attr if isinstance(func, ast.Attribute) else \
        func.id if isinstance(func, ast.Name) else ""
    return name in STATE_CONSTRUCTORS


def viewed_state(origin: Optional[Origin], function: Optional[ast.AST],
                 ctx: RuleContext) -> Optional[str]:
    """The `self.<attr>` text that the op at `origin` (in `function`) cuts, if any."""
    if origin is None or function is None:
        return None
    for node in ast.walk(function):
        receiver = None
        if isinstance(node, ast.Subscript) and node.lineno == origin.line:
            if ctx.source.start(node).column == origin.column:
                receiver = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.end_lineno == origin.line:
            start, _ = ctx.source.attribute_name(node.func)
            if start.column - 1 == origin.column:
                receiver = node.func.value
        if receiver is not None:
            return ast.unparse(receiver) if rooted_at_self(receiver) else None
    return None


def rooted_at_self(node: ast.expr) -> bool:
    """`self.cache`, `self.layers[i].keys`: state of the object, which outlives the call."""
    seen_attribute = False
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        seen_attribute = seen_attribute or isinstance(node, ast.Attribute)
        node = node.value
    return seen_attribute and isinstance(node, ast.Name) and node.id == "self"


def written_in_place(state: str, function: ast.AST) -> bool:
    """`self.k_cache[:, :, pos] = k` or `self.k_cache.index_copy_(...)` in the same method: a
    preallocated cache, whose returned views change under the caller at the next write."""
    for node in ast.walk(function):
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Subscript) and ast.unparse(t.value) == state
                   for t in targets):
                return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr.endswith("_") and ast.unparse(node.func.value) == state:
            return True
    return False


def container_outlives_call(container: str, function: Optional[ast.AST]) -> bool:
    """`self.feats`, a list the caller passed in, or a local list that leaves the function
    without being concatenated into a fresh tensor first."""
    if container.startswith("self."):
        return True
    if function is None or not container.isidentifier():
        return False
    arguments = function.args
    parameters = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
    if container in parameters:
        return True
    escapes = False
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and consumes(node, container):
            return False
        if isinstance(node, (ast.Return, ast.Yield)) and node.value is not None and \
                names_in(node.value, container):
            escapes = True
        if isinstance(node, ast.Assign) and names_in(node.value, container) and \
                any(isinstance(t, ast.Attribute) for t in node.targets):
            escapes = True
    return escapes


def consumes(call: ast.Call, container: str) -> bool:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else \
        func.id if isinstance(func, ast.Name) else ""
    return name in CONSUMERS and any(isinstance(a, ast.Name) and a.id == container
                                     for a in call.args)


def names_in(node: ast.expr, name: str) -> bool:
    """`lst`, `(out, lst)`, `[lst]`: the container itself, not an expression computed from it."""
    if isinstance(node, ast.Name):
        return node.id == name
    if isinstance(node, (ast.Tuple, ast.List)):
        return any(names_in(element, name) for element in node.elts)
    return False
