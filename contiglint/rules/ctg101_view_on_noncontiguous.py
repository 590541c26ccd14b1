"""CTG101: `.view()` that must merge dims which are not adjacent in memory."""
from __future__ import annotations

import ast
from typing import Iterable, Optional

from contiglint.catalogue.dtypes import CONVERSIONS as CONVERSION_DTYPES
from contiglint.catalogue.dtypes import ELEMENT_SIZE
from contiglint.findings import Edit, Fix
from contiglint.layout.model.dtype_views import last_dim_unit_stride
from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.leads import at_one_leading_dim
from contiglint.layout.model.path_facts import bind_size
from contiglint.layout.model.values import Tensor
from contiglint.layout.model.view_verdict import view_verdict
from contiglint.layout.model.witness import (Witness, dtype_view_witness, own_sizes,
                                             view_witness)
from contiglint.layout.model.witness_sizes import Names
from contiglint.layout.sinks.records import ViewSink
from contiglint.rules.base import Option, Report, Rule, RuleContext
from contiglint.rules.messages import called_from, made_by, related


class ViewOnNonContiguous(Rule):
    """Flags `.view(shape)` / `.view_as(other)` on a tensor whose layout cannot be viewed so.

    **What it flags.** A `.view()` needs no contiguous input: it fails only when it must
    *merge* dims that are not adjacent in memory. That is what happens after `transpose`,
    `permute`, `movedim`, `.mT`, narrowing or slicing an inner dim, `expand`, or on
    channels_last conv outputs, when the target shape merges the dims they moved or cut.
    Also `.view(dtype)` to a dtype of another element size when the last dim is not
    unit-stride, which torch checks even where that dim has size 1 and the tensor is
    contiguous (`torch.randn(1, 3).t()` has strides (1, 3): pytorch#116333).

    **Why.** torch raises at run time:

        RuntimeError: view size is not compatible with input tensor's size and stride (at
        least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.

    Often only on some inputs or code paths, so it surfaces in production, not in tests.

    **Example.**

        q, k, v = qkv.reshape(B, N, 3, H, D).permute(2, 0, 3, 1, 4)  # each (B, H, N, D)
        x = (q @ k.transpose(-2, -1)).softmax(-1) @ v                # (B, H, N, D)
        x = x.transpose(1, 2).view(B, N, H * D)   # CTG101: merges H and D after the transpose

    The finding names a witness, sizes under which torch raises: `raises for B=2, N=3, H=4,
    D=5: (2, 3, 4, 5) with strides (60, 5, 15, 1) viewed as (2, 3, 20)`. Where the sizes
    decide which dims merge (`B, N, K, S = x.shape; x.transpose(2, 3).view(B, N, -1, K * 2)`
    raises unless K is 1), the view is reported when the code writes the target in the
    tensor's own sizes and some of them fail; a size the code only reads (`mask.size(0)`,
    which data may fix) must fail at every value tried. Where the code names a tensor's last
    dims and leaves the others to a lead of any length (`*batch, C, D = x.shape`), a view that
    folds the leading dims (`x.mT.view(-1, C)`: the same shape without them, a merge of a
    leading dim with the swapped D with them) is reported with a witness at one leading dim,
    x's first: `raises for x.size(0)=2, D=3, C=4: (2, 3, 4) with strides (12, 1, 3) viewed as
    (6, 4)`. Without a witness (the tensor's rank
    or sizes are not shown by the code, only assumed, or the target names sizes from
    elsewhere, such as a layer's configured width) the view is reported in `--strict` mode
    only.

    **Fix.** `.reshape(...)` (safe: it returns a view wherever `.view` would have succeeded and
    copies only where `.view` raises). With `fix-style = "contiguous-view"` the fix inserts
    `.contiguous()` before `.view` instead (unsafe: it copies even where `.view` aliased).
    Splitting a dim, adding size-1 dims or merging dims that are still in memory order is not
    flagged: those views succeed.

    **When to ignore.** When the shapes at run time make the merged dims size 1. Suppress with
    `# noqa: CTG101`.
    """

    code = "CTG101"
    name = "view-on-noncontiguous"
    summary = "`.view()` merges dims that a transpose, slice or expand separated in memory"
    sinks = frozenset({"view"})
    fix_safety = "safe or unsafe"
    options = {"fix-style": Option(
        "reshape", ("reshape", "contiguous-view"),
        "reshape: `.view(` -> `.reshape(` (safe); contiguous-view: insert `.contiguous()` "
        "before `.view(` (unsafe)")}

    def check(self, sink: ViewSink, ctx: RuleContext) -> Iterable[Report]:
        tensor = sink.tensor
        if tensor is not None and sink.dtype:
            yield from self.check_dtype_view(sink, ctx)  # contiguous or not: the last stride
            return
        if tensor is None or not tensor.noncontiguous:
            return
        owner = sink.owner or ast.unparse(sink.target)
        verdict, witness = _witnessed(tensor, sink, owner)
        whole = at_one_leading_dim(tensor) if witness is None and not sink.led else None
        folds = False
        if whole is not None:  # a view that folds leading dims the code never counts
            folded, witness = _witnessed(whole, sink, owner)
            folds = witness is not None  # it raises where there are some, not where none
            if folds:
                verdict = "merge"
            elif verdict == "ok":
                verdict = folded  # ok without leading dims: what one says (strict mode)
        if verdict == "ok" or witness is None and not ctx.strict:
            return  # no concrete sizes shown by the code fail: strict-mode only
        call = sink.node
        text = "raises" if verdict == "raises" and not tensor.maybe else "can raise"
        how = made_by(evolve(tensor, maybe=False) if folds else tensor) + called_from(sink) + \
            (", merging its leading dims," if folds else "")
        message = (f".view() on a tensor {how} {text} 'view size is not compatible with input "
                   f"tensor's size and stride'")
        yield Report(call, message, self.fix(call, ctx), related(sink, tensor), witness)

    def check_dtype_view(self, sink: ViewSink, ctx: RuleContext) -> Iterable[Report]:
        source = source_itemsize(sink.target, sink.tensor)
        new = ELEMENT_SIZE.get(sink.dtype.split(".")[-1])  # None: `view(dtype=kind)`
        if last_dim_unit_stride(sink.tensor) is not False or \
                source is not None and source == new:
            return
        known = source is not None and new is not None  # else the sizes may be equal
        tensor = sink.tensor
        witness = dtype_view_witness(tensor.geometry, source, new, sink.path) \
            if known and tensor.geometry is not None else None
        if witness is None and not ctx.strict:
            return  # the element sizes or the layout are not shown: strict-mode only
        what = f"a tensor {made_by(tensor)} whose last dim is not unit-stride" \
            if tensor.noncontiguous else \
            "a contiguous tensor whose size-1 last dim has a stride other than 1 (torch " \
            "checks it all the same)"
        message = (f".view({sink.dtype}) on {what} raises" +
                   (" (its element size differs)" if known else
                    " when the element size differs") + "; call .contiguous() first")
        call = sink.node
        fix = Fix("unsafe", (ctx.source.insert_after(call.func.value, ".contiguous()"),),
                  "insert .contiguous() before .view(dtype)")
        yield Report(call, message, fix, related(sink, tensor), witness)

    def fix(self, call: ast.Call, ctx: RuleContext) -> Fix:
        func = call.func
        if ctx.option("fix-style") == "contiguous-view":
            return Fix("unsafe", (ctx.source.insert_after(func.value, ".contiguous()"),),
                       "insert .contiguous() before .view()")
        start, end = ctx.source.attribute_name(func)
        replacement = "reshape_as" if func.attr == "view_as" else "reshape"
        return Fix("safe", (Edit(start, end, replacement),), f"replace .{func.attr}() with "
                   f".{replacement}(), which copies where .view() would raise")


def _witnessed(tensor: Tensor, sink: ViewSink, owner: str) -> tuple[str, Optional[Witness]]:
    """Would the view raise (view_verdict.py), and the witness of it, where concrete sizes the
    code shows fail."""
    verdict = view_verdict(tensor, list(sink.sizes) if sink.sizes is not None else None, owner)
    if verdict == "ok":
        return verdict, None
    # Where the rank is unknown, a view into fewer dims than the ops before it need ("raises"
    # of the least rank they allow) is witnessed at that rank; any other guess is strict-only.
    geometry = tensor.witness_geometry \
        if tensor.geometry is not None or verdict == "raises" else None
    if verdict in ("raises", "merge") and geometry is not None and sink.sizes is not None:
        return verdict, view_witness(geometry, own_sizes(geometry, sink.sizes, owner),
                                     sink.path)
    if geometry is not None and named(tensor, sink.sizes):
        return verdict, _whatever_stand_ins(tensor, list(sink.sizes), owner, sink)
    return verdict, None


def named(tensor: Tensor, target: Optional[tuple]) -> bool:
    """Whether the view's target is written in the tensor's own sizes: every size of its
    layout and of the target is known, and the target's sizes are made of names its layout's
    sizes are made of (`B, N, K, S = x.shape; x.transpose(2, 3).view(B, N, -1, K * 2)`),
    none of them a stand-in (below). Where the verdict leaves it to the sizes, a witness then
    gives values to those names only. A name the target takes from elsewhere
    (`self.embed_dim`, `x_size[0]`) may be tied to them in ways the code does not show (it is
    the channel count the layer was built for), and a witness that sets it apart would be a
    guess."""
    geometry = tensor.geometry
    if geometry is None or tensor.maybe or target is None:
        return False
    sizes = [size for size in target if size != "-1"]
    if any(size is None for size in (*geometry.sizes, *sizes)):
        return False
    wanted = size_names(sizes)
    return wanted <= size_names(geometry.sizes) and not stand_ins(wanted)


def stand_ins(names) -> list[str]:
    """The names that only stand for a size the code does not show (`t.size(0)`, `x.shape[1]`):
    its value may be fixed where the code cannot see (the data of a `torch.tensor(pairs)`)."""
    return sorted(name for name in names if ".size(" in name or ".shape" in name)


STAND_IN_VALUES = (2, 1, 3, 5, 8)  # the witness shown is at the first


def _whatever_stand_ins(tensor: Tensor, target: list, owner: str, sink: ViewSink):
    """A witness of a view whose target is written in the tensor's own sizes (`named`), that
    holds whatever size its stand-ins have: the other names are a caller's to choose, a
    stand-in's may be fixed by data, so the view must fail for each value of them tried (the
    witness at the first is shown); None where one has none."""
    unknown = stand_ins(size_names(tensor.geometry.sizes))
    if not unknown:
        return view_witness(tensor.geometry, own_sizes(tensor.geometry, target, owner),
                            sink.path)
    shown = None
    for value in STAND_IN_VALUES:
        bound = tensor
        for name in unknown:
            bound = bind_size(bound, name, value)
        witness = view_witness(bound.geometry, own_sizes(bound.geometry, target, owner),
                               sink.path)
        if witness is None:
            return None
        shown = shown or witness
    return shown


def size_names(sizes) -> set:
    """The names known sizes are made of (`C // H` is C and H), as a witness names them."""
    names = Names()
    for size in sizes:
        names.add(size)
    return set(names.atoms)


CONVERSIONS = {name: ELEMENT_SIZE[dtype] for name, dtype in CONVERSION_DTYPES.items()}


def source_itemsize(receiver: ast.expr, tensor: Tensor) -> Optional[int]:
    """The element size of the tensor a `.view(dtype)` reinterprets: from its tracked dtype
    (a literal `dtype=`, `.half()`, `.to(torch.bfloat16)` upstream), else from a conversion in
    the receiver itself; None when the code does not show it. A view between dtypes of the
    same element size never raises, so an unknown source size leaves the verdict unknown
    rather than taking torch's default float32 (fp8 and e8m0 data are viewed as uint8)."""
    if tensor.dtype is not None and tensor.dtype in ELEMENT_SIZE:
        return ELEMENT_SIZE[tensor.dtype]
    if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute):
        name = receiver.func.attr
        if name in CONVERSIONS:
            return CONVERSIONS[name]
        if name in ("to", "type"):
            given = receiver.args[:1] + [k.value for k in receiver.keywords if k.arg == "dtype"]
            for text in (ast.unparse(node).split(".")[-1] for node in given):
                if text in ELEMENT_SIZE:
                    return ELEMENT_SIZE[text]
    return None
