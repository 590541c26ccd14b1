"""CTG112: `torch.save` of a view writes the view's whole base storage."""
from __future__ import annotations

import ast
from dataclasses import replace
from typing import Iterable, Optional

from contiglint.catalogue.sinks import function_names
from contiglint.findings import Fix, Related
from contiglint.layout.sinks.records import Sink
from contiglint.rules.base import Report, Rule, RuleContext
from contiglint.rules.messages import called_from, related
from contiglint.rules.statements import needs_parentheses
from contiglint.rules.tensor_evidence import surely_tensor


class SaveOfView(Rule):
    """Flags `torch.save` of a view that covers only part of a larger tensor.

    **What it flags.** `torch.save(x, f)` where `x` is a slice, `narrow`, `select`, `chunk`,
    `split`, `unbind` piece or an integer index of a bigger tensor, passed directly or as an
    item of a dict, list or tuple literal (`torch.save({"emb": table[:n]}, f)`).

    **Why.** `torch.save` serializes storages, not views: a view is written together with its
    whole base storage, so that views sharing it load back sharing it. Saving 2 elements of a
    1M-element float tensor writes 4 MB (`x[:2]` of `torch.randn(1_000_000)`: 4,001,577 bytes
    to a `BytesIO`, 1,577 after `.clone()`); a column `big[:, 0]` of a 1000x1000 tensor writes
    all 4 MB too. Checkpoints of a trimmed embedding, of the first k heads, or of one item of a
    batch silently carry the full tensor, and loading them allocates it all again.

    **Example.**

        head = logits[:, :num_classes]
        torch.save({"head": head}, "head.pt")   # CTG112: writes all of `logits`

    **Fix.** `.clone()` the view before saving it (safe: `clone()` keeps the values, dtype and
    shape, so what `torch.load` returns has the same values; only the size on disk changes).
    When the saved dict, list or tuple holds several tensors the fix is unsafe: views of one
    base saved together load back sharing memory, and a clone no longer does.

    **When to ignore.** When several views of one tensor are saved together on purpose, so
    that they load back sharing memory. Suppress with `# noqa: CTG112`.
    """

    code = "CTG112"
    name = "save-of-view"
    summary = "`torch.save` of a slice or other partial view writes the whole base storage"
    sinks = frozenset({"save"})
    names = function_names("save")
    fix_safety = "safe or unsafe"
    severity = "warning"

    def check(self, sink: Sink, ctx: RuleContext) -> Iterable[Report]:
        tensor = sink.tensor
        if tensor is None or tensor.partial is None or sink.target is None:
            return
        if not surely_tensor(tensor, tensor.partial):
            return
        where = tensor.partial
        message = (f"torch.save of a view{called_from(sink)} writes the whole storage it views, "
                   f"not only its elements; save .clone() instead")
        places = (Related(where.line, where.column, f"the partial view is made here by "
                                                    f"`{where.op}`"),)
        places += related(sink, replace(tensor, origin=None))  # the calls that carried it in
        yield Report(sink.target, message, self.fix(sink, ctx), places)

    @staticmethod
    def fix(sink: Sink, ctx: RuleContext) -> Optional[Fix]:
        target = sink.target
        if needs_parentheses(target):
            edit = ctx.source.replace(target, f"({ctx.source.segment(target)}).clone()")
        else:
            edit = ctx.source.insert_after(target, ".clone()")
        saved = sink.node.args[0] if isinstance(sink.node, ast.Call) and sink.node.args else None
        safety = "unsafe" if tensors_saved_together(saved) > 1 else "safe"
        return Fix(safety, (edit,), "save a .clone() of the view")


def tensors_saved_together(saved: Optional[ast.expr]) -> int:
    """How many non-constant items a saved dict/list/tuple literal holds: views saved together
    may share storage on purpose, and cloning one of them changes what loads back shared."""
    if isinstance(saved, ast.Dict):
        items = saved.values
    elif isinstance(saved, (ast.List, ast.Tuple)):
        items = saved.elts
    else:
        return 1
    return sum(tensors_saved_together(item) if isinstance(item, (ast.Dict, ast.List, ast.Tuple))
               else not isinstance(item, ast.Constant) for item in items)
