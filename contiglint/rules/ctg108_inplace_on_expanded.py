"""CTG108: an in-place write into a tensor whose elements share memory (expand, overlapping
unfold or as_strided)."""
from __future__ import annotations

import ast
from typing import Iterable, Optional

from contiglint.catalogue import inplace
from contiglint.findings import Fix
from contiglint.layout.sinks.records import Sink
from contiglint.layout.model.sizes import literal, symbol
from contiglint.layout.model.values import Kind, Origin
from contiglint.layout.model.witness import Witness, windows_witness
from contiglint.rules.base import Report, Rule, RuleContext
from contiglint.rules.messages import called_from, related

E1 = ("'unsupported operation: more than one element of the written-to tensor refers to a "
      "single memory location'")
FILLS = inplace.FILLS
DEPRECATED_WRITES = inplace.DEPRECATED_WRITES
AUGMENTED = {"Add": "+=", "Sub": "-=", "Mult": "*=", "Div": "/=", "FloorDiv": "//=", "Mod": "%=",
             "Pow": "**=", "MatMult": "@=", "BitAnd": "&=", "BitOr": "|=", "BitXor": "^=",
             "LShift": "<<=", "RShift": ">>="}


class InplaceOnExpanded(Rule):
    """Flags in-place writes into a tensor made by `expand`, `expand_as`, `broadcast_to`,
    `broadcast_tensors`, `meshgrid`, an overlapping `unfold` (step < size) or an overlapping
    `as_strided`.

    **What it flags.** Such tensors are views in which several elements are one memory
    location. Writing into them in place (`x.add_()`, `x += y`, `x.copy_()`, `x.fill_()`,
    `x[i] = v`, `x.masked_fill_()`, ...) either fails or does something other than it reads.

    **Why.** Measured on torch 2.13:

    * arithmetic and random in-place ops and `copy_` on an expanded tensor raise

          RuntimeError: unsupported operation: more than one element of the written-to tensor
          refers to a single memory location. Please clone() the tensor before performing the
          operation.

    * `fill_()` and `zero_()` raise nothing: they write the one shared location, so the tensor
      the view was expanded from changes too;
    * `x[i] = v` writes through to the expanded-from tensor, so every row sharing it changes
      (it raises instead when the selected part itself overlaps, as in `x[..., 0] = v`);
    * `masked_fill_`, `index_put_` (also `x[mask] = v`) and `index_fill_` only warn
      `Use of masked_fill_ on expanded tensors is deprecated` and write through;
    * on overlapping `unfold`/`as_strided` windows nothing is detected: an element shared by
      several windows gets `add_` once per window, and copies overwrite each other.

    **Example.**

        class PatchEmbed(nn.Module):
            def __init__(self, num_patches, dim):
                super().__init__()
                self.pos_embed = nn.Parameter(torch.zeros(1, num_patches + 1, dim))

            def forward(self, x, cls_token):
                pos = self.pos_embed.expand(x.shape[0], -1, -1)   # (B, N + 1, D) of (1, N + 1, D)
                pos[:, 0] = cls_token                             # CTG108
                return x + pos

    **Fix.** Materialise the view where it is made: `.expand(...).clone()` (unsafe). It turns
    the view into an independent tensor, which is what code that writes into it treats it as;
    it is unsafe because it costs a full copy, and because code that relied on writing through
    to the expanded-from tensor (a `fill_` meant to reset the source) would no longer do so.
    No fix is offered when the write goes into a temporary (`x.expand(...).fill_(0)`: there
    the write-through is the only effect of the statement), when the view is made in another
    function (a `.clone()` there would copy for every caller), or for `meshgrid` /
    `broadcast_tensors` results (clone the item you write). An in-place op on a clone, or on a
    non-overlapping part of the view (`x.expand(3, 4).clone().add_(1)`,
    `torch.arange(4.).expand(3, 4)[0].add_(1)`), is not flagged.

    **Witness.** A default-mode finding names sizes the code allows under which two elements
    of the written tensor are one memory location: a dim of 2 or more elements with stride 0
    (`elements share memory for B=2: (2, 8) with strides (0, 1)`, where `add_` raises), or two
    windows that share elements (from the literals of `unfold`'s size and step, of
    `as_strided`'s sizes and strides). `x.expand(n, -1)` of an `x` whose sizes the code does
    not show may expand nothing (x may have n rows already): that is reported in strict mode
    only. `contiglint verify` replays each witness under torch.

    **Strict mode** also flags writes into `unfold` windows whose size and step are not both
    literals (they overlap when step < size), and expanded tensors without a witness.

    **When to ignore.** When writing through to the expanded-from tensor is intended and the op
    is a plain fill. Suppress with `# noqa: CTG108`.
    """

    code = "CTG108"
    name = "inplace-on-expanded"
    summary = "in-place write into an expanded or overlapping view raises or aliases every row"
    sinks = frozenset({"inplace"})
    fix_safety = "unsafe"
    tokens = frozenset({"expand", "broadcast", "unfold", "as_strided", "meshgrid"})
    # the ops whose results share elements, named exactly (a token is in `expand_ratio` too)
    names = frozenset({"expand", "expand_as", "broadcast_to", "broadcast_tensors", "meshgrid",
                       "unfold", "as_strided"})

    def check(self, sink: Sink, ctx: RuleContext) -> Iterable[Report]:
        tensor = sink.tensor
        if tensor is None or tensor.kind is not Kind.BROADCAST:
            return
        op = sink.op.strip(".()")
        if inplace.inplace_kind(op) == "metadata":
            return
        overlap, witness = _overlap(tensor.origin, ctx)
        if overlap == "none" or (overlap == "unknown" and not ctx.strict):
            return
        if overlap == "broadcast":
            proven, witness = ctx.overlapping(tensor, sink.path)
            if not proven:
                return
        elif overlap == "windows" and witness is None and not ctx.strict:
            return  # no sizes the code allows show two windows sharing an element
        what = self.describe_write(sink, op)
        where = _made_by(tensor.origin) + (" on some paths" if tensor.maybe else "")
        if overlap in ("windows", "unknown"):
            can = "may write" if overlap == "unknown" else "writes"
            effect = (f"{can} each element shared by overlapping windows once per window, with "
                      f"no error: the result is silently wrong")
        elif op in FILLS:
            effect = ("raises nothing and writes the shared memory, so the tensor it was "
                      "expanded from changes too")
        elif op in DEPRECATED_WRITES:
            effect = "only warns (deprecated) and writes through to the tensor it was expanded from"
        elif op == "item assignment":
            effect = ("writes through to the tensor it was expanded from (or raises when the "
                      "selected part overlaps)")
        else:
            effect = f"raises {E1}"
        message = f"{what} on a tensor {where}{called_from(sink)} {effect}; clone() it first"
        yield Report(sink.node, message, self.fix(sink, ctx), related(sink, tensor),
                     witness=witness)

    @staticmethod
    def describe_write(sink: Sink, op: str) -> str:
        if op == "item assignment":
            return "Item assignment"
        if op.endswith(" assignment"):
            return f"`{AUGMENTED.get(op.split()[0], 'augmented assignment')}`"
        if sink.op.endswith("(inplace=True)"):
            return f"`{sink.op.replace('torch.nn.functional.', 'F.')}`"
        if sink.op.startswith("torch."):
            return f"`{sink.op}()`"
        return f"`.{op}()`"

    def fix(self, sink: Sink, ctx: RuleContext) -> Optional[Fix]:
        """`.clone()` right after the op that made the overlapping view, when the write goes
        into a variable or attribute (the view is then used as an independent tensor)."""
        origin = sink.tensor.origin
        if origin is None or not isinstance(sink.target, (ast.Name, ast.Attribute)):
            return None
        call = _origin_call(origin, ctx) if sink.function is not None else None
        if call is not None and not ctx.module.contains(sink.function, call):
            call = None  # made in another function
        if call is None or _returns_sequence(call):  # made elsewhere: cloning there would copy
            return None
        return Fix("unsafe", (ctx.source.insert_after(call, ".clone()"),),
                   f"materialise the view with .clone() after `{origin.op}`")


def _made_by(origin: Optional[Origin]) -> str:
    if origin is None:
        return "whose elements share memory"
    return "whose elements overlap" if "unfold" in origin.op or "as_strided" in origin.op \
        else "expanded"


def _overlap(origin: Optional[Origin], ctx: RuleContext) -> tuple[str, Optional[Witness]]:
    """"broadcast": stride-0 dims (`expand`, `broadcast_to`...), torch detects the overlap;
    "windows": `unfold` with step < size or `as_strided` with repeated non-zero strides,
    torch detects nothing, with the witness its literals give; "unknown": an `unfold` whose
    literals do not show the overlap; "none": an `unfold` whose literals show that the
    windows do not overlap."""
    if origin is None:
        return "broadcast", None
    call = _origin_call(origin, ctx)
    if "unfold" in origin.op:
        if call is None or len(call.args) < 3:
            return "unknown", None
        size, step = (_literal(a) for a in call.args[1:3])
        if size is None or step is None:
            same = ast.dump(call.args[1]) == ast.dump(call.args[2])
            return ("none" if same else "unknown"), None
        if step >= size:
            return "none", None
        # two windows of a dim of size + step elements share size - step of them
        return "windows", windows_witness([literal(2), literal(size)], [step, 1])
    if "as_strided" in origin.op:
        shapes = [a for a in (call.args if call is not None else [])
                  if isinstance(a, (ast.Tuple, ast.List))][-2:]
        strides = [_literal(e) for e in shapes[-1].elts] if shapes else []
        if 0 in strides:
            return "broadcast", None
        sizes = [literal(n) if (n := _literal(e)) is not None else symbol(ast.unparse(e))
                 for e in shapes[0].elts] if len(shapes) == 2 else []
        witness = windows_witness(sizes, strides) if sizes and None not in strides and \
            len(sizes) == len(strides) else None
        return "windows", witness
    return "broadcast", None


def _origin_call(origin: Origin, ctx: RuleContext) -> Optional[ast.Call]:
    """The call that made the tensor, found in the module by its position."""
    return ctx.module.call_at(origin.line, origin.column, ctx.source) if ctx.module else None


def _literal(node: ast.expr) -> Optional[int]:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, int) else None


def _returns_sequence(call: ast.Call) -> bool:
    name = call.func.attr if isinstance(call.func, ast.Attribute) else ""
    return name in ("meshgrid", "broadcast_tensors")
